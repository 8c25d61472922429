package dev.weft.proxy.weave;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.weft.proxy.conformance.Arrived;
import dev.weft.proxy.conformance.ConformanceEnvironment;
import dev.weft.proxy.conformance.Dataset;
import dev.weft.proxy.conformance.ExternalProcess;
import dev.weft.proxy.conformance.Prerequisites;
import dev.weft.proxy.conformance.Verify;
import dev.weft.proxy.server.WeftProxy;
import dev.weft.proxy.testing.ProxyFixture;
import dev.weft.proxy.testing.WeaveFixture;
import dev.weft.testkit.KafkaCluster;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Topic weaving seen by real tools (issue 4): one virtual cluster woven from two real clusters, "east"
 * (one broker, route 0, topic {@code shipments} renamed {@code deliveries}) and "west" (two brokers,
 * route 1, every topic prefixed {@code w.}). {@code kcat -L} and the kafka-clients Admin show one merged
 * cluster (virtual names, virtual broker ids {@code real × 2 + route}, the virtual cluster id); kafkajs
 * and python confluent_kafka group consumers subscribed to topics of both clusters read every record
 * once (written to the real clusters directly, under the real names) and commit offsets that land on
 * the cluster owning each partition. The kafkajs group's home is east (the default route); the python
 * group's is west (a {@code py-} prefix rule), so both homes are exercised.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class TopicWeaveRealClientsTest {

    private static final Duration TOOL_TIMEOUT = Duration.ofSeconds(90);
    private static final int ROUTES = 2;
    private static final int PER_TOPIC = 600;

    /** Virtual topic name → (route, real name) as configured below. */
    private static final Map<String, RealTopic> TOPICS = new LinkedHashMap<>();

    static {
        TOPICS.put("orders", new RealTopic(0, "orders", 3));
        TOPICS.put("deliveries", new RealTopic(0, "shipments", 2));
        TOPICS.put("w.payments", new RealTopic(1, "payments", 4));
        TOPICS.put("w.refunds", new RealTopic(1, "refunds", 1));
    }

    private record RealTopic(int route, String name, int partitions) {
    }

    private static KafkaCluster east;
    private static KafkaCluster west;
    private static WeftProxy proxy;
    private static String bootstrap;
    /** What the oracle wrote, by virtual topic name: the data and its offsets by partition. */
    private static final Map<String, Dataset> DATA = new TreeMap<>();
    private static final Map<String, Map<Integer, List<Long>>> WRITTEN = new TreeMap<>();

    @BeforeAll
    static void start() throws Exception {
        east = KafkaCluster.builder().brokers(1).build();
        west = KafkaCluster.builder().brokers(2).build();
        east.start();
        west.start();
        for (RealTopic t : TOPICS.values()) {
            cluster(t.route()).createTopic(t.name(), t.partitions(), 1);
        }
        proxy = WeaveFixture.start(List.of(east, west),
                List.of("name: east, naming: { renames: { shipments: deliveries } }", "name: west, naming: { prefix: \"w.\" }"),
                "    groups: { homes: [ { prefix: \"py-\", route: west } ], default: east }\n");
        bootstrap = ProxyFixture.bootstrap(proxy);
        long seed = 400;
        for (Map.Entry<String, RealTopic> e : TOPICS.entrySet()) {
            // the key prefix is the virtual name, so a record arriving under the wrong topic shows
            Dataset data = Dataset.binary(e.getKey(), PER_TOPIC, seed++, 1_024);
            DATA.put(e.getKey(), data);
            WRITTEN.put(e.getKey(), ConformanceEnvironment.produceDirect(cluster(e.getValue().route()).bootstrapServers(),
                    e.getValue().name(), data));
        }
    }

    @AfterAll
    static void stop() {
        try (AutoCloseable a = west; AutoCloseable b = east; AutoCloseable c = proxy) {
            // closed in reverse order: proxy, east, west
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private static KafkaCluster cluster(int route) {
        return route == 0 ? east : west;
    }

    /** Virtual node id of broker {@code realId} of {@code route} (DESIGN §4). */
    private static int virtualId(int route, int realId) {
        return realId * ROUTES + route;
    }

    private static int port(int virtualNodeId) {
        return bootstrapPort() + 1 + virtualNodeId;
    }

    private static int bootstrapPort() {
        return Integer.parseInt(bootstrap.substring(bootstrap.lastIndexOf(':') + 1));
    }

    private static Set<Integer> virtualBrokerIds() {
        Set<Integer> ids = new TreeSet<>();
        east.brokerIds().forEach(b -> ids.add(virtualId(0, b)));
        west.brokerIds().forEach(b -> ids.add(virtualId(1, b)));
        return ids;
    }

    /** The real partitions of every virtual topic, described on its own cluster. */
    private static Map<String, TopicDescription> realDescriptions() throws Exception {
        Map<String, TopicDescription> out = new TreeMap<>();
        for (int route = 0; route < ROUTES; route++) {
            int r = route;
            List<String> names = TOPICS.values().stream().filter(t -> t.route() == r).map(RealTopic::name).toList();
            Map<String, TopicDescription> d = cluster(route).admin().describeTopics(names).allTopicNames()
                    .get(30, TimeUnit.SECONDS); // the cluster's own admin client: not to be closed
            TOPICS.forEach((virtual, t) -> {
                if (t.route() == r) {
                    out.put(virtual, d.get(t.name()));
                }
            });
        }
        return out;
    }

    @Test
    void kcatListsTheMergedClusterUnderVirtualNamesAndIds(@TempDir Path scratch) throws Exception {
        ExternalProcess.Result result = ExternalProcess.run(
                List.of(Prerequisites.kcat().toString(), "-b", bootstrap, "-L", "-J", "-m", "30"),
                scratch, Map.of(), null, TOOL_TIMEOUT, scratch).assertSucceeded("kcat -L -J");
        Supplier<String> context = result::describe;
        JsonNode md = new ObjectMapper().readTree(result.stdout());

        Map<Integer, String> brokers = new TreeMap<>();
        md.get("brokers").forEach(b -> brokers.put(b.get("id").asInt(), b.get("name").asText()));
        Map<Integer, String> want = new TreeMap<>();
        virtualBrokerIds().forEach(id -> want.put(id, "127.0.0.1:" + port(id)));
        assertEquals(want, brokers, () -> "brokers kcat was told of" + context.get());
        for (KafkaCluster c : List.of(east, west)) {
            for (int realPort : c.usedPorts()) {
                assertFalse(result.stdout().contains(":" + realPort + "\""), () -> "a real broker port (" + realPort + ") shows"
                        + context.get());
            }
        }

        Map<String, JsonNode> topics = new TreeMap<>();
        md.get("topics").forEach(t -> topics.put(t.get("topic").asText(), t));
        assertEquals(TOPICS.keySet(), topics.keySet(), () -> "topics kcat lists (no real names, no internal topics)"
                + context.get());
        Map<String, TopicDescription> real = realDescriptions();
        for (String name : TOPICS.keySet()) {
            int route = TOPICS.get(name).route();
            JsonNode t = topics.get(name);
            assertFalse(t.has("error"), () -> name + ": " + t + context.get());
            Map<Integer, Integer> leaders = new TreeMap<>();
            t.get("partitions").forEach(p -> leaders.put(p.get("partition").asInt(), p.get("leader").asInt()));
            Map<Integer, Integer> wantLeaders = new TreeMap<>();
            for (TopicPartitionInfo p : real.get(name).partitions()) {
                wantLeaders.put(p.partition(), virtualId(route, p.leader().id()));
            }
            assertEquals(wantLeaders, leaders, () -> "leaders of " + name + " (virtual ids of the real leaders)" + context.get());
        }
        System.out.println("kcat -L: brokers " + brokers + ", topics " + topics.keySet());
    }

    @Test
    void adminShowsTheMergedClusterUnderVirtualNamesAndIds() throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            assertEquals(TOPICS.keySet(), new TreeSet<>(admin.listTopics().names().get(30, TimeUnit.SECONDS)), "listTopics");

            DescribeClusterResult cluster = admin.describeCluster();
            String clusterId = cluster.clusterId().get(30, TimeUnit.SECONDS);
            UUID u = UUID.nameUUIDFromBytes("weft-virtual-cluster:main".getBytes(StandardCharsets.UTF_8));
            assertEquals(new Uuid(u.getMostSignificantBits(), u.getLeastSignificantBits()).toString(), clusterId,
                    "the virtual cluster id (name-based, the same on every replica)");
            assertNotEquals(east.clusterId(), clusterId);
            assertNotEquals(west.clusterId(), clusterId);
            Map<Integer, String> nodes = new TreeMap<>();
            for (Node n : cluster.nodes().get(30, TimeUnit.SECONDS)) {
                nodes.put(n.id(), n.host() + ":" + n.port());
            }
            Map<Integer, String> want = new TreeMap<>();
            virtualBrokerIds().forEach(id -> want.put(id, "127.0.0.1:" + port(id)));
            assertEquals(want, nodes, "describeCluster nodes: real id × 2 + route, at the proxy's ports");
            Node controller = cluster.controller().get(30, TimeUnit.SECONDS);
            assertTrue(controller == null || controller.isEmpty() || want.containsKey(controller.id()),
                    () -> "controller " + controller + " is not a virtual broker");

            Map<String, TopicDescription> described = admin.describeTopics(TOPICS.keySet()).allTopicNames()
                    .get(30, TimeUnit.SECONDS);
            Map<String, TopicDescription> real = realDescriptions();
            Set<Uuid> ids = new HashSet<>();
            for (String name : TOPICS.keySet()) {
                TopicDescription d = described.get(name);
                TopicDescription r = real.get(name);
                int route = TOPICS.get(name).route();
                assertEquals(name, d.name());
                // no two routes share a cluster here, so real topic ids pass through unchanged
                assertEquals(r.topicId(), d.topicId(), "topic id of " + name);
                assertTrue(ids.add(d.topicId()), "topic id of " + name + " is unique");
                assertEquals(r.partitions().size(), d.partitions().size(), "partitions of " + name);
                for (int p = 0; p < d.partitions().size(); p++) {
                    TopicPartitionInfo vp = d.partitions().get(p);
                    TopicPartitionInfo rp = r.partitions().get(p);
                    assertEquals(rp.partition(), vp.partition());
                    assertEquals(virtualId(route, rp.leader().id()), vp.leader().id(), "leader of " + name + "-" + p);
                    assertEquals(rp.replicas().stream().map(n -> virtualId(route, n.id())).toList(),
                            vp.replicas().stream().map(Node::id).toList(), "replicas of " + name + "-" + p);
                    assertEquals(rp.isr().stream().map(n -> virtualId(route, n.id())).toList(),
                            vp.isr().stream().map(Node::id).toList(), "isr of " + name + "-" + p);
                    assertEquals("127.0.0.1:" + port(vp.leader().id()), vp.leader().host() + ":" + vp.leader().port());
                }
            }
            // a lookup by topic id finds the virtual name too
            Uuid paymentsId = described.get("w.payments").topicId();
            TopicDescription byId = admin.describeTopics(org.apache.kafka.common.TopicCollection.ofTopicIds(List.of(paymentsId)))
                    .allTopicIds().get(30, TimeUnit.SECONDS).get(paymentsId);
            assertEquals("w.payments", byId.name(), "describeTopics by id");
            System.out.println("Admin: cluster " + clusterId + ", nodes " + nodes + ", topics " + described.keySet());
        }
    }

    @Test
    void kafkaJsGroupConsumerReadsTopicsOfBothClustersOnce(@TempDir Path scratch) throws Exception {
        Path project = Prerequisites.kafkaJsProject();
        List<String> topics = List.of("orders", "deliveries", "w.payments");
        String group = "kafkajs-weave-group"; // home: east (default route)
        ExternalProcess.Result result = ExternalProcess.run(List.of(Prerequisites.node().toString(), "kafkajs_client.js",
                        "consume-topics", bootstrap, String.join(",", topics), group, Integer.toString(topics.size() * PER_TOPIC), "60"),
                project, Map.of(), null, TOOL_TIMEOUT, scratch).assertSucceeded("kafkajs_client.js consume-topics");
        checkGroupRead("kafkajs", group, topics, result);
    }

    @Test
    void pythonConfluentKafkaGroupConsumerReadsTopicsOfBothClustersOnce(@TempDir Path scratch) throws Exception {
        Path python = Prerequisites.pythonWithConfluentKafka(scratch);
        List<String> topics = List.of("orders", "w.payments", "w.refunds");
        String group = "py-weave-group"; // home: west (prefix rule)
        ExternalProcess.Result result = ExternalProcess.run(List.of(python.toString(),
                        Prerequisites.moduleDir().resolve("src/test/python/confluent_client.py").toString(),
                        "consume-topics", bootstrap, String.join(",", topics), group, Integer.toString(topics.size() * PER_TOPIC), "60"),
                scratch, Map.of(), null, TOOL_TIMEOUT, scratch).assertSucceeded("confluent_client.py consume-topics");
        checkGroupRead("python", group, topics, result);
    }

    /**
     * Every record of every topic arrived once, byte-identical, in per-partition order, at the offsets the
     * oracle was given; nothing of other topics arrived; the group's committed offsets are at the end of
     * every partition, stored on the cluster that owns it under the real topic name, and read back the
     * same through the proxy.
     */
    private static void checkGroupRead(String client, String group, List<String> topics, ExternalProcess.Result result)
            throws Exception {
        Map<String, List<Arrived>> arrived = Arrived.parseTopicTsv(client, result.stdout(), true);
        assertEquals(new TreeSet<>(topics), arrived.keySet(), result::describe);
        List<String> summaries = new ArrayList<>();
        for (String topic : topics) {
            Verify.Summary s = Verify.exactlyOnce(DATA.get(topic), arrived.get(topic), () -> topic + result.describe());
            Verify.sameOffsets(WRITTEN.get(topic), arrived.get(topic), () -> topic + result.describe());
            summaries.add(topic + ": " + s);
        }
        for (int route = 0; route < ROUTES; route++) {
            Map<TopicPartition, Long> want = new TreeMap<>(java.util.Comparator.comparing(TopicPartition::toString));
            for (String topic : topics) {
                RealTopic t = TOPICS.get(topic);
                if (t.route() == route) {
                    WRITTEN.get(topic).forEach((p, o) -> want.put(new TopicPartition(t.name(), p), o.getLast() + 1));
                }
            }
            Map<TopicPartition, OffsetAndMetadata> committed = cluster(route).admin().listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
            Map<TopicPartition, Long> got = new TreeMap<>(java.util.Comparator.comparing(TopicPartition::toString));
            committed.forEach((tp, o) -> got.put(tp, o.offset()));
            int r = route;
            assertEquals(want, got, () -> "offsets of " + group + " committed on " + (r == 0 ? "east" : "west"));
        }
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
            Map<String, Long> perTopic = new TreeMap<>();
            committed.forEach((tp, o) -> perTopic.merge(tp.topic(), o.offset(), Long::sum));
            Map<String, Long> want = new TreeMap<>();
            topics.forEach(t -> want.put(t, (long) PER_TOPIC));
            assertEquals(want, perTopic, "committed offsets of " + group + " through the proxy, summed by virtual topic");
        }
        System.out.println(client + " group " + group + " across clusters in " + result.took().toMillis() + " ms: "
                + String.join("; ", summaries));
    }
}
