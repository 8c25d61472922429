package dev.weft.proxy.weave;

import dev.weft.proxy.session.VirtualClusterRuntime;
import dev.weft.proxy.session.VirtualClusterStartException;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import dev.weft.iocore.testing.LogCapture;
import dev.weft.proxy.server.WeftProxy;
import dev.weft.proxy.testing.Poll;
import dev.weft.proxy.testing.ProxyFixture;
import dev.weft.proxy.testing.WeaveFixture;
import dev.weft.testkit.KafkaCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The same topic name on two real clusters behind one woven virtual cluster, under each collision
 * policy (routes "east" → cluster c0, "west" → cluster c1): {@code reject} refuses to start, and hides
 * both topics when the collision appears while running (ERROR log line, counted); {@code first-wins}
 * serves the first route's topic only; {@code qualify} serves both under route prefixes. Where the
 * records landed is checked directly on each cluster.
 */
class TopicCollisionPoliciesTest {

    private static final List<String> ROUTES = List.of("name: east", "name: west");

    private static KafkaCluster c0;
    private static KafkaCluster c1;

    @BeforeAll
    static void start() {
        c0 = KafkaCluster.builder().brokers(1).build();
        c1 = KafkaCluster.builder().brokers(1).build();
        c0.start();
        c1.start();
    }

    @AfterAll
    static void stop() {
        if (c1 != null) {
            c1.close();
        }
        if (c0 != null) {
            c0.close();
        }
    }

    @Test
    void rejectRefusesToStartNamingTheTopicAndBothClusters() {
        c0.createTopic("clash", 1, 1);
        c1.createTopic("clash", 1, 1);
        VirtualClusterStartException e = assertThrows(VirtualClusterStartException.class,
                () -> WeaveFixture.start(List.of(c0, c1), ROUTES, "    collisions: reject\n").close());
        String m = e.getMessage();
        assertTrue(m.contains("'main' refuses to start"), m);
        assertTrue(m.contains("topic 'clash'"), m);
        assertTrue(m.contains("east") && m.contains("west"), "names both routes: " + m);
        assertTrue(m.contains("'c0'") && m.contains("'c1'"), "names both clusters: " + m);
    }

