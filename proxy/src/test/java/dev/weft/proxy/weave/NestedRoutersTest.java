package dev.weft.proxy.weave;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.proxy.config.ConfigLoader;
import dev.weft.proxy.net.FreePorts;
import dev.weft.proxy.server.WeftProxy;
import dev.weft.proxy.testing.Poll;
import dev.weft.proxy.testing.ProxyFixture;
import dev.weft.testkit.KafkaCluster;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A routing DAG of two levels served end to end: router "weave" has route "east" (cluster c0) and route
 * "eu" (router "eu", shown with prefix "eu."), whose routes are "a" (cluster c1) and "b" (cluster c2,
 * prefix "b."). Names compose level by level (c2's "audit" is "eu.b.audit"), node ids compose per level
 * (DESIGN §4: V_outer = V_inner × N_outer + k), and an idempotent producer and a consumer group work
 * across all three clusters.
 */
class NestedRoutersTest {

    private static final List<KafkaCluster> clusters = new java.util.ArrayList<>();
    private static WeftProxy proxy;

    @BeforeAll
    static void start() throws Exception {
        for (int i = 0; i < 3; i++) {
            KafkaCluster k = KafkaCluster.builder().brokers(1).build();
            clusters.add(k);
            k.start();
        }
        clusters.get(0).createTopic("orders", 2, 1);
        clusters.get(1).createTopic("ledger", 2, 1);
        clusters.get(2).createTopic("audit", 1, 1);
        RuntimeException last = null;
        for (int attempt = 0; attempt < 5 && proxy == null; attempt++) {
            int port = FreePorts.randomRange(33);
            String yaml = """
                    server: { eventLoops: 2 }
                    clusters:
                      c0: { bootstrap: "%s" }
                      c1: { bootstrap: "%s" }
                      c2: { bootstrap: "%s" }
                    routers:
                      weave:
                        type: topic-weave
                        routes:
                          - { name: east, target: { cluster: c0 } }
                          - { name: eu, target: { router: eu }, naming: { prefix: "eu." } }
                        groups: { homes: [ { prefix: "eu-", route: eu } ] }
                      eu:
                        type: topic-weave
                        routes:
                          - { name: a, target: { cluster: c1 } }
                          - { name: b, target: { cluster: c2 }, naming: { prefix: "b." } }
                    virtualClusters:
                      main:
                        target: { router: weave }
                        gateways:
                          - { name: plain, bind: "127.0.0.1:%d", brokerPorts: { start: %d, nodeIds: "0-31" } }
                    """.formatted(clusters.get(0).bootstrapServers(), clusters.get(1).bootstrapServers(),
                    clusters.get(2).bootstrapServers(), port, port + 1);
            try {
                proxy = WeftProxy.start(ConfigLoader.parse(yaml, "nested test config"));
            } catch (dev.weft.proxy.gateway.GatewayBindException e) {
                last = e;
            }
        }
        if (proxy == null) {
            throw last;
        }
    }

    @AfterAll
    static void stop() throws Exception {
        if (proxy != null) {
            proxy.close();
        }
        for (KafkaCluster k : clusters) {
            k.close();
        }
    }

    @Test
    void namesAndNodeIdsComposeAndTrafficReachesEveryCluster() throws Exception {
        String bootstrap = ProxyFixture.bootstrap(proxy);
        int b0 = clusters.get(0).brokerIds().getFirst();
        int b1 = clusters.get(1).brokerIds().getFirst();
        int b2 = clusters.get(2).brokerIds().getFirst();
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            Map<String, TopicDescription> topics = admin.describeTopics(List.of("orders", "eu.ledger", "eu.b.audit"))
                    .allTopicNames().get();
            assertEquals(b0 * 2, topics.get("orders").partitions().get(0).leader().id());
            assertEquals((b1 * 2) * 2 + 1, topics.get("eu.ledger").partitions().get(0).leader().id());
            assertEquals((b2 * 2 + 1) * 2 + 1, topics.get("eu.b.audit").partitions().get(0).leader().id());
            Set<Integer> nodes = admin.describeCluster().nodes().get().stream().map(n -> n.id()).collect(Collectors.toSet());
            assertEquals(Set.of(b0 * 2, b1 * 4 + 1, b2 * 4 + 3), nodes);
        }
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < 100; i++) {
                for (String t : List.of("orders", "eu.ledger", "eu.b.audit")) {
                    producer.send(new ProducerRecord<>(t, "k" + i, t + "-" + i));
                }
            }
            producer.flush();
        }
        assertEquals(100, TopicWeaveRoundTripTest.countDirectly(clusters.get(0), "orders"));
        assertEquals(100, TopicWeaveRoundTripTest.countDirectly(clusters.get(1), "ledger"));
        assertEquals(100, TopicWeaveRoundTripTest.countDirectly(clusters.get(2), "audit"));

        Properties c = new Properties();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        c.put(ConsumerConfig.GROUP_ID_CONFIG, "eu-readers");
        c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        Map<String, Set<String>> seen = new HashMap<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(c, new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of("orders", "eu.ledger", "eu.b.audit"));
            Poll.until(Duration.ofSeconds(60), "300 records from three clusters", () -> {
                consumer.poll(Duration.ofMillis(200)).forEach(r ->
                        assertTrue(seen.computeIfAbsent(r.topic(), x -> new TreeSet<>()).add(r.value()), "duplicate " + r.value()));
                return seen.values().stream().mapToInt(Set::size).sum() >= 300;
            });
            consumer.commitSync();
        }
        assertEquals(Set.of("orders", "eu.ledger", "eu.b.audit"), seen.keySet());
        seen.values().forEach(s -> assertEquals(100, s.size()));
        // the group's home is "eu" -> its own first route "a": cluster c1 coordinates it
        try (Admin direct = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, clusters.get(1).bootstrapServers()))) {
            assertTrue(direct.listConsumerGroups().all().get().stream().anyMatch(g -> g.groupId().equals("eu-readers")));
        }
    }
}
