package dev.weft.proxy.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.proxy.config.ConfigLoader;
import dev.weft.proxy.net.FreePorts;
import dev.weft.proxy.server.WeftProxy;
import dev.weft.proxy.session.VirtualClusterStartException;
import dev.weft.testkit.KafkaCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupListing;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Routing by principal over a topic weave of two real clusters, with kafka-clients over SASL termination:
 * {@code alice} is given route east and {@code bob} route west ({@code routes:}), so each sees only
 * its cluster's topics (the other's do not exist for it), creates topics only where the router places
 * them on its route, and has its consumer groups homed on its own cluster ({@code home:}) although the
 * router's groups default to east: bob's group is on west's coordinator, as west itself lists it.
 */
class PrincipalRoutingTest {

    private static final String JAAS = "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"%s\" password=\"%s\";";

    @TempDir
    static Path dir;
    private static KafkaCluster east;
    private static KafkaCluster west;
    private static Path credentials;
    private static WeftProxy proxy;

    private static String config(int port, String aliceRoutes) {
        return """
                server: { eventLoops: 1 }
                admin: { enabled: false }
                clusters:
                  east: { bootstrap: "%s" }
                  west: { bootstrap: "%s" }
                routers:
                  weave:
                    type: topic-weave
                    routes:
                      - { name: east, target: { cluster: east } }
                      - { name: west, target: { cluster: west } }
                    groups: { default: east }
                    placement: { rules: [ { prefix: "w-", route: west } ], default: east }
                virtualClusters:
                  main:
                    target: { router: weave }
                    gateways:
                      - { name: plain, bind: "127.0.0.1:%d", brokerPorts: { start: %d, nodeIds: "0-3" } }
                    authentication:
                      sasl: { mechanisms: [PLAIN], credentials: "%s" }
                    authorization:
                      principals:
                        alice:
                          routes: [%s]
                          home: east
                          topics: [ { name: "*", operations: [all] } ]
                          groups: [ { name: "*" } ]
                        bob:
                          routes: [west]
                          home: west
                          topics: [ { name: "*", operations: [all] } ]
                          groups: [ { name: "*" } ]
                """.formatted(east.bootstrapServers(), west.bootstrapServers(), port, port + 1, credentials, aliceRoutes);
    }

    @BeforeAll
    static void start() throws Exception {
        east = KafkaCluster.builder().brokers(1).build().start();
        west = KafkaCluster.builder().brokers(1).build().start();
        east.createTopic("ledger-east", 1, 1);
        west.createTopic("ledger-west", 1, 1);
        credentials = dir.resolve("users");
        TestCredentials.add(credentials, "alice", "alice-secret");
        TestCredentials.add(credentials, "bob", "bob-secret");
        int port = FreePorts.randomRange(5);
        proxy = WeftProxy.start(ConfigLoader.parse(config(port, "east"), "principal-routing"));
    }

    @AfterAll
    static void stop() {
        if (proxy != null) {
            proxy.close();
        }
        for (KafkaCluster c : new KafkaCluster[] {east, west}) {
            if (c != null) {
                c.close();
            }
        }
    }

    private static Map<String, Object> client(String user) {
        Map<String, Object> c = new HashMap<>();
        c.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, proxy.bootstrapAddresses("main").get(0));
        c.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_PLAINTEXT");
        c.put(SaslConfigs.SASL_MECHANISM, "PLAIN");
        c.put(SaslConfigs.SASL_JAAS_CONFIG, JAAS.formatted(user, user + "-secret"));
        c.put(CommonClientConfigs.DEFAULT_API_TIMEOUT_MS_CONFIG, 20_000);
        c.put(CommonClientConfigs.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        return c;
    }

