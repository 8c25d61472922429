package dev.weft.proxy.switching;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.proxy.server.WeftProxy;
import dev.weft.proxy.testing.Poll;
import dev.weft.proxy.testing.SwitchedProxy;
import dev.weft.proxy.testing.ProxyFixture;
import dev.weft.proxy.testing.ScrapedMetrics;
import dev.weft.testkit.KafkaCluster;
import dev.weft.testkit.KafkaClusterConfig;
import dev.weft.testkit.mirror.MirrorMaker;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * A switch moved live from east to west while a kafka-clients idempotent producer (acks=all) and a
 * classic consumer group run through it, with Kafka's own MirrorMaker 2 replicating east to west (identity
 * names, offset syncs and checkpoints every second). Neither client is restarted; every record acknowledged
 * before, during and after the switch is on west and consumed by the group; the group's duplicates are
 * counted and must all be records it consumed shortly before the switch (the checkpoint window).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ConnectionSwitchingTest {

    private static final String TOPIC = "orders";
    private static final int PARTITIONS = 3;
    private static final Duration CHECKPOINTS = Duration.ofSeconds(1);
    private static final Duration CATCH_UP_TIMEOUT = Duration.ofSeconds(15);

    @KafkaClusterConfig
    static KafkaCluster east;

    @KafkaClusterConfig
    static KafkaCluster west;

    private MirrorMaker mirror;
    private WeftProxy proxy;

    @BeforeAll
    void start() {
        east.createTopic(TOPIC, PARTITIONS, 1);
        mirror = MirrorMaker.builder()
                .source("east", east.bootstrapServers())
                .target("west", west.bootstrapServers())
                .topics(TOPIC)
                .groups(".*")
                .emitCheckpointsInterval(CHECKPOINTS)
                .offsetFlushInterval(CHECKPOINTS)
                .build()
                .start();
        Poll.untilNoThrow(Duration.ofSeconds(60), "MirrorMaker 2 to create " + TOPIC + " on west", () -> {
            try (Admin admin = Admin.create(west.clientConfig())) {
                return admin.listTopics().names().get(10, TimeUnit.SECONDS).contains(TOPIC);
            }
        });
        proxy = SwitchedProxy.start(east.bootstrapServers(), west.bootstrapServers(), "",
                "    cutover: { catchUpTimeoutMs: %d, drainTimeoutMs: 3000 }".formatted(CATCH_UP_TIMEOUT.toMillis()));
    }

    @AfterAll
    void stop() {
        if (proxy != null) {
            proxy.close();
        }
        if (mirror != null) {
            mirror.close();
        }
    }

    private String bootstrap() {
        return ProxyFixture.bootstrap(proxy);
    }

    private String admin() {
        return SwitchedProxy.admin(proxy);
    }

    @Test
    @Order(1)
    void anIdempotentProducerAndAConsumerGroupMoveToWestWithoutARestartAndNothingAcknowledgedIsLost() throws Exception {
        Map<String, Object> producerConfig = Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap(),
                ProducerConfig.ACKS_CONFIG, "all", ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true,
                ProducerConfig.LINGER_MS_CONFIG, 5, ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 120_000,
                ProducerConfig.METADATA_MAX_AGE_CONFIG, 5_000,
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        Map<String, Object> consumerConfig = Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap(),
                ConsumerConfig.GROUP_ID_CONFIG, "billing", ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false, ConsumerConfig.METADATA_MAX_AGE_CONFIG, 5_000,
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        Set<String> acked = ConcurrentHashMap.newKeySet();
        AtomicInteger failedSends = new AtomicInteger();
        AtomicReference<Exception> firstFailure = new AtomicReference<>();
        Map<String, Long> firstSeenNanos = new ConcurrentHashMap<>();
        AtomicInteger duplicates = new AtomicInteger();
        List<String> duplicateValues = new ArrayList<>();
        AtomicBoolean producing = new AtomicBoolean(true);
        AtomicBoolean consuming = new AtomicBoolean(true);
        AtomicInteger sent = new AtomicInteger();
        AtomicReference<Throwable> consumerError = new AtomicReference<>();

        try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerConfig);
                KafkaConsumer<String, String> consumer = new KafkaConsumer<>(consumerConfig)) {
            Thread producerThread = Thread.ofPlatform().name("switch-test-producer").start(() -> {
                while (producing.get()) {
                    String value = "r-" + sent.getAndIncrement();
                    producer.send(new ProducerRecord<>(TOPIC, value, value), (md, e) -> {
                        if (e == null) {
                            acked.add(value);
                        } else {
                            failedSends.incrementAndGet();
                            firstFailure.compareAndSet(null, e);
                        }
                    });
                    try {
                        Thread.sleep(2); // ~400 records a second
                    } catch (InterruptedException e) {
                        return;
                    }
                }
                producer.flush();
            });
            consumer.subscribe(List.of(TOPIC));
            Thread consumerThread = Thread.ofPlatform().name("switch-test-consumer").start(() -> {
                try {
                    while (consuming.get()) {
                        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                            if (firstSeenNanos.putIfAbsent(r.value(), System.nanoTime()) != null) {
                                duplicates.incrementAndGet();
                                synchronized (duplicateValues) {
                                    duplicateValues.add(r.value());
                                }
                            }
                        }
                        try {
                            consumer.commitSync(Duration.ofSeconds(10));
                        } catch (org.apache.kafka.common.errors.RetriableException
                                | org.apache.kafka.clients.consumer.CommitFailedException e) {
                            // a rebalance (the group moved to west); the next poll rejoins
                        }
                    }
                } catch (Throwable t) {
                    consumerError.set(t);
                }
            });

            Poll.until(Duration.ofSeconds(60), "the group to consume 500 records from east", () -> firstSeenNanos.size() >= 500,
                    () -> firstSeenNanos.size() + " consumed, " + acked.size() + " acknowledged");

            // A group that commits on east just before the switch has no MM2 checkpoint yet: the cutover
            // waits for its first one rather than leave it to start over on west.
            try (Admin eastAdmin = Admin.create(east.clientConfig())) {
                eastAdmin.alterConsumerGroupOffsets("late-joiner", Map.of(new TopicPartition(TOPIC, 0),
                        new org.apache.kafka.clients.consumer.OffsetAndMetadata(100))).all().get(10, TimeUnit.SECONDS);
            }
            // The switch, mid-run, through the CLI (which POSTs to the admin endpoint and prints the progress).
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            long switchStarted = System.nanoTime();
            int code = dev.weft.proxy.cli.WeftMain.run(new String[] {"switch", "--admin", admin(), "alias", "west"},
                    new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
            long switchEnded = System.nanoTime();
            String progress = out.toString(StandardCharsets.UTF_8);
            System.out.println("[switch] " + progress + err.toString(StandardCharsets.UTF_8));
            assertEquals(0, code, progress + err);
            assertTrue(progress.lines().anyMatch(l -> l.startsWith("switched: switch 'alias' from 'east' to 'west' done")), progress);
            int ackedAtSwitch = acked.size();
            try (Admin westAdmin = Admin.create(west.clientConfig())) {
                var late = westAdmin.listConsumerGroupOffsets("late-joiner").partitionsToOffsetAndMetadata().get(10, TimeUnit.SECONDS);
                // translated (MM2 rounds down to just past its newest offset sync at or below 100: never ahead)
                var offset = late.get(new TopicPartition(TOPIC, 0));
                assertTrue(offset != null && offset.offset() >= 1 && offset.offset() <= 100, "the late group's offset on west: " + late);
            }

            Poll.until(Duration.ofSeconds(90), "500 more records acknowledged through west", () -> acked.size() >= ackedAtSwitch + 500,
                    () -> acked.size() + " acknowledged, " + failedSends.get() + " failed: " + firstFailure.get());
            producing.set(false);
            producerThread.join(150_000);
            Poll.until(Duration.ofSeconds(90), "the group to consume every acknowledged record",
                    () -> firstSeenNanos.keySet().containsAll(acked),
                    () -> missing(acked, firstSeenNanos.keySet()).size() + " of " + acked.size() + " not consumed, e.g. "
                            + missing(acked, firstSeenNanos.keySet()).stream().limit(5).toList() + "; consumer error: " + consumerError.get());
            consuming.set(false);
            consumerThread.join(30_000);
            assertEquals(null, consumerError.get());
            assertEquals(0, failedSends.get(), "sends that failed (the producer must ride through the switch): " + firstFailure.get());

            // Every acknowledged record is on west (what MM2 copied before the switch and what came after).
            Set<String> onWest = readAll(west);
            assertEquals(Set.of(), missing(acked, onWest), "acknowledged records missing on west");
            // The records produced after the re-point went to west only.
            Set<String> onEast = readAll(east);
            Set<String> westOnly = new HashSet<>(onWest);
            westOnly.removeAll(onEast);
            assertTrue(westOnly.size() >= 500, "records written straight to west after the switch: " + westOnly.size());

            // Duplicates: records the group read again on west because its last checkpoint predates them. Each
            // must have been first consumed within the checkpoint window before the switch (plus the cutover).
            Duration window = CHECKPOINTS.multipliedBy(3).plusNanos(switchEnded - switchStarted);
            long earliestAllowed = switchStarted - window.toNanos();
            List<String> early;
            synchronized (duplicateValues) {
                early = duplicateValues.stream().filter(v -> firstSeenNanos.get(v) < earliestAllowed).toList();
            }
            System.out.printf("[switch] %d records acknowledged (%d through west), %d consumed, %d duplicates"
                    + " (window %d ms); cutover %d ms%n", acked.size(), westOnly.size(), firstSeenNanos.size(), duplicates.get(),
                    window.toMillis(), TimeUnit.NANOSECONDS.toMillis(switchEnded - switchStarted));
            assertEquals(List.of(), early, "duplicates first consumed before the checkpoint window");
        }

        // Clients' Metadata now names west's brokers only: route 1 of two, virtual id b × 2 + 1 (DESIGN §4).
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap()))) {
            Collection<Node> nodes = admin.describeCluster().nodes().get(10, TimeUnit.SECONDS);
            assertEquals(west.brokerIds().stream().map(b -> b * 2 + 1).sorted().toList(),
                    nodes.stream().map(Node::id).sorted().toList());
        }
        ScrapedMetrics metrics = ScrapedMetrics.of(proxy);
        assertEquals(1.0, metrics.sum("weft_switch_active", Map.of("switch", "alias", "route", "west")));
        assertEquals(0.0, metrics.sum("weft_switch_active", Map.of("switch", "alias", "route", "east")));
        assertEquals(1.0, metrics.sum("weft_switches_total", Map.of("switch", "alias")));
        assertTrue(metrics.sum("weft_switch_last_phase_seconds", Map.of("switch", "alias", "phase", "catch_up")) > 0);
    }

    /**
     * Back to east with replication stopped (MirrorMaker 2 killed; it never copied west to east anyway): the
     * catch-up times out, the cutover aborts with a line naming what is behind, and the switch stays on
     * west, unfenced: a producer through it is acknowledged by west.
     */
    @Test
    @Order(2)
    void aSwitchThatCannotCatchUpAbortsAfterItsTimeoutAndLeavesTheAliasUnfencedWhereItWas() throws Exception {
        mirror.kill();
        Map<String, Object> producerConfig = Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap(),
                ProducerConfig.ACKS_CONFIG, "all", ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerConfig)) {
            producer.send(new ProducerRecord<>(TOPIC, "before-abort", "before-abort")).get(30, TimeUnit.SECONDS);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            long started = System.nanoTime();
            int code = dev.weft.proxy.cli.WeftMain.run(new String[] {"switch", "--admin", admin(), "alias", "east"},
                    new PrintStream(out, true, StandardCharsets.UTF_8), System.err);
            Duration took = Duration.ofNanos(System.nanoTime() - started);
            String progress = out.toString(StandardCharsets.UTF_8);
            System.out.println("[abort] " + progress);
            assertEquals(1, code, progress);
            String last = progress.lines().reduce((a, b) -> b).orElse("");
            assertTrue(last.startsWith("aborted: switch 'alias' from 'west' to 'east' aborted after "), last);
            assertTrue(last.contains("has not caught up within PT15S") && last.endsWith("'west' is unfenced and stays active"), last);
            assertTrue(took.compareTo(CATCH_UP_TIMEOUT) >= 0, "aborted after " + took);
            var status = proxy.switches().get("alias").status();
            assertEquals("west", status.activeRoute());
            assertEquals(false, status.fenced());
            assertEquals(1, status.aborts());
            var acked = producer.send(new ProducerRecord<>(TOPIC, "after-abort", "after-abort")).get(60, TimeUnit.SECONDS);
            assertTrue(acked.offset() >= 0);
        }
        assertTrue(readAll(west).containsAll(List.of("before-abort", "after-abort")), "both records on west");
        ScrapedMetrics metrics = ScrapedMetrics.of(proxy);
        assertEquals(1.0, metrics.sum("weft_switch_aborts_total", Map.of("switch", "alias")));
        assertEquals(0.0, metrics.sum("weft_switch_fenced", Map.of("switch", "alias")));
    }

    private static Set<String> missing(Set<String> expected, Set<String> have) {
        Set<String> m = new HashSet<>(expected);
        m.removeAll(have);
        return m;
    }

    /** Every value of {@link #TOPIC} on a cluster, read directly (not through the proxy). */
    private static Set<String> readAll(KafkaCluster cluster) {
        Map<String, Object> config = new HashMap<>(cluster.clientConfig());
        config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        Set<String> values = new HashSet<>();
        try (KafkaConsumer<String, String> c = new KafkaConsumer<>(config)) {
            List<TopicPartition> partitions = new ArrayList<>();
            for (int p = 0; p < PARTITIONS; p++) {
                partitions.add(new TopicPartition(TOPIC, p));
            }
            c.assign(partitions);
            c.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = c.endOffsets(partitions);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (partitions.stream().anyMatch(tp -> c.position(tp) < end.get(tp)) && System.nanoTime() < deadline) {
                c.poll(Duration.ofMillis(200)).forEach(r -> values.add(r.value()));
            }
        }
        return values;
    }
}
