package dev.weft.proxy.collapsed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.proxy.testing.Poll;
import dev.weft.proxy.testing.RawKafkaClient;
import dev.weft.routing.node.CollapsedNodes;
import dev.weft.routing.node.ProxyNode;
import dev.weft.testkit.KafkaCluster;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Raw requests (one connection, exactly the request written) and oracles that read the real cluster
 * directly, for the collapsed tests.
 */
final class Wire {

    static final short METADATA_VERSION = 12;
    static final short DESCRIBE_CLUSTER_VERSION = 1;
    static final short PRODUCE_VERSION = 11;
    static final short FETCH_VERSION = 12;

    private Wire() {
    }

    /** Metadata v12 for {@code topics} from {@code hostPort} (a proxy node or a real broker). */
    static MetadataResponseData metadata(String hostPort, List<String> topics) throws IOException {
        MetadataRequestData request = new MetadataRequestData().setAllowAutoTopicCreation(false)
                .setTopics(topics.stream().map(t -> new MetadataRequestData.MetadataRequestTopic().setName(t)).toList());
        try (RawKafkaClient raw = RawKafkaClient.connect(hostPort)) {
            raw.send(ApiKeys.METADATA.id, METADATA_VERSION, 3, request);
            return (MetadataResponseData) raw.readResponse(ApiKeys.METADATA.id, METADATA_VERSION, 3);
        }
    }

    /**
     * Returns once Metadata at every node of the fleet shows {@code topic} with {@code partitions}
     * partitions, each led: what a client waits for before it produces (a topic created directly on the
     * cluster is unknown to the proxy until its catalog has been refreshed, as to a lagging broker).
     */
    static void awaitVisible(CollapsedFixture.Fleet fleet, String topic, int partitions) {
        for (ProxyNode node : fleet.nodes()) {
            MetadataResponseData[] last = new MetadataResponseData[1];
            Poll.until(Duration.ofSeconds(30), topic + " with " + partitions + " led partitions in Metadata at node " + node.id(), () -> {
                try {
                    last[0] = metadata(node.hostPort(), List.of(topic));
                } catch (IOException e) {
                    return false;
                }
                MetadataResponseData.MetadataResponseTopic t = last[0].topics().find(topic);
                return t != null && t.errorCode() == 0 && t.partitions().size() == partitions
                        && t.partitions().stream().allMatch(p -> p.errorCode() == 0 && p.leaderId() >= 0);
            }, () -> "last answer " + last[0]);
        }
    }

    static DescribeClusterResponseData describeCluster(String hostPort) throws IOException {
        try (RawKafkaClient raw = RawKafkaClient.connect(hostPort)) {
            raw.send(ApiKeys.DESCRIBE_CLUSTER.id, DESCRIBE_CLUSTER_VERSION, 4,
                    new DescribeClusterRequestData().setEndpointType((byte) 1));
            return (DescribeClusterResponseData) raw.readResponse(ApiKeys.DESCRIBE_CLUSTER.id, DESCRIBE_CLUSTER_VERSION, 4);
        }
    }

    /** Partition → {leader, leader epoch} of {@code topic} in a Metadata answer. */
    static Map<Integer, int[]> leaders(MetadataResponseData md, String topic) {
        MetadataResponseData.MetadataResponseTopic t = md.topics().find(topic);
        if (t == null) {
            throw new AssertionError("no topic " + topic + " in " + md);
        }
        assertEquals(Errors.NONE.code(), t.errorCode(), () -> "error of " + topic + " in " + md);
        Map<Integer, int[]> out = new TreeMap<>();
        t.partitions().forEach(p -> out.put(p.partitionIndex(), new int[] {p.leaderId(), p.leaderEpoch()}));
        return out;
    }