    @Test
    void rejectHidesBothTopicsWhenACollisionAppearsWhileRunning() throws Exception {
        c0.createTopic("late", 1, 1);
        c1.createTopic("late-other", 1, 1);
        // scoped to the "late*" topics so the other tests' collisions do not stop it from starting
        List<String> routes = List.of("name: east, topics: { include: [\"re:late.*\"] }",
                "name: west, topics: { include: [\"re:late.*\"] }");
        try (LogCapture log = LogCapture.of(VirtualClusterRuntime.class);
                WeftProxy proxy = WeaveFixture.start(List.of(c0, c1), routes, "    collisions: reject\n");
                Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, ProxyFixture.bootstrap(proxy)))) {
            VirtualClusterRuntime runtime = proxy.virtualCluster("main");
            assertEquals(Set.of("late", "late-other"), admin.listTopics().names().get());
            TopicDescription late = admin.describeTopics(List.of("late")).allTopicNames().get().get("late");
            Uuid lateId = late.topicId();
            Node leader = late.partitions().getFirst().leader();
            String leaderAddress = leader.host() + ":" + leader.port();
            try (KafkaProducer<String, String> producer = WeaveClients.producer(ProxyFixture.bootstrap(proxy), Map.of())) {
                producer.send(new ProducerRecord<>("late", "before the collision")).get();
            }
            assertEquals(0, runtime.collisionErrors());

            c1.createTopic("late", 1, 1); // behind the proxy's back: now both clusters have 'late'
            Poll.untilNoThrow(Duration.ofSeconds(30), "the catalog to hide 'late'", () -> {
                // a Metadata naming an unknown topic makes the catalog refresh now rather than in 10 s
                admin.describeTopics(List.of("nudge-" + System.nanoTime())).allTopicNames()
                        .toCompletionStage().exceptionally(t -> null);
                return !admin.listTopics().names().get().contains("late");
            });
            assertEquals(Set.of("late-other"), admin.listTopics().names().get());
            ExecutionException described = assertThrows(ExecutionException.class,
                    () -> admin.describeTopics(List.of("late")).allTopicNames().get());
            assertInstanceOf(UnknownTopicOrPartitionException.class, described.getCause());

            // produced to on the broker that led it, by name and by its old id: refused, nothing written
            ProduceResponseData.PartitionProduceResponse byName =
                    WeaveClients.rawProduce(leaderAddress, (short) 12, "late", null, List.of("after, by name"));
            assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION, Errors.forCode(byName.errorCode()), byName.toString());
            ProduceResponseData.PartitionProduceResponse byId =
                    WeaveClients.rawProduce(leaderAddress, (short) 13, null, lateId, List.of("after, by id"));
            assertTrue(Set.of(Errors.UNKNOWN_TOPIC_ID, Errors.UNKNOWN_TOPIC_OR_PARTITION).contains(Errors.forCode(byId.errorCode())),
                    byId.toString());
            assertEquals(List.of("before the collision"), WeaveClients.readDirectly(c0, "late"));
            assertEquals(List.of(), WeaveClients.readDirectly(c1, "late"));

            assertEquals(1, runtime.collisionErrors(), "counted once");
            List<String> errors = log.messages(Level.ERROR);
            assertEquals(1, errors.size(), errors.toString());
            String line = errors.getFirst();
            assertTrue(line.contains("topic 'late'") && line.contains("reject"), line);
            assertTrue(line.contains("'c0'") && line.contains("'c1'"), "names both clusters: " + line);

            // still counted once after more refreshes, and exported
            runtime.refreshCatalog().get();
            assertEquals(1, runtime.collisionErrors());
            String metrics = scrape(proxy);
            assertTrue(metrics.contains("weft_topic_collisions_total{virtual_cluster=\"main\"} 1.0"), metrics);
        }
    }

    private static String scrape(WeftProxy proxy) throws Exception {
        java.net.InetSocketAddress admin = proxy.adminAddress().orElseThrow();
        try (java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient()) {
            return http.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:" + admin.getPort()
                    + "/metrics")).build(), java.net.http.HttpResponse.BodyHandlers.ofString()).body();
        }
    }

    @Test
    void firstWinsServesTheFirstRoutesTopicAndHidesTheOther() throws Exception {
        c0.createTopic("fw", 3, 1);
        c1.createTopic("fw", 2, 1);
        try (WeftProxy proxy = WeaveFixture.start(List.of(c0, c1), ROUTES, "    collisions: first-wins\n");
                Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, ProxyFixture.bootstrap(proxy)))) {
            String bootstrap = ProxyFixture.bootstrap(proxy);
            Set<String> names = admin.listTopics().names().get();
            assertTrue(names.contains("fw"), names.toString());
            assertFalse(names.contains("east.fw") || names.contains("west.fw"), names.toString());
            TopicDescription fw = admin.describeTopics(List.of("fw")).allTopicNames().get().get("fw");
            assertEquals(3, fw.partitions().size(), "c0's topic (3 partitions), not c1's (2): " + fw);
            assertEquals(c0.admin().describeTopics(List.of("fw")).allTopicNames().get().get("fw").topicId(), fw.topicId());

            List<String> sent = IntStream.range(0, 60).mapToObj(i -> "fw-" + i).toList();
            try (KafkaProducer<String, String> producer = WeaveClients.producer(bootstrap, Map.of())) {
                for (String v : sent) {
                    producer.send(new ProducerRecord<>("fw", v, v));
                }
                producer.flush();
            }
            assertEquals(new TreeSet<>(sent), new TreeSet<>(WeaveClients.readAll(bootstrap, "fw", sent.size())));
            assertEquals(new TreeSet<>(sent), new TreeSet<>(WeaveClients.readDirectly(c0, "fw")));
            assertEquals(List.of(), WeaveClients.readDirectly(c1, "fw"), "the hidden topic got nothing");
        }
    }

    @Test
    void qualifyServesBothUnderRoutePrefixes() throws Exception {
        c0.createTopic("q", 2, 1);
        c1.createTopic("q", 1, 1);
        try (WeftProxy proxy = WeaveFixture.start(List.of(c0, c1), ROUTES, "    collisions: qualify\n");
                Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, ProxyFixture.bootstrap(proxy)))) {
            String bootstrap = ProxyFixture.bootstrap(proxy);
            Set<String> names = admin.listTopics().names().get();
            assertTrue(names.containsAll(Set.of("east.q", "west.q")), names.toString());
            assertFalse(names.contains("q"), names.toString());
            Map<String, TopicDescription> described = admin.describeTopics(List.of("east.q", "west.q")).allTopicNames().get();
            assertEquals(2, described.get("east.q").partitions().size());
            assertEquals(1, described.get("west.q").partitions().size());

            List<String> east = new ArrayList<>();
            List<String> west = new ArrayList<>();
            try (KafkaProducer<String, String> producer = WeaveClients.producer(bootstrap, Map.of())) {
                for (int i = 0; i < 40; i++) {
                    east.add("east-" + i);
                    producer.send(new ProducerRecord<>("east.q", "k" + i, "east-" + i));
                    if (i % 2 == 0) {
                        west.add("west-" + i);
                        producer.send(new ProducerRecord<>("west.q", "k" + i, "west-" + i));
                    }
                }
                producer.flush();
            }
            assertEquals(new TreeSet<>(east), new TreeSet<>(WeaveClients.readAll(bootstrap, "east.q", east.size())));
            assertEquals(west, WeaveClients.readAll(bootstrap, "west.q", west.size()), "one partition: in order");
            assertEquals(new TreeSet<>(east), new TreeSet<>(WeaveClients.readDirectly(c0, "q")));
            assertEquals(west, WeaveClients.readDirectly(c1, "q"));
        }
    }
}
