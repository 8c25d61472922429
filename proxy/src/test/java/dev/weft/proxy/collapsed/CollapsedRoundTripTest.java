package dev.weft.proxy.collapsed;

import dev.weft.proxy.testing.ScrapedMetrics;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.proxy.testing.Poll;
import dev.weft.proxy.testing.RawKafkaClient;
import dev.weft.routing.node.CollapsedNodes;
import dev.weft.routing.node.ProxyNode;
import dev.weft.testkit.KafkaCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The collapsed topology end to end (issue 9, DESIGN §4 "collapsed"): one real 3-broker cluster behind
 * a collapsed virtual cluster of 1 and of 3 proxy nodes (ids 100.., so a real broker id that leaks
 * through shows). Clients only ever learn proxy nodes; the proxy splits each Produce and Fetch by real
 * leader and merges the answers in request order.
 *
 * <ul>
 *   <li>Metadata (Admin describeCluster/describeTopics and raw Metadata at every node): exactly the
 *       proxy nodes (ids, host:port, racks), virtual leaders/replicas/ISR by the fleet's stable
 *       arithmetic, real leader epochs (also after a real leader change).</li>
 *   <li>One raw Produce (all 6 partitions, in a shuffled order) at each node: one sub-request to each
 *       of the 3 real brokers, the answer in request order, every record on the cluster; one raw Fetch
 *       of all 6 partitions: sub-requests to every broker, answers in request order, every record.</li>
 *   <li>kafka-clients: an idempotent acks=all producer and, at the same time, a classic group and a
 *       KIP-848 group of two members each: every record once per group, at its acknowledged offset, in
 *       order, byte-identical (key, value, headers); offsets committed to the end; sub-requests of
 *       Produce and Fetch reached all 3 real brokers while the clients knew only proxy nodes.</li>
 *   <li>acks=0: a raw acks=0 Produce gets no answer (the next request's answer comes first) and its
 *       records arrive on every broker; an acks=0 kafka-clients producer's records all arrive.</li>
 * </ul>
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class CollapsedRoundTripTest {

    private static final int PARTITIONS = 6;
    private static final int FIRST_ID = 100;
    private static final List<Integer> SHUFFLED = List.of(3, 0, 5, 1, 4, 2);

    private KafkaCluster kafka;
    private final Map<Integer, CollapsedFixture.Fleet> fleets = new ConcurrentHashMap<>();

    @BeforeAll
    void start() {
        kafka = KafkaCluster.builder().brokers(3).build().start();
    }

    @AfterAll
    void stop() {
        try {
            fleets.values().forEach(CollapsedFixture.Fleet::close);
        } finally {
            if (kafka != null) {
                kafka.close();
            }
        }
    }

    /** The collapsed virtual cluster of {@code nodes} proxy nodes (one Weft instance serving all of them). */
    private CollapsedFixture.Fleet fleet(int nodes) {
        return fleets.computeIfAbsent(nodes, n -> CollapsedFixture.start(CollapsedFixture.Upstreams.cluster(kafka), n, FIRST_ID));
    }

    /**
     * A topic of 6 partitions, replication factor 3, whose real leaders are all 3 brokers, once the
     * collapsed virtual clusters know it.
     */
    private String topic(String name) throws Exception {
        kafka.createTopic(name, PARTITIONS, 3, Map.of("min.insync.replicas", "2"));
        fleets.values().forEach(f -> Wire.awaitVisible(f, name, PARTITIONS));
        Set<Integer> realLeaders = new TreeSet<>(realLeaders(name).values());
        assertEquals(Set.copyOf(kafka.brokerIds()), realLeaders, "test setup: the real leaders of " + name
                + " are not spread over every broker, so a split could not show");
        return name;
    }

    private Map<Integer, Integer> realLeaders(String topic) throws Exception {
        TopicDescription d = kafka.admin().describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic);
        Map<Integer, Integer> out = new TreeMap<>();
        d.partitions().forEach(p -> out.put(p.partition(), p.leader().id()));
        return out;
    }

    private static String context(CollapsedFixture.Fleet fleet) {
        return "\n--- collapsed config:\n" + fleet.yaml().getFirst();
    }

    @ParameterizedTest(name = "{0} proxy node(s)")
    @ValueSource(ints = {1, 3})
    void metadataListsExactlyTheProxyNodesWithRealEpochs(int nodes) throws Exception {
        CollapsedFixture.Fleet fleet = fleet(nodes);
        String wide = topic("md-wide-" + nodes);
        String single = "md-single-" + nodes; // replication factor 1: one advertised replica
        kafka.createTopic(single, 7, 1);
        Wire.awaitVisible(fleet, single, 7);
        bumpLeaderEpochs(wide);
        List<String> topics = List.of(wide, single);
        CollapsedNodes collapsed = fleet.collapsedNodes();

        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, fleet.bootstrap()))) {
            DescribeClusterResult cluster = admin.describeCluster();
            Map<Integer, String> described = new TreeMap<>();
            for (Node n : cluster.nodes().get(30, TimeUnit.SECONDS)) {
                described.put(n.id(), n.host() + ":" + n.port() + " rack " + n.rack());
            }
            Map<Integer, String> want = new TreeMap<>();
            fleet.nodes().forEach(n -> want.put(n.id(), n.hostPort() + " rack " + n.rack()));
            assertEquals(want, described, () -> "describeCluster: exactly the proxy nodes" + context(fleet));
            Node controller = cluster.controller().get(30, TimeUnit.SECONDS);
            assertTrue(controller != null && want.containsKey(controller.id()), () -> "controller " + controller
                    + " is not a proxy node" + context(fleet));

            Map<String, TopicDescription> d = admin.describeTopics(topics).allTopicNames().get(30, TimeUnit.SECONDS);
            Map<String, TopicDescription> real = kafka.admin().describeTopics(topics).allTopicNames().get(30, TimeUnit.SECONDS);
            for (String topic : topics) {
                Set<Integer> leadersUsed = new TreeSet<>();
                assertEquals(real.get(topic).topicId(), d.get(topic).topicId(), "topic id of " + topic);
                assertEquals(real.get(topic).partitions().size(), d.get(topic).partitions().size(), "partitions of " + topic);
                for (TopicPartitionInfo p : d.get(topic).partitions()) {
                    String tp = topic + "-" + p.partition();
                    TopicPartitionInfo r = real.get(topic).partitions().get(p.partition());
                    int[] replicas = collapsed.replicas(topic, p.partition(), null, r.replicas().size());
                    assertEquals(collapsed.virtualLeader(topic, p.partition(), null), p.leader().id(), () -> "leader of " + tp
                            + " (real leader " + r.leader().id() + ")" + context(fleet));
                    assertEquals(fleet.address(p.leader().id()), p.leader().host() + ":" + p.leader().port(), "leader address of " + tp);
                    assertEquals(toList(replicas), p.replicas().stream().map(Node::id).toList(), "replicas of " + tp);
                    assertEquals(Math.min(r.replicas().size(), nodes), p.replicas().size(), "replica count of " + tp);
                    assertTrue(p.isr().stream().allMatch(n -> want.containsKey(n.id())), () -> "ISR of " + tp + ": " + p.isr());
                    leadersUsed.add(p.leader().id());
                }
                // consecutive partitions go to consecutive nodes: every node leads some partition of a topic
                // with at least as many partitions as nodes
                assertEquals(new TreeSet<>(fleet.ids()), leadersUsed, () -> "virtual leaders of " + topic + context(fleet));
            }
        }

        // The same at every node, by raw Metadata, against what a real broker answers (leader epochs)
        MetadataResponseData direct = Wire.metadata(kafka.brokerAddress(0), topics);
        for (ProxyNode node : fleet.nodes()) {
            MetadataResponseData via = Wire.metadata(node.hostPort(), topics);
            Wire.assertCollapsedMetadata(via, direct, fleet.nodes(), topics, () -> " (Metadata v12 at node " + node.id() + ")"
                    + "\n--- via proxy: " + via + "\n--- direct: " + direct + context(fleet));
        }
        Map<Integer, int[]> epochs = Wire.leaders(direct, wide);
        assertTrue(epochs.get(0)[1] > 0 && epochs.get(1)[1] > 0, "test setup: the leader epochs of " + wide
                + " partitions 0 and 1 were bumped by a leader change");
        System.out.printf("[collapsed %d] metadata: nodes %s, leaders of %s %s (real %s, real epochs %s)%n", nodes,
                fleet.addresses(), wide, leadersOf(Wire.metadata(fleet.address(fleet.ids().getFirst()), List.of(wide)), wide),
                realLeaders(wide), epochsOf(direct, wide));
    }

    /** Moves the real leadership of partitions 0 and 1 to another broker (replica order changed, preferred election). */
    private void bumpLeaderEpochs(String topic) throws Exception {
        Map<Integer, Integer> before = realLeaders(topic);
        Map<TopicPartition, Optional<NewPartitionReassignment>> moves = new HashMap<>();
        TopicDescription d = kafka.admin().describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic);
        for (int p : List.of(0, 1)) {
            List<Integer> replicas = new ArrayList<>(d.partitions().get(p).replicas().stream().map(Node::id).toList());
            Collections.rotate(replicas, -1);
            moves.put(new TopicPartition(topic, p), Optional.of(new NewPartitionReassignment(replicas)));
        }
        kafka.admin().alterPartitionReassignments(moves).all().get(30, TimeUnit.SECONDS);
        Poll.untilNoThrow(Duration.ofSeconds(30), "the reassignment of " + topic + " to finish",
                () -> kafka.admin().listPartitionReassignments().reassignments().get(10, TimeUnit.SECONDS).isEmpty());
        Poll.untilNoThrow(Duration.ofSeconds(30), "the preferred leaders of " + topic + "-0 and -1 to be elected", () -> {
            kafka.admin().electLeaders(ElectionType.PREFERRED, moves.keySet()).partitions().get(10, TimeUnit.SECONDS);
            Map<Integer, Integer> now = realLeaders(topic);
            return !now.get(0).equals(before.get(0)) && !now.get(1).equals(before.get(1));
        });
    }

    @ParameterizedTest(name = "{0} proxy node(s)")
    @ValueSource(ints = {1, 3})
    void oneProduceAndOneFetchAtAnyNodeAreSplitOverEveryRealBroker(int nodes) throws Exception {
        CollapsedFixture.Fleet fleet = fleet(nodes);
        String topic = topic("split-" + nodes);
        int perPartition = 5;
        Map<Integer, List<String>> expected = new TreeMap<>();
        for (ProxyNode node : fleet.nodes()) {
            String tag = "n" + node.id();
            ScrapedMetrics before = ScrapedMetrics.of(fleet.replica(0));
            ProduceResponseData answer = Wire.produce(node.hostPort(), Wire.produceRequest(topic, SHUFFLED, tag, perPartition, (short) -1));
            ScrapedMetrics after = ScrapedMetrics.of(fleet.replica(0));
            List<ProduceResponseData.PartitionProduceResponse> parts = Wire.partitions(answer, topic);
            assertEquals(SHUFFLED, parts.stream().map(ProduceResponseData.PartitionProduceResponse::index).toList(),
                    () -> "partitions of the Produce answer from node " + node.id() + ", in request order: " + answer + context(fleet));
            for (ProduceResponseData.PartitionProduceResponse p : parts) {
                assertEquals(Errors.NONE, Errors.forCode(p.errorCode()), () -> "partition " + p.index() + " at node " + node.id()
                        + ": " + p + context(fleet));
                assertTrue(p.baseOffset() >= 0, () -> "base offset of partition " + p.index() + ": " + p);
                expected.computeIfAbsent(p.index(), x -> new ArrayList<>()).addAll(Wire.rawValues(tag, p.index(), perPartition));
            }
            Map<Integer, Double> growth = before.growth(after, "upstream", "Produce", kafka.brokerIds());
            Map<Integer, Double> once = new TreeMap<>();
            kafka.brokerIds().forEach(b -> once.put(b, 1.0));
            assertEquals(once, growth, () -> "Produce sub-requests per real broker for ONE client Produce of 6 partitions"
                    + " at node " + node.id() + " (real leaders " + safeLeaders(topic) + ")"
                    + after.linesOf(ScrapedMetrics.UPSTREAM_REQUESTS) + context(fleet));
        }
        // on the cluster: every partition holds exactly what was sent to it, in order
        Map<Integer, List<String>> onCluster = new TreeMap<>();
        for (Records.Got g : Wire.readDirect(kafka.bootstrapServers(), topic)) {
            onCluster.computeIfAbsent(g.partition(), x -> new ArrayList<>()).add(new String(g.value()));
        }
        assertEquals(expected, onCluster, "records on the cluster, read directly");

        // one Fetch of all partitions at each node: sub-requests to every broker, partitions in request order
        for (ProxyNode node : fleet.nodes()) {
            Map<Integer, Long> offsets = new TreeMap<>();
            SHUFFLED.forEach(p -> offsets.put(p, 0L));
            Map<Integer, List<String>> fetched = new TreeMap<>();
            ScrapedMetrics before = ScrapedMetrics.of(fleet.replica(0));
            try (RawKafkaClient raw = RawKafkaClient.connect(node.hostPort())) {
                int[] correlation = {100};
                Poll.untilNoThrow(Duration.ofSeconds(30), "fetching every record from node " + node.id(), () -> {
                    FetchResponseData r = Wire.fetch(raw, correlation[0]++, Wire.fetchRequest(topic, SHUFFLED, offsets));
                    assertEquals(Errors.NONE.code(), r.errorCode(), () -> "Fetch error: " + r);
                    assertEquals(1, r.responses().size(), () -> "topics of the Fetch answer: " + r);
                    List<Integer> order = r.responses().getFirst().partitions().stream()
                            .map(FetchResponseData.PartitionData::partitionIndex).toList();
                    assertEquals(SHUFFLED, order, () -> "partitions of the Fetch answer from node " + node.id()
                            + ", in request order: " + r);
                    for (FetchResponseData.PartitionData p : r.responses().getFirst().partitions()) {
                        assertEquals(Errors.NONE.code(), p.errorCode(), () -> "partition " + p.partitionIndex() + ": " + p);
                        long from = offsets.get(p.partitionIndex());
                        fetched.computeIfAbsent(p.partitionIndex(), x -> new ArrayList<>()).addAll(Wire.values(p, from));
                        offsets.put(p.partitionIndex(), Wire.nextOffset(p, from));
                    }
                    return fetched.equals(expected);
                });
            }
            ScrapedMetrics after = ScrapedMetrics.of(fleet.replica(0));
            Map<Integer, Double> growth = before.growth(after, "upstream", "Fetch", kafka.brokerIds());
            assertTrue(growth.values().stream().allMatch(v -> v >= 1), () -> "Fetch sub-requests per real broker for Fetches"
                    + " of 6 partitions at node " + node.id() + ": " + growth + after.linesOf(ScrapedMetrics.UPSTREAM_REQUESTS)
                    + context(fleet));
            assertEquals(expected, fetched, "records fetched at node " + node.id());
        }
    }

    @ParameterizedTest(name = "{0} proxy node(s)")
    @ValueSource(ints = {1, 3})
    void anIdempotentProducerAndAClassicAndAKip848GroupRoundTripEveryRecord(int nodes) throws Exception {
        CollapsedFixture.Fleet fleet = fleet(nodes);
        String topic = topic("round-trip-" + nodes);
        int count = 3_000;
        List<Records.Sent> data = Records.make(topic, count, 9_000 + nodes, 1_500);
        Set<Integer> proxyIds = new TreeSet<>(fleet.ids());

        // both groups formed (two members each, the 6 partitions split between them) before anything is written
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        Map<String, List<Records.Got>> sinks = new TreeMap<>();
        Map<String, List<Member>> groups = new TreeMap<>();
        for (String protocol : List.of("classic", "consumer")) {
            String group = "rt-" + nodes + "-" + protocol;
            List<Records.Got> sink = new CopyOnWriteArrayList<>();
            sinks.put(group, sink);
            List<Member> members = new ArrayList<>();
            for (int m = 0; m < 2; m++) {
                Map<String, Object> c = new HashMap<>();
                c.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, fleet.bootstrap());
                c.put(ConsumerConfig.GROUP_ID_CONFIG, group);
                c.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, protocol);
                c.put(ConsumerConfig.CLIENT_ID_CONFIG, group + "-m" + m);
                c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
                c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
                c.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 200);
                members.add(new Member(group + "-m" + m, c, List.of(topic), sink, failures).start());
            }
            groups.put(group, members);
        }
        try {
            for (Map.Entry<String, List<Member>> g : groups.entrySet()) {
                List<Member> ms = g.getValue();
                Poll.until(Duration.ofSeconds(60), "group " + g.getKey() + " to give each of its two members partitions",
                        () -> !failures.isEmpty() || (ms.stream().noneMatch(m -> m.assignment().isEmpty())
                                && ms.stream().mapToInt(m -> m.assignment().size()).sum() == PARTITIONS),
                        () -> ms.stream().map(m -> m.name() + "=" + m.assignment()).toList() + " " + failures);
            }
            assertNoFailures(failures);
            // on the cluster, each group is of the protocol its members asked for, with both members
            for (String group : groups.keySet()) {
                org.apache.kafka.clients.admin.ConsumerGroupDescription g = kafka.admin().describeConsumerGroups(List.of(group))
                        .all().get(30, TimeUnit.SECONDS).get(group);
                assertEquals(group.endsWith("-consumer") ? GroupType.CONSUMER : GroupType.CLASSIC, g.type(), "type of " + group);
                assertEquals(2, g.members().size(), () -> "members of " + group + " on the cluster: " + g.members());
            }

            ScrapedMetrics before = ScrapedMetrics.of(fleet.replica(0));
            Map<String, Records.Acked> acked = new ConcurrentHashMap<>();
            Set<Integer> producerNodes;
            Map<String, Object> p = new HashMap<>();
            p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, fleet.bootstrap());
            p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
            p.put(ProducerConfig.ACKS_CONFIG, "all");
            p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
            p.put(ProducerConfig.CLIENT_ID_CONFIG, "collapsed-producer-" + nodes);
            try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
                for (PartitionInfo info : producer.partitionsFor(topic)) {
                    assertTrue(proxyIds.contains(info.leader().id()), () -> "the producer was told leader " + info.leader()
                            + " for partition " + info.partition() + context(fleet));
                    assertEquals(fleet.address(info.leader().id()), info.leader().host() + ":" + info.leader().port());
                    for (Node r : info.replicas()) {
                        assertTrue(proxyIds.contains(r.id()), () -> "replica " + r + " of " + info);
                    }
                }
                List<Future<RecordMetadata>> sent = new ArrayList<>();
                for (Records.Sent s : data) {
                    sent.add(producer.send(s.toProducerRecord(topic)));
                }
                producer.flush();
                for (int i = 0; i < count; i++) {
                    RecordMetadata md = sent.get(i).get(60, TimeUnit.SECONDS);
                    acked.put(data.get(i).key(), new Records.Acked(data.get(i), md.partition(), md.offset()));
                }
                assertEquals(0.0, metric(producer, "producer-metrics", "record-error-total"), "records the producer failed");
                producerNodes = nodesTalkedTo(producer.metrics());
            }
            assertEquals(PARTITIONS, acked.values().stream().map(Records.Acked::partition).distinct().count(),
                    "the keys spread over every partition");
            assertTrue(proxyIds.containsAll(producerNodes), () -> "the producer talked to nodes " + producerNodes
                    + ", not only to proxy nodes " + proxyIds);

            // each group reads everything and commits to the end
            Map<Integer, Long> end = new TreeMap<>();
            acked.values().forEach(a -> end.merge(a.partition(), a.offset() + 1, Math::max));
            for (String group : groups.keySet()) {
                List<Records.Got> sink = sinks.get(group);
                Poll.until(Duration.ofSeconds(90), "group " + group + " to read " + count + " records and commit them",
                        () -> !failures.isEmpty() || (sink.size() >= count && committed(group).equals(end)),
                        () -> sink.size() + " received, committed " + committedOrError(group) + ", end " + end + " " + failures);
            }
            for (List<Member> ms : groups.values()) {
                for (Member m : ms) {
                    m.close();
                }
            }
            assertNoFailures(failures);
            ScrapedMetrics after = ScrapedMetrics.of(fleet.replica(0));

            List<String> report = new ArrayList<>();
            for (Map.Entry<String, List<Member>> g : groups.entrySet()) {
                String group = g.getKey();
                Map<Integer, Integer> perPartition = Records.verifyExactlyOnce(acked, sinks.get(group),
                        () -> "group " + group + " through " + nodes + " collapsed node(s)" + context(fleet));
                for (Member m : g.getValue()) {
                    assertTrue(m.received() > 0, () -> m.name() + " received nothing: the group did not split the partitions");
                }
                report.add(group + ": " + perPartition + " by " + g.getValue().stream().map(m -> m.name() + "=" + m.received()
                        + (m.commitsLost() > 0 ? " (" + m.commitsLost() + " commits lost)" : "")).toList());
                // the committed offsets, read back through the proxy, are the ones on the cluster
                try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, fleet.bootstrap()))) {
                    Map<Integer, Long> viaProxy = new TreeMap<>();
                    admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS)
                            .forEach((tp, o) -> viaProxy.put(tp.partition(), o.offset()));
                    assertEquals(end, viaProxy, "offsets of " + group + " read through the proxy");
                }
            }
            // and the cluster holds exactly the acknowledged records, byte-identical
            Records.verifyExactlyOnce(acked, Wire.readDirect(kafka.bootstrapServers(), topic), () -> "read directly from the cluster");

            // the split: sub-requests of both kinds reached every real broker, though the clients only knew proxy nodes
            Map<Integer, Double> produces = before.growth(after, "upstream", "Produce", kafka.brokerIds());
            Map<Integer, Double> fetches = before.growth(after, "upstream", "Fetch", kafka.brokerIds());
            assertTrue(produces.values().stream().allMatch(v -> v > 0) && fetches.values().stream().allMatch(v -> v > 0),
                    () -> "sub-requests per real broker: Produce " + produces + ", Fetch " + fetches
                            + after.linesOf(ScrapedMetrics.UPSTREAM_REQUESTS) + context(fleet));
            double clientProduces = after.clientRequests("Produce") - before.clientRequests("Produce");
            System.out.printf("[collapsed %d] %d records, %d client Produce requests -> Produce sub-requests per broker %s,"
                            + " Fetch sub-requests per broker %s; producer talked to nodes %s; %s%n", nodes, count,
                    (long) clientProduces, produces, fetches, producerNodes, String.join("; ", report));
        } finally {
            for (List<Member> ms : groups.values()) {
                for (Member m : ms) {
                    m.close();
                }
            }
        }
    }

    @ParameterizedTest(name = "{0} proxy node(s)")
    @ValueSource(ints = {1, 3})
    void acksZeroRecordsArriveAndNoAnswerIsSent(int nodes) throws Exception {
        CollapsedFixture.Fleet fleet = fleet(nodes);
        String topic = topic("acks0-" + nodes);
        int perPartition = 4;
        long expected = 0;
        for (ProxyNode node : fleet.nodes()) {
            ScrapedMetrics before = ScrapedMetrics.of(fleet.replica(0));
            try (RawKafkaClient raw = RawKafkaClient.connect(node.hostPort())) {
                raw.send(ApiKeys.PRODUCE.id, Wire.PRODUCE_VERSION, 21,
                        Wire.produceRequest(topic, SHUFFLED, "a0n" + node.id(), perPartition, (short) 0));
                raw.send(ApiKeys.METADATA.id, Wire.METADATA_VERSION, 22, new MetadataRequestData()
                        .setTopics(List.of(new MetadataRequestData.MetadataRequestTopic().setName(topic))));
                // the first answer on the connection must be the Metadata one: acks=0 gets none
                MetadataResponseData md = (MetadataResponseData) raw.readResponse(ApiKeys.METADATA.id, Wire.METADATA_VERSION, 22);
                assertEquals(PARTITIONS, md.topics().find(topic).partitions().size());
            }
            expected += (long) PARTITIONS * perPartition;
            long want = expected;
            Poll.untilNoThrow(Duration.ofSeconds(30), "the acks=0 records sent at node " + node.id() + " on the cluster",
                    () -> Wire.countDirect(kafka, topic) == want);
            Poll.untilNoThrow(Duration.ofSeconds(10), "the Produce sub-requests of node " + node.id() + " counted", () ->
                    before.growth(ScrapedMetrics.of(fleet.replica(0)), "upstream", "Produce", kafka.brokerIds()).values().stream()
                            .allMatch(v -> v >= 1));
            Map<Integer, Double> growth = before.growth(ScrapedMetrics.of(fleet.replica(0)), "upstream", "Produce", kafka.brokerIds());
            Map<Integer, Double> once = new TreeMap<>();
            kafka.brokerIds().forEach(b -> once.put(b, 1.0));
            assertEquals(once, growth, "Produce sub-requests per real broker for one acks=0 Produce at node " + node.id());
        }
        Map<Integer, Long> perPartitionOnCluster = new TreeMap<>();
        for (Records.Got g : Wire.readDirect(kafka.bootstrapServers(), topic)) {
            perPartitionOnCluster.merge(g.partition(), 1L, Long::sum);
        }
        Map<Integer, Long> wantPerPartition = new TreeMap<>();
        for (int p = 0; p < PARTITIONS; p++) {
            wantPerPartition.put(p, (long) perPartition * nodes);
        }
        assertEquals(wantPerPartition, perPartitionOnCluster, "raw acks=0 records per partition on the cluster");

        // a kafka-clients producer with acks=0: nothing to wait for but the records themselves
        String clientTopic = topic("acks0-client-" + nodes);
        int count = 2_000;
        Map<String, Object> p = new HashMap<>();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, fleet.bootstrap());
        p.put(ProducerConfig.ACKS_CONFIG, "0");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
        p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        List<Records.Sent> data = Records.make(clientTopic, count, 31 + nodes, 200);
        ScrapedMetrics beforeClient = ScrapedMetrics.of(fleet.replica(0));
        String producerSide;
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            List<Future<RecordMetadata>> sent = new ArrayList<>();
            for (Records.Sent s : data) {
                sent.add(producer.send(s.toProducerRecord(clientTopic)));
            }
            producer.flush();
            for (Future<RecordMetadata> f : sent) {
                f.get(30, TimeUnit.SECONDS); // completes on send with acks=0; fails on a connection error
            }
            producerSide = "producer: records sent " + metric(producer, "producer-metrics", "record-send-total") + ", errors "
                    + metric(producer, "producer-metrics", "record-error-total") + ", retries "
                    + metric(producer, "producer-metrics", "record-retry-total") + ", requests "
                    + metric(producer, "producer-metrics", "request-total") + ", connections closed "
                    + metric(producer, "producer-metrics", "connection-close-total") + ", nodes " + nodesTalkedTo(producer.metrics());
        }
        Poll.until(Duration.ofSeconds(30), count + " acks=0 records on the cluster",
                () -> {
                    try {
                        return Wire.countDirect(kafka, clientTopic) == count;
                    } catch (Exception e) {
                        return false;
                    }
                }, () -> {
                    ScrapedMetrics now = ScrapedMetrics.of(fleet.replica(0));
                    String onCluster;
                    try {
                        onCluster = Wire.countDirect(kafka, clientTopic) + " on the cluster";
                    } catch (Exception e) {
                        onCluster = "(cannot count: " + e + ")";
                    }
                    return onCluster + "; " + producerSide + "; client Produce requests at the proxy "
                            + (now.clientRequests("Produce") - beforeClient.clientRequests("Produce")) + ", sub-requests "
                            + beforeClient.growth(now, "upstream", "Produce", kafka.brokerIds()) + "; client connections opened "
                            + (now.connectionsOpened() - beforeClient.connectionsOpened()) + now.linesOf("weft_errors_total")
                            + context(fleet);
                });
        Set<String> keys = new HashSet<>();
        List<Records.Got> onCluster = Wire.readDirect(kafka.bootstrapServers(), clientTopic);
        for (Records.Got g : onCluster) {
            assertTrue(keys.add(g.key()), () -> "duplicate " + g.where());
        }
        assertEquals(data.stream().map(Records.Sent::key).collect(java.util.stream.Collectors.toSet()), keys,
                "acks=0 records on the cluster");
        assertEquals(PARTITIONS, onCluster.stream().map(Records.Got::partition).distinct().count(), "partitions written");
        System.out.printf("[collapsed %d] acks=0: %d raw records and %d kafka-clients records arrived%n", nodes,
                PARTITIONS * perPartition * nodes, count);
    }

    @ParameterizedTest(name = "{0} proxy node(s)")
    @ValueSource(ints = {1, 3})
    void acksZeroRecordsSentJustBeforeTheClientClosesStillArrive(int nodes) throws Exception {
        CollapsedFixture.Fleet fleet = fleet(nodes);
        String topic = topic("acks0-close-" + nodes);
        int perPartition = 3;
        int connections = 10;
        for (int c = 0; c < connections; c++) {
            for (ProxyNode node : fleet.nodes()) {
                try (RawKafkaClient raw = RawKafkaClient.connect(node.hostPort())) {
                    raw.send(ApiKeys.PRODUCE.id, Wire.PRODUCE_VERSION, 31,
                            Wire.produceRequest(topic, SHUFFLED, "close" + c + "n" + node.id(), perPartition, (short) 0));
                } // closed right after the request, as an acks=0 producer may do when it is done
            }
        }
        long want = (long) connections * nodes * PARTITIONS * perPartition;
        long[] seen = {-1};
        Poll.until(Duration.ofSeconds(30), want + " acks=0 records, each sent on a connection closed right after it", () -> {
            try {
                seen[0] = Wire.countDirect(kafka, topic);
            } catch (Exception e) {
                return false;
            }
            return seen[0] == want;
        }, () -> seen[0] + " on the cluster");
    }

    private Map<Integer, Long> committed(String group) {
        try {
            Map<Integer, Long> out = new TreeMap<>();
            Map<TopicPartition, OffsetAndMetadata> c = kafka.admin().listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata().get(10, TimeUnit.SECONDS);
            c.forEach((tp, o) -> out.put(tp.partition(), o.offset()));
            return out;
        } catch (Exception e) {
            return Map.of();
        }
    }

    private String committedOrError(String group) {
        return committed(group).toString();
    }

    private String safeLeaders(String topic) {
        try {
            return realLeaders(topic).toString();
        } catch (Exception e) {
            return "(" + e + ")";
        }
    }

    private static void assertNoFailures(List<Throwable> failures) {
        if (!failures.isEmpty()) {
            AssertionError e = new AssertionError(failures.getFirst().getMessage(), failures.getFirst());
            failures.stream().skip(1).forEach(e::addSuppressed);
            throw e;
        }
    }

    /** The broker ids a client has node metrics for (bootstrap connections, negative ids, left out). */
    static Set<Integer> nodesTalkedTo(Map<MetricName, ? extends Metric> metrics) {
        Set<Integer> out = new TreeSet<>();
        for (MetricName n : metrics.keySet()) {
            String node = n.tags().get("node-id");
            if (node != null && node.startsWith("node-")) {
                int id = Integer.parseInt(node.substring("node-".length()));
                if (id >= 0) {
                    out.add(id);
                }
            }
        }
        return out;
    }

    static double metric(KafkaProducer<?, ?> producer, String group, String name) {
        for (Map.Entry<MetricName, ? extends Metric> e : producer.metrics().entrySet()) {
            if (e.getKey().name().equals(name) && e.getKey().group().equals(group)) {
                return ((Number) e.getValue().metricValue()).doubleValue();
            }
        }
        throw new AssertionError("no producer metric " + group + "/" + name);
    }

    private static List<Integer> toList(int[] a) {
        List<Integer> out = new ArrayList<>();
        for (int x : a) {
            out.add(x);
        }
        return out;
    }

    private static Map<Integer, Integer> leadersOf(MetadataResponseData md, String topic) {
        Map<Integer, Integer> out = new TreeMap<>();
        Wire.leaders(md, topic).forEach((p, le) -> out.put(p, le[0]));
        return out;
    }

    private static Map<Integer, Integer> epochsOf(MetadataResponseData md, String topic) {
        Map<Integer, Integer> out = new TreeMap<>();
        Wire.leaders(md, topic).forEach((p, le) -> out.put(p, le[1]));
        return out;
    }
}
