package dev.weft.proxy.resilience;

import dev.weft.proxy.testing.AckTally;
import dev.weft.proxy.testing.Poll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.proxy.server.WeftProxy;
import dev.weft.proxy.session.Session;
import dev.weft.proxy.testing.VirtualClusterFixture;
import dev.weft.proxy.testing.VirtualClusterKind;
import dev.weft.testkit.KafkaCluster;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A broker killed and restarted under load, with Weft between the producer and the cluster.
 *
 * <p>Three brokers (and a dedicated controller, so the kill never touches the quorum), a topic with
 * replication factor 3 and {@code min.insync.replicas=2}, and an idempotent producer (acks=all,
 * default retries and delivery timeout) writing 100,000 small records through the proxy at a steady
 * rate. Once 15,000 are acknowledged, the leader of partition 0 is killed (every connection of it
 * drops at once, the controller fences it when its heartbeats stop); once 15,000 more are
 * acknowledged it is restarted. Afterwards every acknowledged record must be in the topic exactly
 * once, read both directly from the cluster and through the proxy, and no record may appear twice.
 * The proxy must have logged which upstream broker failed.
 *
 * <p>For every kind of virtual cluster ({@link VirtualClusterFixture}; the woven kind's second cluster
 * is untouched). Where client connections are bound to brokers (pass-through, woven), the producer's
 * connection to the killed broker's port is closed, with a log line naming the broker; collapsed binds
 * none, so no client connection may be closed for it: the killed broker's partitions fail alone.
 */
class BrokerKillUnderLoadTest {

    private static final int RECORDS = 100_000;
    private static final int RATE_PER_SECOND = 10_000;
    private static final int PARTITIONS = 6;
    private static final String TOPIC = "under-fire";

    private static KafkaCluster kafka;
    private static VirtualClusterFixture fixture;
    private static WeftProxy proxy;
    private static String topic;

    @BeforeAll
    static void start() throws Exception {
        kafka = KafkaCluster.builder().brokers(3).dedicatedControllers(1).build().start();
        fixture = VirtualClusterFixture.over(kafka).build();
    }

    @AfterAll
    static void stop() {
        if (fixture != null) {
            fixture.close();
        }
    }

