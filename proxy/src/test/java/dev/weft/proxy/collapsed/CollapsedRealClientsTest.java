package dev.weft.proxy.collapsed;

import dev.weft.proxy.testing.ScrapedMetrics;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.weft.proxy.conformance.Arrived;
import dev.weft.proxy.conformance.ConformanceEnvironment;
import dev.weft.proxy.conformance.Dataset;
import dev.weft.proxy.conformance.ExternalProcess;
import dev.weft.proxy.conformance.Prerequisites;
import dev.weft.proxy.conformance.Verify;
import dev.weft.routing.node.CollapsedNodes;
import dev.weft.testkit.KafkaCluster;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real non-Java clients through a collapsed virtual cluster (issue 9): kcat and python confluent_kafka
 * (librdkafka 2.0, Debian packages) and kafkajs (npm).
 *
 * <p>Single cluster: a 3-broker cluster behind 3 collapsed proxy nodes (ids 100–102, one Weft
 * instance). {@code kcat -L -J} lists exactly the proxy nodes and virtual leaders; kcat, python and
 * kafkajs each produce (read back directly from the cluster: every record once, byte-identical, in
 * order, at the acknowledged offsets) and consume in a group (data written directly: every record once,
 * at its offsets, offsets committed to the end on the cluster). Produce and Fetch sub-requests reach all
 * 3 real brokers.
 *
 * <p>Across clusters: a topic-weave router over that cluster ("east", names as they are) and a second,
 * one-broker cluster ("west", prefix {@code w.}), collapsed onto ONE proxy node (id 200): every request
 * touching topics of both clusters is split across clusters. kcat lists the one node as every
 * partition's leader; one idempotent python producer writes to topics of both clusters at once (read
 * back on each real cluster under its real name); python and kafkajs groups consume topics of both
 * (committed offsets land on the cluster owning each partition).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class CollapsedRealClientsTest {

    private static final Duration TOOL_TIMEOUT = Duration.ofSeconds(90);
    private static final int PARTITIONS = 6;
    private static final int RECORDS = 1_500;

    private KafkaCluster east;
    private KafkaCluster west;
    private CollapsedFixture.Fleet single;
    private CollapsedFixture.Fleet woven;

    @BeforeAll
    void start() {
        east = KafkaCluster.builder().brokers(3).build().start();
        west = KafkaCluster.builder().brokers(1).build().start();
        single = CollapsedFixture.start(CollapsedFixture.Upstreams.cluster(east), 3, 100);
        woven = CollapsedFixture.start(CollapsedFixture.Upstreams.weave(List.of(east, west),
                List.of("name: east", "name: west, naming: { prefix: \"w.\" }"), ""), 1, 200);
    }

    @AfterAll
    void stop() {
        CollapsedFixture.closeAll(woven, single, east, west);
    }

    /** Creates a topic (replicated on every broker of its cluster) and waits until the collapsed fleets show it. */
    private String topic(KafkaCluster cluster, String name, int partitions) {
        cluster.createTopic(name, partitions, cluster.brokerIds().size());
        if (cluster == east) {
            Wire.awaitVisible(single, name, partitions);
            Wire.awaitVisible(woven, name, partitions);
        } else {
            Wire.awaitVisible(woven, "w." + name, partitions);
        }
        return name;
    }

    private static List<Arrived> readDirect(KafkaCluster cluster, String topic) {
        Map<String, Object> c = new HashMap<>();
        c.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        return ConformanceEnvironment.readAll(c, topic, "oracle");
    }

    private static Path python(Path scratch) {
        return Prerequisites.pythonWithConfluentKafka(scratch);
    }

    private static Path pythonScript() {
        return Prerequisites.moduleDir().resolve("src/test/python/confluent_client.py");
    }

    /** kcat -L -J at the fleet: its JSON, checked to list exactly the proxy nodes and no real broker port. */
    private static JsonNode kcatMetadata(CollapsedFixture.Fleet fleet, List<KafkaCluster> real, Path scratch) throws Exception {
        ExternalProcess.Result result = ExternalProcess.run(
                List.of(Prerequisites.kcat().toString(), "-b", fleet.bootstrap(), "-L", "-J", "-m", "30"),
                scratch, Map.of(), null, TOOL_TIMEOUT, scratch).assertSucceeded("kcat -L -J");
        JsonNode md = new ObjectMapper().readTree(result.stdout());
        Map<Integer, String> brokers = new TreeMap<>();
        md.get("brokers").forEach(b -> brokers.put(b.get("id").asInt(), b.get("name").asText()));
        assertEquals(fleet.addresses(), brokers, () -> "brokers kcat was told of" + result.describe());
        for (KafkaCluster c : real) {
            for (int port : c.usedPorts()) {
                assertFalse(result.stdout().contains(":" + port + "\""), () -> "a real broker port (" + port + ") shows"
                        + result.describe());
            }
        }
        return md;
    }

    /** The leaders of {@code topic} in kcat's JSON equal the fleet's virtual leaders; replicas are proxy nodes. */
    private static void assertVirtualLeaders(JsonNode md, String topic, CollapsedFixture.Fleet fleet, int partitions) {
        CollapsedNodes nodes = fleet.collapsedNodes();
        JsonNode t = null;
        for (JsonNode x : md.get("topics")) {
            if (x.get("topic").asText().equals(topic)) {
                t = x;
            }
        }
        JsonNode found = t;
        assertTrue(found != null && !found.has("error"), () -> "kcat -L -J for " + topic + ": " + md);
        Map<Integer, Integer> leaders = new TreeMap<>();
        Map<Integer, Integer> want = new TreeMap<>();
        for (JsonNode p : found.get("partitions")) {
            int partition = p.get("partition").asInt();
            leaders.put(partition, p.get("leader").asInt());
            want.put(partition, nodes.virtualLeader(topic, partition, null));
            p.get("replicas").forEach(r -> assertTrue(fleet.ids().contains(r.get("id").asInt()),
                    () -> "replica " + r + " of " + topic + "-" + partition + " is not a proxy node"));
        }
        assertEquals(partitions, leaders.size(), "partitions of " + topic + " listed by kcat");
        assertEquals(want, leaders, () -> "leaders of " + topic + " in kcat -L -J: the virtual leaders");
    }

    private static void assertSplitOverEveryBroker(ScrapedMetrics before, ScrapedMetrics after, String api,
            Map<String, List<Integer>> brokersByCluster, Supplier<String> context) {
        Map<String, Map<Integer, Double>> growth = new TreeMap<>();
        brokersByCluster.forEach((cluster, brokers) -> growth.put(cluster, before.growth(after, cluster, api, brokers)));
        assertTrue(growth.values().stream().allMatch(g -> g.values().stream().allMatch(v -> v > 0)),
                () -> api + " sub-requests per real broker: " + growth + after.linesOf(ScrapedMetrics.UPSTREAM_REQUESTS)
                        + context.get());
    }

    /** The group's committed offsets on {@code cluster} for {@code realTopic} are the end of what was written. */
    private static void assertCommittedToTheEnd(KafkaCluster cluster, String group, String realTopic,
            Map<Integer, List<Long>> written) throws Exception {
        Map<TopicPartition, OffsetAndMetadata> committed = cluster.admin().listConsumerGroupOffsets(group)
                .partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
        Map<Integer, Long> want = new TreeMap<>();
        written.forEach((p, o) -> want.put(p, Verify.endOf(o))); // reports may come out of order
        Map<Integer, Long> got = new TreeMap<>();
        committed.forEach((tp, o) -> {
            if (tp.topic().equals(realTopic)) {
                got.put(tp.partition(), o.offset());
            }
        });
        assertEquals(want, got, "offsets of " + group + " for " + realTopic + " committed on its cluster");
    }

    private static Map<Integer, List<Long>> acks(ExternalProcess.Result result, String topic) {
        Map<Integer, List<Long>> out = new TreeMap<>();
        result.stdout().lines().filter(l -> l.startsWith("ack ")).forEach(l -> {
            String[] f = l.split(" ");
            // "ack PARTITION OFFSET KEY" (confluent_client.py) or "ack TOPIC PARTITION OFFSET KEY" (the multi-topic one)
            if (f.length == 4 && topic == null) {
                out.computeIfAbsent(Integer.parseInt(f[1]), p -> new ArrayList<>()).add(Long.parseLong(f[2]));
            } else if (f.length == 5 && f[1].equals(topic)) {
                out.computeIfAbsent(Integer.parseInt(f[2]), p -> new ArrayList<>()).add(Long.parseLong(f[3]));
            }
        });
        return out;
    }

    /** The "node ID HOST PORT" lines a client script printed are exactly the fleet's nodes. */
    private static void assertToldProxyNodes(ExternalProcess.Result result, CollapsedFixture.Fleet fleet) {
        Map<Integer, String> nodes = new TreeMap<>();
        result.stdout().lines().filter(l -> l.startsWith("node ")).forEach(l -> {
            String[] f = l.split(" ");
            nodes.put(Integer.parseInt(f[1]), f[2] + ":" + f[3]);
        });
        assertEquals(fleet.addresses(), nodes, () -> "brokers the client was told of" + result.describe());
    }

    // ---------------------------------------------------------------------------------------------
    // One cluster behind three proxy nodes

    @Test
    void kcatListsTheProxyNodesAndProducesAndConsumesEveryRecordOnce(@TempDir Path scratch) throws Exception {
        String topic = topic(east, "kcat-collapsed", PARTITIONS);
        JsonNode md = kcatMetadata(single, List.of(east, west), scratch);
        assertVirtualLeaders(md, topic, single, PARTITIONS);

        Dataset data = Dataset.printable(topic, RECORDS, 501, 300);
        Path input = data.writeTsv(scratch.resolve("kcat-input.tsv"), false);
        ScrapedMetrics before = ScrapedMetrics.of(single.replica(0));
        ExternalProcess.Result produced = ExternalProcess.run(List.of(Prerequisites.kcat().toString(),
                        "-P", "-b", single.bootstrap(), "-t", topic, "-K", "\t",
                        "-X", "enable.idempotence=true", "-X", "acks=all", "-X", "linger.ms=5"),
                scratch, Map.of(), input, TOOL_TIMEOUT, scratch).assertSucceeded("kcat -P");
        List<Arrived> onCluster = readDirect(east, topic);
        Verify.Summary p = Verify.exactlyOnce(data, onCluster, () -> "kcat -P, read directly from the cluster" + produced.describe());
        Map<Integer, List<Long>> offsets = new TreeMap<>();
        onCluster.forEach(a -> offsets.computeIfAbsent(a.partition(), x -> new ArrayList<>()).add(a.offset()));

        ExternalProcess.Result consumed = ExternalProcess.run(List.of(Prerequisites.kcat().toString(),
                        "-C", "-b", single.bootstrap(), "-t", topic, "-o", "beginning", "-e", "-q",
                        "-f", "%p\\t%o\\t%k\\t%s\\n"),
                scratch, Map.of(), null, TOOL_TIMEOUT, scratch).assertSucceeded("kcat -C");
        List<Arrived> arrived = Arrived.parseTsv("kcat", consumed.stdout(), false);
        Verify.Summary c = Verify.exactlyOnce(data, arrived, consumed::describe);
        Verify.sameOffsets(offsets, arrived, consumed::describe);
        ScrapedMetrics after = ScrapedMetrics.of(single.replica(0));
        Map<String, List<Integer>> brokers = Map.of("upstream", east.brokerIds());
        assertSplitOverEveryBroker(before, after, "Produce", brokers, produced::describe);
        assertSplitOverEveryBroker(before, after, "Fetch", brokers, consumed::describe);
        System.out.println("[collapsed kcat] produce: " + p + "; consume: " + c);
    }

    @Test
    void pythonConfluentKafkaProducesAndConsumesInAGroupEveryRecordOnce(@TempDir Path scratch) throws Exception {
        Path python = python(scratch);
        String topic = topic(east, "python-collapsed", PARTITIONS);
        Dataset data = Dataset.binary(topic, RECORDS, 502, 2_048);
        Path input = data.writeTsv(scratch.resolve("python-input.tsv"), true);
        ScrapedMetrics before = ScrapedMetrics.of(single.replica(0));
        ExternalProcess.Result produced = ExternalProcess.run(List.of(python.toString(), pythonScript().toString(),
                        "produce", single.bootstrap(), topic, input.toString()),
                scratch, Map.of(), null, TOOL_TIMEOUT, scratch).assertSucceeded("confluent_client.py produce");
        assertToldProxyNodes(produced, single);
        List<Arrived> onCluster = readDirect(east, topic);
        Verify.Summary p = Verify.exactlyOnce(data, onCluster, () -> "read directly from the cluster" + produced.describe());
        Verify.sameOffsets(acks(produced, null), onCluster, produced::describe);

        String consumeTopic = topic(east, "python-collapsed-group", PARTITIONS);
        Dataset toConsume = Dataset.binary(consumeTopic, RECORDS, 503, 2_048);
        Map<Integer, List<Long>> written = ConformanceEnvironment.produceDirect(east.bootstrapServers(), consumeTopic, toConsume);
        String group = "python-collapsed-group";
        ExternalProcess.Result consumed = ExternalProcess.run(List.of(python.toString(), pythonScript().toString(),
                        "consume", single.bootstrap(), consumeTopic, group, Integer.toString(RECORDS), "60"),
                scratch, Map.of(), null, TOOL_TIMEOUT, scratch).assertSucceeded("confluent_client.py consume");
        List<Arrived> arrived = Arrived.parseTsv("python", consumed.stdout(), true);
        Verify.Summary c = Verify.exactlyOnce(toConsume, arrived, consumed::describe);
        Verify.sameOffsets(written, arrived, consumed::describe);
        assertCommittedToTheEnd(east, group, consumeTopic, written);
        ScrapedMetrics after = ScrapedMetrics.of(single.replica(0));
        Map<String, List<Integer>> brokers = Map.of("upstream", east.brokerIds());
        assertSplitOverEveryBroker(before, after, "Produce", brokers, produced::describe);
        assertSplitOverEveryBroker(before, after, "Fetch", brokers, consumed::describe);
        System.out.println("[collapsed python] produce: " + p + "; group consume: " + c);
    }

    @Test
    void kafkaJsProducesAndConsumesInAGroupEveryRecordOnce(@TempDir Path scratch) throws Exception {
        Path project = Prerequisites.kafkaJsProject();
        String topic = topic(east, "kafkajs-collapsed", PARTITIONS);
        Dataset data = Dataset.binary(topic, RECORDS, 504, 2_048);
        Path input = data.writeTsv(scratch.resolve("kafkajs-input.tsv"), true);
        ScrapedMetrics before = ScrapedMetrics.of(single.replica(0));
        ExternalProcess.Result produced = ExternalProcess.run(List.of(Prerequisites.node().toString(), "kafkajs_client.js",
                        "produce", single.bootstrap().split(",")[0], topic, input.toString()),
                project, Map.of(), null, TOOL_TIMEOUT, scratch).assertSucceeded("kafkajs_client.js produce");
        assertToldProxyNodes(produced, single);
        List<Arrived> onCluster = readDirect(east, topic);
        Verify.Summary p = Verify.exactlyOnce(data, onCluster, () -> "read directly from the cluster" + produced.describe());

        String consumeTopic = topic(east, "kafkajs-collapsed-group", PARTITIONS);
        Dataset toConsume = Dataset.binary(consumeTopic, RECORDS, 505, 2_048);
        Map<Integer, List<Long>> written = ConformanceEnvironment.produceDirect(east.bootstrapServers(), consumeTopic, toConsume);
        String group = "kafkajs-collapsed-group";
        ExternalProcess.Result consumed = ExternalProcess.run(List.of(Prerequisites.node().toString(), "kafkajs_client.js",
                        "consume", single.bootstrap().split(",")[0], consumeTopic, group, Integer.toString(RECORDS), "60"),
                project, Map.of(), null, TOOL_TIMEOUT, scratch).assertSucceeded("kafkajs_client.js consume");
        List<Arrived> arrived = Arrived.parseTsv("kafkajs", consumed.stdout(), true);
        Verify.Summary c = Verify.exactlyOnce(toConsume, arrived, consumed::describe);
        Verify.sameOffsets(written, arrived, consumed::describe);
        assertCommittedToTheEnd(east, group, consumeTopic, written);
        ScrapedMetrics after = ScrapedMetrics.of(single.replica(0));
        Map<String, List<Integer>> brokers = Map.of("upstream", east.brokerIds());
        assertSplitOverEveryBroker(before, after, "Produce", brokers, produced::describe);
        assertSplitOverEveryBroker(before, after, "Fetch", brokers, consumed::describe);
        System.out.println("[collapsed kafkajs] produce: " + p + "; group consume: " + c);
    }

    // ---------------------------------------------------------------------------------------------
    // Two clusters woven by topic, collapsed onto one proxy node

    /**
     * One idempotent librdkafka producer writing records of every given topic, interleaved, so its
     * Produce requests (all to the one proxy node) carry partitions of both clusters. Prints the brokers
     * it was told of ("node ID HOST PORT") and "ack TOPIC PARTITION OFFSET KEY" per acknowledged record.
     */
    private static final String MULTI_TOPIC_PRODUCER = """
            import base64, sys
            from confluent_kafka import Producer
            bootstrap = sys.argv[1]
            lists = []
            for spec in sys.argv[2:]:
                topic, path = spec.split('=', 1)
                with open(path, 'r', encoding='ascii') as f:
                    lists.append([(topic,) + tuple(l.rstrip('\\n').split('\\t')) for l in f if l.strip()])
            records = [r for group in zip(*lists) for r in group]
            p = Producer({'bootstrap.servers': bootstrap, 'enable.idempotence': True, 'acks': 'all', 'linger.ms': 20})
            md = p.list_topics(timeout=30)
            for b in sorted(md.brokers.values(), key=lambda b: b.id):
                print('node %d %s %d' % (b.id, b.host, b.port))
            errors = []
            acked = [0]
            def on_delivery(err, msg):
                if err is not None:
                    errors.append('%s %s: %s' % (msg.topic(), msg.key(), err))
                else:
                    acked[0] += 1
                    print('ack %s %d %d %s' % (msg.topic(), msg.partition(), msg.offset(), msg.key().decode('ascii')))
            for topic, key, value in records:
                while True:
                    try:
                        p.produce(topic, key=key.encode('ascii'), value=base64.b64decode(value), on_delivery=on_delivery)
                        break
                    except BufferError:
                        p.poll(0.1)
                p.poll(0)
            remaining = p.flush(60)
            sys.stdout.flush()
            if remaining or errors or acked[0] != len(records):
                print('produce failed: %d not flushed, %d acked of %d, errors %s' % (remaining, acked[0], len(records), errors[:20]),
                      file=sys.stderr)
                sys.exit(2)
            """;

    @Test
    void overATopicWeaveTheOneNodeSplitsEveryRequestAcrossBothClusters(@TempDir Path scratch) throws Exception {
        Path python = python(scratch);
        // virtual name → (cluster, real name)
        String eastTopic = topic(east, "woven-orders", PARTITIONS);
        String westReal = topic(west, "payments", 3);
        String westTopic = "w." + westReal;
        int nodeId = woven.ids().getFirst();

        JsonNode md = kcatMetadata(woven, List.of(east, west), scratch);
        assertVirtualLeaders(md, eastTopic, woven, PARTITIONS);
        assertVirtualLeaders(md, westTopic, woven, 3);
        Set<String> listed = new TreeSet<>();
        md.get("topics").forEach(t -> listed.add(t.get("topic").asText()));
        assertTrue(listed.containsAll(Set.of(eastTopic, westTopic)) && !listed.contains(westReal),
                () -> "topics kcat lists through the weave: " + listed);

        // one producer, records of both clusters interleaved
        Dataset eastData = Dataset.binary(eastTopic, RECORDS, 601, 1_024);
        Dataset westData = Dataset.binary(westTopic, RECORDS, 602, 1_024);
        Path script = Files.writeString(scratch.resolve("multi_topic_producer.py"), MULTI_TOPIC_PRODUCER, StandardCharsets.UTF_8);
        ScrapedMetrics before = ScrapedMetrics.of(woven.replica(0));
        ExternalProcess.Result produced = ExternalProcess.run(List.of(python.toString(), script.toString(), woven.bootstrap(),
                        eastTopic + "=" + eastData.writeTsv(scratch.resolve("east.tsv"), true),
                        westTopic + "=" + westData.writeTsv(scratch.resolve("west.tsv"), true)),
                scratch, Map.of(), null, TOOL_TIMEOUT, scratch).assertSucceeded("multi-topic python producer");
        assertToldProxyNodes(produced, woven);
        List<Arrived> onEast = readDirect(east, eastTopic);
        List<Arrived> onWest = readDirect(west, westReal);
        Verify.Summary pe = Verify.exactlyOnce(eastData, onEast, () -> eastTopic + " read directly from east" + produced.describe());
        Verify.sameOffsets(acks(produced, eastTopic), onEast, produced::describe);
        Verify.Summary pw = Verify.exactlyOnce(westData, onWest, () -> westReal + " read directly from west" + produced.describe());
        Verify.sameOffsets(acks(produced, westTopic), onWest, produced::describe);
        ScrapedMetrics afterProduce = ScrapedMetrics.of(woven.replica(0));
        Map<String, List<Integer>> brokers = new TreeMap<>();
        brokers.put("c0", east.brokerIds());
        brokers.put("c1", west.brokerIds());
        assertSplitOverEveryBroker(before, afterProduce, "Produce", brokers, produced::describe);
        assertTrue(afterProduce.clientRequests("Produce") > before.clientRequests("Produce"), "client Produce requests counted");

        // python and kafkajs groups over topics of both clusters (what was just written: offsets as acknowledged)
        Map<String, Dataset> data = Map.of(eastTopic, eastData, westTopic, westData);
        Map<String, Map<Integer, List<Long>>> written = Map.of(eastTopic, acks(produced, eastTopic), westTopic,
                acks(produced, westTopic));
        List<String> topics = List.of(eastTopic, westTopic);
        List<String> summaries = new ArrayList<>();
        for (String client : List.of("python", "kafkajs")) {
            String group = client + "-woven-collapsed";
            List<String> command = client.equals("python")
                    ? List.of(python.toString(), pythonScript().toString(), "consume-topics", woven.bootstrap(),
                            String.join(",", topics), group, Integer.toString(2 * RECORDS), "60")
                    : List.of(Prerequisites.node().toString(), "kafkajs_client.js", "consume-topics", woven.bootstrap(),
                            String.join(",", topics), group, Integer.toString(2 * RECORDS), "60");
            Path dir = client.equals("python") ? scratch : Prerequisites.kafkaJsProject();
            ScrapedMetrics beforeConsume = ScrapedMetrics.of(woven.replica(0));
            ExternalProcess.Result consumed = ExternalProcess.run(command, dir, Map.of(), null, TOOL_TIMEOUT, scratch)
                    .assertSucceeded(client + " consume-topics");
            Map<String, List<Arrived>> arrived = Arrived.parseTopicTsv(client, consumed.stdout(), true);
            assertEquals(new TreeSet<>(topics), arrived.keySet(), consumed::describe);
            for (String t : topics) {
                Verify.Summary s = Verify.exactlyOnce(data.get(t), arrived.get(t), () -> t + consumed.describe());
                Verify.sameOffsets(written.get(t), arrived.get(t), () -> t + consumed.describe());
                summaries.add(client + " " + t + ": " + s);
            }
            assertCommittedToTheEnd(east, group, eastTopic, written.get(eastTopic));
            assertCommittedToTheEnd(west, group, westReal, written.get(westTopic));
            assertSplitOverEveryBroker(beforeConsume, ScrapedMetrics.of(woven.replica(0)), "Fetch", brokers, consumed::describe);
        }
        System.out.println("[collapsed weave, node " + nodeId + "] produce east: " + pe + "; west: " + pw + "; "
                + String.join("; ", summaries));
    }
}
