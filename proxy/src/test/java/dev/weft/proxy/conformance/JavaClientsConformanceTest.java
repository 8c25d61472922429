package dev.weft.proxy.conformance;

import dev.weft.proxy.testing.Poll;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.zip.CRC32C;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.GroupProtocol;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * kafka-clients 4.x (the version on the test class path) through Weft: idempotent and transactional
 * producers, classic and KIP-848 consumer groups, and the Admin API, each verified by content.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class JavaClientsConformanceTest {

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final long API_TIMEOUT_S = 60;

    private static ConformanceEnvironment env;

    @BeforeAll
    static void start() throws Exception {
        env = ConformanceEnvironment.start(3, Map.of(
                // KIP-848 groups reconcile on heartbeats: 5 s by default, too slow for a lean suite.
                "group.consumer.heartbeat.interval.ms", "500",
                "group.consumer.min.heartbeat.interval.ms", "500"));
    }

    @AfterAll
    static void stop() {
        if (env != null) {
            env.close();
        }
    }

    // ------------------------------------------------------------------------------------------------
    // (1) Idempotent producer, acks=all

    @Test
    void idempotentProducerWithAcksAllDeliversEveryRecordOnceInOrderByteIdentical() throws Exception {
        String topic = "java-idempotent";
        env.createTopic(topic, 6, 3);
        Dataset data = Dataset.binary(topic, 5_000, 11, 4_096);

        Map<String, Object> config = producerConfig();
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 5);
        config.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
        config.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        Map<Integer, List<Long>> acknowledged = new TreeMap<>();
        double errors;
        try (KafkaProducer<byte[], byte[]> producer = newProducer(config)) {
            List<Future<RecordMetadata>> acks = new ArrayList<>(data.size());
            for (Dataset.Entry e : data.entries()) {
                acks.add(producer.send(new ProducerRecord<>(topic, null, e.keyBytes(), e.value(), headersOf(e))));
            }
            producer.flush();
            for (Future<RecordMetadata> ack : acks) {
                RecordMetadata md = ack.get(API_TIMEOUT_S, TimeUnit.SECONDS);
                acknowledged.computeIfAbsent(md.partition(), p -> new ArrayList<>()).add(md.offset());
            }
            errors = metric(producer.metrics(), "record-error-total");
        }
        assertEquals(0.0, errors, "the producer saw no record errors");
        assertEquals(6, acknowledged.size(), "every partition got records");

        // Through the proxy: every record once, in order, byte-identical keys, values and headers.
        Map<String, Object> readConfig = consumerConfig();
        List<ConsumerRecord<byte[], byte[]>> records = readAllRecords(readConfig, topic);
        List<Arrived> arrived = records.stream().map(r -> Arrived.of("", r)).toList();
        Verify.Summary summary = Verify.exactlyOnce(data, arrived, () -> "read through the proxy");
        Verify.sameOffsets(acknowledged, arrived, () -> "read through the proxy");
        for (ConsumerRecord<byte[], byte[]> r : records) {
            Dataset.Entry e = data.entry(new String(r.key()));
            Header[] expected = headersOf(e).toArray();
            Header[] actual = r.headers().toArray();
            assertEquals(expected.length, actual.length, () -> "headers of " + e.key());
            for (int i = 0; i < expected.length; i++) {
                assertEquals(expected[i].key(), actual[i].key(), "header name");
                assertArrayEquals(expected[i].value(), actual[i].value(), "header " + expected[i].key() + " of " + e.key());
            }
        }
        // And what the brokers hold, read directly.
        Verify.exactlyOnce(data, env.readDirect(topic, IsolationLevel.READ_UNCOMMITTED), () -> "read from the brokers");
        System.out.println("idempotent producer: " + summary);
    }

    private static RecordHeaders headersOf(Dataset.Entry e) {
        CRC32C crc = new CRC32C();
        crc.update(e.value());
        RecordHeaders headers = new RecordHeaders();
        headers.add("seq", ByteBuffer.allocate(4).putInt(e.seq()).array());
        headers.add("crc32c", ByteBuffer.allocate(8).putLong(crc.getValue()).array());
        return headers;
    }

    // ------------------------------------------------------------------------------------------------
    // (2) Transactions: commit and abort, read_committed

    @Test
    void transactionalProducerCommitsAndAbortsAndReadCommittedSeesOnlyCommitted() throws Exception {
        String topic = "java-txn";
        String inputTopic = "java-txn-input";
        String group = "java-txn-group";
        env.createTopic(topic, 3, 3);
        env.createTopic(inputTopic, 1, 3);
        Dataset all = Dataset.binary(topic, 1_900, 22, 1_024);
        List<Dataset.Entry> a = all.entries().subList(0, 600);          // committed, with consumer offsets
        List<Dataset.Entry> b = all.entries().subList(600, 1_000);      // aborted
        List<Dataset.Entry> c = all.entries().subList(1_000, 1_600);    // committed
        List<Dataset.Entry> d = all.entries().subList(1_600, 1_800);    // committed by the fencing producer
        List<Dataset.Entry> e = all.entries().subList(1_800, 1_900);    // attempted by the fenced producer

        Map<String, Object> config = producerConfig();
        config.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "java-txn-producer");
        config.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        KafkaException fenced;
        try (KafkaProducer<byte[], byte[]> first = newProducer(config)) {
            first.initTransactions();
            first.beginTransaction();
            sendAll(first, topic, a);
            first.sendOffsetsToTransaction(Map.of(new TopicPartition(inputTopic, 0), new OffsetAndMetadata(42)),
                    new ConsumerGroupMetadata(group));
            first.commitTransaction();

            first.beginTransaction();
            sendAll(first, topic, b);
            first.flush();
            first.abortTransaction();

            first.beginTransaction();
            sendAll(first, topic, c);
            first.commitTransaction();

            // A second producer with the same transactional.id fences the first one.
            try (KafkaProducer<byte[], byte[]> second = newProducer(config)) {
                second.initTransactions();
                fenced = assertThrows(KafkaException.class, () -> {
                    first.beginTransaction();
                    sendAll(first, topic, e);
                    first.commitTransaction();
                }, "the first producer is fenced");
                second.beginTransaction();
                sendAll(second, topic, d);
                second.commitTransaction();
            }
        }
        Throwable cause = fenced;
        while (!(cause instanceof ProducerFencedException || cause instanceof InvalidProducerEpochException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        Throwable fencedCause = cause;
        assertTrue(fencedCause instanceof ProducerFencedException || fencedCause instanceof InvalidProducerEpochException,
                () -> "fenced with " + fenced);

        List<Dataset.Entry> committed = new ArrayList<>(a);
        committed.addAll(c);
        committed.addAll(d);
        Dataset expected = all.subset(committed);

        // read_committed through the proxy: A, C and D, never B (nor E).
        Map<String, Object> readCommitted = consumerConfig();
        readCommitted.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        List<Arrived> seen = ConformanceEnvironment.readAll(readCommitted, topic, "read_committed");
        Verify.Summary summary = Verify.exactlyOnce(expected, seen, () -> "read_committed through the proxy");

        // The aborted records were really written: read_uncommitted from the brokers sees them.
        Set<String> fencedKeys = e.stream().map(Dataset.Entry::key).collect(Collectors.toSet());
        List<Arrived> raw = env.readDirect(topic, IsolationLevel.READ_UNCOMMITTED).stream()
                .filter(r -> !fencedKeys.contains(r.key())).toList();
        List<Dataset.Entry> written = new ArrayList<>(all.entries().subList(0, 1_800));
        Verify.exactlyOnce(all.subset(written), raw, () -> "read_uncommitted from the brokers");

        // The offsets sent to the transaction were committed with it.
        try (Admin admin = newAdmin()) {
            Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata().get(API_TIMEOUT_S, TimeUnit.SECONDS);
            assertEquals(42L, offsets.get(new TopicPartition(inputTopic, 0)).offset(), "transactional offset commit");
        }
        System.out.println("transactions: read_committed " + summary + "; fenced with " + fencedCause);
    }

    private static void sendAll(KafkaProducer<byte[], byte[]> producer, String topic, List<Dataset.Entry> entries) {
        for (Dataset.Entry e : entries) {
            producer.send(new ProducerRecord<>(topic, e.keyBytes(), e.value()));
        }
    }

    // ------------------------------------------------------------------------------------------------
    // (3) Classic group: three members join and leave while a producer produces

    @Test
    void classicGroupRebalancesWhileProducingAndLosesNothing() throws Exception {
        String topic = "java-classic";
        String group = "java-classic-group";
        int partitions = 6;
        int chunks = 30;
        int chunkSize = 200;
        env.createTopic(topic, partitions, 3);
        Dataset data = Dataset.binary(topic, chunks * chunkSize, 33, 1_024);

        Map<String, Object> memberConfig = consumerConfig();
        memberConfig.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        memberConfig.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, GroupProtocol.CLASSIC.name());
        memberConfig.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 100);

        GroupRun run = new GroupRun(topic, memberConfig);
        Map<Integer, List<Long>> acknowledged = new TreeMap<>();
        try (KafkaProducer<byte[], byte[]> producer = newProducer(idempotentProducerConfig())) {
            run.join("A", partitions);
            for (int chunk = 0; chunk < chunks; chunk++) {
                switch (chunk) {
                    case 5 -> run.join("B", partitions);
                    case 10 -> run.join("C", partitions);      // three members
                    case 17 -> run.leave("B", partitions);
                    case 22 -> run.join("D", partitions);      // three again
                    case 26 -> run.leave("A", partitions);
                    default -> { }
                }
                produceChunk(producer, topic, data.entries().subList(chunk * chunkSize, (chunk + 1) * chunkSize),
                        acknowledged);
                // Keep production and consumption interleaved: the group stays at most two chunks behind.
                int produced = (chunk + 1) * chunkSize;
                Poll.until(WAIT, "the group to catch up with " + produced + " records",
                        () -> run.distinct.size() >= produced - 2 * chunkSize, run::state);
            }
            Poll.until(WAIT, "every record to be consumed", () -> run.distinct.size() >= data.size(), run::state);
            assertGroupThroughProxy(group, GroupType.CLASSIC, 2);
        } finally {
            run.close();
        }
        assertTrue(run.failures.isEmpty(), () -> "members reported: " + run.failures);
        Verify.Summary summary = Verify.atLeastOnce(data, run.arrived, run::state);
        Verify.sameOffsets(acknowledged, run.arrived, run::state);
        for (GroupMember m : run.all) {
            assertTrue(m.assignmentsSeen() >= 1, () -> m.name() + " was never assigned partitions: " + run.state());
        }
        assertCommittedToTheEnd(group, acknowledged, topic);
        System.out.println("classic group: " + summary + "; duplicates counted distinct (commit after processing);"
                + " members " + run.state());
    }

    // ------------------------------------------------------------------------------------------------
    // (4) KIP-848 consumer group

    @Test
    void consumerProtocolGroupReconcilesAndConsumesEverything() throws Exception {
        String topic = "java-kip848";
        String group = "java-kip848-group";
        int partitions = 6;
        env.createTopic(topic, partitions, 3);
        Dataset data = Dataset.binary(topic, 3_000, 44, 1_024);
        List<Dataset.Entry> firstHalf = data.entries().subList(0, 1_500);
        List<Dataset.Entry> secondHalf = data.entries().subList(1_500, 3_000);

        Map<String, Object> memberConfig = consumerConfig();
        memberConfig.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        memberConfig.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, GroupProtocol.CONSUMER.name());
        memberConfig.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 100);

        GroupRun run = new GroupRun(topic, memberConfig);
        Map<Integer, List<Long>> acknowledged = new TreeMap<>();
        try (KafkaProducer<byte[], byte[]> producer = newProducer(idempotentProducerConfig())) {
            run.join("M1", partitions);
            produceChunk(producer, topic, firstHalf, acknowledged);
            run.join("M2", partitions);
            assertGroupThroughProxy(group, GroupType.CONSUMER, 2);
            produceChunk(producer, topic, secondHalf.subList(0, 750), acknowledged);
            run.leave("M1", partitions);
            produceChunk(producer, topic, secondHalf.subList(750, 1_500), acknowledged);
            Poll.until(WAIT, "every record to be consumed", () -> run.distinct.size() >= data.size(), run::state);
        } finally {
            run.close();
        }
        assertTrue(run.failures.isEmpty(), () -> "members reported: " + run.failures);
        Verify.Summary summary = Verify.atLeastOnce(data, run.arrived, run::state);
        Verify.sameOffsets(acknowledged, run.arrived, run::state);
        assertCommittedToTheEnd(group, acknowledged, topic);
        System.out.println("KIP-848 group: " + summary + "; members " + run.state());
    }

    /** Members of one group over one topic, joining and leaving during a test. */
    private static final class GroupRun implements AutoCloseable {
        final String topic;
        final Map<String, Object> config;
        final List<Arrived> arrived = Collections.synchronizedList(new ArrayList<>());
        final Set<String> distinct = ConcurrentHashMap.newKeySet();
        final List<String> failures = new CopyOnWriteArrayList<>();
        final List<GroupMember> all = new ArrayList<>();
        final List<GroupMember> live = new CopyOnWriteArrayList<>();

        GroupRun(String topic, Map<String, Object> config) {
            this.topic = topic;
            this.config = config;
        }

        /** Starts a member and waits until the group's partitions are spread over the live members again. */
        void join(String name, int partitions) {
            Map<String, Object> c = new HashMap<>(config);
            c.put(ConsumerConfig.CLIENT_ID_CONFIG, topic + "-" + name);
            GroupMember m = new GroupMember(name, c, topic, arrived, distinct, failures);
            all.add(m);
            live.add(m);
            m.start();
            Poll.until(WAIT, name + " joining", () -> !m.assignment().isEmpty() && GroupMember.coverExactly(live, partitions)
                    || !failures.isEmpty(), this::state);
            assertTrue(failures.isEmpty(), () -> "members reported: " + failures);
        }

        /** Stops a member (it leaves the group) and waits until the others own every partition. */
        void leave(String name, int partitions) {
            GroupMember m = live.stream().filter(x -> x.name().equals(name)).findFirst().orElseThrow();
            live.remove(m);
            m.close();
            Poll.until(WAIT, name + " leaving", () -> GroupMember.coverExactly(live, partitions), this::state);
        }

        String state() {
            return "distinct " + distinct.size() + ", deliveries " + arrived.size() + ", members "
                    + GroupMember.describe(all) + (failures.isEmpty() ? "" : ", failures " + failures);
        }

        @Override
        public void close() {
            for (GroupMember m : live) {
                m.close();
            }
            live.clear();
        }
    }

    private static void produceChunk(KafkaProducer<byte[], byte[]> producer, String topic, List<Dataset.Entry> entries,
                                     Map<Integer, List<Long>> acknowledged) throws Exception {
        List<Future<RecordMetadata>> acks = new ArrayList<>(entries.size());
        for (Dataset.Entry e : entries) {
            acks.add(producer.send(new ProducerRecord<>(topic, e.keyBytes(), e.value())));
        }
        producer.flush();
        for (Future<RecordMetadata> ack : acks) {
            RecordMetadata md = ack.get(API_TIMEOUT_S, TimeUnit.SECONDS);
            acknowledged.computeIfAbsent(md.partition(), p -> new ArrayList<>()).add(md.offset());
        }
    }

    /**
     * Admin through the proxy describes the live group: its type, its members owning every partition
     * once the coordinator sees it stable, and its coordinator at a proxy address.
     */
    private static void assertGroupThroughProxy(String group, GroupType type, int members) throws Exception {
        try (Admin admin = newAdmin()) {
            ConsumerGroupDescription[] last = new ConsumerGroupDescription[1];
            Poll.until(WAIT, group + " to be described as stable with " + members + " members", () -> {
                try {
                    last[0] = admin.describeConsumerGroups(List.of(group)).describedGroups().get(group)
                            .get(API_TIMEOUT_S, TimeUnit.SECONDS);
                } catch (Exception e) {
                    throw new AssertionError("describeConsumerGroups(" + group + ") failed", e);
                }
                return last[0].groupState() == GroupState.STABLE && last[0].members().size() == members;
            }, () -> "last described " + last[0]);
            ConsumerGroupDescription d = last[0];
            assertEquals(type, d.type(), "group type");
            int owned = d.members().stream().mapToInt(m -> m.assignment().topicPartitions().size()).sum();
            assertEquals(6, owned, () -> "assigned partitions of " + d);
            env.assertProxyAddress(d.coordinator().host(), d.coordinator().port(), "coordinator of " + group);
        }
    }

    /** The group's committed offsets, read through the proxy, are the end of every partition. */
    private static void assertCommittedToTheEnd(String group, Map<Integer, List<Long>> acknowledged, String topic)
            throws Exception {
        try (Admin admin = newAdmin()) {
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata().get(API_TIMEOUT_S, TimeUnit.SECONDS);
            Map<Integer, Long> want = new TreeMap<>();
            acknowledged.forEach((p, offsets) -> want.put(p, offsets.get(offsets.size() - 1) + 1));
            Map<Integer, Long> got = new TreeMap<>();
            committed.forEach((tp, o) -> {
                if (tp.topic().equals(topic)) {
                    got.put(tp.partition(), o.offset());
                }
            });
            assertEquals(want, got, "committed offsets by partition");
        }
    }

    // ------------------------------------------------------------------------------------------------
    // (5) Admin

    @Test
    void adminManagesTopicsConfigsAndGroupOffsetsThroughTheProxy() throws Exception {
        String topic = "java-admin-a";
        String doomed = "java-admin-b";
        String group = "java-admin-group";
        try (Admin admin = newAdmin()) {
            admin.createTopics(List.of(
                    new NewTopic(topic, 4, (short) 3).configs(Map.of("retention.ms", "3600000")),
                    new NewTopic(doomed, 2, (short) 2))).all().get(API_TIMEOUT_S, TimeUnit.SECONDS);
            Poll.untilNoThrow(WAIT, "the new topics to be listed and led", () -> {
                Map<String, TopicDescription> ds = admin.describeTopics(List.of(topic, doomed)).allTopicNames()
                        .get(API_TIMEOUT_S, TimeUnit.SECONDS);
                return ds.values().stream().flatMap(t -> t.partitions().stream())
                        .allMatch(p -> p.leader() != null && !p.leader().isEmpty());
            });
            assertTrue(admin.listTopics().names().get(API_TIMEOUT_S, TimeUnit.SECONDS).containsAll(List.of(topic, doomed)));

            // describeTopics: shape, and every broker named is at a proxy address.
            Map<String, TopicDescription> described = admin.describeTopics(List.of(topic, doomed)).allTopicNames()
                    .get(API_TIMEOUT_S, TimeUnit.SECONDS);
            assertEquals(4, described.get(topic).partitions().size());
            assertEquals(2, described.get(doomed).partitions().size());
            for (TopicDescription t : described.values()) {
                int replicas = t.name().equals(topic) ? 3 : 2;
                for (TopicPartitionInfo p : t.partitions()) {
                    assertEquals(replicas, p.replicas().size(), () -> "replicas of " + t.name() + "-" + p.partition());
                    assertEquals(replicas, p.isr().size(), () -> "in-sync replicas of " + t.name() + "-" + p.partition());
                    for (Node n : p.replicas()) {
                        env.assertProxyAddress(n.host(), n.port(), "replica " + n.id() + " of " + t.name());
                    }
                    env.assertProxyAddress(p.leader().host(), p.leader().port(), "leader of " + t.name());
                }
            }

            // incrementalAlterConfigs, read back with describeConfigs.
            ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
            admin.incrementalAlterConfigs(Map.of(resource, List.of(
                    new AlterConfigOp(new ConfigEntry("retention.ms", "7200000"), AlterConfigOp.OpType.SET),
                    new AlterConfigOp(new ConfigEntry("max.message.bytes", "2000000"), AlterConfigOp.OpType.SET),
                    new AlterConfigOp(new ConfigEntry("cleanup.policy", "compact"), AlterConfigOp.OpType.APPEND))))
                    .all().get(API_TIMEOUT_S, TimeUnit.SECONDS);
            Map<String, String> want = Map.of("retention.ms", "7200000", "max.message.bytes", "2000000",
                    "cleanup.policy", "delete,compact");
            Poll.untilNoThrow(WAIT, "the altered configs to read back " + want, () -> {
                Config config = admin.describeConfigs(List.of(resource)).all().get(API_TIMEOUT_S, TimeUnit.SECONDS)
                        .get(resource);
                return want.entrySet().stream().allMatch(w -> {
                    ConfigEntry entry = config.get(w.getKey());
                    return entry != null && w.getValue().equals(entry.value())
                            && entry.source() == ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG;
                });
            });
            admin.incrementalAlterConfigs(Map.of(resource, List.of(
                    new AlterConfigOp(new ConfigEntry("cleanup.policy", "compact"), AlterConfigOp.OpType.SUBTRACT))))
                    .all().get(API_TIMEOUT_S, TimeUnit.SECONDS);
            Poll.untilNoThrow(WAIT, "cleanup.policy back to delete", () -> "delete".equals(
                    admin.describeConfigs(List.of(resource)).all().get(API_TIMEOUT_S, TimeUnit.SECONDS).get(resource)
                            .get("cleanup.policy").value()));

            // deleteTopics.
            admin.deleteTopics(List.of(doomed)).all().get(API_TIMEOUT_S, TimeUnit.SECONDS);
            Poll.untilNoThrow(WAIT, doomed + " to be gone",
                    () -> !admin.listTopics().names().get(API_TIMEOUT_S, TimeUnit.SECONDS).contains(doomed));
            ExecutionException gone = assertThrows(ExecutionException.class, () -> admin.describeTopics(List.of(doomed))
                    .allTopicNames().get(API_TIMEOUT_S, TimeUnit.SECONDS));
            assertInstanceOf(UnknownTopicOrPartitionException.class, gone.getCause());

            // A group consumes everything, is described while live, then its offsets are reset.
            Dataset data = Dataset.binary(topic, 2_000, 55, 512);
            Map<Integer, List<Long>> acknowledged = new TreeMap<>();
            try (KafkaProducer<byte[], byte[]> producer = newProducer(idempotentProducerConfig())) {
                produceChunk(producer, topic, data.entries(), acknowledged);
            }
            Map<String, Object> consumerConfig = consumerConfig();
            consumerConfig.put(ConsumerConfig.GROUP_ID_CONFIG, group);
            List<Arrived> firstRun = new ArrayList<>();
            try (KafkaConsumer<byte[], byte[]> consumer = newConsumer(consumerConfig)) {
                consumer.subscribe(List.of(topic));
                Poll.until(WAIT, "the first run to consume everything", () -> {
                    for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
                        firstRun.add(Arrived.of("first", r));
                    }
                    consumer.commitSync();
                    return firstRun.size() >= data.size();
                }, () -> firstRun.size() + " records");
                ConsumerGroupDescription live = admin.describeConsumerGroups(List.of(group)).describedGroups().get(group)
                        .get(API_TIMEOUT_S, TimeUnit.SECONDS);
                assertEquals(GroupState.STABLE, live.groupState(), () -> "live group " + live);
                assertEquals(1, live.members().size(), () -> "live group " + live);
                MemberDescription member = live.members().iterator().next();
                assertEquals(4, member.assignment().topicPartitions().size(), () -> "assignment of " + member);
                env.assertProxyAddress(live.coordinator().host(), live.coordinator().port(), "coordinator of " + group);
            }
            Verify.exactlyOnce(data, firstRun, () -> "first run of " + group);
            Poll.untilNoThrow(WAIT, group + " to be empty", () -> admin.describeConsumerGroups(List.of(group))
                    .describedGroups().get(group).get(API_TIMEOUT_S, TimeUnit.SECONDS).groupState() == GroupState.EMPTY);

            // Reset: every partition to the middle of what it holds.
            Map<TopicPartition, OffsetAndMetadata> reset = new HashMap<>();
            acknowledged.forEach((p, offsets) -> reset.put(new TopicPartition(topic, p),
                    new OffsetAndMetadata(offsets.get(offsets.size() / 2))));
            admin.alterConsumerGroupOffsets(group, reset).all().get(API_TIMEOUT_S, TimeUnit.SECONDS);
            Map<TopicPartition, OffsetAndMetadata> readBack = admin.listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata().get(API_TIMEOUT_S, TimeUnit.SECONDS);
            assertEquals(offsetsOf(reset), offsetsOf(readBack), "reset offsets read back");

            // A restarted member starts at the reset offsets and reads exactly the rest.
            List<Dataset.Entry> rest = new ArrayList<>();
            Map<Integer, Long> resetByPartition = new TreeMap<>();
            reset.forEach((tp, o) -> resetByPartition.put(tp.partition(), o.offset()));
            List<Arrived> secondRun = new ArrayList<>();
            Map<Integer, Long> firstOffsetSeen = new TreeMap<>();
            try (KafkaConsumer<byte[], byte[]> consumer = newConsumer(consumerConfig)) {
                consumer.subscribe(List.of(topic));
                int restSize = acknowledged.values().stream().mapToInt(o -> o.size() - o.size() / 2).sum();
                Poll.until(WAIT, "the second run to consume from the reset offsets", () -> {
                    for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
                        secondRun.add(Arrived.of("second", r));
                        firstOffsetSeen.putIfAbsent(r.partition(), r.offset());
                    }
                    return secondRun.size() >= restSize;
                }, () -> secondRun.size() + " records");
            }
            assertEquals(resetByPartition, firstOffsetSeen, "the restarted member began at the reset offsets");
            Map<String, Arrived> firstByKey = new HashMap<>();
            firstRun.forEach(r -> firstByKey.put(r.key(), r));
            for (Dataset.Entry entry : data.entries()) {
                Arrived first = firstByKey.get(entry.key());
                if (first.offset() >= resetByPartition.get(first.partition())) {
                    rest.add(entry);
                }
            }
            Verify.exactlyOnce(data.subset(rest), secondRun, () -> "second run of " + group + " after the reset");

            admin.deleteConsumerGroups(List.of(group)).all().get(API_TIMEOUT_S, TimeUnit.SECONDS);
            assertFalse(admin.listGroups().all().get(API_TIMEOUT_S, TimeUnit.SECONDS).stream()
                    .anyMatch(g -> g.groupId().equals(group)), "deleted group is not listed");
        }
    }

    private static Map<TopicPartition, Long> offsetsOf(Map<TopicPartition, OffsetAndMetadata> offsets) {
        Map<TopicPartition, Long> result = new HashMap<>();
        offsets.forEach((tp, o) -> result.put(tp, o.offset()));
        return result;
    }

    // ------------------------------------------------------------------------------------------------
    // Clients, all through the proxy

    private static Map<String, Object> producerConfig() {
        Map<String, Object> config = new HashMap<>();
        config.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, env.bootstrap());
        return config;
    }

    private static Map<String, Object> idempotentProducerConfig() {
        Map<String, Object> config = producerConfig();
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        return config;
    }

    private static Map<String, Object> consumerConfig() {
        Map<String, Object> config = new HashMap<>();
        config.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, env.bootstrap());
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        return config;
    }

    private static KafkaProducer<byte[], byte[]> newProducer(Map<String, Object> config) {
        return new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer());
    }

    private static KafkaConsumer<byte[], byte[]> newConsumer(Map<String, Object> config) {
        return new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    private static Admin newAdmin() {
        return Admin.create(Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, env.bootstrap()));
    }

    /** Every record of {@code topic}, read with a group-less consumer from the start to the end offsets. */
    private static List<ConsumerRecord<byte[], byte[]>> readAllRecords(Map<String, Object> config, String topic) {
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = newConsumer(config)) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic, WAIT).stream()
                    .map(i -> new TopicPartition(topic, i.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions, WAIT);
            Poll.until(WAIT, "reading " + topic + " to " + end, () -> {
                consumer.poll(Duration.ofMillis(100)).forEach(records::add);
                return partitions.stream().allMatch(tp -> consumer.position(tp) >= end.get(tp));
            }, () -> records.size() + " records");
        }
        return records;
    }

    private static double metric(Map<org.apache.kafka.common.MetricName, ? extends org.apache.kafka.common.Metric> metrics,
                                 String name) {
        return metrics.entrySet().stream()
                .filter(e -> e.getKey().name().equals(name) && e.getKey().group().equals("producer-metrics"))
                .mapToDouble(e -> ((Number) e.getValue().metricValue()).doubleValue())
                .findFirst().orElseThrow(() -> new AssertionError("no producer metric " + name));
    }
}
