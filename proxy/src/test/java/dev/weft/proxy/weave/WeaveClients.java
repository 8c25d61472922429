package dev.weft.proxy.weave;

import dev.weft.proxy.testing.Poll;
import dev.weft.proxy.testing.RawKafkaClient;
import dev.weft.testkit.KafkaCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/** Small kafka-clients helpers shared by the topic-weaving end-to-end tests. */
final class WeaveClients {

    private WeaveClients() {
    }

    static KafkaProducer<String, String> producer(String bootstrap, Map<String, Object> extra) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 20_000);
        p.putAll(extra);
        return new KafkaProducer<>(p, new StringSerializer(), new StringSerializer());
    }

    static KafkaConsumer<String, String> consumer(String bootstrap, String group) {
        Properties c = new Properties();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        if (group != null) {
            c.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        }
        c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        c.put(ConsumerConfig.METADATA_MAX_AGE_CONFIG, 2000);
        return new KafkaConsumer<>(c, new StringDeserializer(), new StringDeserializer());
    }

    /** Every value of {@code topic} from the beginning, read by partition assignment (no group). */
    static List<String> readAll(String bootstrap, String topic, int expected) {
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> c = consumer(bootstrap, null)) {
            List<TopicPartition> parts = c.partitionsFor(topic, Duration.ofSeconds(20)).stream()
                    .map(i -> new TopicPartition(topic, i.partition())).toList();
            c.assign(parts);
            c.seekToBeginning(parts);
            Map<TopicPartition, Long> end = c.endOffsets(parts, Duration.ofSeconds(20));
            long total = end.values().stream().mapToLong(Long::longValue).sum();
            if (expected >= 0 && total != expected) {
                throw new AssertionError(topic + " at " + bootstrap + " holds " + total + " record(s), expected " + expected
                        + ": " + end);
            }
            Poll.until(Duration.ofSeconds(30), "reading " + total + " record(s) of " + topic + " at " + bootstrap, () -> {
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(100))) {
                    values.add(r.value());
                }
                return values.size() >= total;
            }, () -> values.size() + " read");
        }
        return values;
    }

    /** Every value of {@code topic} read directly on {@code cluster} (its real name). */
    static List<String> readDirectly(KafkaCluster cluster, String topic) {
        return readAll(cluster.bootstrapServers(), topic, -1);
    }

    static boolean existsDirectly(KafkaCluster cluster, String topic) throws Exception {
        return cluster.admin().listTopics().names().get().contains(topic);
    }

    /**
     * One Produce of {@code values} to partition 0 of a topic, by name ({@code topicId} null) or by id,
     * over a raw connection; returns the partition's error code and base offset.
     */
    static ProduceResponseData.PartitionProduceResponse rawProduce(String hostPort, short version, String topic, Uuid topicId,
            List<String> values) throws Exception {
        SimpleRecord[] records = values.stream().map(v -> new SimpleRecord(v.getBytes())).toArray(SimpleRecord[]::new);
        ProduceRequestData.TopicProduceData t = new ProduceRequestData.TopicProduceData()
                .setPartitionData(List.of(new ProduceRequestData.PartitionProduceData().setIndex(0)
                        .setRecords(MemoryRecords.withRecords(Compression.NONE, records))));
        if (topicId == null) {
            t.setName(topic);
        } else {
            t.setTopicId(topicId);
        }
        ProduceRequestData.TopicProduceDataCollection topics = new ProduceRequestData.TopicProduceDataCollection();
        topics.add(t);
        ProduceRequestData request = new ProduceRequestData().setAcks((short) -1).setTimeoutMs(10_000).setTopicData(topics);
        try (RawKafkaClient raw = RawKafkaClient.connect(hostPort)) {
            raw.send(ApiKeys.PRODUCE.id, version, 7, request);
            ProduceResponseData response = (ProduceResponseData) raw.readResponse(ApiKeys.PRODUCE.id, version, 7);
            ProduceResponseData.TopicProduceResponse answered = response.responses().iterator().next();
            if (topicId == null ? !topic.equals(answered.name()) : !topicId.equals(answered.topicId())) {
                throw new AssertionError("answered for another topic: " + response);
            }
            return answered.partitionResponses().getFirst();
        }
    }

    /**
     * One Fetch of partition 0 from {@code offset}, by name ({@code topicId} null, versions up to 12) or by
     * id (13+), over a raw connection; returns the values, or fails naming the partition's error.
     */
    static List<String> rawFetch(String hostPort, short version, String topic, Uuid topicId, long offset) throws Exception {
        FetchRequestData.FetchTopic t = new FetchRequestData.FetchTopic().setPartitions(List.of(
                new FetchRequestData.FetchPartition().setPartition(0).setFetchOffset(offset)
                        .setPartitionMaxBytes(1 << 20).setCurrentLeaderEpoch(-1).setLogStartOffset(-1)));
        if (topicId == null) {
            t.setTopic(topic);
        } else {
            t.setTopicId(topicId);
        }
        FetchRequestData request = new FetchRequestData().setMaxWaitMs(500).setMinBytes(1).setMaxBytes(1 << 20)
                .setIsolationLevel((byte) 0).setSessionId(0).setSessionEpoch(-1).setTopics(List.of(t));
        try (RawKafkaClient raw = RawKafkaClient.connect(hostPort)) {
            raw.send(ApiKeys.FETCH.id, version, 9, request);
            FetchResponseData response = (FetchResponseData) raw.readResponse(ApiKeys.FETCH.id, version, 9);
            FetchResponseData.FetchableTopicResponse answered = response.responses().getFirst();
            if (topicId == null ? !topic.equals(answered.topic()) : !topicId.equals(answered.topicId())) {
                throw new AssertionError("answered for another topic: " + response);
            }
            FetchResponseData.PartitionData p = answered.partitions().getFirst();
            if (p.errorCode() != 0) {
                throw new AssertionError("fetch v" + version + " of " + (topicId == null ? topic : topicId) + ": error "
                        + org.apache.kafka.common.protocol.Errors.forCode(p.errorCode()));
            }
            List<String> values = new ArrayList<>();
            for (RecordBatch b : ((MemoryRecords) p.records()).batches()) {
                for (Record r : b) {
                    if (r.offset() >= offset) {
                        byte[] v = new byte[r.valueSize()];
                        r.value().get(v);
                        values.add(new String(v));
                    }
                }
            }
            return values;
        }
    }

    /**
     * Every record of {@code topic} read directly from {@code cluster}, per partition in offset order;
     * waits for {@code expected}, then reads half a second more so duplicates show up.
     */
    static java.util.Map<Integer, List<ConsumerRecord<String, String>>> recordsByPartition(KafkaCluster cluster, String topic,
                                                                                   int expected) {
        return recordsByPartition(cluster, topic, expected, org.apache.kafka.common.IsolationLevel.READ_UNCOMMITTED);
    }

    /**
     * A branch's copies against the primary's records: the same partitions, the same number of records in
     * each, pairwise in the primary's order with the same key and timestamp; {@code sameRecord} checks each
     * pair further (what a transform may change).
     */
    static void assertCopiesInOrder(java.util.Map<Integer, List<ConsumerRecord<String, String>>> primary,
            java.util.Map<Integer, List<ConsumerRecord<String, String>>> branch, CopyCheck sameRecord) throws Exception {
        org.junit.jupiter.api.Assertions.assertEquals(primary.keySet(), branch.keySet(), "copies stay in the client's partitions");
        for (int p : primary.keySet()) {
            List<ConsumerRecord<String, String>> a = primary.get(p);
            List<ConsumerRecord<String, String>> b = branch.get(p);
            org.junit.jupiter.api.Assertions.assertEquals(a.size(), b.size(), "partition " + p + ": every acknowledged record once");
            for (int j = 0; j < a.size(); j++) {
                org.junit.jupiter.api.Assertions.assertEquals(a.get(j).key(), b.get(j).key(), "partition " + p + " in the primary's order");
                org.junit.jupiter.api.Assertions.assertEquals(a.get(j).timestamp(), b.get(j).timestamp());
                sameRecord.check(a.get(j), b.get(j));
            }
        }
    }

    /** One pair of {@link #assertCopiesInOrder}: the primary's record and the branch's copy of it. */
    @FunctionalInterface
    interface CopyCheck {
        void check(ConsumerRecord<String, String> original, ConsumerRecord<String, String> copy) throws Exception;
    }

    /**
     * Like {@link #recordsByPartition(KafkaCluster, String, int)}, read at {@code isolation} (e.g. read_committed:
     * no aborted records, no open transaction's).
     */
    static java.util.Map<Integer, List<ConsumerRecord<String, String>>> recordsByPartition(KafkaCluster cluster, String topic,
            int expected, org.apache.kafka.common.IsolationLevel isolation) {
        java.util.Map<Integer, List<ConsumerRecord<String, String>>> out = new java.util.TreeMap<>();
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation.toString());
        try (KafkaConsumer<String, String> c = new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer())) {
            List<TopicPartition> parts = c.partitionsFor(topic, Duration.ofSeconds(20)).stream()
                    .map(i -> new TopicPartition(topic, i.partition())).toList();
            c.assign(parts);
            c.seekToBeginning(parts);
            int[] read = {0};
            Poll.until(Duration.ofSeconds(60), expected + " records of " + topic + " (" + isolation + ") on "
                    + cluster.bootstrapServers(), () -> {
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
                    out.computeIfAbsent(r.partition(), k -> new ArrayList<>()).add(r);
                    read[0]++;
                }
                return read[0] >= expected;
            }, () -> read[0] + " read");
            for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(500))) {
                out.computeIfAbsent(r.partition(), k -> new ArrayList<>()).add(r); // none expected: extras show up
            }
        }
        return out;
    }

    /** How many records {@code topic} holds on {@code cluster} (sum of its partitions' end offsets). */
    static long endOffsetsTotal(KafkaCluster cluster, String topic) throws Exception {
        int partitions = cluster.admin().describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions().size();
        Map<TopicPartition, org.apache.kafka.clients.admin.OffsetSpec> latest = new java.util.HashMap<>();
        for (int i = 0; i < partitions; i++) {
            latest.put(new TopicPartition(topic, i), org.apache.kafka.clients.admin.OffsetSpec.latest());
        }
        return cluster.admin().listOffsets(latest).all().get().values().stream()
                .mapToLong(org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo::offset).sum();
    }

    /**
     * One record batch as a broker stores it: its partition, first and last offset, how many records it
     * holds, and whether it is transactional or a control batch (a transaction marker).
     */
    record StoredBatch(int partition, long baseOffset, long lastOffset, int records, boolean transactional, boolean control) {
    }

    /**
     * Every record batch of {@code topic} as {@code cluster}'s (one) broker stores it, per partition in
     * offset order, up to each partition's high watermark: read with raw Fetch requests (v12, by name), so the
     * batch boundaries are the log's own.
     */
    static java.util.Map<Integer, List<StoredBatch>> batchesDirectly(KafkaCluster cluster, String topic) throws Exception {
        int partitions = cluster.admin().describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions().size();
        String broker = cluster.bootstrapServers().split(",")[0];
        short version = 12;
        java.util.Map<Integer, List<StoredBatch>> out = new java.util.TreeMap<>();
        int correlation = 100;
        try (RawKafkaClient raw = RawKafkaClient.connect(broker)) {
            for (int p = 0; p < partitions; p++) {
                List<StoredBatch> batches = new ArrayList<>();
                out.put(p, batches);
                long offset = 0;
                long highWatermark = Long.MAX_VALUE;
                while (offset < highWatermark) {
                    FetchRequestData request = new FetchRequestData().setMaxWaitMs(0).setMinBytes(0).setMaxBytes(4 << 20)
                            .setIsolationLevel((byte) 0).setSessionId(0).setSessionEpoch(-1).setTopics(List.of(
                                    new FetchRequestData.FetchTopic().setTopic(topic).setPartitions(List.of(
                                            new FetchRequestData.FetchPartition().setPartition(p).setFetchOffset(offset)
                                                    .setPartitionMaxBytes(4 << 20).setCurrentLeaderEpoch(-1)
                                                    .setLogStartOffset(-1)))));
                    raw.send(ApiKeys.FETCH.id, version, ++correlation, request);
                    FetchResponseData response = (FetchResponseData) raw.readResponse(ApiKeys.FETCH.id, version, correlation);
                    FetchResponseData.PartitionData data = response.responses().getFirst().partitions().getFirst();
                    if (data.errorCode() != 0) {
                        throw new AssertionError("fetch of " + topic + "-" + p + " at " + offset + ": error "
                                + org.apache.kafka.common.protocol.Errors.forCode(data.errorCode()));
                    }
                    highWatermark = data.highWatermark();
                    long before = offset;
                    for (RecordBatch b : ((MemoryRecords) data.records()).batches()) {
                        if (b.lastOffset() < offset) {
                            continue;
                        }
                        int count = 0;
                        for (Record ignored : b) {
                            count++;
                        }
                        batches.add(new StoredBatch(p, b.baseOffset(), b.lastOffset(), count, b.isTransactional(),
                                b.isControlBatch()));
                        offset = b.lastOffset() + 1;
                    }
                    if (offset == before && offset < highWatermark) {
                        throw new AssertionError("fetch of " + topic + "-" + p + " at " + offset + " returned no batch below "
                                + "the high watermark " + highWatermark);
                    }
                }
            }
        }
        return out;
    }

    /** What a branch's {@code redact} writes for {@code text} with {@code with: hash}: HMAC-SHA256 under {@code salt}, hex. */
    static String saltedHash(String salt, String text) {
        try {
            javax.crypto.Mac mac = javax.crypto.Mac.getInstance("HmacSHA256");
            mac.init(new javax.crypto.spec.SecretKeySpec(salt.getBytes(java.nio.charset.StandardCharsets.UTF_8), "HmacSHA256"));
            return java.util.HexFormat.of().formatHex(mac.doFinal(text.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException("every JDK has HmacSHA256", e);
        }
    }
}
