package dev.weft.proxy.weave;

import static dev.weft.proxy.weave.PartitionWeaveFixture.physical;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.weft.proxy.config.ConfigLoader;
import dev.weft.proxy.conformance.Arrived;
import dev.weft.proxy.conformance.ExternalProcess;
import dev.weft.proxy.conformance.KafkaCliTools;
import dev.weft.proxy.conformance.Prerequisites;
import dev.weft.proxy.gateway.GatewayBindException;
import dev.weft.proxy.net.FreePorts;
import dev.weft.proxy.server.WeftProxy;
import dev.weft.proxy.session.VirtualClusterStartException;
import dev.weft.proxy.testing.Poll;
import dev.weft.proxy.testing.ProxyFixture;
import dev.weft.proxy.testing.ScrapedMetrics;
import dev.weft.proxy.weave.PartitionWeaveFixture.Physical;
import dev.weft.testkit.KafkaCluster;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicCollection;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.PolicyViolationException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Partition weaving end to end (issue #12): logical topic {@code orders} of router {@code orders-weave}
 * is east's {@code orders} partitions 0-2 (virtual 0-2) followed by west's {@code orders-eu} partitions
 * 0-1 (virtual 3-4), on two real one-broker KRaft clusters shared by every case (a third one for the
 * composition under a topic-weave router). Every landing is checked directly on the clusters under the
 * real names. The cases run in a fixed order: DeleteRecords (which trims west's partition 1) and the
 * outage of west (which stops its broker) come last.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PartitionWeaveTest {

    private static final Duration TOOL_TIMEOUT = Duration.ofSeconds(90);
    private static final String TOPIC = "orders";
    private static final List<Integer> VIRTUAL = List.of(0, 1, 2, 3, 4);

    private static KafkaCluster east;
    private static KafkaCluster west;
    private static KafkaCluster third;
    private static WeftProxy proxy;

    @BeforeAll
    static void start() {
        try {
            east = KafkaCluster.builder().brokers(1).build().start();
            west = KafkaCluster.builder().brokers(1).build().start();
            third = KafkaCluster.builder().brokers(1).build().start();
            east.createTopic("orders", 3, 1);
            west.createTopic("orders-eu", 2, 1);
            third.createTopic("inventory", 2, 1);
            proxy = PartitionWeaveFixture.startMirrored(east, west);
        } catch (RuntimeException | Error e) {
            stop();
            throw e;
        }
    }

    @AfterAll
    static void stop() {
        try (AutoCloseable a = third; AutoCloseable b = west; AutoCloseable c = east; AutoCloseable d = proxy) {
            // closed in reverse order: proxy, east, west, third
        } catch (Exception e) {
            throw new AssertionError(e);
        } finally {
            proxy = null;
            east = null;
            west = null;
            third = null;
        }
    }

    private static String bootstrap() {
        return ProxyFixture.bootstrap(proxy);
    }

    private static Admin admin(String bootstrap) {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap));
    }

    private static KafkaCluster cluster(int route) {
        return route == 0 ? east : west;
    }

    /** Virtual node id of real broker {@code real} of route {@code route} (DESIGN §4: real × routes + route). */
    private static int virtualId(int route, int real) {
        return real * 2 + route;
    }

    private static <T> T get(KafkaFuture<T> f) throws Exception {
        return f.get(30, TimeUnit.SECONDS);
    }

    private static RecordMetadata send(KafkaProducer<String, String> producer, Integer partition, String key, String value)
            throws Exception {
        return producer.send(new ProducerRecord<>(TOPIC, partition, key, value)).get(60, TimeUnit.SECONDS);
    }

    /** Values of virtual partition {@code p} with {@code prefix}, read directly from its physical partition. */
    private static List<String> directValues(int p, String prefix) {
        Physical ph = physical(p);
        return PartitionWeaveFixture.valuesDirectly(cluster(ph.route()), ph.topic(), ph.partition()).stream()
                .filter(v -> v.startsWith(prefix)).toList();
    }

    /** Every record of the logical topic as its physical partitions hold it: virtual partition → offset → record. */
    private static Map<Integer, TreeMap<Long, ConsumerRecord<String, String>>> directSnapshot() {
        Map<Integer, TreeMap<Long, ConsumerRecord<String, String>>> eastRecords =
                PartitionWeaveFixture.readPartitions(east.bootstrapServers(), "orders", List.of(0, 1, 2));
        Map<Integer, TreeMap<Long, ConsumerRecord<String, String>>> westRecords =
                PartitionWeaveFixture.readPartitions(west.bootstrapServers(), "orders-eu", List.of(0, 1));
        Map<Integer, TreeMap<Long, ConsumerRecord<String, String>>> out = new TreeMap<>();
        for (int p : VIRTUAL) {
            Physical ph = physical(p);
            out.put(p, (ph.route() == 0 ? eastRecords : westRecords).get(ph.partition()));
        }
        return out;
    }

    /** Committed offsets of {@code group} as {@code admin} reports them, "topic-partition" → offset. */
    private static Map<String, Long> committed(Admin admin, String group) throws Exception {
        Map<TopicPartition, OffsetAndMetadata> offsets = get(admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata());
        Map<String, Long> out = new TreeMap<>();
        offsets.forEach((tp, o) -> {
            if (o != null) {
                out.put(tp.toString(), o.offset());
            }
        });
        return out;
    }

    // ------------------------------------------------------------------------------------------------
    // 1. Metadata

    @Test
    @Order(1)
    void metadataShowsOneLogicalTopicOfFivePartitionsWithAStableSyntheticId() throws Exception {
        Uuid eastId = get(east.admin().describeTopics(List.of("orders")).allTopicNames()).get("orders").topicId();
        Uuid westId = get(west.admin().describeTopics(List.of("orders-eu")).allTopicNames()).get("orders-eu").topicId();
        int eastLeader = east.brokerIds().getFirst();
        int westLeader = west.brokerIds().getFirst();
        List<Uuid> ids = new ArrayList<>();
        for (int round = 0; round < 3; round++) {
            if (round > 0) { // two restarts with the same config
                proxy.close();
                proxy = null;
                proxy = PartitionWeaveFixture.startMirrored(east, west);
            }
            try (Admin admin = admin(bootstrap())) {
                Set<String> names = get(admin.listTopics().names());
                assertEquals(Set.of("orders"), names, "listTopics through the proxy: only the logical topic");
                assertFalse(names.contains("orders-eu"));
                TopicDescription d = get(admin.describeTopics(List.of(TOPIC)).allTopicNames()).get(TOPIC);
                checkFivePartitions(d, eastLeader, westLeader);
                Uuid id = d.topicId();
                assertNotNull(id);
                assertNotEquals(Uuid.ZERO_UUID, id, "a topic id");
                TopicDescription byId = get(admin.describeTopics(TopicCollection.ofTopicIds(List.of(id))).allTopicIds()).get(id);
                assertEquals(TOPIC, byId.name(), "describeTopics by id");
                checkFivePartitions(byId, eastLeader, westLeader);
                ids.add(id);
            }
        }
        assertEquals(1, new TreeSet<>(ids.stream().map(Uuid::toString).toList()).size(),
                "the synthetic topic id is stable across two proxy restarts: " + ids);
        assertNotEquals(eastId, ids.getFirst(), "not east orders' id");
        assertNotEquals(westId, ids.getFirst(), "not west orders-eu's id");
    }

    private static void checkFivePartitions(TopicDescription d, int eastLeader, int westLeader) {
        assertEquals(VIRTUAL, d.partitions().stream().map(TopicPartitionInfo::partition).toList(), "partitions of " + d);
        for (TopicPartitionInfo p : d.partitions()) {
            assertNotNull(p.leader(), "leader of partition " + p.partition() + ": " + d);
            int want = p.partition() < 3 ? virtualId(0, eastLeader) : virtualId(1, westLeader);
            assertEquals(want, p.leader().id(), "leader of virtual partition " + p.partition() + " (virtual id of "
                    + (p.partition() < 3 ? "east" : "west") + "'s broker): " + d);
        }
    }

    // ------------------------------------------------------------------------------------------------
    // 2. Produce

    @Test
    @Order(2)
    void idempotentProducerLandsEachVirtualPartitionOnItsPhysicalPartition() throws Exception {
        Map<Integer, List<String>> sent = new TreeMap<>();
        try (KafkaProducer<String, String> producer = WeaveClients.producer(bootstrap(), Map.of())) {
            for (int p : VIRTUAL) {
                for (int i = 0; i < 10; i++) {
                    String v = "explicit-" + p + "-" + i;
                    RecordMetadata md = send(producer, p, "k" + i, v);
                    assertEquals(p, md.partition(), "acknowledged partition of " + v);
                    sent.computeIfAbsent(p, x -> new ArrayList<>()).add(v);
                }
            }
        }
        for (int p : VIRTUAL) {
            assertEquals(sent.get(p), directValues(p, "explicit-"), "virtual partition " + p + " read directly on "
                    + physical(p));
        }

        // the default partitioner, keyed
        Map<String, RecordMetadata> acked = new TreeMap<>();
        try (KafkaProducer<String, String> producer = WeaveClients.producer(bootstrap(), Map.of("linger.ms", 5))) {
            List<Future<RecordMetadata>> futures = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                futures.add(producer.send(new ProducerRecord<>(TOPIC, "key-" + i, "keyed-" + i)));
            }
            producer.flush();
            for (int i = 0; i < 200; i++) {
                acked.put("keyed-" + i, futures.get(i).get(60, TimeUnit.SECONDS));
            }
        }
        Map<Integer, TreeMap<Long, ConsumerRecord<String, String>>> snapshot = directSnapshot();
        int total = 0;
        Map<Integer, Integer> perPartition = new TreeMap<>();
        for (int p : VIRTUAL) {
            List<String> keyed = snapshot.get(p).values().stream().map(ConsumerRecord::value).filter(v -> v.startsWith("keyed-")).toList();
            total += keyed.size();
            perPartition.put(p, keyed.size());
            for (String v : keyed) {
                RecordMetadata md = acked.get(v);
                assertEquals(p, md.partition(), v + " acknowledged for virtual partition " + md.partition()
                        + " but found on " + physical(p));
            }
        }
        assertEquals(200, total, "every keyed record landed exactly once somewhere: " + perPartition);
        for (Map.Entry<String, RecordMetadata> e : acked.entrySet()) {
            RecordMetadata md = e.getValue();
            ConsumerRecord<String, String> at = snapshot.get(md.partition()).get(md.offset());
            assertNotNull(at, e.getKey() + " acknowledged at " + md.partition() + "@" + md.offset() + ": nothing there on "
                    + physical(md.partition()));
            assertEquals(e.getKey(), at.value(), "record at the acknowledged offset on " + physical(md.partition()));
        }
        assertTrue(perPartition.values().stream().filter(n -> n > 0).count() >= 2, "keys spread: " + perPartition);
    }

    // ------------------------------------------------------------------------------------------------
    // 3. Consumer group

    @Test
    @Order(3)
    void classicGroupOfThreeReadsEveryRecordOnceAndANewMemberResumesFromTheCommits() throws Exception {
        String group = "pw-classic-group";
        Map<Integer, List<String>> produced = new TreeMap<>();
        try (KafkaProducer<String, String> producer = WeaveClients.producer(bootstrap(), Map.of("linger.ms", 5))) {
            for (int p : VIRTUAL) {
                for (int i = 0; i < 20; i++) {
                    String v = "group-a-" + p + "-" + i;
                    send(producer, p, "k" + i, v);
                    produced.computeIfAbsent(p, x -> new ArrayList<>()).add(v);
                }
            }
        }
        Map<Integer, TreeMap<Long, ConsumerRecord<String, String>>> snapshot = directSnapshot();
        int total = snapshot.values().stream().mapToInt(Map::size).sum();

        Map<Integer, List<Long>> offsetsSeen = new ConcurrentHashMap<>();
        Map<String, Integer> timesSeen = new ConcurrentHashMap<>();
        Map<Integer, List<String>> valuesSeen = new ConcurrentHashMap<>();
        Map<Integer, Set<TopicPartition>> assignments = new ConcurrentHashMap<>();
        Collection<String> trouble = new ConcurrentLinkedQueue<>();
        AtomicBoolean running = new AtomicBoolean(true);
        List<Thread> members = new ArrayList<>();
        for (int m = 0; m < 3; m++) {
            int member = m;
            assignments.put(member, Set.of());
            members.add(Thread.ofPlatform().name("pw-member-" + m).start(() -> {
                try (KafkaConsumer<String, String> c = PartitionWeaveFixture.plainConsumer(bootstrap(), Map.of(
                        "group.id", group, "group.protocol", "classic", "client.id", "pw-member-" + member))) {
                    c.subscribe(List.of(TOPIC), new ConsumerRebalanceListener() {
                        @Override
                        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                            if (!partitions.isEmpty()) {
                                c.commitSync(); // everything returned so far is processed
                            }
                        }

                        @Override
                        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                            assignments.put(member, Set.copyOf(c.assignment()));
                        }
                    });
                    while (running.get()) {
                        var records = c.poll(Duration.ofMillis(100));
                        for (ConsumerRecord<String, String> r : records) {
                            synchronized (offsetsSeen) {
                                offsetsSeen.computeIfAbsent(r.partition(), x -> new ArrayList<>()).add(r.offset());
                                valuesSeen.computeIfAbsent(r.partition(), x -> new ArrayList<>()).add(r.value());
                                timesSeen.merge(r.partition() + "@" + r.offset(), 1, Integer::sum);
                            }
                        }
                        assignments.put(member, Set.copyOf(c.assignment()));
                        if (!records.isEmpty()) {
                            c.commitSync();
                        }
                    }
                    c.commitSync();
                } catch (RuntimeException e) {
                    trouble.add("member " + member + ": " + e);
                }
            }));
        }
        try {
            Poll.until(Duration.ofSeconds(90), total + " records read by a group of three, each member assigned", () -> {
                int seen = timesSeen.size();
                boolean allAssigned = assignments.values().stream().allMatch(a -> !a.isEmpty())
                        && assignments.values().stream().mapToInt(Set::size).sum() == 5;
                return seen >= total && allAssigned || !trouble.isEmpty();
            }, () -> timesSeen.size() + " of " + total + " read; assignments " + assignments + "; trouble " + trouble);
            // the group as the Admin describes it through the proxy: three members sharing virtual partitions 0-4
            try (Admin admin = admin(bootstrap())) {
                var description = get(admin.describeConsumerGroups(List.of(group)).all()).get(group);
                assertEquals(3, description.members().size(), description::toString);
                Set<String> assigned = new TreeSet<>();
                description.members().forEach(m -> m.assignment().topicPartitions().forEach(tp -> assigned.add(tp.toString())));
                assertEquals(new TreeSet<>(VIRTUAL.stream().map(p -> TOPIC + "-" + p).toList()), assigned, description::toString);
            }
        } finally {
            running.set(false);
            for (Thread t : members) {
                t.join(TimeUnit.SECONDS.toMillis(60));
            }
        }
        assertEquals(List.of(), List.copyOf(trouble), "group members' trouble");
        Map<String, Integer> duplicates = new TreeMap<>();
        timesSeen.forEach((k, n) -> {
            if (n != 1) {
                duplicates.put(k, n);
            }
        });
        assertEquals(Map.of(), duplicates, "every record read exactly once");
        for (int p : VIRTUAL) {
            List<Long> want = List.copyOf(snapshot.get(p).keySet());
            assertEquals(want, offsetsSeen.getOrDefault(p, List.of()), "virtual partition " + p + ": every offset once, in order");
            assertEquals(snapshot.get(p).values().stream().map(ConsumerRecord::value).toList(), valuesSeen.get(p),
                    "virtual partition " + p + ": the values of " + physical(p) + " in order");
            assertEquals(produced.get(p), valuesSeen.get(p).stream().filter(v -> v.startsWith("group-a-")).toList());
        }

        // committed at the end of every partition: through the proxy under virtual partitions ...
        Map<String, Long> wantVirtual = new TreeMap<>();
        Map<String, Long> wantEast = new TreeMap<>();
        Map<String, Long> wantWest = new TreeMap<>();
        for (int p : VIRTUAL) {
            long end = snapshot.get(p).lastKey() + 1;
            wantVirtual.put(TOPIC + "-" + p, end);
            Physical ph = physical(p);
            (ph.route() == 0 ? wantEast : wantWest).put(ph.topic() + "-" + ph.partition(), end);
        }
        try (Admin admin = admin(bootstrap())) {
            assertEquals(wantVirtual, committed(admin, group), "committed offsets through the proxy");
        }
        // ... and directly, each segment's partitions on its own cluster under the real name and number
        Map<String, Long> onEast = committed(east.admin(), group);
        Map<String, Long> onWest = committed(west.admin(), group);
        assertEquals(wantEast, onEast, "committed offsets read directly on east (the home); west shows " + onWest);
        assertEquals(wantWest, onWest, "committed offsets read directly on west; east shows " + onEast);

        // a new member resumes from the commits: only records produced after, from the committed offsets
        Map<Integer, List<String>> later = new TreeMap<>();
        try (KafkaProducer<String, String> producer = WeaveClients.producer(bootstrap(), Map.of())) {
            for (int p : VIRTUAL) {
                for (int i = 0; i < 5; i++) {
                    String v = "group-b-" + p + "-" + i;
                    send(producer, p, "k" + i, v);
                    later.computeIfAbsent(p, x -> new ArrayList<>()).add(v);
                }
            }
        }
        Map<Integer, List<ConsumerRecord<String, String>>> resumed = new TreeMap<>();
        try (KafkaConsumer<String, String> c = PartitionWeaveFixture.plainConsumer(bootstrap(), Map.of(
                "group.id", group, "group.protocol", "classic"))) {
            c.subscribe(List.of(TOPIC));
            Poll.until(Duration.ofSeconds(60), "the 25 later records read by a new member", () -> {
                c.poll(Duration.ofMillis(100)).forEach(r -> resumed.computeIfAbsent(r.partition(), x -> new ArrayList<>()).add(r));
                return resumed.values().stream().mapToInt(List::size).sum() >= 25;
            }, () -> "read " + resumed);
            c.commitSync();
        }
        for (int p : VIRTUAL) {
            List<ConsumerRecord<String, String>> got = resumed.getOrDefault(p, List.of());
            assertEquals(later.get(p), got.stream().map(ConsumerRecord::value).toList(),
                    "virtual partition " + p + ": no re-delivery of committed records, only the later ones");
            assertEquals(wantVirtual.get(TOPIC + "-" + p), got.getFirst().offset(), "resumed at the committed offset");
        }
    }

    // ------------------------------------------------------------------------------------------------
    // 5. Group offsets through the Admin and kafka-consumer-groups

    @Test
    @Order(5)
    void groupOffsetsAreListedAndAlteredByVirtualPartitionAndLandOnThePhysicalOnes(@TempDir Path scratch) throws Exception {
        String group = "pw-admin-group";
        Map<TopicPartition, OffsetAndMetadata> alter = new HashMap<>();
        for (int p : VIRTUAL) {
            alter.put(new TopicPartition(TOPIC, p), new OffsetAndMetadata(p + 1));
        }
        try (Admin admin = admin(bootstrap())) {
            get(admin.alterConsumerGroupOffsets(group, alter).all());
            Map<String, Long> want = new TreeMap<>();
            VIRTUAL.forEach(p -> want.put(TOPIC + "-" + p, (long) p + 1));
            assertEquals(want, committed(admin, group), "listConsumerGroupOffsets through the proxy: virtual partitions 0-4");
        }
        assertEquals(Map.of("orders-0", 1L, "orders-1", 2L, "orders-2", 3L), committed(east.admin(), group),
                "altered offsets read directly on east");
        assertEquals(Map.of("orders-eu-0", 4L, "orders-eu-1", 5L), committed(west.admin(), group),
                "altered offsets read directly on west");

        // kafka-consumer-groups --describe: one row per virtual partition at the committed offsets
        KafkaCliTools tools = KafkaCliTools.in(scratch, TOOL_TIMEOUT);
        ExternalProcess.Result describe = tools.run(KafkaCliTools.CONSUMER_GROUPS,
                "--bootstrap-server", bootstrap(), "--describe", "--group", group)
                .assertSucceeded("kafka-consumer-groups --describe");
        Pattern row = Pattern.compile("^" + Pattern.quote(group) + "\\s+" + Pattern.quote(TOPIC) + "\\s+(\\d+)\\s+(\\d+)\\s+(\\d+)",
                Pattern.MULTILINE);
        Matcher m = row.matcher(describe.stdout());
        Map<Integer, Long> rows = new TreeMap<>();
        while (m.find()) {
            rows.put(Integer.parseInt(m.group(1)), Long.parseLong(m.group(2)));
        }
        Map<Integer, Long> wantRows = new TreeMap<>();
        VIRTUAL.forEach(p -> wantRows.put(p, (long) p + 1));
        assertEquals(wantRows, rows, describe::describe);

        // kafka-consumer-groups --reset-offsets of virtual partition 4 lands on west orders-eu partition 1
        tools.run(KafkaCliTools.CONSUMER_GROUPS, "--bootstrap-server", bootstrap(),
                "--reset-offsets", "--group", group, "--topic", TOPIC + ":4", "--to-offset", "0", "--execute")
                .assertSucceeded("kafka-consumer-groups --reset-offsets --execute");
        try (Admin admin = admin(bootstrap())) {
            assertEquals(0L, committed(admin, group).get(TOPIC + "-4"), "reset offset through the proxy");
        }
        assertEquals(Map.of("orders-eu-0", 4L, "orders-eu-1", 0L), committed(west.admin(), group),
                "reset offset read directly on west");
        assertEquals(Map.of("orders-0", 1L, "orders-1", 2L, "orders-2", 3L), committed(east.admin(), group),
                "east untouched by the reset");
    }

    // ------------------------------------------------------------------------------------------------
    // 6. kcat, python confluent_kafka, kafkajs

    @Test
    @Order(6)
    void kcatListsFivePartitionsAndProducesToVirtualPartitionFourOnWest(@TempDir Path scratch) throws Exception {
        ExternalProcess.Result list = ExternalProcess.run(
                List.of(Prerequisites.kcat().toString(), "-b", bootstrap(), "-L", "-J", "-m", "30"),
                scratch, Map.of(), null, TOOL_TIMEOUT, scratch).assertSucceeded("kcat -L -J");
        JsonNode md = new ObjectMapper().readTree(list.stdout());
        Map<String, JsonNode> topics = new TreeMap<>();
        md.get("topics").forEach(t -> topics.put(t.get("topic").asText(), t));
        assertEquals(Set.of(TOPIC), topics.keySet(), list::describe);
        JsonNode orders = topics.get(TOPIC);
        assertFalse(orders.has("error"), list::describe);
        List<Integer> partitions = new ArrayList<>();
        orders.get("partitions").forEach(p -> {
            partitions.add(p.get("partition").asInt());
            assertTrue(p.get("leader").asInt() >= 0, list::describe);
        });
        assertEquals(VIRTUAL, partitions.stream().sorted().toList(), list::describe);

        List<String> values = IntStream.range(0, 20).mapToObj(i -> "kcat-" + i).toList();
        Path input = scratch.resolve("kcat-input.txt");
        StringBuilder lines = new StringBuilder();
        for (int i = 0; i < values.size(); i++) {
            lines.append("kcat-key-").append(i).append(':').append(values.get(i)).append('\n');
        }
        Files.writeString(input, lines);
        ExternalProcess.run(List.of(Prerequisites.kcat().toString(), "-b", bootstrap(), "-P", "-t", TOPIC, "-p", "4", "-K", ":",
                        "-X", "enable.idempotence=true"), scratch, Map.of(), input, TOOL_TIMEOUT, scratch)
                .assertSucceeded("kcat -P -p 4");
        assertEquals(values, PartitionWeaveFixture.valuesDirectly(west, "orders-eu", 1).stream()
                .filter(v -> v.startsWith("kcat-")).toList(), "kcat -p 4 read directly on west orders-eu partition 1");
        for (int p = 0; p < 4; p++) {
            assertEquals(List.of(), directValues(p, "kcat-"), "nothing of kcat's on " + physical(p));
        }
    }

    @Test
    @Order(6)
    void pythonConfluentKafkaGroupReadsEveryPartition(@TempDir Path scratch) throws Exception {
        Path python = Prerequisites.pythonWithConfluentKafka(scratch);
        Map<Integer, TreeMap<Long, ConsumerRecord<String, String>>> snapshot = directSnapshot();
        int total = snapshot.values().stream().mapToInt(Map::size).sum();
        ExternalProcess.Result result = ExternalProcess.run(List.of(python.toString(),
                        Prerequisites.moduleDir().resolve("src/test/python/confluent_client.py").toString(),
                        "consume-topics", bootstrap(), TOPIC, "pw-python-group", Integer.toString(total), "60"),
                scratch, Map.of(), null, TOOL_TIMEOUT, scratch).assertSucceeded("confluent_client.py consume-topics");
        checkGroupRead(snapshot, result);
    }

    @Test
    @Order(6)
    void kafkaJsGroupReadsEveryPartition(@TempDir Path scratch) throws Exception {
        Path project = Prerequisites.kafkaJsProject();
        Map<Integer, TreeMap<Long, ConsumerRecord<String, String>>> snapshot = directSnapshot();
        int total = snapshot.values().stream().mapToInt(Map::size).sum();
        ExternalProcess.Result result = ExternalProcess.run(List.of(Prerequisites.node().toString(), "kafkajs_client.js",
                        "consume-topics", bootstrap(), TOPIC, "pw-kafkajs-group", Integer.toString(total), "60"),
                project, Map.of(), null, TOOL_TIMEOUT, scratch).assertSucceeded("kafkajs_client.js consume-topics");
        checkGroupRead(snapshot, result);
    }

    /** Every record of the snapshot arrived once, under its virtual partition and offset, with its value. */
    private static void checkGroupRead(Map<Integer, TreeMap<Long, ConsumerRecord<String, String>>> snapshot,
            ExternalProcess.Result result) {
        Map<String, List<Arrived>> arrived = Arrived.parseTopicTsv("client", result.stdout(), true);
        assertEquals(Set.of(TOPIC), arrived.keySet(), result::describe);
        Map<Integer, List<Long>> offsets = new TreeMap<>();
        for (Arrived a : arrived.get(TOPIC)) {
            offsets.computeIfAbsent(a.partition(), x -> new ArrayList<>()).add(a.offset());
            ConsumerRecord<String, String> want = snapshot.getOrDefault(a.partition(), new TreeMap<>()).get(a.offset());
            assertNotNull(want, () -> "arrived " + a.partition() + "@" + a.offset() + ": no such record" + result.describe());
            assertEquals(want.value(), new String(a.value(), StandardCharsets.UTF_8), "value at " + a.partition() + "@" + a.offset());
            assertEquals(want.key(), a.key(), "key at " + a.partition() + "@" + a.offset());
        }
        for (int p : VIRTUAL) {
            assertEquals(List.copyOf(snapshot.get(p).keySet()), offsets.getOrDefault(p, List.of()),
                    () -> "virtual partition " + p + ": every offset once, in order" + result.describe());
        }
    }

    // ------------------------------------------------------------------------------------------------
    // 8. Collapsed topology

    @Test
    @Order(8)
    void collapsedTopologyProducesAndConsumesAllFivePartitions() throws Exception {
        try (WeftProxy collapsed = PartitionWeaveFixture.start(port -> PartitionWeaveFixture.collapsedYaml(east, west, 2, port), 2)) {
            String bootstrap = ProxyFixture.bootstrap(collapsed);
            try (Admin admin = admin(bootstrap)) {
                assertEquals(Set.of(TOPIC), get(admin.listTopics().names()), "listTopics, collapsed");
                TopicDescription d = get(admin.describeTopics(List.of(TOPIC)).allTopicNames()).get(TOPIC);
                assertEquals(VIRTUAL, d.partitions().stream().map(TopicPartitionInfo::partition).toList(), d::toString);
                for (TopicPartitionInfo p : d.partitions()) {
                    assertNotNull(p.leader(), d::toString);
                    assertTrue(Set.of(100, 101).contains(p.leader().id()), () -> "leaders are the proxy's nodes: " + d);
                }
            }
            roundTrip(bootstrap, "collapsed-");
        }
    }

    /** Produces to each virtual partition, reads the records back through {@code bootstrap}, and checks them directly. */
    private static void roundTrip(String bootstrap, String prefix) throws Exception {
        Map<Integer, List<String>> sent = new TreeMap<>();
        Map<Integer, Long> firstOffset = new TreeMap<>();
        try (KafkaProducer<String, String> producer = WeaveClients.producer(bootstrap, Map.of())) {
            for (int p : VIRTUAL) {
                for (int i = 0; i < 10; i++) {
                    String v = prefix + p + "-" + i;
                    RecordMetadata md = send(producer, p, "k" + i, v);
                    assertEquals(p, md.partition());
                    firstOffset.putIfAbsent(p, md.offset());
                    sent.computeIfAbsent(p, x -> new ArrayList<>()).add(v);
                }
            }
        }
        Map<Integer, TreeMap<Long, ConsumerRecord<String, String>>> back = PartitionWeaveFixture.readPartitions(bootstrap, TOPIC, VIRTUAL);
        for (int p : VIRTUAL) {
            List<String> read = back.get(p).values().stream().map(ConsumerRecord::value).filter(v -> v.startsWith(prefix)).toList();
            assertEquals(sent.get(p), read, "virtual partition " + p + " read back through the proxy");
            assertEquals(sent.get(p).getFirst(), back.get(p).get(firstOffset.get(p)).value(), "at the acknowledged offset");
            assertEquals(sent.get(p), directValues(p, prefix), "virtual partition " + p + " read directly on " + physical(p));
        }
    }

    // ------------------------------------------------------------------------------------------------
    // 9. Composition under a topic-weave router

    @Test
    @Order(9)
    void logicalTopicUnderATopicWeaveRouterShowsNextToAThirdClustersTopics() throws Exception {
        try (WeftProxy composed = PartitionWeaveFixture.start(port -> PartitionWeaveFixture.composedYaml(east, west, third, port),
                PartitionWeaveFixture.NODE_IDS + 1)) {
            String bootstrap = ProxyFixture.bootstrap(composed);
            try (Admin admin = admin(bootstrap)) {
                assertEquals(Set.of("orders", "inventory"), get(admin.listTopics().names()), "listTopics of the composition");
                TopicDescription d = get(admin.describeTopics(List.of(TOPIC)).allTopicNames()).get(TOPIC);
                assertEquals(VIRTUAL, d.partitions().stream().map(TopicPartitionInfo::partition).toList());
            }
            roundTrip(bootstrap, "composed-");
            List<String> sent = new ArrayList<>();
            try (KafkaProducer<String, String> producer = WeaveClients.producer(bootstrap, Map.of())) {
                for (int i = 0; i < 20; i++) {
                    producer.send(new ProducerRecord<>("inventory", "k" + i, "inventory-" + i)).get(60, TimeUnit.SECONDS);
                    sent.add("inventory-" + i);
                }
            }
            Map<Integer, TreeMap<Long, ConsumerRecord<String, String>>> back =
                    PartitionWeaveFixture.readPartitions(bootstrap, "inventory", List.of(0, 1));
            assertEquals(new TreeSet<>(sent), new TreeSet<>(back.values().stream().flatMap(m -> m.values().stream())
                    .map(ConsumerRecord::value).toList()), "inventory read back through the proxy");
            List<String> direct = WeaveClients.readDirectly(third, "inventory");
            assertEquals(new TreeSet<>(sent), new TreeSet<>(direct), "inventory read directly on the third cluster");
            assertEquals(sent.size(), direct.size());
        }
    }

    // ------------------------------------------------------------------------------------------------
    // 10. Startup refusal

    @Test
    @Order(10)
    void aSegmentNamingPartitionsThePhysicalTopicLacksRefusesToStart() throws Exception {
        String segment = "{ route: west, topic: orders-eu, partitions: 0-5 }";
        VirtualClusterStartException refused = null;
        for (int attempt = 0; attempt < 5 && refused == null; attempt++) {
            String yaml = PartitionWeaveFixture.mirroredYaml(east, west, segment, FreePorts.randomRange(PartitionWeaveFixture.NODE_IDS + 1));
            try {
                WeftProxy started = WeftProxy.start(ConfigLoader.parse(yaml, "partition-weave refusal config"));
                started.close();
                throw new AssertionError("Weft started with a segment of 6 partitions over orders-eu of 2");
            } catch (GatewayBindException e) {
                // a port taken meanwhile: try again
            } catch (VirtualClusterStartException e) {
                refused = e;
            } catch (RuntimeException e) {
                throw new AssertionError("refused with " + e.getClass().getName() + " instead of VirtualClusterStartException: "
                        + e.getMessage(), e);
            }
        }
        assertNotNull(refused, "refused to start");
        String m = refused.getMessage();
        System.out.println("refused to start: " + m);
        assertFalse(m.contains("\n"), "one line: " + m);
        assertTrue(m.contains("orders-weave"), "names the router: " + m);
        assertTrue(m.contains("topics.orders[1]"), "names the segment's path: " + m);
        assertTrue(m.contains("orders-eu"), "names the physical topic: " + m);
        assertTrue(Pattern.compile("(?<![0-9-])2(?![0-9-])").matcher(m).find(), "names the partition count (2): " + m);
    }

    // ------------------------------------------------------------------------------------------------
    // 11. CreateTopics, CreatePartitions, DeleteTopics of the logical topic

    @Test
    @Order(11)
    void createPartitionsAndDeleteOfTheLogicalTopicAreRefusedAsPolicyViolations() throws Exception {
        try (Admin admin = admin(bootstrap())) {
            // each checked on its own, so every refusal that is wrong is reported
            org.junit.jupiter.api.Assertions.assertAll(
                    () -> assertPolicyViolation("CreateTopics", admin.createTopics(List.of(new NewTopic(TOPIC, 5, (short) 1))).all()),
                    () -> assertPolicyViolation("CreatePartitions", admin.createPartitions(Map.of(TOPIC, NewPartitions.increaseTo(6))).all()),
                    () -> assertPolicyViolation("DeleteTopics", admin.deleteTopics(List.of(TOPIC)).all()));
            assertEquals(5, get(admin.describeTopics(List.of(TOPIC)).allTopicNames()).get(TOPIC).partitions().size());
        }
        assertEquals(3, get(east.admin().describeTopics(List.of("orders")).allTopicNames()).get("orders").partitions().size(),
                "east orders unchanged");
        assertEquals(2, get(west.admin().describeTopics(List.of("orders-eu")).allTopicNames()).get("orders-eu").partitions().size(),
                "west orders-eu unchanged");
        assertFalse(WeaveClients.existsDirectly(west, "orders"), "no 'orders' created on west");
    }

    private static void assertPolicyViolation(String what, KafkaFuture<Void> result) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> result.get(30, TimeUnit.SECONDS), what + " refused");
        System.out.println(what + " of the logical topic refused: " + e.getCause());
        assertInstanceOf(PolicyViolationException.class, e.getCause(), what + ": " + e.getCause());
        assertTrue(e.getCause().getMessage() != null && e.getCause().getMessage().contains("orders-weave"),
                what + ": the message names the router config: " + e.getCause().getMessage());
    }

    // ------------------------------------------------------------------------------------------------
    // Transactions: confined to the home cluster (east, the router's first route)

    @Test
    @Order(15)
    void aTransactionOnTheHomeSegmentCommitsAndOneTouchingTheOtherClustersSegmentIsRefusedWhole() throws Exception {
        java.util.Properties p = new java.util.Properties();
        p.put(org.apache.kafka.clients.producer.ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        p.put(org.apache.kafka.clients.producer.ProducerConfig.TRANSACTIONAL_ID_CONFIG, "pw-east-tx");
        p.put(org.apache.kafka.clients.producer.ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 20_000);
        p.put(org.apache.kafka.clients.producer.ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        p.put(org.apache.kafka.clients.producer.ProducerConfig.MAX_BLOCK_MS_CONFIG, 30_000);
        List<String> committed = new ArrayList<>();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p,
                new org.apache.kafka.common.serialization.StringSerializer(), new org.apache.kafka.common.serialization.StringSerializer())) {
            producer.initTransactions();
            producer.beginTransaction();
            for (int v = 0; v < 3; v++) {
                for (int i = 0; i < 3; i++) {
                    producer.send(new ProducerRecord<>(TOPIC, v, "k", "tx-committed-" + v + "-" + i));
                    committed.add("tx-committed-" + v + "-" + i);
                }
            }
            producer.commitTransaction();

            producer.beginTransaction();
            producer.send(new ProducerRecord<>(TOPIC, 0, "k", "tx-spanning-0"));
            producer.send(new ProducerRecord<>(TOPIC, 3, "k", "tx-spanning-3")); // west's segment: not the home
            org.apache.kafka.common.KafkaException refused = assertThrows(org.apache.kafka.common.KafkaException.class,
                    producer::commitTransaction, "a transaction touching west's segment is refused");
            producer.abortTransaction();

            producer.beginTransaction();
            producer.send(new ProducerRecord<>(TOPIC, 1, "k", "tx-after"));
            producer.commitTransaction();
            committed.add("tx-after");
            System.out.println("spanning transaction refused: " + refused);
        }
        List<String> expected = committed.stream().sorted().toList();
        Poll.until(Duration.ofSeconds(30), "the committed records, read_committed directly on east",
                () -> TopicWeaveTransactionsTest.readCommitted(east.bootstrapServers(), "orders", 3).stream()
                        .filter(v -> v.startsWith("tx-")).sorted().toList().equals(expected),
                () -> TopicWeaveTransactionsTest.readCommitted(east.bootstrapServers(), "orders", 3).stream()
                        .filter(v -> v.startsWith("tx-")).toList().toString());
        assertTrue(TopicWeaveTransactionsTest.readCommitted(west.bootstrapServers(), "orders-eu", 2).stream()
                .noneMatch(v -> v.startsWith("tx-")), "nothing of any transaction on west");
        assertEquals(expected, TopicWeaveTransactionsTest.readCommitted(bootstrap(), TOPIC, 5).stream()
                .filter(v -> v.startsWith("tx-")).sorted().toList(), "read_committed through the proxy");
    }

    // ------------------------------------------------------------------------------------------------
    // 4. ListOffsets and DeleteRecords (late: it trims west's partition 1)

    @Test
    @Order(20)
    void listOffsetsMatchThePhysicalPartitionsAndDeleteRecordsTrimsWestPartitionOne() throws Exception {
        // later than every record before (so a lookup by timestamp finds one of these), within the brokers'
        // message.timestamp.after.max.ms (an hour)
        long base = System.currentTimeMillis() + 600_000;
        Map<Integer, Long> thirdOffsets = new TreeMap<>();
        try (KafkaProducer<String, String> producer = WeaveClients.producer(bootstrap(), Map.of())) {
            for (int p : VIRTUAL) {
                for (int i = 0; i < 5; i++) {
                    RecordMetadata md = producer.send(new ProducerRecord<>(TOPIC, p, base + i * 1000L, "k" + i, "timed-" + p + "-" + i))
                            .get(60, TimeUnit.SECONDS);
                    if (i == 2) {
                        thirdOffsets.put(p, md.offset());
                    }
                }
            }
        }
        long at = base + 2000;
        try (Admin admin = admin(bootstrap())) {
            for (Map.Entry<String, OffsetSpec> spec : Map.of("earliest", OffsetSpec.earliest(), "latest", OffsetSpec.latest(),
                    "timestamp " + at, OffsetSpec.forTimestamp(at)).entrySet()) {
                Map<TopicPartition, OffsetSpec> request = new HashMap<>();
                VIRTUAL.forEach(p -> request.put(new TopicPartition(TOPIC, p), spec.getValue()));
                Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> virtual = get(admin.listOffsets(request).all());
                for (int p : VIRTUAL) {
                    Physical ph = physical(p);
                    TopicPartition real = new TopicPartition(ph.topic(), ph.partition());
                    ListOffsetsResult.ListOffsetsResultInfo direct = get(cluster(ph.route()).admin()
                            .listOffsets(Map.of(real, spec.getValue())).partitionResult(real));
                    ListOffsetsResult.ListOffsetsResultInfo through = virtual.get(new TopicPartition(TOPIC, p));
                    assertEquals(direct.offset(), through.offset(), spec.getKey() + " offset of virtual partition " + p);
                    assertEquals(direct.timestamp(), through.timestamp(), spec.getKey() + " timestamp of virtual partition " + p);
                    if (spec.getValue() instanceof OffsetSpec.TimestampSpec) {
                        assertEquals(thirdOffsets.get(p), through.offset(), "the record at " + at + " in virtual partition " + p);
                        assertEquals(at, through.timestamp());
                    }
                }
            }

            long[] before = PartitionWeaveFixture.watermarks(west, "orders-eu", 1);
            long cut = before[1] - 2;
            assertTrue(cut > before[0], "room to delete: " + before[0] + ".." + before[1]);
            var deleted = get(admin.deleteRecords(Map.of(new TopicPartition(TOPIC, 4), RecordsToDelete.beforeOffset(cut)))
                    .lowWatermarks().get(new TopicPartition(TOPIC, 4)));
            assertEquals(cut, deleted.lowWatermark(), "low watermark DeleteRecords answered");
            assertEquals(cut, PartitionWeaveFixture.watermarks(west, "orders-eu", 1)[0],
                    "low watermark of west orders-eu partition 1, read directly");
            assertEquals(0L, PartitionWeaveFixture.watermarks(west, "orders-eu", 0)[0], "west orders-eu partition 0 untrimmed");
            for (int p = 0; p < 3; p++) {
                assertEquals(0L, PartitionWeaveFixture.watermarks(east, "orders", p)[0], "east orders partition " + p + " untrimmed");
            }
            TopicPartition four = new TopicPartition(TOPIC, 4);
            assertEquals(cut, get(admin.listOffsets(Map.of(four, OffsetSpec.earliest())).partitionResult(four)).offset(),
                    "earliest of virtual partition 4 through the proxy");
        }
    }

    // ------------------------------------------------------------------------------------------------
    // 7. One cluster down (last: it stops west's broker)

    @Test
    @Order(30)
    void withWestDownPartitionsOfEastKeepWorkingAndWestsComeBackWithoutARestart() throws Exception {
        String bootstrap = bootstrap();
        List<TopicPartition> all = VIRTUAL.stream().map(p -> new TopicPartition(TOPIC, p)).toList();
        Map<Integer, List<String>> consumed = new ConcurrentHashMap<>();
        try (KafkaProducer<String, String> producer = WeaveClients.producer(bootstrap, Map.of("delivery.timeout.ms", 120_000,
                "request.timeout.ms", 10_000));
                KafkaConsumer<String, String> consumer = PartitionWeaveFixture.plainConsumer(bootstrap, Map.of())) {
            consumer.assign(all);
            consumer.seekToEnd(all);
            all.forEach(tp -> consumer.position(tp, Duration.ofSeconds(30)));
            Runnable poll = () -> consumer.poll(Duration.ofMillis(100)).forEach(r -> {
                if (r.value().startsWith("outage-")) {
                    consumed.computeIfAbsent(r.partition(), x -> new ArrayList<>()).add(r.value());
                }
            });
            for (int p : VIRTUAL) {
                send(producer, p, "k", "outage-before-" + p);
            }
            Poll.until(Duration.ofSeconds(30), "records of all five partitions consumed before the outage",
                    () -> {
                        poll.run();
                        return VIRTUAL.stream().allMatch(p -> consumed.getOrDefault(p, List.of()).contains("outage-before-" + p));
                    }, () -> "consumed " + consumed);

            int westBroker = west.brokerIds().getFirst();
            west.killBroker(westBroker);
            try {
                for (int p = 0; p < 3; p++) {
                    for (int i = 0; i < 5; i++) {
                        RecordMetadata md = producer.send(new ProducerRecord<>(TOPIC, p, "k" + i, "outage-during-" + p + "-" + i))
                                .get(30, TimeUnit.SECONDS);
                        assertEquals(p, md.partition());
                    }
                }
                Poll.until(Duration.ofSeconds(30), "east's records consumed while west is down", () -> {
                    poll.run();
                    return IntStream.range(0, 3).allMatch(p -> consumed.getOrDefault(p, List.of()).stream()
                            .filter(v -> v.startsWith("outage-during-")).count() == 5);
                }, () -> "consumed " + consumed);
            } finally {
                west.restartBroker(westBroker);
            }
            for (int p = 3; p < 5; p++) {
                RecordMetadata md = producer.send(new ProducerRecord<>(TOPIC, p, "k", "outage-after-" + p)).get(90, TimeUnit.SECONDS);
                assertEquals(p, md.partition());
            }
            Poll.until(Duration.ofSeconds(60), "west's partitions consumed again after it is back", () -> {
                poll.run();
                return consumed.getOrDefault(3, List.of()).contains("outage-after-3")
                        && consumed.getOrDefault(4, List.of()).contains("outage-after-4");
            }, () -> "consumed " + consumed);
        }
        for (int p = 0; p < 3; p++) {
            List<String> want = new ArrayList<>(List.of("outage-before-" + p));
            for (int i = 0; i < 5; i++) {
                want.add("outage-during-" + p + "-" + i);
            }
            assertEquals(want, directValues(p, "outage-"), "east orders partition " + p + ", read directly");
            assertEquals(want, consumed.get(p), "virtual partition " + p + " consumed");
        }
        for (int p = 3; p < 5; p++) {
            assertEquals(List.of("outage-before-" + p, "outage-after-" + p), directValues(p, "outage-"),
                    physical(p) + ", read directly");
            assertEquals(List.of("outage-before-" + p, "outage-after-" + p), consumed.get(p), "virtual partition " + p + " consumed");
        }
    }

    // ------------------------------------------------------------------------------------------------
    // 12. A segment's physical topic vanishes after start (last: it deletes west's orders-eu)

    @Test
    @Order(40)
    void aSegmentsTopicThatVanishesAfterStartIsCountedAndTheOtherSegmentKeepsFlowing() throws Exception {
        assertEquals(0.0, ScrapedMetrics.of(proxy).sum("weft_woven_segment_problems_total", Map.of("virtual_cluster", "main")),
                "no segment problem while both physical topics exist");
        get(west.admin().deleteTopics(List.of("orders-eu")).all());
        Poll.untilNoThrow(Duration.ofSeconds(30), "orders-eu gone from west",
                () -> !WeaveClients.existsDirectly(west, "orders-eu"));
        proxy.virtualCluster("main").refreshCatalog().get(30, TimeUnit.SECONDS);
        assertEquals(1.0, ScrapedMetrics.of(proxy).sum("weft_woven_segment_problems_total", Map.of("virtual_cluster", "main")),
                "the vanished segment counted once");
        proxy.virtualCluster("main").refreshCatalog().get(30, TimeUnit.SECONDS);
        assertEquals(1.0, ScrapedMetrics.of(proxy).sum("weft_woven_segment_problems_total", Map.of("virtual_cluster", "main")),
                "and only once, however often the catalog is read again");
        try (Admin admin = admin(bootstrap())) {
            assertEquals(5, get(admin.describeTopics(List.of(TOPIC)).allTopicNames()).get(TOPIC).partitions().size(),
                    "the logical topic keeps its five partitions");
        }
        try (KafkaProducer<String, String> producer = WeaveClients.producer(bootstrap(), Map.of())) {
            for (int p = 0; p < 3; p++) {
                RecordMetadata md = send(producer, p, "k", "after-vanish-" + p);
                assertEquals(p, md.partition());
            }
        }
        for (int p = 0; p < 3; p++) {
            assertEquals(List.of("after-vanish-" + p), directValues(p, "after-vanish-"), "virtual partition " + p + " on east");
        }
    }
}
