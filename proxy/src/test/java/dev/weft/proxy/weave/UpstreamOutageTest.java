package dev.weft.proxy.weave;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import dev.weft.iocore.testing.LogCapture;
import dev.weft.proxy.server.WeftProxy;
import dev.weft.proxy.testing.Poll;
import dev.weft.proxy.testing.ProxyFixture;
import dev.weft.proxy.testing.RawKafkaClient;
import dev.weft.proxy.testing.WeaveFixture;
import dev.weft.testkit.KafkaCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.internals.ConsumerCoordinator;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * One of two clusters behind a woven virtual cluster goes down (its only broker killed) while an
 * idempotent acks=all producer and a group consumer work on topics of both through the proxy: the
 * other cluster's topic keeps flowing (acknowledged and consumed during the outage), the dead
 * cluster's partitions answer retriably (the producer keeps retrying, nothing fails), and once the
 * broker is back (same ports) both clients recover without a proxy restart: every acknowledged record
 * is consumed exactly once, and each real topic holds exactly the acknowledged records.
 */
class UpstreamOutageTest {

    private static final String EAST = "east-events";
    private static final String WEST = "west-events";

    @Test
    void theOtherClusterKeepsFlowingAndClientsRecoverWhenTheClusterReturns() throws Exception {
        try (KafkaCluster c0 = KafkaCluster.builder().brokers(1).build().start();
                KafkaCluster c1 = KafkaCluster.builder().brokers(1).build().start()) {
            c0.createTopic(EAST, 2, 1);
            c1.createTopic(WEST, 2, 1);
            try (WeftProxy proxy = WeaveFixture.start(List.of(c0, c1), List.of("name: east", "name: west"), "")) {
                run(c0, c1, ProxyFixture.bootstrap(proxy));
            }
        }
    }

    private static void run(KafkaCluster c0, KafkaCluster c1, String bootstrap) throws Exception {
        // the consumer logs each group coordinator lookup at INFO: count them while c1 is down
        Logger coordinatorLog = (Logger) LoggerFactory.getLogger(ConsumerCoordinator.class);
        Level level = coordinatorLog.getLevel();
        coordinatorLog.setLevel(Level.INFO);
        try (LogCapture lookups = LogCapture.of(ConsumerCoordinator.class)) {
            run(c0, c1, bootstrap, lookups);
        } finally {
            coordinatorLog.setLevel(level);
        }
    }

    private static long coordinatorLookups(LogCapture log) {
        return log.messages(Level.INFO).stream().filter(m -> m.contains("Discovered group coordinator")).count();
    }

