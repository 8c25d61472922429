package dev.weft.proxy.switching;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.proxy.conformance.ExternalProcess;
import dev.weft.proxy.conformance.Prerequisites;
import dev.weft.proxy.server.WeftProxy;
import dev.weft.proxy.testing.Poll;
import dev.weft.proxy.testing.SwitchedProxy;
import dev.weft.proxy.testing.ProxyFixture;
import dev.weft.testkit.KafkaCluster;
import dev.weft.testkit.KafkaClusterConfig;
import dev.weft.testkit.mirror.MirrorMaker;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.connect.mirror.Checkpoint;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

/**
 * librdkafka consumer groups ride through a live switch (east to west, Kafka's own MirrorMaker 2 replicating
 * east to west, as in {@link ConnectionSwitchingTest}): a python {@code confluent_kafka} consumer (Debian
 * package {@code python3-confluent-kafka}, script {@code src/test/python/confluent_client.py follow},
 * auto-commit every 200 ms) in group {@code py-billing} and a {@code kcat -G} balanced consumer (Debian
 * package {@code kcat}, auto-commit every 200 ms) in group {@code kcat-billing} both consume {@code orders}
 * through the proxy, at the same time, while a kafka-clients idempotent acks=all producer writes through the
 * proxy before, during and after one switch. Neither consumer is restarted. Every acknowledged record must
 * reach both; each one's duplicates are counted and must all be records it first received shortly before
 * the switch (the checkpoint window plus the cutover) or within {@link #AFTER_SWITCH} after it (fetched on
 * west at the old in-memory positions before the group's rebalance moved it to the translated offsets).
 *
 * <p>Two groups on one topic and one switch: both librdkafka clients see the same cutover, and no reverse
 * MirrorMaker 2 is needed. The switch waits until MirrorMaker 2 has checkpointed both groups: the cutover
 * translates only groups with checkpoints on west, so a group younger than its first checkpoint resumes on
 * west at its {@code auto.offset.reset} (here: re-reads everything from the start).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class LibrdkafkaSwitchingTest {

    private static final String TOPIC = "orders";
    private static final int PARTITIONS = 3;
    private static final Duration CHECKPOINTS = Duration.ofSeconds(1);
    private static final Duration CATCH_UP_TIMEOUT = Duration.ofSeconds(15);
    /** After the switch ended, how long a group may still receive records it will be given again. */
    private static final Duration AFTER_SWITCH = Duration.ofSeconds(5);
    private static final String TAG = "[librdkafka-switch] ";
    private static final String PY_GROUP = "py-billing";
    private static final String KCAT_GROUP = "kcat-billing";
    /** Records each group consumes from east before the switch: ~10 s of the producer's ~400 a second. */
    private static final int PRE_SWITCH_RECORDS = 4_000;

    @KafkaClusterConfig
    static KafkaCluster east;

    @KafkaClusterConfig
    static KafkaCluster west;

    @TempDir
    static Path scratch;

    private Path python;
    private Path kcat;
    private MirrorMaker mirror;
    private WeftProxy proxy;

    @BeforeAll
    void start() {
        // A missing client fails here, naming the Debian package to install.
        kcat = Prerequisites.kcat();
        python = Prerequisites.pythonWithConfluentKafka(scratch);
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
        try {
            if (proxy != null) {
                proxy.close();
            }
        } finally {
            if (mirror != null) {
                mirror.close();
            }
        }
    }

    @Test
    void pythonAndKcatGroupConsumersRideThroughALiveSwitchWithoutARestartAndReceiveEveryAcknowledgedRecord()
            throws Exception {
        String bootstrap = ProxyFixture.bootstrap(proxy);
        Map<String, Object> producerConfig = Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ProducerConfig.ACKS_CONFIG, "all", ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true,
                ProducerConfig.LINGER_MS_CONFIG, 5, ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 120_000,
                ProducerConfig.METADATA_MAX_AGE_CONFIG, 5_000,
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        Set<String> acked = ConcurrentHashMap.newKeySet();
        AtomicInteger failedSends = new AtomicInteger();
        AtomicReference<Exception> firstFailure = new AtomicReference<>();
        AtomicBoolean producing = new AtomicBoolean(true);
        AtomicInteger sent = new AtomicInteger();
        Path pyDir = Files.createDirectories(scratch.resolve("python"));
        Path kcatDir = Files.createDirectories(scratch.resolve("kcat"));

        try (Follower py = new Follower("python confluent_kafka", ExternalProcess.start(List.of(python.toString(),
                        Prerequisites.moduleDir().resolve("src/test/python/confluent_client.py").toString(),
                        "follow", bootstrap, TOPIC, PY_GROUP, "170"), pyDir, Map.of("PYTHONUNBUFFERED", "1"), pyDir));
                Follower kc = new Follower("kcat", ExternalProcess.start(List.of(kcat.toString(), "-b", bootstrap,
                        "-G", KCAT_GROUP, "-u", "-E", "-f", "%s\\n",
                        "-X", "auto.offset.reset=earliest", "-X", "enable.auto.commit=true",
                        "-X", "auto.commit.interval.ms=200", TOPIC), kcatDir, Map.of(), kcatDir));
                KafkaProducer<String, String> producer = new KafkaProducer<>(producerConfig)) {
            List<Follower> followers = List.of(py, kc);
            AtomicBoolean sampling = new AtomicBoolean(true);
            Thread sampler = Thread.ofPlatform().name("librdkafka-switch-sampler").daemon().start(() -> {
                while (sampling.get()) {
                    followers.forEach(Follower::sample);
                    try {
                        Thread.sleep(20); // sampling period of the consumers' output: the resolution of "first received"
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            });
            Thread producerThread = Thread.ofPlatform().name("librdkafka-switch-producer").start(() -> {
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
            try {
                Supplier<String> state = () -> acked.size() + " acknowledged, " + failedSends.get() + " failed ("
                        + firstFailure.get() + "); " + py.summary() + "; " + kc.summary();
                // Switch only a group MirrorMaker 2 already checkpoints (a younger one has nothing on west to
                // translate, see the class comment), and after enough consumption on east (well over the
                // duplicate window) that a group re-reading more than the checkpoint lag explains fails.
                Map<String, Set<Integer>> checkpointed = new ConcurrentHashMap<>();
                try (MirrorTopicReader reader = new MirrorTopicReader(west.clientConfig(), "west", mirror.checkpointsTopic(),
                        "librdkafka-switch-checkpoints")) {
                    Poll.until(Duration.ofSeconds(60), "MirrorMaker 2 to checkpoint both groups on every partition, and both"
                            + " groups to consume " + PRE_SWITCH_RECORDS + " records from east", () -> {
                                try {
                                    reader.readToEnd(Duration.ofSeconds(10), record -> {
                                        Checkpoint c = Checkpoint.deserializeRecord(record);
                                        checkpointed.computeIfAbsent(c.consumerGroupId(), g -> ConcurrentHashMap.newKeySet())
                                                .add(c.topicPartition().partition());
                                    });
                                } catch (MirrorTopicReader.MirrorReadTimeoutException e) {
                                    return false;
                                }
                                return alive(followers) && py.distinct() >= PRE_SWITCH_RECORDS && kc.distinct() >= PRE_SWITCH_RECORDS
                                        && Set.of(0, 1, 2).equals(checkpointed.get(PY_GROUP))
                                        && Set.of(0, 1, 2).equals(checkpointed.get(KCAT_GROUP));
                            }, () -> state.get() + "; checkpointed partitions by group " + checkpointed);
                }

                // The switch, mid-run, in-process.
                List<String> progress = new ArrayList<>();
                long switchStarted = System.nanoTime();
                CutoverOutcome outcome = proxy.switches().get("alias").switchTo("west", false, line -> {
                    synchronized (progress) {
                        progress.add(line);
                    }
                }).get(90, TimeUnit.SECONDS);
                long switchEnded = System.nanoTime();
                synchronized (progress) {
                    progress.forEach(l -> System.out.println(TAG + "cutover: " + l));
                }
                System.out.println(TAG + "outcome: " + outcome);
                assertTrue(outcome.switched(), outcome.message());
                int ackedAtSwitch = acked.size();

                Poll.until(Duration.ofSeconds(60), "500 more records acknowledged through west",
                        () -> acked.size() >= ackedAtSwitch + 500, state);
                producing.set(false);
                producerThread.join(150_000);
                assertEquals(0, failedSends.get(), "sends that failed: " + firstFailure.get());

                // Neither consumer is restarted: each must still be the process it was, and receive everything.
                Poll.until(Duration.ofSeconds(60), "both librdkafka groups to receive every acknowledged record",
                        () -> alive(followers) && py.received().containsAll(acked) && kc.received().containsAll(acked),
                        () -> state.get() + "; python missing " + py.missing(acked) + ", kcat missing " + kc.missing(acked)
                                + "; " + py.diagnosis() + kc.diagnosis());
                assertTrue(alive(followers), () -> "a consumer died" + py.diagnosis() + kc.diagnosis());
                sampling.set(false);
                sampler.join(10_000);
                followers.forEach(Follower::sample);

                Duration cutover = Duration.ofNanos(switchEnded - switchStarted);
                Duration window = CHECKPOINTS.multipliedBy(3).plus(cutover);
                long earliestAllowed = switchStarted - window.toNanos();
                long latestAllowed = switchEnded + AFTER_SWITCH.toNanos();
                for (Follower f : followers) {
                    System.out.printf(TAG + "%s: %d records acknowledged (%d after the switch began), %d received, %d distinct,"
                            + " %d duplicates (%d first received before the window, %d after the switch ended); window %d ms,"
                            + " cutover %d ms, sent %d%n", f.name, acked.size(), acked.size() - ackedAtSwitch, f.lines(),
                            f.distinct(), f.duplicates().size(), f.duplicatesFirstSeenBefore(earliestAllowed).size(),
                            f.duplicatesFirstSeenAfter(switchEnded).size(), window.toMillis(), cutover.toMillis(), sent.get());
                }
                assertAll(followers.stream().map(f -> (Executable) () -> {
                    assertEquals(List.of(), f.unexpectedLines(), f.name + ": lines that are no record value" + f.diagnosis());
                    assertEquals(Set.of(), f.missing(acked), f.name + ": acknowledged records not received" + f.diagnosis());
                    assertEquals(List.of(), f.duplicatesFirstSeenBefore(earliestAllowed),
                            f.name + ": duplicates first received before the checkpoint window (" + window.toMillis()
                                    + " ms before the switch)" + f.diagnosis());
                    // Records fetched at the old positions right after the re-point, before the rebalance
                    // put the group at its translated offsets, come again; nothing later may.
                    assertEquals(List.of(), f.duplicatesFirstSeenAfter(latestAllowed),
                            f.name + ": duplicates first received more than " + AFTER_SWITCH.toMillis()
                                    + " ms after the switch ended" + f.diagnosis());
                }));
            } finally {
                producing.set(false);
                sampling.set(false);
                producerThread.join(150_000);
                for (Follower f : followers) {
                    ExternalProcess.Result r = f.process.stop(Duration.ofSeconds(10));
                    System.out.println(TAG + f.name + " stopped: " + (r.timedOut() ? "killed" : "exit " + r.exitCode())
                            + "; stderr:\n" + tailLines(r.stderr(), 40));
                }
            }
        }
    }

    private static boolean alive(List<Follower> followers) {
        for (Follower f : followers) {
            if (!f.process.isAlive()) {
                throw new AssertionError(f.name + " exited while it should run through the switch" + f.diagnosis());
            }
        }
        return true;
    }

    private static String tailLines(String s, int n) {
        List<String> lines = s.lines().toList();
        return String.join("\n", lines.subList(Math.max(0, lines.size() - n), lines.size()));
    }

    /**
     * A consumer process printing one record value a line: its output is sampled while it runs, and the
     * first time each value shows is noted (duplicates are values shown again).
     */
    private static final class Follower implements AutoCloseable {
        private final String name;
        private final ExternalProcess.Running process;
        private final Map<String, Long> firstSeenNanos = new ConcurrentHashMap<>();
        private final List<String> duplicates = new ArrayList<>();
        private final List<String> unexpected = new ArrayList<>();
        private int consumedChars;
        private int lines;

        Follower(String name, ExternalProcess.Running process) {
            this.name = name;
            this.process = process;
        }

        /** Takes in the complete lines written since the last sample. */
        synchronized void sample() {
            String out = process.stdout();
            int end = out.lastIndexOf('\n') + 1;
            if (end <= consumedChars) {
                return;
            }
            long now = System.nanoTime();
            for (String line : out.substring(consumedChars, end).split("\n")) {
                lines++;
                if (!line.matches("r-\\d+")) {
                    unexpected.add(line);
                } else if (firstSeenNanos.putIfAbsent(line, now) != null) {
                    duplicates.add(line);
                }
            }
            consumedChars = end;
        }

        Set<String> received() {
            return firstSeenNanos.keySet();
        }

        int distinct() {
            return firstSeenNanos.size();
        }

        synchronized int lines() {
            return lines;
        }

        synchronized List<String> duplicates() {
            return List.copyOf(duplicates);
        }

        synchronized List<String> unexpectedLines() {
            return List.copyOf(unexpected);
        }

        synchronized List<String> duplicatesFirstSeenBefore(long nanos) {
            return duplicates.stream().filter(v -> firstSeenNanos.get(v) - nanos < 0).distinct().toList();
        }

        synchronized List<String> duplicatesFirstSeenAfter(long nanos) {
            return duplicates.stream().filter(v -> firstSeenNanos.get(v) - nanos > 0).distinct().toList();
        }

        Set<String> missing(Set<String> expected) {
            Set<String> m = new TreeSet<>(expected);
            m.removeAll(received());
            if (m.size() > 10) {
                Set<String> some = new TreeSet<>(m.stream().limit(10).toList());
                return Set.of(m.size() + " records, e.g. " + some);
            }
            return m;
        }

        String summary() {
            return name + " " + distinct() + " distinct" + (process.isAlive() ? "" : " (exited)");
        }

        String diagnosis() {
            return "\n--- " + name + (process.isAlive() ? " (running)" : " (exited)") + ", stderr:\n"
                    + tailLines(process.stderr(), 60) + "\n--- end";
        }

        @Override
        public void close() {
            process.close();
        }
    }
}