    /**
     * A Metadata answer through a collapsed node is the proxy fleet's: brokers are exactly the
     * configured nodes (id, host, port, rack); each partition's leader is its virtual leader, its
     * replicas and ISR are the nodes the stable arithmetic gives for the real replica and ISR counts;
     * the leader epochs are the real ones ({@code direct}: the same request answered by a real broker).
     */
    static void assertCollapsedMetadata(MetadataResponseData viaProxy, MetadataResponseData direct, List<ProxyNode> nodes,
            List<String> topics, Supplier<String> context) {
        CollapsedNodes collapsed = CollapsedNodes.of("nodes", nodes);
        Map<Integer, String> want = new TreeMap<>();
        nodes.forEach(n -> want.put(n.id(), n.hostPort() + " rack " + n.rack()));
        Map<Integer, String> got = new TreeMap<>();
        viaProxy.brokers().forEach(b -> got.put(b.nodeId(), b.host() + ":" + b.port() + " rack " + b.rack()));
        assertEquals(want, got, () -> "brokers of a collapsed Metadata answer" + context.get());
        assertTrue(want.containsKey(viaProxy.controllerId()), () -> "controller " + viaProxy.controllerId()
                + " is not a proxy node" + context.get());
        for (String topic : topics) {
            MetadataResponseData.MetadataResponseTopic real = direct.topics().find(topic);
            MetadataResponseData.MetadataResponseTopic virtual = viaProxy.topics().find(topic);
            assertTrue(virtual != null && virtual.errorCode() == 0, () -> topic + " via the proxy: " + virtual + context.get());
            assertEquals(real.topicId(), virtual.topicId(), () -> "topic id of " + topic + context.get());
            assertEquals(real.partitions().size(), virtual.partitions().size(), () -> "partitions of " + topic + context.get());
            for (MetadataResponseData.MetadataResponsePartition r : real.partitions()) {
                MetadataResponseData.MetadataResponsePartition v = virtual.partitions().stream()
                        .filter(x -> x.partitionIndex() == r.partitionIndex()).findFirst()
                        .orElseThrow(() -> new AssertionError(topic + "-" + r.partitionIndex() + " missing" + context.get()));
                String tp = topic + "-" + r.partitionIndex();
                int[] replicas = collapsed.replicas(topic, r.partitionIndex(), null, r.replicaNodes().size());
                assertEquals(collapsed.virtualLeader(topic, r.partitionIndex(), null), v.leaderId(),
                        () -> "virtual leader of " + tp + " (real leader " + r.leaderId() + ")" + context.get());
                assertEquals(r.leaderEpoch(), v.leaderEpoch(), () -> "leader epoch of " + tp + " (the real one)" + context.get());
                assertEquals(boxed(replicas), v.replicaNodes(), () -> "replicas of " + tp + context.get());
                assertEquals(boxed(CollapsedNodes.inSyncReplicas(replicas, Math.max(1, r.isrNodes().size()))), v.isrNodes(),
                        () -> "ISR of " + tp + " (real ISR " + r.isrNodes() + ")" + context.get());
            }
        }
    }

    private static List<Integer> boxed(int[] a) {
        List<Integer> out = new ArrayList<>();
        for (int x : a) {
            out.add(x);
        }
        return out;
    }

