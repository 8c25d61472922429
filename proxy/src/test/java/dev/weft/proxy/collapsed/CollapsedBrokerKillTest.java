package dev.weft.proxy.collapsed;

import dev.weft.proxy.testing.AckTally;
import dev.weft.proxy.testing.ScrapedMetrics;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.iocore.testing.LogCapture;
import dev.weft.proxy.session.Session;
import dev.weft.proxy.testing.Poll;
import dev.weft.testkit.KafkaCluster;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * A real broker SIGKILLed and restarted under an idempotent producer writing through a collapsed
 * virtual cluster (issue 9). Three brokers, each in a JVM of its own, and a dedicated controller (the
 * kill never touches the quorum); a topic of 6 partitions, replication factor 3,
 * {@code min.insync.replicas=2}; 3 proxy nodes in one Weft instance. The client only knows proxy nodes,
 * and their virtual leaders do not move when the real ones do: the proxy itself has to notice the dead
 * broker, answer retriably, learn the new real leaders and send the retried batches there.
 *
 * <p>An idempotent acks=all producer (default retries and delivery timeout) writes small numbered
 * records at a steady rate; the real leader of partition 0 is SIGKILLed once 8,000 are acknowledged and
 * restarted once 8,000 more are; when the rate-paced run is over, preferred leaders are elected again
 * (leadership goes back to the restarted broker) and the same producer writes another 2,000 records.
 * Afterwards: every record was acknowledged (none failed), no Produce request was left unanswered
 * until the producer's request timeout (the dead broker's partitions are answered with retriable
 * errors, DESIGN §5), each record is in the topic exactly once (read
 * directly from the cluster and through the proxy), in send order per partition; the killed broker's
 * partitions were acknowledged again after the kill, the proxy logged that its connections to the
 * killed broker (named by address) ended, and it sent Produce sub-requests to the restarted broker. The
 * proxy was never restarted.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 6, unit = TimeUnit.MINUTES)
class CollapsedBrokerKillTest {

    private static final int PACED = 40_000;
    private static final int AFTER_ELECTION = 2_000;
    private static final int RECORDS = PACED + AFTER_ELECTION;
    private static final int RATE_PER_SECOND = 4_000;
    private static final int PARTITIONS = 6;
    private static final String TOPIC = "collapsed-under-fire";

    private KafkaCluster kafka;
    private CollapsedFixture.Fleet fleet;

    @BeforeAll
    void start() {
        kafka = KafkaCluster.builder().brokers(3).dedicatedControllers(1).forked(true).build().start();
        fleet = CollapsedFixture.start(CollapsedFixture.Upstreams.cluster(kafka), 3, 100);
    }

    @AfterAll
    void stop() {
        CollapsedFixture.closeAll(fleet, kafka);
    }

