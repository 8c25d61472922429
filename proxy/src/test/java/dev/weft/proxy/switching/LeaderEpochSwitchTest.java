package dev.weft.proxy.switching;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.proxy.conformance.ExternalProcess;
import dev.weft.proxy.conformance.Prerequisites;
import dev.weft.proxy.server.WeftProxy;
import dev.weft.proxy.testing.Poll;
import dev.weft.proxy.testing.ProxyFixture;
import dev.weft.proxy.testing.RawKafkaClient;
import dev.weft.proxy.testing.SwitchedProxy;
import dev.weft.testkit.KafkaCluster;
import dev.weft.testkit.KafkaClusterConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A switch to a cluster whose partitions have lower leader epochs than the old one's: the usual case of
 * a migration (the old cluster's leaders have moved over the years, MirrorMaker 2 created the new
 * cluster's topics yesterday). A client that has seen epoch 4 for a partition ignores Metadata that
 * names its leader at epoch 0 as stale (KIP-320), so it would keep sending to the old cluster's broker,
 * which the virtual cluster no longer has. A current librdkafka (2.15) producer runs through the switch.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class LeaderEpochSwitchTest {

    private static final String TOPIC = "orders";
    private static final int PARTITIONS = 3;

    @KafkaClusterConfig
    static KafkaCluster east;

    @KafkaClusterConfig
    static KafkaCluster west;

    private WeftProxy proxy;

    @BeforeAll
    void start() throws Exception {
        east.createTopic(TOPIC, PARTITIONS, 1);
        int broker = east.brokerIds().getFirst();
        for (int i = 0; i < 2; i++) {
            east.restartBroker(broker); // each restart moves every partition's leadership: epoch + 2
            east.awaitLeaders(TOPIC, PARTITIONS);
        }
        west.createTopic(TOPIC, PARTITIONS, 1);
        int eastEpoch = minLeaderEpoch(east.bootstrapServers());
        assertTrue(eastEpoch > 0 && maxLeaderEpoch(west.bootstrapServers()) < eastEpoch,
                "east's leader epochs (at least " + eastEpoch + ") above west's");
        System.out.printf("[leader-epochs] east %s, west %s%n", epochs(east.bootstrapServers()), epochs(west.bootstrapServers()));
        proxy = SwitchedProxy.start(east.bootstrapServers(), west.bootstrapServers(), "", "    cutover: { drainTimeoutMs: 1000 }");
    }

    @AfterAll
    void stop() {
        if (proxy != null) {
            proxy.close();
        }
    }

    @Test
    void aCurrentLibrdkafkaProducerFollowsTheSwitchToLowerLeaderEpochs(@TempDir Path scratch) throws Exception {
        Path project = Prerequisites.rdkafkaJsProject();
        Set<String> javaReceived = ConcurrentHashMap.newKeySet();
        AtomicBoolean consuming = new AtomicBoolean(true);
        Thread javaConsumer = new Thread(() -> {
            try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Map.of(
                    ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, ProxyFixture.bootstrap(proxy), ConsumerConfig.GROUP_ID_CONFIG, "java-readers",
                    ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                    ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class,
                    ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class))) {
                consumer.subscribe(List.of(TOPIC));
                while (consuming.get()) {
                    consumer.poll(Duration.ofMillis(100)).forEach(r -> javaReceived.add(r.key()));
                }
            }
        }, "java-consumer");
        javaConsumer.start();
        try (ExternalProcess.Running rdConsumer = ExternalProcess.start(List.of(Prerequisites.node().toString(),
                project.resolve("rdkafka_client.js").toString(), "consume-topics", ProxyFixture.bootstrap(proxy), TOPIC, "rd-readers",
                "1000000000", "75"), project, Map.of(), Files.createDirectories(scratch.resolve("consumer")));
                ExternalProcess.Running producer = ExternalProcess.start(List.of(Prerequisites.node().toString(),
                project.resolve("rdkafka_client.js").toString(), "produce-for", ProxyFixture.bootstrap(proxy), TOPIC, "epoch", "12"),
                project, Map.of(), Files.createDirectories(scratch.resolve("producer")))) {
            Poll.until(Duration.ofSeconds(60), "100 records acknowledged on east and both groups reading them",
                    () -> acks(producer.stdout()).size() >= 100 && javaReceived.size() >= 50 && rdKeys(rdConsumer.stdout()).size() >= 50,
                    () -> producer.stderr() + rdConsumer.stderr());
            CutoverOutcome outcome = proxy.switches().get("alias").switchTo("west", true, line -> { }).get(60, TimeUnit.SECONDS);
            assertTrue(outcome.switched(), outcome.message());
            Poll.until(Duration.ofSeconds(90), "the producer to end its 12 s and flush", () -> !producer.isAlive(), producer::stderr);
            ExternalProcess.Result result = producer.stop(Duration.ofSeconds(5));
            Set<String> acked = acks(producer.stdout());
            Set<String> onWest = keys(west);
            Set<String> onEast = keys(east);
            System.out.printf("[leader-epochs] %d acknowledged, %d on east, %d on west; %s%n", acked.size(), onEast.size(),
                    onWest.size(), producer.stdout().lines().filter(l -> l.startsWith("sent")).findFirst().orElse("(no summary)"));
            Set<String> lost = new TreeSet<>(acked);
            lost.removeAll(onEast);
            lost.removeAll(onWest);
            assertEquals(Set.of(), lost, "acknowledged records on neither cluster");
            assertTrue(onWest.size() >= 500, "the producer went on writing, to west: " + onWest.size() + " records there;\n"
                    + result.describe());
            assertTrue(producer.stdout().lines().noneMatch(l -> l.startsWith("error ")), "failed sends:\n" + result.describe());
            // Both groups, on west from its start (no MirrorMaker here), receive everything acknowledged.
            Poll.until(Duration.ofSeconds(60), "both groups to receive every acknowledged record",
                    () -> javaReceived.containsAll(acked) && rdKeys(rdConsumer.stdout()).containsAll(acked),
                    () -> "kafka-clients missing " + missing(acked, javaReceived) + ", librdkafka missing "
                            + missing(acked, rdKeys(rdConsumer.stdout())) + "\n" + rdConsumer.stderr());
        } finally {
            consuming.set(false);
            javaConsumer.join(30_000);
        }
    }

    private static Set<String> acks(String stdout) {
        return stdout.lines().filter(l -> l.startsWith("ack ")).map(l -> l.substring(l.lastIndexOf(' ') + 1))
                .collect(Collectors.toCollection(TreeSet::new));
    }

    /** The keys of the lines "TOPIC<TAB>PARTITION<TAB>OFFSET<TAB>KEY<TAB>VALUE" the librdkafka consumer printed. */
    private static Set<String> rdKeys(String stdout) {
        return stdout.lines().map(l -> l.split("\t")).filter(f -> f.length >= 4).map(f -> f[3])
                .collect(Collectors.toCollection(TreeSet::new));
    }

    private static String missing(Set<String> expected, Set<String> got) {
        Set<String> m = new TreeSet<>(expected);
        m.removeAll(got);
        return m.size() + " " + m.stream().limit(5).toList();
    }

    private static Set<String> keys(KafkaCluster cluster) {
        Set<String> keys = new TreeSet<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers(),
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class))) {
            List<TopicPartition> tps = java.util.stream.IntStream.range(0, PARTITIONS).mapToObj(p -> new TopicPartition(TOPIC, p)).toList();
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
            Map<TopicPartition, Long> end = consumer.endOffsets(tps);
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (tps.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp)) && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(r -> keys.add(r.key()));
            }
        }
        return keys;
    }

    private static int minLeaderEpoch(String bootstrap) throws Exception {
        return epochs(bootstrap).values().stream().mapToInt(Integer::intValue).min().orElseThrow();
    }

    private static int maxLeaderEpoch(String bootstrap) throws Exception {
        return epochs(bootstrap).values().stream().mapToInt(Integer::intValue).max().orElseThrow();
    }

    private static Map<Integer, Integer> epochs(String bootstrap) throws Exception {
        try (RawKafkaClient c = RawKafkaClient.connect(bootstrap)) {
            c.send(ApiKeys.METADATA.id, (short) 12, 1, new MetadataRequestData().setTopics(List.of(
                    new MetadataRequestData.MetadataRequestTopic().setName(TOPIC))).setAllowAutoTopicCreation(false));
            MetadataResponseData m = (MetadataResponseData) c.readResponse(ApiKeys.METADATA.id, (short) 12, 1);
            Map<Integer, Integer> out = new TreeMap<>();
            m.topics().find(TOPIC).partitions().forEach(p -> out.put(p.partitionIndex(), p.leaderEpoch()));
            return out;
        }
    }
}