    /** Record values of a raw Produce: {@code <tag>-<partition>-<i>}. */
    static List<String> rawValues(String tag, int partition, int count) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            out.add(tag + "-" + partition + "-" + i);
        }
        return out;
    }

    /** One Produce v11 (by name, no producer id) carrying {@code perPartition} records for each of {@code partitions}, in that order. */
    static ProduceRequestData produceRequest(String topic, List<Integer> partitions, String tag, int perPartition, short acks) {
        List<ProduceRequestData.PartitionProduceData> data = new ArrayList<>();
        for (int p : partitions) {
            SimpleRecord[] records = rawValues(tag, p, perPartition).stream()
                    .map(v -> new SimpleRecord(("key-" + v).getBytes(StandardCharsets.UTF_8), v.getBytes(StandardCharsets.UTF_8)))
                    .toArray(SimpleRecord[]::new);
            data.add(new ProduceRequestData.PartitionProduceData().setIndex(p)
                    .setRecords(MemoryRecords.withRecords(Compression.NONE, records)));
        }
        ProduceRequestData.TopicProduceDataCollection topics = new ProduceRequestData.TopicProduceDataCollection();
        topics.add(new ProduceRequestData.TopicProduceData().setName(topic).setPartitionData(data));
        return new ProduceRequestData().setAcks(acks).setTimeoutMs(15_000).setTopicData(topics);
    }

    /** Sends one acks=all Produce and returns the answer. */
    static ProduceResponseData produce(String hostPort, ProduceRequestData request) throws IOException {
        try (RawKafkaClient raw = RawKafkaClient.connect(hostPort)) {
            raw.send(ApiKeys.PRODUCE.id, PRODUCE_VERSION, 17, request);
            return (ProduceResponseData) raw.readResponse(ApiKeys.PRODUCE.id, PRODUCE_VERSION, 17);
        }
    }

    /** The partitions of a Produce answer for {@code topic}, in the order they came. */
    static List<ProduceResponseData.PartitionProduceResponse> partitions(ProduceResponseData r, String topic) {
        List<ProduceResponseData.PartitionProduceResponse> out = new ArrayList<>();
        List<String> topics = new ArrayList<>();
        for (ProduceResponseData.TopicProduceResponse t : r.responses()) {
            topics.add(t.name());
            if (topic.equals(t.name())) {
                out.addAll(t.partitionResponses());
            }
        }
        assertEquals(List.of(topic), topics, () -> "topics of the Produce answer: " + r);
        return out;
    }

    /** A sessionless Fetch v12 of {@code partitions} of {@code topic} (in that order) from the given offsets. */
    static FetchRequestData fetchRequest(String topic, List<Integer> partitions, Map<Integer, Long> offsets) {
        List<FetchRequestData.FetchPartition> ps = new ArrayList<>();
        for (int p : partitions) {
            ps.add(new FetchRequestData.FetchPartition().setPartition(p).setFetchOffset(offsets.get(p))
                    .setPartitionMaxBytes(1 << 20).setCurrentLeaderEpoch(-1).setLogStartOffset(-1));
        }
        return new FetchRequestData().setReplicaId(-1).setMaxWaitMs(1000).setMinBytes(1).setMaxBytes(16 << 20)
                .setIsolationLevel((byte) 0).setSessionId(0).setSessionEpoch(-1)
                .setTopics(List.of(new FetchRequestData.FetchTopic().setTopic(topic).setPartitions(ps)));
    }

    static FetchResponseData fetch(RawKafkaClient raw, int correlationId, FetchRequestData request) throws IOException {
        raw.send(ApiKeys.FETCH.id, FETCH_VERSION, correlationId, request);
        return (FetchResponseData) raw.readResponse(ApiKeys.FETCH.id, FETCH_VERSION, correlationId);
    }

    /** Values of the records of one fetched partition at or after {@code from}. */
    static List<String> values(FetchResponseData.PartitionData p, long from) {
        List<String> out = new ArrayList<>();
        if (p.records() == null) {
            return out;
        }
        for (RecordBatch b : ((MemoryRecords) p.records()).batches()) {
            for (Record r : b) {
                if (r.offset() >= from) {
                    byte[] v = new byte[r.valueSize()];
                    r.value().get(v);
                    out.add(new String(v, StandardCharsets.UTF_8));
                }
            }
        }
        return out;
    }

    /** The next offset after the records of one fetched partition, or {@code from} when it has none. */
    static long nextOffset(FetchResponseData.PartitionData p, long from) {
        long next = from;
        if (p.records() != null) {
            for (RecordBatch b : ((MemoryRecords) p.records()).batches()) {
                next = Math.max(next, b.nextOffset());
            }
        }
        return next;
    }

    /** Oracle: the sum of the end offsets of every partition of {@code topic}, read on the cluster directly. */
    static long countDirect(KafkaCluster kafka, String topic) throws Exception {
        Map<String, org.apache.kafka.clients.admin.TopicDescription> d = kafka.admin().describeTopics(List.of(topic))
                .allTopicNames().get(30, TimeUnit.SECONDS);
        Map<TopicPartition, org.apache.kafka.clients.admin.OffsetSpec> specs = new HashMap<>();
        d.get(topic).partitions().forEach(p -> specs.put(new TopicPartition(topic, p.partition()),
                org.apache.kafka.clients.admin.OffsetSpec.latest()));
        return kafka.admin().listOffsets(specs).all().get(30, TimeUnit.SECONDS).values().stream()
                .mapToLong(org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo::offset).sum();
    }

    /** Oracle: every record of {@code topic}, read on the brokers at {@code bootstrap} directly, start to end. */
    static List<Records.Got> readDirect(String bootstrap, String topic) {
        Map<String, Object> c = new HashMap<>();
        c.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        return readAll(c, topic, "direct");
    }

    /** Every record of {@code topic} read by a group-less consumer with {@code config}, start to end offsets. */
    static List<Records.Got> readAll(Map<String, Object> config, String topic, String member) {
        List<Records.Got> out = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            List<TopicPartition> parts = consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                    .map(i -> new TopicPartition(topic, i.partition())).toList();
            consumer.assign(parts);
            consumer.seekToBeginning(parts);
            Map<TopicPartition, Long> end = consumer.endOffsets(parts, Duration.ofSeconds(30));
            Poll.until(Duration.ofSeconds(90), "reading " + topic + " to its end " + end + " (" + member + ")", () -> {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    out.add(Records.Got.of(member, r));
                }
                return parts.stream().allMatch(tp -> consumer.position(tp) >= end.get(tp));
            }, () -> out.size() + " read");
        }
        return out;
    }
}
