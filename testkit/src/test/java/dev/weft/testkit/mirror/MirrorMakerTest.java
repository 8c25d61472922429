package dev.weft.testkit.mirror;

import dev.weft.testkit.KafkaCluster;
import dev.weft.testkit.KafkaClusterConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A real MirrorMaker 2 (Kafka 4.1.1, forked) replicating east->west between two real clusters: records,
 * offset syncs, checkpoints, and nothing more once it is killed. One MM2 serves the class; the kill case
 * runs last.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MirrorMakerTest {

    private static final String TOPIC = "orders";
    private static final int PARTITIONS = 3;
    private static final int RECORDS = 500;
    private static final long OFFSET_LAG_MAX = 20;
    private static final Duration WAIT = Duration.ofSeconds(60);

    @KafkaClusterConfig
    static KafkaCluster east;

    @KafkaClusterConfig
    static KafkaCluster west;

    private static MirrorMaker mirror;
    /** Key -> (partition, value) of every record produced on east, in produce order per partition. */
    private static final Map<String, Map.Entry<Integer, String>> produced = new HashMap<>();
    /** Upstream offset of each partition's last sync but one, seen by the offset-syncs case. */
    private static final Map<TopicPartition, Long> secondLastSync = new HashMap<>();

    @BeforeAll
    static void startMirrorMaker() throws Exception {
        east.createTopic(TOPIC, PARTITIONS, 1);
        mirror = MirrorMaker.builder()
            .source("east", east.bootstrapServers())
            .target("west", west.bootstrapServers())
            .topics("orders|unrelated")
            .offsetLagMax(OFFSET_LAG_MAX)
            .build()
            .start();
        assertTrue(mirror.isAlive());
        produce("first", RECORDS);
    }

    @AfterAll
    static void stopMirrorMaker() {
        if (mirror != null) {
            mirror.close();
        }
    }

    @Test
    @Order(1)
    void recordsProducedOnEastAppearOnWestUnderTheSameTopicWithTheSameKeysValuesAndPartitions() {
        Map<String, Map.Entry<Integer, String>> mirrored = new HashMap<>();
        try (KafkaConsumer<String, String> consumer = consumer(west)) {
            List<TopicPartition> partitions = partitions(TOPIC);
            awaitTopic(west, TOPIC);
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (mirrored.size() < produced.size() && System.nanoTime() - deadline < 0) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                    mirrored.put(record.key(), Map.entry(record.partition(), record.value()));
                }
            }
        }
        assertEquals(produced, mirrored, "west's copy of " + TOPIC);
        Set<String> westTopics = topics(west);
        assertFalse(westTopics.contains("east." + TOPIC), "identity policy: no aliased topic; west has " + westTopics);
        assertTrue(westTopics.contains("heartbeats"), "MM2's heartbeats on west; west has " + westTopics);
    }

    @Test
    @Order(2)
    void offsetSyncsOnEastReachTheLastRecordOfEveryPartition() {
        assertEquals("mm2-offset-syncs.west.internal", mirror.offsetSyncsTopic());
        Map<TopicPartition, Long> end = endOffsets(east, TOPIC);
        awaitTopic(east, mirror.offsetSyncsTopic());
        Map<TopicPartition, Long> lastSynced = poll(() -> latestUpstreamSynced(),
            synced -> synced.equals(lastOffsets(end)),
            "offset syncs up to the last record of every partition " + lastOffsets(end));
        assertEquals(lastOffsets(end), lastSynced);
        // Later syncs of a partition move forward. They are not every offset.lag.max records, nor is the
        // first one always at the partition's first record: MM2 keeps one pending sync per partition and
        // replaces it while ten are in flight, so under load syncs coalesce (a first run saw orders-2's
        // syncs start at 84). Only the last one is sure to be published.
        List<Mm2Records.OffsetSync> syncs = Mm2Records.offsetSyncs(rawConsumerConfig(east), mirror.offsetSyncsTopic());
        for (TopicPartition tp : partitions(TOPIC)) {
            List<Long> upstream = syncs.stream().filter(s -> s.partition().equals(tp))
                .map(Mm2Records.OffsetSync::upstreamOffset).toList();
            // at least the last (CI saw a partition's whole burst coalesce into [147], its last record)
            assertFalse(upstream.isEmpty(), tp + " syncs " + upstream);
            for (int i = 1; i < upstream.size(); i++) {
                assertTrue(upstream.get(i) > upstream.get(i - 1), tp + " syncs " + upstream);
            }
            if (upstream.size() >= 2) {
                secondLastSync.put(tp, upstream.get(upstream.size() - 2));
            }
        }
        // Identity replication into an empty topic: each record keeps its offset.
        syncs.forEach(s -> assertEquals(s.upstreamOffset(), s.downstreamOffset(), s.toString()));
    }

    @Test
    @Order(3)
    void aGroupCommittedOnEastGetsCheckpointsOnWestThatNeverRunAheadOfIt() throws Exception {
        assertEquals("east.checkpoints.internal", mirror.checkpointsTopic());
        String group = "billing";
        Map<TopicPartition, Long> end = endOffsets(east, TOPIC);
        Map<TopicPartition, Long> committed = new HashMap<>();
        committed.put(new TopicPartition(TOPIC, 0), end.get(new TopicPartition(TOPIC, 0)));
        // MM2 checkpoints an offset only if it kept a sync at or below it; the syncs near the end are kept.
        TopicPartition middle = new TopicPartition(TOPIC, 1);
        committed.put(middle, secondLastSync.getOrDefault(middle, end.get(middle) - 1) + 1);
        committed.put(new TopicPartition(TOPIC, 2), end.get(new TopicPartition(TOPIC, 2)));
        Map<String, Object> config = east.consumerConfig(group);
        try (KafkaConsumer<String, String> consumer =
                 new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer())) {
            consumer.commitSync(committed.entrySet().stream().collect(Collectors.toMap(
                Map.Entry::getKey, e -> new OffsetAndMetadata(e.getValue()))));
        }

        awaitTopic(west, mirror.checkpointsTopic());
        Map<TopicPartition, Mm2Records.Checkpoint> latest = poll(() -> latestCheckpoints(group),
            checkpoints -> checkpoints.keySet().equals(committed.keySet())
                && checkpoints.values().stream().allMatch(c -> c.upstreamOffset() == committed.get(c.partition())),
            "checkpoints of group " + group + " for " + committed);
        for (Mm2Records.Checkpoint checkpoint : latest.values()) {
            long upstream = committed.get(checkpoint.partition());
            // MM2 translates to the offset after the nearest earlier sync: never past what was consumed.
            assertTrue(checkpoint.downstreamOffset() <= upstream, checkpoint.toString());
            assertTrue(checkpoint.downstreamOffset() >= 1, checkpoint.toString());
        }
        // A group at the end of a partition has a sync right below it: its translation is exact.
        TopicPartition atEnd = new TopicPartition(TOPIC, 0);
        assertEquals(committed.get(atEnd), latest.get(atEnd).downstreamOffset(), latest.get(atEnd).toString());
    }

    @Test
    @Order(4)
    void afterKillNothingMoreIsReplicated() throws Exception {
        Map<TopicPartition, Long> westBefore = endOffsets(west, TOPIC);
        assertEquals(endOffsets(east, TOPIC), westBefore, "west had caught up before the kill");
        mirror.kill();
        assertFalse(mirror.isAlive());

        produce("after-kill", 100);
        Map<TopicPartition, Long> eastAfter = endOffsets(east, TOPIC);
        assertTrue(sum(eastAfter) == sum(westBefore) + 100, "east grew: " + eastAfter);
        // Several flush and refresh intervals (1 s each) of a live MM2; any copy fails at once.
        long until = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (System.nanoTime() - until < 0) {
            Map<TopicPartition, Long> westNow = endOffsets(west, TOPIC);
            if (!westNow.equals(westBefore)) {
                fail("west's " + TOPIC + " moved from " + westBefore + " to " + westNow + " after MM2 was killed");
            }
            Thread.sleep(250);
        }
    }

    // ------------------------------------------------------------------------------------------------

    private static void produce(String prefix, int count) throws Exception {
        Map<String, Object> config = new HashMap<>(east.producerConfig());
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        try (KafkaProducer<String, String> producer =
                 new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
            List<Future<RecordMetadata>> acks = new ArrayList<>();
            List<String> keys = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                String key = prefix + "-" + i;
                keys.add(key);
                acks.add(producer.send(new ProducerRecord<>(TOPIC, key, "value of " + key)));
            }
            for (int i = 0; i < count; i++) {
                RecordMetadata metadata = acks.get(i).get(30, TimeUnit.SECONDS);
                produced.put(keys.get(i), Map.entry(metadata.partition(), "value of " + keys.get(i)));
            }
        }
    }

    private static Map<TopicPartition, Long> latestUpstreamSynced() {
        Map<TopicPartition, Long> latest = new TreeMap<>(java.util.Comparator.comparing(TopicPartition::toString));
        for (Mm2Records.OffsetSync sync : Mm2Records.offsetSyncs(rawConsumerConfig(east), mirror.offsetSyncsTopic())) {
            if (sync.partition().topic().equals(TOPIC)) {
                latest.put(sync.partition(), sync.upstreamOffset());
            }
        }
        return latest;
    }

    private static Map<TopicPartition, Mm2Records.Checkpoint> latestCheckpoints(String group) {
        Map<TopicPartition, Mm2Records.Checkpoint> latest = new HashMap<>();
        for (Mm2Records.Checkpoint checkpoint : Mm2Records.checkpoints(rawConsumerConfig(west), mirror.checkpointsTopic())) {
            if (checkpoint.group().equals(group)) {
                latest.put(checkpoint.partition(), checkpoint);
            }
        }
        return latest;
    }

    private static Map<TopicPartition, Long> lastOffsets(Map<TopicPartition, Long> end) {
        Map<TopicPartition, Long> last = new TreeMap<>(java.util.Comparator.comparing(TopicPartition::toString));
        end.forEach((tp, offset) -> last.put(tp, offset - 1));
        return last;
    }

    private static <T> T poll(Supplier<T> read, java.util.function.Predicate<T> done, String what) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        T value = read.get();
        while (!done.test(value)) {
            if (System.nanoTime() - deadline > 0) {
                fail("timed out after " + WAIT + " waiting for " + what + "; last seen " + value
                    + "\nMM2's last output:\n" + mirror.lastOutput());
            }
            try {
                Thread.sleep(250);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            value = read.get();
        }
        return value;
    }

    private static void awaitTopic(KafkaCluster cluster, String topic) {
        poll(() -> topics(cluster), names -> names.contains(topic), "topic " + topic + " on " + cluster);
    }

    private static Set<String> topics(KafkaCluster cluster) {
        try {
            return cluster.admin().listTopics().names().get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static Map<TopicPartition, Long> endOffsets(KafkaCluster cluster, String topic) {
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(rawConsumerConfig(cluster),
                 new org.apache.kafka.common.serialization.ByteArrayDeserializer(),
                 new org.apache.kafka.common.serialization.ByteArrayDeserializer())) {
            return new HashMap<>(consumer.endOffsets(partitions(topic), Duration.ofSeconds(10)));
        }
    }

    private static long sum(Map<TopicPartition, Long> offsets) {
        return offsets.values().stream().mapToLong(Long::longValue).sum();
    }

    private static List<TopicPartition> partitions(String topic) {
        List<TopicPartition> partitions = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            partitions.add(new TopicPartition(topic, p));
        }
        return partitions;
    }

    private static KafkaConsumer<String, String> consumer(KafkaCluster cluster) {
        return new KafkaConsumer<>(rawConsumerConfig(cluster), new StringDeserializer(), new StringDeserializer());
    }

    private static Map<String, Object> rawConsumerConfig(KafkaCluster cluster) {
        Map<String, Object> config = cluster.consumerConfig();
        config.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
        return config;
    }
}
