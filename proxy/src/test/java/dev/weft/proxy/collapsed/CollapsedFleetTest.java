package dev.weft.proxy.collapsed;

import dev.weft.proxy.testing.ScrapedMetrics;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.proxy.testing.Poll;
import dev.weft.routing.node.ProxyNode;
import dev.weft.testkit.KafkaCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
import org.apache.kafka.clients.admin.DescribeProducersResult;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * A collapsed fleet of two Weft instances (issue 9): both have the same node list (node 0 at one
 * port, rack az1; node 1 at another, rack az2) and each binds only its own node's port, in front of
 * one real 3-broker cluster. Each gives the same Metadata and DescribeCluster (nodes, controller,
 * cluster id, leaders, replicas, ISR, real epochs), whether asked through kafka-clients Admin
 * bootstrapped at that instance only or by raw requests at its port; an idempotent producer and a
 * two-member group bootstrapped at both spread their connections and requests over both instances and
 * round-trip every record exactly once, with one producer id and one unbroken sequence per partition on
 * the cluster.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class CollapsedFleetTest {

    private static final int PARTITIONS = 6;

    private KafkaCluster kafka;
    private CollapsedFixture.Fleet fleet;

    @BeforeAll
    void start() {
        kafka = KafkaCluster.builder().brokers(3).build().start();
        fleet = CollapsedFixture.start(CollapsedFixture.Upstreams.cluster(kafka), 2, 0, 2);
    }

    @AfterAll
    void stop() {
        CollapsedFixture.closeAll(fleet, kafka);
    }

    private String topic(String name) {
        kafka.createTopic(name, PARTITIONS, 3, Map.of("min.insync.replicas", "2"));
        Wire.awaitVisible(fleet, name, PARTITIONS);
        return name;
    }

    private String context() {
        return "\n--- replica 0 config:\n" + fleet.yaml().get(0) + "--- replica 1 config:\n" + fleet.yaml().get(1);
    }

    /** What Admin bootstrapped at one replica says about the cluster and a topic, in comparable form. */
    private record AdminView(String clusterId, Map<Integer, String> nodes, int controller, String topicId,
            Map<Integer, String> partitions) {
    }

    private AdminView adminView(int replica, String topic) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, fleet.bootstrapOf(replica)))) {
            DescribeClusterResult c = admin.describeCluster();
            Map<Integer, String> nodes = new TreeMap<>();
            for (Node n : c.nodes().get(30, TimeUnit.SECONDS)) {
                nodes.put(n.id(), n.host() + ":" + n.port() + " rack " + n.rack());
            }
            TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic);
            Map<Integer, String> partitions = new TreeMap<>();
            for (TopicPartitionInfo p : d.partitions()) {
                partitions.put(p.partition(), "leader " + p.leader().id() + " at " + p.leader().host() + ":" + p.leader().port()
                        + ", replicas " + p.replicas().stream().map(Node::id).toList() + ", isr " + p.isr().stream().map(Node::id).toList());
            }
            return new AdminView(c.clusterId().get(30, TimeUnit.SECONDS), nodes, c.controller().get(30, TimeUnit.SECONDS).id(),
                    d.topicId().toString(), partitions);
        }
    }

    @Test
    void eachReplicaListensOnItsOwnNodeOnlyAndBothGiveTheSameMetadata() throws Exception {
        String topic = topic("fleet-metadata");
        for (int r = 0; r < 2; r++) {
            assertEquals(List.of(fleet.address(fleet.idsOf(r).getFirst())), fleet.replica(r).bootstrapAddresses("main"),
                    "the gateways of replica " + r);
        }

        AdminView first = adminView(0, topic);
        AdminView second = adminView(1, topic);
        assertEquals(first, second, () -> "Admin bootstrapped at replica 0 vs at replica 1" + context());
        Map<Integer, String> want = new TreeMap<>();
        fleet.nodes().forEach(n -> want.put(n.id(), n.hostPort() + " rack " + n.rack()));
        assertEquals(want, first.nodes(), () -> "describeCluster: both proxy nodes" + context());
        assertTrue(want.containsKey(first.controller()), "controller " + first.controller() + " is a proxy node");
        Set<Integer> leaders = new TreeSet<>();
        first.partitions().values().forEach(p -> leaders.add(Integer.parseInt(p.split(" ")[1])));
        assertEquals(new TreeSet<>(fleet.ids()), leaders, () -> "virtual leaders of " + topic + ": " + first.partitions());

        // raw, at each replica's own port: the same answers, as the arithmetic over the node list says
        MetadataResponseData direct = Wire.metadata(kafka.brokerAddress(0), List.of(topic));
        List<String> metadata = new ArrayList<>();
        List<String> described = new ArrayList<>();
        for (ProxyNode node : fleet.nodes()) {
            MetadataResponseData via = Wire.metadata(node.hostPort(), List.of(topic));
            Wire.assertCollapsedMetadata(via, direct, fleet.nodes(), List.of(topic),
                    () -> " (Metadata at node " + node.id() + ")\n--- via proxy: " + via + "\n--- direct: " + direct + context());
            via.setThrottleTimeMs(0);
            metadata.add(via.toString());
            DescribeClusterResponseData dc = Wire.describeCluster(node.hostPort());
            assertEquals(0, dc.errorCode(), () -> "DescribeCluster at node " + node.id() + ": " + dc);
            Map<Integer, String> brokers = new TreeMap<>();
            dc.brokers().forEach(b -> brokers.put(b.brokerId(), b.host() + ":" + b.port() + " rack " + b.rack()));
            assertEquals(want, brokers, () -> "DescribeCluster brokers at node " + node.id() + ": " + dc);
            dc.setThrottleTimeMs(0);
            described.add(dc.toString());
        }
        assertEquals(metadata.get(0), metadata.get(1), "raw Metadata v12 at node 0 vs node 1");
        assertEquals(described.get(0), described.get(1), "raw DescribeCluster at node 0 vs node 1");
        assertEquals(first.clusterId(), Wire.describeCluster(fleet.address(1)).clusterId(), "cluster id, Admin vs raw");
        System.out.println("[collapsed fleet] both replicas: cluster " + first.clusterId() + ", nodes " + first.nodes()
                + ", controller " + first.controller() + ", " + topic + " " + first.partitions());
    }

    @Test
    void aProducerAndAGroupBootstrappedAtBothReplicasRoundTripEveryRecordOnce() throws Exception {
        String topic = topic("fleet-round-trip");
        int count = 3_000;
        List<Records.Sent> data = Records.make(topic, count, 777, 1_000);
        String group = "fleet-group";
        List<ScrapedMetrics> before = fleet.replicas().stream().map(ScrapedMetrics::of).toList();

        List<Throwable> failures = new CopyOnWriteArrayList<>();
        List<Records.Got> sink = new CopyOnWriteArrayList<>();
        List<Member> members = new ArrayList<>();
        Map<String, Records.Acked> acked = new ConcurrentHashMap<>();
        try {
            for (int m = 0; m < 2; m++) {
                Map<String, Object> c = new HashMap<>();
                c.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, fleet.bootstrap());
                c.put(ConsumerConfig.GROUP_ID_CONFIG, group);
                c.put(ConsumerConfig.CLIENT_ID_CONFIG, group + "-m" + m);
                c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
                c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
                c.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 200);
                members.add(new Member(group + "-m" + m, c, List.of(topic), sink, failures).start());
            }
            Poll.until(Duration.ofSeconds(60), "the group to give each member partitions",
                    () -> !failures.isEmpty() || (members.stream().noneMatch(m -> m.assignment().isEmpty())
                            && members.stream().mapToInt(m -> m.assignment().size()).sum() == PARTITIONS),
                    () -> members.stream().map(m -> m.name() + "=" + m.assignment()).toList() + " " + failures);
            assertTrue(failures.isEmpty(), () -> "group members failed: " + failures);

            Map<String, Object> p = new HashMap<>();
            p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, fleet.bootstrap());
            p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
            p.put(ProducerConfig.ACKS_CONFIG, "all");
            p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
            Set<Integer> producerNodes;
            try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
                List<Future<RecordMetadata>> sent = new ArrayList<>();
                for (Records.Sent s : data) {
                    sent.add(producer.send(s.toProducerRecord(topic)));
                }
                producer.flush();
                for (int i = 0; i < count; i++) {
                    RecordMetadata md = sent.get(i).get(60, TimeUnit.SECONDS);
                    acked.put(data.get(i).key(), new Records.Acked(data.get(i), md.partition(), md.offset()));
                }
                assertEquals(0.0, CollapsedRoundTripTest.metric(producer, "producer-metrics", "record-error-total"));
                producerNodes = CollapsedRoundTripTest.nodesTalkedTo(producer.metrics());
            }
            assertEquals(new TreeSet<>(fleet.ids()), producerNodes, "the nodes the producer talked to (partition leaders)");

            Map<Integer, Long> end = new TreeMap<>();
            acked.values().forEach(a -> end.merge(a.partition(), a.offset() + 1, Math::max));
            Poll.until(Duration.ofSeconds(90), "the group to read " + count + " records and commit them",
                    () -> !failures.isEmpty() || (sink.size() >= count && committed(group).equals(end)),
                    () -> sink.size() + " received, committed " + committed(group) + ", end " + end + " " + failures);
        } finally {
            for (Member m : members) {
                m.close();
            }
        }
        assertTrue(failures.isEmpty(), () -> "group members failed: " + failures);
        Map<Integer, Integer> perPartition = Records.verifyExactlyOnce(acked, sink, () -> "the group, through both replicas" + context());
        members.forEach(m -> assertTrue(m.received() > 0, m.name() + " received nothing"));
        Records.verifyExactlyOnce(acked, Wire.readDirect(kafka.bootstrapServers(), topic), () -> "read directly from the cluster");
        long producerId = singleProducerId(topic, acked);

        // both replicas carried this traffic: client connections, Produce and Fetch, and sub-requests upstream
        List<String> served = new ArrayList<>();
        for (int r = 0; r < 2; r++) {
            ScrapedMetrics after = ScrapedMetrics.of(fleet.replica(r));
            ScrapedMetrics b = before.get(r);
            double connections = after.connectionsOpened() - b.connectionsOpened();
            double produces = after.clientRequests("Produce") - b.clientRequests("Produce");
            double fetches = after.clientRequests("Fetch") - b.clientRequests("Fetch");
            double upstreamProduces = b.growth(after, "upstream", "Produce", kafka.brokerIds()).values().stream()
                    .mapToDouble(Double::doubleValue).sum();
            double upstreamFetches = b.growth(after, "upstream", "Fetch", kafka.brokerIds()).values().stream()
                    .mapToDouble(Double::doubleValue).sum();
            int replica = r;
            assertTrue(connections > 0 && produces > 0 && fetches > 0 && upstreamProduces > 0 && upstreamFetches > 0,
                    () -> "replica " + replica + " (node " + fleet.idsOf(replica) + "): connections " + connections + ", Produce "
                            + produces + ", Fetch " + fetches + ", upstream Produce " + upstreamProduces + ", upstream Fetch "
                            + upstreamFetches + after.linesOf(ScrapedMetrics.REQUESTS) + after.linesOf(ScrapedMetrics.UPSTREAM_REQUESTS));
            served.add("replica " + r + ": " + (long) connections + " connections, " + (long) produces + " Produce, "
                    + (long) fetches + " Fetch, upstream " + (long) upstreamProduces + " Produce / " + (long) upstreamFetches + " Fetch");
        }
        System.out.println("[collapsed fleet] " + count + " records " + perPartition + ", producer id " + producerId
                + " on every partition; " + String.join("; ", served) + "; members "
                + members.stream().map(m -> m.name() + "=" + m.received()).toList());
    }

    /** One producer id wrote every partition, each with an unbroken run of sequence numbers. */
    private long singleProducerId(String topic, Map<String, Records.Acked> acked) throws Exception {
        Map<Integer, Integer> perPartition = new TreeMap<>();
        acked.values().forEach(a -> perPartition.merge(a.partition(), 1, Integer::sum));
        List<TopicPartition> partitions = perPartition.keySet().stream().map(p -> new TopicPartition(topic, p)).toList();
        Map<TopicPartition, DescribeProducersResult.PartitionProducerState> states =
                kafka.admin().describeProducers(partitions).all().get(30, TimeUnit.SECONDS);
        Set<Long> ids = new TreeSet<>();
        for (TopicPartition tp : partitions) {
            List<ProducerState> active = states.get(tp).activeProducers();
            assertEquals(1, active.size(), () -> "producers that wrote " + tp + ": " + active);
            ids.add(active.getFirst().producerId());
            assertEquals(perPartition.get(tp.partition()) - 1, active.getFirst().lastSequence(), () -> "last sequence of " + tp);
        }
        assertEquals(1, ids.size(), () -> "producer ids on the partitions of " + topic + ": " + ids);
        return ids.iterator().next();
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
}
