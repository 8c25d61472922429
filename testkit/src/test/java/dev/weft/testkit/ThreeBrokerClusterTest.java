package dev.weft.testkit;

import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartitionInfo;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** One 3-broker cluster (combined controllers, one rack per broker) shared by all tests of the class. */
class ThreeBrokerClusterTest {

    @KafkaClusterConfig(brokers = 3, racks = {"az-a", "az-b", "az-c"})
    static KafkaCluster cluster;

    @Test
    void racksAndControllersAreThoseConfigured() throws Exception {
        Map<Integer, String> racks = new TreeMap<>();
        for (Node node : cluster.admin().describeCluster().nodes().get(30, TimeUnit.SECONDS)) {
            racks.put(node.id(), node.rack());
        }
        assertEquals(Map.of(0, "az-a", 1, "az-b", 2, "az-c"), racks);
        assertEquals(List.of(0, 1, 2), cluster.brokerIds());
        assertEquals(List.of(0, 1, 2), cluster.controllerIds());
        assertEquals(3, cluster.nodeCount());
        assertEquals(3, cluster.bootstrapServers().split(",").length);
    }

    @Test
    void dataStaysReadableWhileABrokerIsKilledAndRestarted() throws Exception {
        String topic = "kill-restart";
        cluster.createTopic(topic, 3, 3, Map.of("min.insync.replicas", "2"));
        List<String> first = Records.numbered("before", 300);
        Records.produce(cluster.producerConfig(), topic, first);

        int victim = leaders(topic).get(0);
        cluster.killBroker(victim);
        assertFalse(cluster.isRunning(victim));
        // Unlike stopBroker, a kill hands nothing over: the controller keeps the dead broker as leader
        // until its session (6 s) expires.
        assertTrue(leaders(topic).containsValue(victim), "leadership stays with the killed broker for a while");

        List<String> read = Records.consume(cluster.consumerConfig(), topic, 3, first.size(), Duration.ofSeconds(60));
        assertEquals(Set.copyOf(first), Set.copyOf(read), "records readable with broker " + victim + " dead");
        Await.until(Duration.ofSeconds(60), "leadership to leave killed broker " + victim,
            () -> !leaders(topic).containsValue(victim));
        List<String> second = Records.numbered("during", 100);
        Records.produce(cluster.producerConfig(), topic, second);

        cluster.restartBroker(victim);
        assertTrue(cluster.isRunning(victim));
        Await.until(Duration.ofSeconds(60), "broker " + victim + " back in every ISR",
            () -> describe(topic).partitions().stream().allMatch(p -> ids(p.isr()).contains(victim)));

        List<String> all = new ArrayList<>(first);
        all.addAll(second);
        read = Records.consume(cluster.consumerConfig(), topic, 3, all.size(), Duration.ofSeconds(60));
        assertEquals(Set.copyOf(all), Set.copyOf(read));
    }

    @Test
    void stopBrokerMovesLeadershipAwayBeforeTheBrokerGoes() throws Exception {
        String topic = "controlled";
        cluster.createTopic(topic, 6, 3);
        // The broker answering Admin may learn of the new topic a moment after its leaders exist.
        Await.until(Duration.ofSeconds(30), "topic " + topic + " described", () -> leaders(topic).size() == 6);
        int victim = leaders(topic).get(0);

        cluster.stopBroker(victim);
        // A controlled shutdown hands leadership over while the broker is still up (the wait only
        // covers metadata reaching the broker that answers; it is not a timing assertion).
        Await.until(Duration.ofSeconds(30), "leadership to have left stopped broker " + victim,
            () -> !leaders(topic).containsValue(victim));

        cluster.restartBroker(victim);
        Await.until(Duration.ofSeconds(60), "broker " + victim + " back in every ISR",
            () -> describe(topic).partitions().stream().allMatch(p -> ids(p.isr()).contains(victim)));
    }

    @Test
    void addedBrokerJoinsAndRemovedBrokerLeaves() throws Exception {
        int added = cluster.addBroker();
        assertEquals(3, added);
        assertEquals(List.of(0, 1, 2, 3), cluster.brokerIds());
        Map<Integer, String> racks = new TreeMap<>();
        for (Node node : cluster.admin().describeCluster().nodes().get(30, TimeUnit.SECONDS)) {
            racks.put(node.id(), node.rack());
        }
        assertEquals("az-a", racks.get(added), "rack function applies to added brokers: " + racks);

        // The new broker serves data: a partition placed only on it.
        cluster.admin().createTopics(List.of(new NewTopic("on-new-broker", Map.of(0, List.of(added)))))
            .all().get(30, TimeUnit.SECONDS);
        cluster.awaitLeaders("on-new-broker", 1);
        Records.produce(cluster.producerConfig(), "on-new-broker", List.of("x", "y"));
        assertEquals(List.of("x", "y"),
            Records.consume(cluster.consumerConfig(), "on-new-broker", 1, 2, Duration.ofSeconds(30)));
        cluster.admin().deleteTopics(List.of("on-new-broker")).all().get(30, TimeUnit.SECONDS);

        cluster.removeBroker(added);
        assertEquals(List.of(0, 1, 2), cluster.brokerIds());
        Set<Integer> registered = cluster.admin()
            .describeCluster(new DescribeClusterOptions().includeFencedBrokers(true))
            .nodes().get(30, TimeUnit.SECONDS).stream().map(Node::id).collect(Collectors.toSet());
        assertEquals(Set.of(0, 1, 2), registered);

        assertThrows(IllegalArgumentException.class, () -> cluster.removeBroker(0), "voters cannot be removed");
    }

    private static TopicDescription describe(String topic) throws Exception {
        return cluster.admin().describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic);
    }

    /** Partition to leader id (-1 when leaderless). */
    private static Map<Integer, Integer> leaders(String topic) throws Exception {
        Map<Integer, Integer> leaders = new TreeMap<>();
        TopicDescription description;
        try {
            description = describe(topic);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof org.apache.kafka.common.errors.UnknownTopicOrPartitionException) {
                return leaders; // not yet known to the answering broker
            }
            throw e;
        }
        for (TopicPartitionInfo p : description.partitions()) {
            leaders.put(p.partition(), p.leader() == null || p.leader().isEmpty() ? -1 : p.leader().id());
        }
        return leaders;
    }

    private static Set<Integer> ids(List<Node> nodes) {
        return nodes.stream().map(Node::id).collect(Collectors.toSet());
    }
}
