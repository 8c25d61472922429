package dev.weft.proxy.rack;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.proxy.conformance.Arrived;
import dev.weft.proxy.conformance.ConformanceEnvironment;
import dev.weft.proxy.conformance.Dataset;
import dev.weft.proxy.conformance.ExternalProcess;
import dev.weft.proxy.conformance.Prerequisites;
import dev.weft.proxy.conformance.Verify;
import dev.weft.proxy.testing.Poll;
import dev.weft.proxy.testing.ScrapedMetrics;
import dev.weft.proxy.testing.VirtualClusterFixture;
import dev.weft.proxy.testing.VirtualClusterKind;
import dev.weft.proxy.server.WeftProxy;
import dev.weft.testkit.KafkaCluster;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Rack-aware fetch (issue #11) against real brokers and real clients, for every kind of virtual cluster:
 * three brokers in racks a, b and c, every topic replicated three times with its leaders spread over the
 * three, and Weft in zone b ({@code server.rack: b}). Consumers that set no {@code client.rack} must read
 * every record exactly once, and every byte of it from broker 1, the zone-b broker, which holds every
 * partition in sync. Where the bytes came from is what the brokers themselves count: clients reach the
 * brokers on a listener of their own ({@code CLIENT}; replication has another), and each broker's
 * socket-server metrics say what it sent on it. Weft's own per-broker, per-zone counters are checked
 * against those.
 *
 * <p>The brokers run KIP-392's {@code RackAwareReplicaSelector}, so a client that does set
 * {@code client.rack} is told a preferred read replica by a leader Weft reads from: Weft maps it to the
 * virtual node id, and reads in its own zone whichever virtual broker the client fetches from.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class RackAwareFetchTest {

    private static final String CLIENT_LISTENER = "CLIENT";
    private static final String[] RACKS = {"a", "b", "c"};
    private static final int IN_ZONE_BROKER = 1;
    private static final int PARTITIONS = 6;
    private static final int RECORDS = 3_000;
    private static final int MAX_VALUE_BYTES = 2_048;
    private static final Duration TOOL_TIMEOUT = Duration.ofSeconds(120);
    private static final String FETCH_BYTES = "weft_upstream_fetch_bytes_total";

    private static KafkaCluster cluster;
    private static VirtualClusterFixture fixture;

    /**
     * Every kind but switched: a switch plans Fetch with the topic weave's planner over its one serving
     * route, so the topic-woven kind already runs these cases through the same code (and CI time is kept
     * for the suites that must run every kind).
     */
    static java.util.stream.Stream<VirtualClusterKind> kinds() {
        return VirtualClusterKind.all().filter(k -> k != VirtualClusterKind.SWITCHED);
    }

    @BeforeAll
    static void start() {
        cluster = KafkaCluster.builder().brokers(3).rack(id -> RACKS[id])
                .listener(CLIENT_LISTENER, SecurityProtocol.PLAINTEXT)
                .listener("REPLICATION", SecurityProtocol.PLAINTEXT)
                .interBrokerListener("REPLICATION")
                .brokerProperty("replica.selector.class", "org.apache.kafka.common.replica.RackAwareReplicaSelector")
                .brokerProperty("offsets.topic.replication.factor", "3")
                .build();
        cluster.start();
        fixture = VirtualClusterFixture.over(cluster).serverSettings(", rack: b").build();
    }

    @AfterAll
    static void stop() {
        if (fixture != null) {
            fixture.close();
        } else if (cluster != null) {
            cluster.close();
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Every record once, every byte from the in-zone broker

    @ParameterizedTest
    @MethodSource("kinds")
    void aGroupConsumerReadsEveryRecordOnceFromTheInZoneBroker(VirtualClusterKind kind) throws Exception {
        String topic = spreadTopic(kind, "zoned-java");
        Dataset data = Dataset.binary(topic, RECORDS, 1101, MAX_VALUE_BYTES);
        Map<Integer, List<Long>> written = virtual(kind, ConformanceEnvironment.produceDirect(cluster.bootstrapServers(), topic, data));
        Served served = Served.start(kind);
        List<Arrived> arrived = readWithGroup(fixture.bootstrap(kind), topic, kind.name("zoned-java-group"), RECORDS, Map.of());
        Verify.Summary summary = Verify.exactlyOnce(data, arrived, () -> " (kafka-clients group through " + kind + ")");
        Verify.sameOffsets(written, arrived, () -> " (kafka-clients group through " + kind + ")");
        served.assertFromInZoneBroker(valueBytes(data), "kafka-clients group consumer");
        System.out.println("[" + kind + "] kafka-clients group: " + summary + "; " + served);
    }

    @ParameterizedTest
    @MethodSource("kinds")
    void kcatReadsEveryRecordOnceFromTheInZoneBroker(VirtualClusterKind kind, @TempDir Path scratch) throws Exception {
        String topic = spreadTopic(kind, "zoned-kcat");
        Dataset data = Dataset.printable(topic, RECORDS, 1102, MAX_VALUE_BYTES);
        Map<Integer, List<Long>> written = virtual(kind, ConformanceEnvironment.produceDirect(cluster.bootstrapServers(), topic, data));
        Served served = Served.start(kind);
        ExternalProcess.Result consumed = ExternalProcess.run(List.of(Prerequisites.kcat().toString(),
                        "-C", "-b", fixture.bootstrap(kind), "-t", topic, "-o", "beginning", "-e", "-q",
                        "-f", "%p\\t%o\\t%k\\t%s\\n"),
                scratch, Map.of(), null, TOOL_TIMEOUT, scratch).assertSucceeded("kcat -C");
        List<Arrived> arrived = Arrived.parseTsv("kcat", consumed.stdout(), false);
        Verify.Summary summary = Verify.exactlyOnce(data, arrived, consumed::describe);
        Verify.sameOffsets(written, arrived, consumed::describe);
        served.assertFromInZoneBroker(valueBytes(data), "kcat -C");
        System.out.println("[" + kind + "] kcat: " + summary + "; " + served);
    }

    @ParameterizedTest
    @MethodSource("kinds")
    void pythonConfluentKafkaGroupReadsEveryRecordOnceFromTheInZoneBroker(VirtualClusterKind kind, @TempDir Path scratch)
            throws Exception {
        Path python = Prerequisites.pythonWithConfluentKafka(scratch);
        String topic = spreadTopic(kind, "zoned-python");
        Dataset data = Dataset.binary(topic, RECORDS, 1103, MAX_VALUE_BYTES);
        Map<Integer, List<Long>> written = virtual(kind, ConformanceEnvironment.produceDirect(cluster.bootstrapServers(), topic, data));
        Served served = Served.start(kind);
        ExternalProcess.Result consumed = ExternalProcess.run(List.of(python.toString(),
                        Prerequisites.moduleDir().resolve("src/test/python/confluent_client.py").toString(),
                        "consume", fixture.bootstrap(kind), topic, kind.name("zoned-python-group"), Integer.toString(RECORDS), "60"),
                scratch, Map.of(), null, TOOL_TIMEOUT, scratch).assertSucceeded("confluent_client.py consume");
        List<Arrived> arrived = Arrived.parseTsv("python", consumed.stdout(), true);
        Verify.Summary summary = Verify.exactlyOnce(data, arrived, consumed::describe);
        Verify.sameOffsets(written, arrived, consumed::describe);
        served.assertFromInZoneBroker(valueBytes(data), "confluent_kafka group consumer");
        System.out.println("[" + kind + "] confluent_kafka: " + summary + "; " + served);
    }

    // ---------------------------------------------------------------------------------------------
    // Isolation and waiting, as from the leader

    /**
     * Committed, aborted and committed again transactions written directly: a {@code read_committed}
     * consumer through Weft sees exactly the committed records, once, read from broker 1 (a follower keeps
     * the same transaction markers and aborted-transaction index as the leader).
     */
    @ParameterizedTest
    @MethodSource("kinds")
    void aReadCommittedConsumerSeesOnlyCommittedRecordsFromTheInZoneBroker(VirtualClusterKind kind) throws Exception {
        String topic = spreadTopic(kind, "zoned-txn");
        List<String> committed = new ArrayList<>();
        long committedBytes = 0;
        Map<String, Object> p = new HashMap<>();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, kind.name("zoned-txn-producer"));
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            producer.initTransactions();
            for (int txn = 0; txn < 3; txn++) {
                producer.beginTransaction();
                for (int r = 0; r < 400; r++) {
                    String value = "txn" + txn + "-" + r + "-" + "x".repeat(500);
                    producer.send(new ProducerRecord<>(topic, r % PARTITIONS, "k" + txn + "-" + r, value));
                    if (txn != 1) {
                        committed.add(value);
                        committedBytes += value.length();
                    }
                }
                if (txn == 1) {
                    producer.abortTransaction();
                } else {
                    producer.commitTransaction();
                }
            }
        }
        Served served = Served.start(kind);
        List<String> read = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = consumer(fixture.bootstrap(kind), kind.name("zoned-txn-group"),
                Map.of(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"))) {
            consumer.subscribe(List.of(topic));
            List<Arrived> arrived = new ArrayList<>();
            pollUntil(consumer, arrived, committed.size(), topic + " read_committed");
            // and nothing more: the aborted transaction's records never come
            long quietUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
            while (System.nanoTime() < quietUntil) {
                consumer.poll(Duration.ofMillis(200)).forEach(r -> arrived.add(Arrived.of("java", r)));
            }
            arrived.forEach(a -> read.add(new String(a.value(), java.nio.charset.StandardCharsets.UTF_8)));
        }
        assertEquals(new java.util.TreeSet<>(committed), new java.util.TreeSet<>(read), "committed records read through " + kind);
        assertEquals(committed.size(), read.size(), () -> "each committed record once, no aborted one, through " + kind);
        served.assertFromInZoneBroker(committedBytes, "read_committed consumer");
        System.out.println("[" + kind + "] read_committed: " + read.size() + " committed records once; " + served);
    }

    /**
     * A consumer at the end of every partition waits as it would at the leaders ({@code fetch.max.wait.ms}),
     * and each record produced meanwhile reaches it: a follower's "nothing more" is checked with the
     * leader once and then believed at that offset, so the consumer neither stops early nor misses what
     * arrives; nothing arrives twice.
     */
    @ParameterizedTest
    @MethodSource("kinds")
    void aConsumerAtTheEndGetsEachRecordProducedWhileItWaits(VirtualClusterKind kind) throws Exception {
        String topic = spreadTopic(kind, "zoned-tail");
        List<Arrived> arrived = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = consumer(fixture.bootstrap(kind), null, Map.of(
                ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 300));
             KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                     ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers(), ProducerConfig.ACKS_CONFIG, "all"),
                     new StringSerializer(), new StringSerializer())) {
            List<TopicPartition> partitions = new ArrayList<>();
            for (int p = 0; p < PARTITIONS; p++) {
                partitions.add(new TopicPartition(topic, p));
            }
            consumer.assign(partitions);
            consumer.seekToEnd(partitions);
            partitions.forEach(consumer::position);
            long idleUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
            while (System.nanoTime() < idleUntil) { // at the end: followers say "nothing more", leaders agree
                consumer.poll(Duration.ofMillis(200)).forEach(r -> arrived.add(Arrived.of("java", r)));
            }
            assertEquals(List.of(), arrived, "nothing was produced yet");
            for (int r = 0; r < 2 * PARTITIONS; r++) {
                producer.send(new ProducerRecord<>(topic, r % PARTITIONS, "tail-" + r, "value-" + r)).get(30, TimeUnit.SECONDS);
                pollUntil(consumer, arrived, r + 1, "record tail-" + r + " of " + topic + " (produced while the consumer waits)");
            }
        }
        List<String> keys = arrived.stream().map(Arrived::key).toList();
        assertEquals(2 * PARTITIONS, new java.util.TreeSet<>(keys).size(), () -> "each record once: " + keys);
        assertEquals(2 * PARTITIONS, keys.size(), () -> "each record once: " + keys);
        System.out.println("[" + kind + "] at the end: " + keys.size() + " records produced one by one arrived once each");
    }

    /**
     * A virtual cluster's own {@code rack} wins over {@code server.rack}: a proxy placed in zone a by its
     * server settings, whose one virtual cluster says zone b, reads every byte from broker 1; another
     * virtual cluster of the same proxy with {@code rack: ""} reads from the leaders.
     */
    @org.junit.jupiter.api.Test
    void aVirtualClustersOwnRackOverridesTheServersAndAnEmptyOneTurnsItOff() throws Exception {
        String topic = spreadTopic(VirtualClusterKind.PASS_THROUGH, "zoned-override");
        Dataset data = Dataset.binary(topic, RECORDS, 1107, MAX_VALUE_BYTES);
        ConformanceEnvironment.produceDirect(cluster.bootstrapServers(), topic, data);
        int start = dev.weft.proxy.net.FreePorts.randomRange(12);
        String yaml = """
                server: { eventLoops: 2, rack: a }
                admin: { bind: "127.0.0.1:0" }
                clusters:
                  upstream: { bootstrap: "%s" }
                virtualClusters:
                  main:
                    target: { cluster: upstream }
                    rack: b
                    gateways: [ { name: plain, bind: "127.0.0.1:%d", brokerPorts: { start: %d, nodeIds: "0-4" } } ]
                  leaders:
                    target: { cluster: upstream }
                    rack: ""
                    gateways: [ { name: plain, bind: "127.0.0.1:%d", brokerPorts: { start: %d, nodeIds: "0-4" } } ]
                """.formatted(cluster.bootstrapServers(), start, start + 1, start + 6, start + 7);
        try (WeftProxy proxy = WeftProxy.start(dev.weft.proxy.config.ConfigLoader.parse(yaml, "rack override test"))) {
            Poll.until(Duration.ofSeconds(60), "the proxy to know its cluster's brokers", () -> proxy.readiness().isReady());
            Served inZone = new Served("virtual cluster 'main' (rack: b, server.rack: a)", proxy, "upstream");
            List<Arrived> arrived = readWithGroup(proxy.bootstrapAddresses("main").get(0), topic, "zoned-override-group",
                    RECORDS, Map.of());
            Verify.exactlyOnce(data, arrived, () -> " (virtual cluster with its own rack)");
            inZone.assertFromInZoneBroker(valueBytes(data), "kafka-clients group consumer");
            String inZoneServed = inZone.toString(); // before the second virtual cluster reads

            Served leaders = new Served("virtual cluster 'leaders' (rack: \"\")", proxy, "upstream");
            List<Arrived> fromLeaders = readWithGroup(proxy.bootstrapAddresses("leaders").get(0), topic,
                    "zoned-override-leaders-group", RECORDS, Map.of());
            Verify.exactlyOnce(data, fromLeaders, () -> " (virtual cluster without a rack)");
            for (int b = 0; b < 3; b++) {
                int broker = b;
                assertTrue(leaders.fromBroker(b) >= valueBytes(data) / 6, () -> "with rack-aware fetch off every leader"
                        + " serves its partitions; broker " + broker + " served only " + leaders.fromBroker(broker) + ": " + leaders);
            }
            System.out.println("[override] rack b over server.rack a: " + inZoneServed + "; rack \"\": " + leaders);
        }
    }

    // ---------------------------------------------------------------------------------------------
    // A client that sets client.rack itself

    /**
     * A consumer in another zone ({@code client.rack: c}) is told by broker 1, the leader of some
     * partitions, to read them from broker 2 (zone c): the hint reaches it as broker 2's virtual node id
     * (woven: 2 × 2 + 0, DESIGN §4), so it fetches from the right virtual broker; Weft, whose leg to the
     * brokers is in zone b, still reads every byte from broker 1 (its own parts carry no rack_id, so no
     * broker answers them with a hint instead of data). Partitions Weft reads from broker 1 as a
     * follower get no hint (a follower does not choose replicas), nor does anything in the collapsed
     * topology, which has no broker ports to send a client to (the hint becomes -1 and Weft alone chooses).
     */
    @ParameterizedTest
    @MethodSource("kinds")
    void aClientsOwnRackHintReachesItMappedAndWeftStillReadsInItsZone(VirtualClusterKind kind) throws Exception {
        String topic = spreadTopic(kind, "zoned-client-rack");
        Dataset data = Dataset.binary(topic, RECORDS, 1104, MAX_VALUE_BYTES);
        Map<Integer, List<Long>> written = virtual(kind, ConformanceEnvironment.produceDirect(cluster.bootstrapServers(), topic, data));
        Served served = Served.start(kind);
        Map<Integer, Integer> preferred = new TreeMap<>();
        List<Arrived> arrived = readWithGroup(fixture.bootstrap(kind), topic, kind.name("zoned-client-rack-group"), RECORDS,
                Map.of(ConsumerConfig.CLIENT_RACK_CONFIG, "c", ConsumerConfig.METADATA_MAX_AGE_CONFIG, 120_000), preferred);
        Verify.exactlyOnce(data, arrived, () -> " (client.rack=c through " + kind + ")");
        Verify.sameOffsets(written, arrived, () -> " (client.rack=c through " + kind + ")");
        served.assertFromInZoneBroker(valueBytes(data), "kafka-clients consumer with client.rack=c");

        int zoneCBroker = 2;
        int hinted = switch (kind) {
            case PASS_THROUGH -> zoneCBroker;
            case TOPIC_WOVEN, BRANCHED, SWITCHED -> zoneCBroker * 2; // route 0 of two (DESIGN §4)
            // every Fetch split into Weft's own parts (kind.splitsProduceAndFetch()): the client's rack_id never
            // reaches a broker, so no hint comes back; Weft alone chooses
            case COLLAPSED, PARTITION_WOVEN -> -1;
        };
        Map<Integer, Integer> leaders = leaders(topic);
        for (int p = 0; p < PARTITIONS; p++) {
            int partition = p;
            int got = preferred.getOrDefault(p, -1);
            // leaders are the cluster's, by its partition numbers; p is the virtual partition the consumer saw
            int leader = leaders.get(VirtualClusterFixture.physicalPartition(kind, p, PARTITIONS));
            Supplier<String> what = () -> "preferred read replica of " + topic + "-" + partition + " (leader "
                    + leader + ") as the consumer was told it through " + kind + ": " + preferred;
            if (leader == IN_ZONE_BROKER) {
                // the consumer's Fetch for broker 1's partitions goes to broker 1 as it is: its hint, mapped
                assertEquals(hinted, got, what);
            } else {
                // read from follower 1, which gives no hint; or, before Weft knew the partition's ISR, the
                // leader's hint for rack c (broker 2), mapped
                assertTrue(got == -1 || got == hinted, what);
            }
        }
        System.out.println("[" + kind + "] client.rack=c: preferred read replicas " + preferred + "; " + served);
    }

    // ---------------------------------------------------------------------------------------------
    // The in-zone broker dies mid-read and comes back

    /**
     * Broker 1 is killed while a consumer (by assignment: no group whose rebalance could re-deliver)
     * reads through Weft: the partitions it served as a follower are read from their leaders, those it
     * led from their new leaders, and every record arrives exactly once. Once it is back in every ISR,
     * fetches return to it: new records are then served by broker 1 again.
     */
    @ParameterizedTest
    @MethodSource("kinds")
    void killingTheInZoneBrokerMidReadLosesAndRepeatsNothingAndReadsReturnToItOnceItIsBack(VirtualClusterKind kind)
            throws Exception {
        String topic = spreadTopic(kind, "zoned-kill");
        Dataset data = Dataset.binary(topic, 4 * RECORDS, 1105, 1_024);
        ConformanceEnvironment.produceDirect(cluster.bootstrapServers(), topic, data);
        List<Arrived> arrived = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = consumer(fixture.bootstrap(kind), null, Map.of(
                ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 200, ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 16 * 1024,
                ConsumerConfig.FETCH_MAX_BYTES_CONFIG, 64 * 1024))) {
            List<TopicPartition> partitions = new ArrayList<>();
            for (int p = 0; p < PARTITIONS; p++) {
                partitions.add(new TopicPartition(topic, p));
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            pollUntil(consumer, arrived, data.size() / 3, "a third of " + topic);
            cluster.killBroker(IN_ZONE_BROKER);
            try {
                pollUntil(consumer, arrived, data.size(), "all of " + topic + " with broker " + IN_ZONE_BROKER + " dead");
            } finally {
                cluster.restartBroker(IN_ZONE_BROKER);
            }
            Verify.exactlyOnce(data, arrived, () -> " (read by assignment through " + kind + ", broker "
                    + IN_ZONE_BROKER + " killed mid-read)");

            awaitInSyncEverywhere(topic);
            // Reads return to broker 1 once Weft sees it in sync again (its next reading of the leaders):
            // keep adding records and reading them until broker 1 serves them.
            List<Arrived> more = new ArrayList<>();
            List<Dataset> added = new ArrayList<>();
            Served served = Served.start(kind);
            int round = 0;
            long addedBytes = 0;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (System.nanoTime() < deadline) {
                Dataset next = Dataset.binary(topic + "-after-" + round++, 300, 1106 + round, 1_024);
                ConformanceEnvironment.produceDirect(cluster.bootstrapServers(), topic, next);
                added.add(next);
                addedBytes += valueBytes(next);
                pollUntil(consumer, more, added.stream().mapToInt(Dataset::size).sum(), "records added to " + topic);
                if (served.fromBroker(IN_ZONE_BROKER) >= valueBytes(next)) {
                    break;
                }
            }
            long returnedAfterMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - deadline) + 60_000;
            int count = more.size();
            assertEquals(added.stream().mapToInt(Dataset::size).sum(), count, "records read after the restart");
            long lastRound = valueBytes(added.getLast());
            assertTrue(served.fromBroker(IN_ZONE_BROKER) >= lastRound, () -> "broker " + IN_ZONE_BROKER + " served "
                    + served.fromBroker(IN_ZONE_BROKER) + " bytes in the 60 s after it was back in every ISR, less than one"
                    + " round of records (" + lastRound + " value bytes): " + served);
            System.out.println("[" + kind + "] kill: " + arrived.size() + " records once across the kill; reads returned to broker "
                    + IN_ZONE_BROKER + " " + returnedAfterMillis + " ms after it was back in every ISR (" + addedBytes
                    + " value bytes added meanwhile), " + served);
        }
    }

    // ---------------------------------------------------------------------------------------------

    /**
     * A topic whose partition {@code p} has replicas {@code [p%3, p%3+1, p%3+2]} (mod 3): leaders spread
     * over the three racks, every broker in every ISR; made visible through {@code kind}'s proxy.
     */
    private static String spreadTopic(VirtualClusterKind kind, String base) throws Exception {
        String name = kind.name(base);
        Map<Integer, List<Integer>> assignment = new HashMap<>();
        for (int p = 0; p < PARTITIONS; p++) {
            assignment.put(p, List.of(p % 3, (p + 1) % 3, (p + 2) % 3));
        }
        cluster.admin().createTopics(List.of(new NewTopic(name, assignment))).all().get(30, TimeUnit.SECONDS);
        cluster.awaitLeaders(name, PARTITIONS);
        awaitInSyncEverywhere(name);
        if (kind == VirtualClusterKind.PARTITION_WOVEN) {
            fixture.declareWovenTopic(name, PARTITIONS); // its logical topic is in the config: restarts that proxy
        }
        fixture.refreshCatalog(kind);
        fixture.awaitVisible(kind, name);
        return name;
    }

    /**
     * What was written directly (by the cluster's partition numbers) as a client of {@code kind} sees it:
     * by virtual partition (partition-woven renumbers, {@link VirtualClusterFixture#physicalPartition}).
     */
    private static Map<Integer, List<Long>> virtual(VirtualClusterKind kind, Map<Integer, List<Long>> byPhysical) {
        Map<Integer, List<Long>> out = new TreeMap<>();
        for (int v = 0; v < PARTITIONS; v++) {
            List<Long> offsets = byPhysical.get(VirtualClusterFixture.physicalPartition(kind, v, PARTITIONS));
            if (offsets != null) {
                out.put(v, offsets);
            }
        }
        return out;
    }

    private static Map<Integer, Integer> leaders(String topic) throws Exception {
        TopicDescription d = cluster.admin().describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic);
        return d.partitions().stream().collect(Collectors.toMap(TopicPartitionInfo::partition, p -> p.leader().id()));
    }

    private static void awaitInSyncEverywhere(String topic) {
        Poll.untilNoThrow(Duration.ofSeconds(90), "every broker in every ISR of " + topic, () -> cluster.admin()
                .describeTopics(List.of(topic)).allTopicNames().get(10, TimeUnit.SECONDS).get(topic).partitions().stream()
                .allMatch(p -> p.isr().size() == 3));
    }

    private static List<Arrived> readWithGroup(String bootstrap, String topic, String group, int count, Map<String, Object> extra) {
        return readWithGroup(bootstrap, topic, group, count, extra, new TreeMap<>());
    }

    /** Reads {@code count} records as a group member; {@code preferred} gets each partition's preferred read replica as the client last saw it. */
    private static List<Arrived> readWithGroup(String bootstrap, String topic, String group, int count,
            Map<String, Object> extra, Map<Integer, Integer> preferred) {
        List<Arrived> arrived = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = consumer(bootstrap, group, extra)) {
            consumer.subscribe(List.of(topic));
            pollUntil(consumer, arrived, count, topic + " in group " + group);
            consumer.commitSync(Duration.ofSeconds(30));
            for (Map.Entry<MetricName, ? extends Metric> e : consumer.metrics().entrySet()) {
                MetricName n = e.getKey();
                if (n.name().equals("preferred-read-replica") && topic.equals(n.tags().get("topic"))) {
                    preferred.put(Integer.parseInt(n.tags().get("partition")), ((Number) e.getValue().metricValue()).intValue());
                }
            }
        }
        return arrived;
    }

    private static KafkaConsumer<byte[], byte[]> consumer(String bootstrap, String group, Map<String, Object> extra) {
        Map<String, Object> c = new HashMap<>();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        if (group != null) {
            c.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        }
        c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        c.put(ConsumerConfig.METADATA_MAX_AGE_CONFIG, 5_000);
        c.putAll(extra);
        return new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    private static void pollUntil(KafkaConsumer<byte[], byte[]> consumer, List<Arrived> arrived, int count, String what) {
        Poll.until(Duration.ofSeconds(90), "reading " + count + " records of " + what, () -> {
            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
                arrived.add(Arrived.of("java", r));
            }
            return arrived.size() >= count;
        }, () -> arrived.size() + " read");
    }

    private static long valueBytes(Dataset data) {
        return data.entries().stream().mapToLong(e -> e.value().length).sum();
    }

    /**
     * What each broker served on the client listener (its own metrics) and what Weft counted as Fetch
     * answer bytes per zone, from the moment it was started.
     */
    private static final class Served {
        private final String through;
        private final WeftProxy proxy;
        private final String clusterName;
        private final long[] brokerBefore = new long[3];
        private final ScrapedMetrics weftBefore;

        private Served(String through, WeftProxy proxy, String clusterName) {
            this.through = through;
            this.proxy = proxy;
            this.clusterName = clusterName;
            for (int b = 0; b < 3; b++) {
                brokerBefore[b] = cluster.bytesSent(b, CLIENT_LISTENER);
            }
            this.weftBefore = ScrapedMetrics.of(proxy);
        }

        static Served start(VirtualClusterKind kind) {
            return new Served(kind.toString(), fixture.proxy(kind), VirtualClusterFixture.primaryClusterName(kind));
        }

        long fromBroker(int b) {
            return cluster.bytesSent(b, CLIENT_LISTENER) - brokerBefore[b];
        }

        double weftFetchBytes(String zone) {
            return ScrapedMetrics.of(proxy).sum(FETCH_BYTES, Map.of("cluster", clusterName, "zone", zone))
                    - weftBefore.sum(FETCH_BYTES, Map.of("cluster", clusterName, "zone", zone));
        }

        /**
         * Broker 1 sent at least the records' value bytes; brokers 0 and 2 sent less than a tenth of that
         * (group coordination, Metadata, ListOffsets: never the records); Weft's in-zone Fetch bytes are
         * most of what broker 1 sent, and its cross-zone ones as little as the other brokers'.
         */
        void assertFromInZoneBroker(long valueBytes, String client) {
            Supplier<String> state = () -> client + " through " + through + ": " + this;
            long inZone = fromBroker(IN_ZONE_BROKER);
            assertTrue(inZone >= valueBytes, () -> "broker " + IN_ZONE_BROKER + " (zone b) sent " + inZone
                    + " bytes, less than the " + valueBytes + " value bytes read: " + state.get());
            for (int b = 0; b < 3; b++) {
                if (b != IN_ZONE_BROKER) {
                    long other = fromBroker(b);
                    int broker = b;
                    assertTrue(other < valueBytes / 10, () -> "broker " + broker + " (zone " + RACKS[broker] + ") sent "
                            + other + " bytes to clients while " + valueBytes + " value bytes were read: " + state.get());
                }
            }
            double weftIn = weftFetchBytes("in");
            double weftCross = weftFetchBytes("cross");
            assertTrue(weftIn >= valueBytes && weftIn <= inZone, () -> "Weft counted " + weftIn + " in-zone Fetch bytes; "
                    + "broker " + IN_ZONE_BROKER + " sent " + inZone + " and the values are " + valueBytes + ": " + state.get());
            assertTrue(weftCross < valueBytes / 10.0, () -> "Weft counted " + weftCross + " cross-zone Fetch bytes: " + state.get());
        }

        @Override
        public String toString() {
            return "bytes served per broker " + fromBroker(0) + " / " + fromBroker(1) + " / " + fromBroker(2)
                    + ", Weft Fetch bytes in-zone " + (long) weftFetchBytes("in") + ", cross-zone " + (long) weftFetchBytes("cross");
        }
    }
}