    @Test
    void everyAcknowledgedRecordIsThereExactlyOnceAfterABrokerIsKilledAndRestarted() throws Exception {
        kafka.createTopic(TOPIC, PARTITIONS, 3, Map.of("min.insync.replicas", "2"));
        Wire.awaitVisible(fleet, TOPIC, PARTITIONS);
        Map<Integer, Integer> leaders = realLeaders();
        assertEquals(Set.copyOf(kafka.brokerIds()), Set.copyOf(leaders.values()), "test setup: real leaders on every broker");
        int victim = leaders.get(0);
        Set<Integer> victimPartitions = leaders.entrySet().stream().filter(e -> e.getValue() == victim)
                .map(Map.Entry::getKey).collect(Collectors.toSet());
        OptionalLong pid = kafka.pid(victim);
        assertTrue(kafka.isForked() && pid.isPresent(), "test setup: broker " + victim + " runs in a process of its own");

        // 0 = pending, 1 = acknowledged, 2 = failed
        AtomicIntegerArray status = new AtomicIntegerArray(RECORDS);
        AtomicLongArray ackNanos = new AtomicLongArray(RECORDS);
        AtomicIntegerArray partitionOf = new AtomicIntegerArray(RECORDS);
        AtomicInteger acked = new AtomicInteger();
        AtomicInteger failed = new AtomicInteger();
        Map<String, Integer> failures = new ConcurrentHashMap<>();

        Map<String, Object> p = new HashMap<>();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, fleet.bootstrap());
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        p.put(ProducerConfig.CLIENT_ID_CONFIG, "collapsed-under-fire");
        long startNanos;
        long killedNanos;
        int ackedAtKill;
        int ackedAtRestart;
        Map<Integer, Double> victimProducesAfterElection;
        String victimAddress = kafka.brokerAddress(victim);
        List<String> aboutVictim;
        List<String> timedOut;
        try (LogCapture sessions = LogCapture.of(Session.class);
                LogCapture sender = LogCapture.of(org.apache.kafka.clients.producer.internals.Sender.class);
                KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            startNanos = System.nanoTime();
            long start = startNanos;
            Thread pacer = Thread.ofPlatform().name("collapsed-under-fire-sender").start(() -> {
                for (int i = 0; i < PACED; i++) {
                    long wait = start + i * (1_000_000_000L / RATE_PER_SECOND) - System.nanoTime();
                    if (wait > 0) {
                        LockSupport.parkNanos(wait); // pacing the load, not synchronisation
                    }
                    send(producer, i, status, ackNanos, partitionOf, acked, failed, failures);
                }
            });
            Poll.until(Duration.ofSeconds(60), "8,000 acknowledgements before the kill", () -> acked.get() >= 8_000,
                    () -> acked + " acked, " + failed + " failed " + failures);
            ackedAtKill = acked.get();
            kafka.killBroker(victim);
            killedNanos = System.nanoTime();
            Poll.until(Duration.ofSeconds(90), "8,000 more acknowledgements after the kill of broker " + victim,
                    () -> acked.get() >= ackedAtKill + 8_000, () -> acked + " acked, " + failed + " failed " + failures);
            ackedAtRestart = acked.get();
            kafka.restartBroker(victim);
            pacer.join(Duration.ofSeconds(120));
            assertTrue(!pacer.isAlive(), "the sender finished");
            producer.flush();
            Poll.until(Duration.ofSeconds(150), "a callback for every paced record", () -> acked.get() + failed.get() == PACED,
                    () -> acked + " acked, " + failed + " failed " + failures);
            awaitFullIsr();

            // leadership back to the restarted broker: the proxy must reach it again, on the same producer
            kafka.admin().electLeaders(ElectionType.PREFERRED, null).partitions().get(30, TimeUnit.SECONDS);
            Poll.untilNoThrow(Duration.ofSeconds(30), "broker " + victim + " to lead partition 0 again",
                    () -> realLeaders().get(0) == victim);
            ScrapedMetrics beforeLast = ScrapedMetrics.of(fleet.replica(0));
            for (int i = PACED; i < RECORDS; i++) {
                send(producer, i, status, ackNanos, partitionOf, acked, failed, failures);
            }
            producer.flush();
            Poll.until(Duration.ofSeconds(90), "a callback for every record", () -> acked.get() + failed.get() == RECORDS,
                    () -> acked + " acked, " + failed + " failed " + failures);
            victimProducesAfterElection = beforeLast.growth(ScrapedMetrics.of(fleet.replica(0)), "upstream", "Produce",
                    List.of(victim));
            aboutVictim = sessions.events().stream().map(e -> e.getLevel() + " " + e.getFormattedMessage())
                    .filter(m -> m.contains(victimAddress)).toList();
            // the producer's own account of requests the proxy left unanswered until request.timeout.ms (30 s)
            timedOut = sender.events().stream().map(e -> e.getTimeStamp() + " " + e.getFormattedMessage())
                    .filter(m -> m.contains("REQUEST_TIMED_OUT")).toList();
        }