    @ParameterizedTest
    @MethodSource("dev.weft.proxy.testing.VirtualClusterKind#all")
    void everyAcknowledgedRecordSurvivesABrokerKillAndRestartExactlyOnce(VirtualClusterKind kind) throws Exception {
        topic = kind.name(TOPIC);
        fixture.createTopic(kind, topic, PARTITIONS, 3, Map.of("min.insync.replicas", "2"));
        proxy = fixture.proxy(kind); // after the topic: the partition-woven proxy restarts to add one
        Map<Integer, Integer> leaders = leaders();
        int victim = leaders.get(0);
        Set<Integer> victimPartitions = leaders.entrySet().stream().filter(e -> e.getValue() == victim)
                .map(Map.Entry::getKey).collect(Collectors.toSet());
        String victimAddress = kafka.brokerAddress(victim);
        String victimPort = victimAddress.substring(victimAddress.lastIndexOf(':'));

        // 0 = pending, 1 = acknowledged, 2 = failed
        AtomicIntegerArray status = new AtomicIntegerArray(RECORDS);
        AtomicLongArray ackNanos = new AtomicLongArray(RECORDS);
        AtomicIntegerArray partitionOf = new AtomicIntegerArray(RECORDS);
        AtomicInteger acked = new AtomicInteger();
        AtomicInteger failed = new AtomicInteger();
        Map<String, Integer> failures = new ConcurrentHashMap<>();

        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, ResilientProxy.bootstrap(proxy));
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        p.put(ProducerConfig.CLIENT_ID_CONFIG, "under-fire-producer");
        long startNanos;
        long killNanos;
        long killedNanos;
        long restartNanos;
        long restartedNanos;
        int ackedAtKill;
        int ackedAtRestart;
        List<LogTap.Line> namedVictim = null; // collapsed: what the proxy logged naming the killed broker
        try (LogTap sessions = LogTap.of(Session.class);
                LogTap weft = LogTap.of("dev.weft");
                KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            startNanos = System.nanoTime();
            Thread sender = Thread.ofPlatform().name("under-fire-sender").start(() -> {
                for (int i = 0; i < RECORDS; i++) {
                    long due = startNanos + i * (1_000_000_000L / RATE_PER_SECOND);
                    long wait = due - System.nanoTime();
                    if (wait > 0) {
                        LockSupport.parkNanos(wait); // pacing the load, not synchronisation
                    }
                    int index = i;
                    byte[] value = ByteBuffer.allocate(40).putInt(index).putLong(startNanos).array();
                    producer.send(new ProducerRecord<>(topic, null, value), (md, e) -> {
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
            });

            Poll.until(Duration.ofSeconds(60), "15,000 acknowledgements before the kill", () -> acked.get() >= 15_000,
                    () -> acked + " acked, " + failed + " failed");
            ackedAtKill = acked.get();
            killNanos = System.nanoTime();
            kafka.killBroker(victim);
            killedNanos = System.nanoTime();
            Poll.until(Duration.ofSeconds(90), "15,000 more acknowledgements after the kill",
                    () -> acked.get() >= ackedAtKill + 15_000, () -> acked + " acked, " + failed + " failed");
            ackedAtRestart = acked.get();
            restartNanos = System.nanoTime();
            kafka.restartBroker(victim);
            restartedNanos = System.nanoTime();
            sender.join(Duration.ofSeconds(120));
            assertTrue(!sender.isAlive(), "the sender finished");
            producer.flush();
            Poll.until(Duration.ofSeconds(150), "a callback for every record", () -> acked.get() + failed.get() == RECORDS,
                    () -> acked + " acked, " + failed + " failed");

            List<LogTap.Line> aboutVictim = sessions.lines(l -> l.message().contains(victimPort)
                    && l.message().contains("broker"));
            System.out.printf("[broker-kill %s] proxy session lines naming the killed broker %d (%s): %d, e.g.%n", kind, victim,
                    victimAddress, aboutVictim.size());
            aboutVictim.stream().collect(Collectors.groupingBy(l -> l.message().replaceAll("^c\\d+ \\S+ ", "")
                            .replaceAll("\\d+ request\\(s\\)", "N request(s)"), TreeMap::new, Collectors.toList()))
                    .values().stream().limit(6).forEach(ls -> System.out.println("[broker-kill " + kind + "]   " + ls.get(0)));
            List<LogTap.Line> clientClosed = aboutVictim.stream()
                    .filter(l -> l.message().contains("closing the client connection")).toList();
            if (kind.bindsClientConnectionsToBrokers()) {
                // The producer's connection to the killed broker's port was bound to that broker: closed, with the reason.
                assertTrue(aboutVictim.stream().anyMatch(l -> l.message().contains("closed the connection")
                                || l.message().contains("connection to broker")),
                        "the proxy logged that its upstream connections to broker " + victim + " (" + victimAddress + ") failed");
                assertTrue(aboutVictim.stream().anyMatch(l -> l.message().contains("cannot connect to broker")),
                        "the proxy logged that it cannot connect to broker " + victim + " (" + victimAddress + ")");
            } else {
                // Collapsed: no client connection is bound to a broker, so none is closed for one that died;
                // its partitions fail alone (retriable errors) and the producer follows the new leaders.
                assertEquals(List.of(), clientClosed, "client connections closed because broker " + victim + " died");
                namedVictim = weft.lines(l -> l.message().contains(victimPort) && l.level().isGreaterOrEqual(
                        ch.qos.logback.classic.Level.INFO));
                namedVictim.stream().limit(4).forEach(l -> System.out.println("[broker-kill " + kind + "]   " + l));
            }
        }
        long fullIsrNanos = awaitFullIsr();

        int[] direct = countByIndex(kafka.bootstrapServers(), "direct");
        int[] viaProxy = countByIndex(fixture.bootstrap(kind), "through the proxy");
        AckTally tally = AckTally.of(status, direct, viaProxy);
        int missingDirect = tally.missingDirect();
        int missingProxy = tally.missingProxy();
        int duplicates = tally.duplicates();
        int unackedPresent = tally.unackedPresent();

        // Stalls: the longest pause in acknowledgements, overall and on the killed broker's partitions.
        long[] all = new long[acked.get()];
        List<Long> onVictim = new ArrayList<>();
        int n = 0;
        for (int i = 0; i < RECORDS; i++) {
            if (status.get(i) == 1) {
                all[n++] = ackNanos.get(i);
                // the producer's partition is the virtual one; the victim's are the cluster's
                if (victimPartitions.contains(VirtualClusterFixture.physicalPartition(kind, partitionOf.get(i), PARTITIONS))) {
                    onVictim.add(ackNanos.get(i));
                }
            }
        }
        Arrays.sort(all, 0, n);
        long[] gap = longestGap(all, n);
        long[] victimAcks = onVictim.stream().mapToLong(Long::longValue).sorted().toArray();
        long[] victimGap = longestGap(victimAcks, victimAcks.length);
        long firstVictimAckAfterKill = Arrays.stream(victimAcks).filter(t -> t > killedNanos).findFirst().orElse(-1);

        System.out.printf("[broker-kill " + kind + "] broker %d (leader of partitions %s of %d) killed after %d acks at +%d ms, restarted "
                        + "after %d acks at +%d ms (restart took %d ms); full ISR again %d ms after the restart began%n",
                victim, victimPartitions, PARTITIONS, ackedAtKill, ms(killNanos - startNanos), ackedAtRestart,
                ms(restartNanos - startNanos), ms(restartedNanos - restartNanos), ms(fullIsrNanos - restartNanos));
        System.out.printf("[broker-kill " + kind + "] records sent %d, acknowledged %d, failed %d %s%n", RECORDS, acked.get(),
                failed.get(), failures);
        System.out.printf("[broker-kill " + kind + "] acknowledged records found directly in the cluster: %d (missing %d), through the "
                        + "proxy: %d (missing %d); duplicates: %d; unacknowledged records present anyway: %d%n",
                acked.get() - missingDirect, missingDirect, acked.get() - missingProxy, missingProxy, duplicates, unackedPresent);
        System.out.printf("[broker-kill " + kind + "] longest pause in acknowledgements: %d ms (from +%d ms); on the killed broker's "
                        + "partitions: %d ms (from +%d ms); their first acknowledgement after the kill came %d ms after it%n",
                ms(gap[0]), ms(gap[1] - startNanos), ms(victimGap[0]), ms(victimGap[1] - startNanos),
                firstVictimAckAfterKill < 0 ? -1 : ms(firstVictimAckAfterKill - killedNanos));

        assertEquals(0, missingDirect, "acknowledged records missing from the cluster");
        assertEquals(0, missingProxy, "acknowledged records missing when read through the proxy");
        assertEquals(0, duplicates, "records written more than once (idempotent producer)");
        assertTrue(acked.get() > ackedAtRestart, "the producer kept going after the restart");
        if (namedVictim != null) {
            // Collapsed closes no client connection for it, so the proxy's own log must say which broker failed.
            assertTrue(!namedVictim.isEmpty(), "the proxy logged (INFO or above) that broker " + victim + " ("
                    + victimAddress + ") failed");
        }
    }

    private static long ms(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(nanos);
    }

    /** {length, start} of the longest gap between consecutive sorted times. */
    private static long[] longestGap(long[] sorted, int n) {
        long best = 0;
        long at = n > 0 ? sorted[0] : 0;
        for (int i = 1; i < n; i++) {
            if (sorted[i] - sorted[i - 1] > best) {
                best = sorted[i] - sorted[i - 1];
                at = sorted[i - 1];
            }
        }
        return new long[] {best, at};
    }

    private static Map<Integer, Integer> leaders() throws Exception {
        TopicDescription d = kafka.admin().describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic);
        Map<Integer, Integer> out = new HashMap<>();
        for (TopicPartitionInfo info : d.partitions()) {
            out.put(info.partition(), info.leader().id());
        }
        return out;
    }

    private static long awaitFullIsr() {
        Poll.until(Duration.ofSeconds(60), "every partition back to 3 in-sync replicas", () -> {
            try {
                TopicDescription d = kafka.admin().describeTopics(List.of(topic)).allTopicNames()
                        .get(10, TimeUnit.SECONDS).get(topic);
                return d.partitions().stream().allMatch(i -> i.isr().size() == 3);
            } catch (Exception e) {
                return false;
            }
        });
        return System.nanoTime();
    }

    /** Reads the whole topic from the beginning to the end offsets; returns how often each record index was seen. */
    private static int[] countByIndex(String bootstrap, String how) {
        Properties c = new Properties();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        int[] counts = new int[RECORDS];
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = new ArrayList<>();
            for (int i = 0; i < PARTITIONS; i++) {
                partitions.add(new TopicPartition(topic, i));
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions, Duration.ofSeconds(30));
            Poll.until(Duration.ofSeconds(60), "the whole topic read " + how, () -> {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    counts[ByteBuffer.wrap(r.value()).getInt(0)]++;
                }
                return partitions.stream().allMatch(tp -> consumer.position(tp) >= end.get(tp));
            });
        }
        return counts;
    }
}