    @Test
    void eachPrincipalSeesOnlyTheTopicsOfItsRoutes() throws Exception {
        try (Admin alice = Admin.create(client("alice")); Admin bob = Admin.create(client("bob"))) {
            Set<String> aliceSees = alice.listTopics().names().get(30, TimeUnit.SECONDS);
            Set<String> bobSees = bob.listTopics().names().get(30, TimeUnit.SECONDS);
            assertTrue(aliceSees.contains("ledger-east") && !aliceSees.contains("ledger-west"), "alice: " + aliceSees);
            assertTrue(bobSees.contains("ledger-west") && !bobSees.contains("ledger-east"), "bob: " + bobSees);
            ExecutionException e = assertThrows(ExecutionException.class,
                    () -> alice.describeTopics(List.of("ledger-west")).allTopicNames().get(30, TimeUnit.SECONDS));
            assertInstanceOf(UnknownTopicOrPartitionException.class, e.getCause(), "west's topic does not exist for alice");

            bob.createTopics(List.of(new NewTopic("w-bob-created", 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
            ExecutionException refused = assertThrows(ExecutionException.class,
                    () -> bob.createTopics(List.of(new NewTopic("bob-on-east", 1, (short) 1))).all().get(30, TimeUnit.SECONDS));
            assertInstanceOf(TopicAuthorizationException.class, refused.getCause(), "the router places it on east, not bob's route");
        }
        try (Admin westDirect = Admin.create(Map.of("bootstrap.servers", west.bootstrapServers()));
                Admin eastDirect = Admin.create(Map.of("bootstrap.servers", east.bootstrapServers()))) {
            assertTrue(westDirect.listTopics().names().get(30, TimeUnit.SECONDS).contains("w-bob-created"));
            assertFalse(eastDirect.listTopics().names().get(30, TimeUnit.SECONDS).contains("bob-on-east"), "nothing was created");
        }
    }

    @Test
    void aPrincipalsGroupsLiveOnItsHomeClusterNotTheRoutersDefault() throws Exception {
        Map<String, Object> p = client("bob");
        p.put("key.serializer", StringSerializer.class.getName());
        p.put("value.serializer", StringSerializer.class.getName());
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
            for (int i = 0; i < 10; i++) {
                producer.send(new ProducerRecord<>("ledger-west", "k" + i, "v" + i)).get(30, TimeUnit.SECONDS);
            }
        }
        Map<String, Object> c = client("bob");
        c.put("group.id", "bob-readers");
        c.put("auto.offset.reset", "earliest");
        c.put("key.deserializer", StringDeserializer.class.getName());
        c.put("value.deserializer", StringDeserializer.class.getName());
        int read = 0;
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(c)) {
            consumer.subscribe(List.of("ledger-west"));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (read < 10 && System.nanoTime() < deadline) {
                read += consumer.poll(Duration.ofMillis(500)).count();
            }
            consumer.commitSync();
        }
        assertTrue(read >= 10, "bob's group read west's records: " + read);
        try (Admin westDirect = Admin.create(Map.of("bootstrap.servers", west.bootstrapServers()));
                Admin eastDirect = Admin.create(Map.of("bootstrap.servers", east.bootstrapServers()))) {
            assertTrue(groups(westDirect).contains("bob-readers"), "bob's group is on west, his home");
            assertFalse(groups(eastDirect).contains("bob-readers"), "not on east, the router's default home");
            assertEquals(10, westDirect.listConsumerGroupOffsets("bob-readers").partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS)
                    .values().stream().mapToLong(o -> o.offset()).sum(), "its offsets were committed on west");
        }
    }

    @Test
    void aRouteTheRouterDoesNotHaveIsOneLineNamingThePrincipal() {
        VirtualClusterStartException e = assertThrows(VirtualClusterStartException.class,
                () -> WeftProxy.start(ConfigLoader.parse(config(FreePorts.randomRange(5), "nowhere"), "routes.yaml")));
        assertEquals("routes.yaml: virtualClusters.main.authorization.principals.alice.routes: the router has no route 'nowhere'"
                + " (routes: east, west)", e.getMessage());
    }

    private static Set<String> groups(Admin admin) throws Exception {
        return Set.copyOf(admin.listConsumerGroups().all().get(30, TimeUnit.SECONDS).stream().map(ConsumerGroupListing::groupId).toList());
    }
}