        int[] direct = countByIndex(Wire.readDirect(kafka.bootstrapServers(), TOPIC), "directly from the cluster");
        Map<String, Object> viaProxyConfig = new HashMap<>();
        viaProxyConfig.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, fleet.bootstrap());
        viaProxyConfig.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        viaProxyConfig.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        int[] viaProxy = countByIndex(Wire.readAll(viaProxyConfig, TOPIC, "proxy"), "through the proxy");

        AckTally tally = AckTally.of(status, direct, viaProxy);
        int missingDirect = tally.missingDirect();
        int missingProxy = tally.missingProxy();
        int duplicates = tally.duplicates();
        int unackedPresent = tally.unackedPresent();
        long victimAcksAfterKill = 0;
        long lastGapNanos = 0;
        List<Long> ackTimes = new ArrayList<>();
        for (int i = 0; i < RECORDS; i++) {
            if (status.get(i) == 1) {
                ackTimes.add(ackNanos.get(i));
                if (victimPartitions.contains(partitionOf.get(i)) && ackNanos.get(i) > killedNanos) {
                    victimAcksAfterKill++;
                }
            }
        }
        ackTimes.sort(Long::compare);
        for (int i = 1; i < ackTimes.size(); i++) {
            lastGapNanos = Math.max(lastGapNanos, ackTimes.get(i) - ackTimes.get(i - 1));
        }
        System.out.printf("[collapsed broker-kill] broker %d (real leader of partitions %s) SIGKILLed after %d acks, restarted"
                        + " after %d acks; records %d, acknowledged %d, failed %d %s; missing directly %d, through the proxy %d;"
                        + " duplicates %d; unacknowledged present %d; acks on its partitions after the kill %d; longest pause in"
                        + " acknowledgements %d ms; Produce sub-requests to it after the preferred election %s; proxy log"
                        + " lines naming it: %d, e.g. %s; Produce requests the producer timed out: %d %s%n",
                victim, victimPartitions, ackedAtKill, ackedAtRestart, RECORDS, acked.get(), failed.get(), failures, missingDirect,
                missingProxy, duplicates, unackedPresent, victimAcksAfterKill, TimeUnit.NANOSECONDS.toMillis(lastGapNanos),
                victimProducesAfterElection, aboutVictim.size(), aboutVictim.stream().distinct().limit(3).toList(),
                timedOut.size(), timedOut.stream().limit(3).toList());

        assertEquals(0, failed.get(), () -> "records the producer failed (the proxy must turn a dead broker into retriable"
                + " errors and follow the new leaders): " + failures);
        assertEquals(List.of(), timedOut, "Produce requests the proxy left unanswered until the producer's request timeout"
                + " (30 s): a dead broker's partitions must be answered with retriable errors");
        assertEquals(0, missingDirect, "acknowledged records missing from the cluster");
        assertEquals(0, missingProxy, "acknowledged records missing when read through the proxy");
        assertEquals(0, duplicates, "records written more than once (idempotent producer)");
        assertEquals(0, unackedPresent, "records present that were never acknowledged");
        assertTrue(victimAcksAfterKill > 0, "records of the killed broker's partitions were acknowledged after the kill");
        assertTrue(aboutVictim.stream().anyMatch(m -> m.contains("connection to broker " + victimAddress)
                        || m.contains("broker " + victimAddress + " (") && m.contains("closed the connection")),
                () -> "the proxy logged that its connections to the killed broker " + victim + " (" + victimAddress + ") ended: "
                        + aboutVictim);
        assertTrue(victimProducesAfterElection.get(victim) > 0, () -> "Produce sub-requests to the restarted broker " + victim
                + " once it led again: " + victimProducesAfterElection);
    }

    private static void send(KafkaProducer<byte[], byte[]> producer, int index, AtomicIntegerArray status, AtomicLongArray ackNanos,
            AtomicIntegerArray partitionOf, AtomicInteger acked, AtomicInteger failed, Map<String, Integer> failures) {
        byte[] value = ByteBuffer.allocate(40).putInt(index).array();
        producer.send(new ProducerRecord<>(TOPIC, ByteBuffer.allocate(4).putInt(index).array(), value), (md, e) -> {
            if (e == null) {
                ackNanos.set(index, System.nanoTime());
                partitionOf.set(index, md.partition());
                status.set(index, 1);
                acked.incrementAndGet();
            } else {
                status.set(index, 2);
                failed.incrementAndGet();
                failures.merge(e.getClass().getSimpleName() + ": " + e.getMessage(), 1, Integer::sum);
            }
        });
    }

    /**
     * How often each record index is in {@code records}; fails if, within a partition, indices do not
     * increase with offsets (send order per partition).
     */
    private static int[] countByIndex(List<Records.Got> records, String how) {
        int[] counts = new int[RECORDS];
        Map<Integer, Integer> lastIndex = new TreeMap<>();
        Map<Integer, Long> lastOffset = new TreeMap<>();
        List<String> outOfOrder = new ArrayList<>();
        for (Records.Got g : records) {
            int index = ByteBuffer.wrap(g.value()).getInt(0);
            counts[index]++;
            Long previousOffset = lastOffset.put(g.partition(), g.offset());
            Integer previous = lastIndex.put(g.partition(), index);
            if (previousOffset != null && previousOffset >= g.offset()) {
                outOfOrder.add("partition " + g.partition() + ": offset " + g.offset() + " after " + previousOffset);
            }
            if (previous != null && previous > index && outOfOrder.size() < 20) {
                outOfOrder.add("partition " + g.partition() + ": record " + index + " at offset " + g.offset() + " after record "
                        + previous);
            }
        }
        assertTrue(outOfOrder.isEmpty(), () -> "send order broken, read " + how + ": " + outOfOrder);
        return counts;
    }

    private Map<Integer, Integer> realLeaders() throws Exception {
        TopicDescription d = kafka.admin().describeTopics(List.of(TOPIC)).allTopicNames().get(30, TimeUnit.SECONDS).get(TOPIC);
        Map<Integer, Integer> out = new TreeMap<>();
        for (TopicPartitionInfo info : d.partitions()) {
            out.put(info.partition(), info.leader() == null ? -1 : info.leader().id());
        }
        return out;
    }

    private void awaitFullIsr() {
        Poll.untilNoThrow(Duration.ofSeconds(90), "every partition back to 3 in-sync replicas", () -> {
            TopicDescription d = kafka.admin().describeTopics(List.of(TOPIC)).allTopicNames().get(10, TimeUnit.SECONDS).get(TOPIC);
            return d.partitions().stream().allMatch(i -> i.isr().size() == 3);
        });
    }
}