    private static void run(KafkaCluster c0, KafkaCluster c1, String bootstrap, LogCapture lookups) throws Exception {
        Map<String, Long> acked = new ConcurrentHashMap<>(); // value → ack time (nanos)
        Collection<String> failures = new ConcurrentLinkedQueue<>();
        Map<String, AtomicInteger> consumed = new ConcurrentHashMap<>();
        Map<String, Long> consumedAt = new ConcurrentHashMap<>();
        Collection<String> consumerTrouble = new ConcurrentLinkedQueue<>();
        AtomicInteger commitFailures = new AtomicInteger();
        Collection<String> revocations = new ConcurrentLinkedQueue<>();
        AtomicBoolean producing = new AtomicBoolean(true);
        AtomicBoolean consuming = new AtomicBoolean(true);
        AtomicInteger sent = new AtomicInteger();
        long lookupsDuringOutage;

        Thread producerThread = Thread.ofPlatform().name("outage-producer").start(() -> {
            try (KafkaProducer<String, String> producer = WeaveClients.producer(bootstrap, Map.of("linger.ms", 5))) {
                for (int i = 0; producing.get(); i++) {
                    for (String topic : List.of(EAST, WEST)) {
                        String value = topic + "-" + i;
                        sent.incrementAndGet();
                        producer.send(new ProducerRecord<>(topic, "k" + i, value), (m, e) -> {
                            if (e == null) {
                                acked.put(value, System.nanoTime());
                            } else {
                                failures.add(value + ": " + e);
                            }
                        });
                    }
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
                }
                producer.flush();
            } catch (RuntimeException e) {
                failures.add("producer: " + e);
            }
        });
        Thread consumerThread = Thread.ofPlatform().name("outage-consumer").start(() -> {
            try (KafkaConsumer<String, String> consumer = WeaveClients.consumer(bootstrap, "outage-group")) {
                consumer.subscribe(List.of(EAST, WEST), new ConsumerRebalanceListener() {
                    @Override
                    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                        if (!partitions.isEmpty()) {
                            revocations.add(System.nanoTime() + " " + partitions);
                        }
                    }

                    @Override
                    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                    }
                });
                while (consuming.get()) {
                    boolean any = false;
                    for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(100))) {
                        consumed.computeIfAbsent(r.value(), v -> new AtomicInteger()).incrementAndGet();
                        consumedAt.putIfAbsent(r.value(), System.nanoTime());
                        any = true;
                    }
                    if (any) {
                        // async: while c1 is down its partitions' commits (stored on c1) fail retriably
                        consumer.commitAsync((offsets, e) -> {
                            if (e != null) {
                                commitFailures.incrementAndGet();
                            }
                        });
                    }
                }
            } catch (RuntimeException e) {
                consumerTrouble.add("consumer: " + e);
            }
        });
        try {
            // both topics flow
            Poll.until(Duration.ofSeconds(60), "records of both clusters acknowledged and consumed",
                    () -> count(consumed.keySet(), EAST, 0) >= 50 && count(consumed.keySet(), WEST, 0) >= 50,
                    () -> state(acked, consumed, failures, consumerTrouble));

            long lookupsBefore = coordinatorLookups(lookups);
            c1.killBroker(0);
            long downNanos = System.nanoTime();
            // the other cluster keeps flowing: acknowledged and consumed while c1 is down
            Poll.until(Duration.ofSeconds(30), "east records acknowledged and consumed during the outage",
                    () -> consumedSince(acked, consumedAt, EAST, downNanos) >= 150,
                    () -> state(acked, consumed, failures, consumerTrouble));
            long outageMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - downNanos);
            long westAckedDuringOutage = acked.entrySet().stream()
                    .filter(e -> e.getKey().startsWith(WEST) && e.getValue() > downNanos).count();
            assertEquals(0, westAckedDuringOutage, "nothing of the dead cluster acknowledged while it is down");
            // its partitions answer retriably (clients refresh and retry)
            assertRetriableMetadata(bootstrap, WEST);
            assertTrue(failures.isEmpty(), "retriable: the producer fails nothing: " + failures);
            // commits of c1's partitions fail retriably meanwhile, without sending the consumer away from
            // its group coordinator (on c0, healthy) on every commit
            lookupsDuringOutage = coordinatorLookups(lookups) - lookupsBefore;
            assertTrue(commitFailures.get() > 0, "commits of c1's partitions cannot succeed while it is down");
            assertTrue(lookupsDuringOutage <= 2, lookupsDuringOutage + " group coordinator lookups during the outage");

            c1.restartBroker(0);
            long upNanos = System.nanoTime();
            Poll.until(Duration.ofSeconds(60), "west records acknowledged and consumed again after the restart",
                    () -> consumedSince(acked, consumedAt, WEST, upNanos) >= 50,
                    () -> state(acked, consumed, failures, consumerTrouble));
            long recoveryMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - upNanos);

            producing.set(false);
            producerThread.join(TimeUnit.SECONDS.toMillis(60));
            assertTrue(failures.isEmpty(), "nothing failed: " + failures);
            assertEquals(sent.get(), acked.size(), "every record sent was acknowledged");
            Poll.until(Duration.ofSeconds(60), "every acknowledged record consumed",
                    () -> consumed.keySet().containsAll(acked.keySet()),
                    () -> state(acked, consumed, failures, consumerTrouble));
            List<String> revokedWhileRunning = List.copyOf(revocations); // closing the consumer revokes too
            consuming.set(false);
            consumerThread.join(TimeUnit.SECONDS.toMillis(30));
            assertEquals(List.of(), revokedWhileRunning, "no rebalance: the dead cluster's partitions stayed assigned");

            Map<String, Integer> duplicates = new TreeMap<>();
            consumed.forEach((v, n) -> {
                if (n.get() != 1) {
                    duplicates.put(v, n.get());
                }
            });
            assertEquals(Map.of(), duplicates, "every acknowledged record consumed exactly once (consumer trouble: "
                    + consumerTrouble + ")");
            assertEquals(new TreeSet<>(acked.keySet()), new TreeSet<>(consumed.keySet()));
            // each real topic holds exactly the acknowledged records: nothing lost, nothing written twice
            List<String> onEast = WeaveClients.readDirectly(c0, EAST);
            List<String> onWest = WeaveClients.readDirectly(c1, WEST);
            assertEquals(onEast.size(), new TreeSet<>(onEast).size(), "no duplicates on c0");
            assertEquals(onWest.size(), new TreeSet<>(onWest).size(), "no duplicates on c1");
            assertEquals(select(acked.keySet(), EAST), new TreeSet<>(onEast));
            assertEquals(select(acked.keySet(), WEST), new TreeSet<>(onWest));
            System.out.printf("outage: %d records acknowledged (%d east, %d west), east flowing for %d ms with c1 down,"
                    + " west back %d ms after the broker restarted; %d failed async commit(s), %d coordinator lookup(s)"
                    + " during the outage%n", acked.size(), onEast.size(), onWest.size(), outageMillis, recoveryMillis,
                    commitFailures.get(), lookupsDuringOutage);
        } finally {
            producing.set(false);
            consuming.set(false);
            producerThread.join(TimeUnit.SECONDS.toMillis(60));
            consumerThread.join(TimeUnit.SECONDS.toMillis(30));
        }
    }

    /** A Metadata request for the dead cluster's topic through the proxy: a retriable error, at topic or partition level. */
    private static void assertRetriableMetadata(String bootstrap, String topic) throws Exception {
        try (RawKafkaClient raw = RawKafkaClient.connect(bootstrap)) {
            MetadataRequestData request = new MetadataRequestData().setTopics(List.of(
                    new MetadataRequestData.MetadataRequestTopic().setName(topic))).setAllowAutoTopicCreation(false);
            raw.send(ApiKeys.METADATA.id, (short) 12, 3, request);
            MetadataResponseData response = (MetadataResponseData) raw.readResponse(ApiKeys.METADATA.id, (short) 12, 3);
            MetadataResponseData.MetadataResponseTopic t = response.topics().find(topic);
            assertTrue(t != null, response.toString());
            List<Errors> errors = new ArrayList<>();
            if (t.errorCode() != 0) {
                errors.add(Errors.forCode(t.errorCode()));
            }
            t.partitions().forEach(p -> {
                if (p.errorCode() != 0) {
                    errors.add(Errors.forCode(p.errorCode()));
                }
            });
            assertTrue(!errors.isEmpty() && errors.stream().allMatch(e -> e.exception() instanceof RetriableException),
                    "retriable errors for " + topic + ": " + t);
        }
    }

    private static long count(Set<String> values, String topic, long unused) {
        return values.stream().filter(v -> v.startsWith(topic)).count();
    }

    private static long consumedSince(Map<String, Long> acked, Map<String, Long> consumedAt, String topic, long sinceNanos) {
        return acked.entrySet().stream().filter(e -> e.getKey().startsWith(topic) && e.getValue() > sinceNanos)
                .filter(e -> consumedAt.containsKey(e.getKey())).count();
    }

    private static Set<String> select(Set<String> values, String topic) {
        Set<String> out = new TreeSet<>();
        values.stream().filter(v -> v.startsWith(topic)).forEach(out::add);
        return out;
    }

    private static String state(Map<String, Long> acked, Map<String, AtomicInteger> consumed, Collection<String> failures,
            Collection<String> consumerTrouble) {
        return "acked east " + count(acked.keySet(), EAST, 0) + ", west " + count(acked.keySet(), WEST, 0)
                + "; consumed east " + count(consumed.keySet(), EAST, 0) + ", west " + count(consumed.keySet(), WEST, 0)
                + "; failures " + failures.size() + " " + failures.stream().limit(3).toList()
                + "; consumer trouble " + consumerTrouble.stream().limit(3).toList();
    }
}
