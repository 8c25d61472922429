package dev.weft.proxy.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.proxy.config.ConfigException;
import dev.weft.proxy.config.ConfigLoader;
import dev.weft.proxy.net.FreePorts;
import dev.weft.proxy.server.WeftProxy;
import dev.weft.proxy.testing.SaslListener;
import dev.weft.proxy.testing.TestPki;
import dev.weft.testkit.KafkaCluster;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Per-principal upstream identities ({@code clusters.NAME.principals.USER}): real brokers guarded by
 * Kafka's StandardAuthorizer, where only {@code acme-svc} may write and read {@code acme.*} and the
 * proxy's own user {@code weft} may only describe — one with a SCRAM listener (the principal's own
 * {@code sasl}), one with an mTLS listener mapping the certificate's CN to the user (its own {@code tls}
 * client certificate). Clients authenticate to Weft (SASL PLAIN termination) as {@code alice}, mapped
 * to {@code acme-svc}, or as {@code bob}, not mapped. On a mirrored and a topic-woven virtual cluster
 * over the first and a mirrored one over the second, alice's idempotent producer and consumer group work
 * — which only acme-svc's ACLs allow, so the broker saw the tenant, not the proxy — while bob's write
 * gets TOPIC_AUTHORIZATION_FAILED from the broker and nothing lands.
 */
class PrincipalUpstreamCredentialsTest {

    private static final String JAAS = "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"%s\" password=\"%s\";";
    private static final String TOPIC = "acme.orders";

    @TempDir
    static Path dir;
    private static KafkaCluster kafka;
    private static KafkaCluster tlsKafka;
    private static TestPki pki;
    private static WeftProxy proxy;

    @BeforeAll
    static void start() throws Exception {
        kafka = SaslListener.scram(KafkaCluster.builder().brokers(1), "SCRAM-SHA-512")
                .brokerProperty("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer")
                // the test's admin, the brokers and the controller talk over PLAINTEXT, as ANONYMOUS
                .brokerProperty("super.users", "User:ANONYMOUS")
                .build();
        kafka.start();
        SaslListener.addScramUsers(kafka, Map.of("weft", "weft-secret", "acme-svc", "acme-secret"), ScramMechanism.SCRAM_SHA_512);
        try (Admin admin = Admin.create(kafka.adminConfig())) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 2, (short) 1))).all().get(30, TimeUnit.SECONDS);
            admin.createAcls(acls()).all().get(30, TimeUnit.SECONDS);
        }
        kafka.awaitLeaders(TOPIC, 2);

        pki = new TestPki(dir);
        TestPki.Issued broker = pki.issue("broker");
        tlsKafka = pki.sslListener(KafkaCluster.builder().brokers(1), broker)
                .brokerProperty("listener.name.ssl.ssl.client.auth", "required")
                .brokerProperty("ssl.principal.mapping.rules", "RULE:^CN=([^,]+)$/$1/,DEFAULT")
                .brokerProperty("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer")
                .brokerProperty("super.users", "User:ANONYMOUS")
                .build();
        tlsKafka.start();
        try (Admin admin = Admin.create(tlsKafka.adminConfig())) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 2, (short) 1))).all().get(30, TimeUnit.SECONDS);
            admin.createAcls(acls()).all().get(30, TimeUnit.SECONDS);
        }
        tlsKafka.awaitLeaders(TOPIC, 2);
        Path credentials = dir.resolve("users");
        TestCredentials.add(credentials, "alice", "alice-secret");
        TestCredentials.add(credentials, "bob", "bob-secret");
        int port = FreePorts.randomRange(9);
        proxy = WeftProxy.start(ConfigLoader.parse(config(port, credentials), "principal-upstream.yaml"));
    }

    /** weft (the proxy) may only describe; acme-svc owns acme.* and the acme- groups. */
    private static List<AclBinding> acls() {
        return List.of(
                allow("weft", ResourceType.TOPIC, "*", PatternType.LITERAL, AclOperation.DESCRIBE),
                allow("weft", ResourceType.CLUSTER, "kafka-cluster", PatternType.LITERAL, AclOperation.DESCRIBE),
                allow("acme-svc", ResourceType.TOPIC, "acme.", PatternType.PREFIXED, AclOperation.ALL),
                allow("acme-svc", ResourceType.GROUP, "acme-", PatternType.PREFIXED, AclOperation.ALL),
                allow("acme-svc", ResourceType.CLUSTER, "kafka-cluster", PatternType.LITERAL, AclOperation.DESCRIBE));
    }

    private static String config(int port, Path credentials) throws Exception {
        TestPki.Issued weft = pki.issue("weft");
        TestPki.Issued acme = pki.issue("acme-svc");
        return """
                server: { eventLoops: 1 }
                admin: { enabled: false }
                clusters:
                  acme:
                    bootstrap: "%1$s"
                    sasl: { mechanism: SCRAM-SHA-512, username: weft, password: weft-secret }
                    principals:
                      alice: { sasl: { mechanism: SCRAM-SHA-512, username: acme-svc, password: acme-secret } }
                  acme-tls:
                    bootstrap: "%7$s"
                    tls: { trustCertificates: "%8$s", certificate: "%9$s", key: "%10$s" }
                    principals:
                      alice: { tls: { certificate: "%11$s", key: "%12$s" } }
                routers:
                  weave:
                    type: topic-weave
                    routes:
                      - { name: only, target: { cluster: acme } }
                virtualClusters:
                  mirrored:
                    target: { cluster: acme }
                    gateways:
                      - { name: plain, bind: "127.0.0.1:%2$d", brokerPorts: { start: %3$d, nodeIds: "0-1" } }
                    authentication:
                      sasl: { mechanisms: [PLAIN], credentials: "%4$s" }
                  woven:
                    target: { router: weave }
                    gateways:
                      - { name: plain, bind: "127.0.0.1:%5$d", brokerPorts: { start: %6$d, nodeIds: "0-1" } }
                    authentication:
                      sasl: { mechanisms: [PLAIN], credentials: "%4$s" }
                  mirrored-tls:
                    target: { cluster: acme-tls }
                    gateways:
                      - { name: plain, bind: "127.0.0.1:%13$d", brokerPorts: { start: %14$d, nodeIds: "0-1" } }
                    authentication:
                      sasl: { mechanisms: [PLAIN], credentials: "%4$s" }
                """.formatted(kafka.bootstrapServers("EXTERNAL"), port, port + 1, credentials, port + 3, port + 4,
                tlsKafka.bootstrapServers("SSL"), pki.caPem(), weft.certificatePem(), weft.keyPem(), acme.certificatePem(),
                acme.keyPem(), port + 6, port + 7);
    }

    private static AclBinding allow(String user, ResourceType type, String name, PatternType pattern, AclOperation op) {
        return new AclBinding(new ResourcePattern(type, name, pattern),
                new AccessControlEntry("User:" + user, "*", op, AclPermissionType.ALLOW));
    }

    @AfterAll
    static void stop() {
        if (proxy != null) {
            proxy.close();
        }
        for (KafkaCluster c : new KafkaCluster[] {kafka, tlsKafka}) {
            if (c != null) {
                c.close();
            }
        }
    }

    private static Map<String, Object> client(String virtualCluster, String user) {
        Map<String, Object> c = new HashMap<>();
        c.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, proxy.bootstrapAddresses(virtualCluster).get(0));
        c.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_PLAINTEXT");
        c.put(SaslConfigs.SASL_MECHANISM, "PLAIN");
        c.put(SaslConfigs.SASL_JAAS_CONFIG, JAAS.formatted(user, user + "-secret"));
        c.put(CommonClientConfigs.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        c.put(CommonClientConfigs.DEFAULT_API_TIMEOUT_MS_CONFIG, 20_000);
        c.put("key.serializer", StringSerializer.class.getName());
        c.put("value.serializer", StringSerializer.class.getName());
        c.put("key.deserializer", StringDeserializer.class.getName());
        c.put("value.deserializer", StringDeserializer.class.getName());
        c.put("max.block.ms", 20_000);
        c.put("delivery.timeout.ms", 20_000);
        return c;
    }

    private static long endOffsets(String virtualCluster) throws Exception {
        KafkaCluster cluster = virtualCluster.endsWith("-tls") ? tlsKafka : kafka;
        try (Admin admin = Admin.create(cluster.adminConfig())) {
            return admin.listOffsets(Map.of(new TopicPartition(TOPIC, 0), OffsetSpec.latest(), new TopicPartition(TOPIC, 1),
                    OffsetSpec.latest())).all().get(30, TimeUnit.SECONDS).values().stream().mapToLong(o -> o.offset()).sum();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"mirrored", "woven", "mirrored-tls"})
    void aMappedPrincipalWritesAndReadsAsItsOwnUpstreamUser(String virtualCluster) throws Exception {
        long before = endOffsets(virtualCluster);
        Map<String, Object> p = client(virtualCluster, "alice");
        p.put("enable.idempotence", true); // InitProducerId too: acme-svc's WRITE on acme.* allows it, weft has none
        p.put("acks", "all");
        int records = 20;
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
            for (int i = 0; i < records; i++) {
                producer.send(new ProducerRecord<>(TOPIC, "k" + i, virtualCluster + "-" + i)).get(30, TimeUnit.SECONDS);
            }
        }
        assertEquals(before + records, endOffsets(virtualCluster), "alice's records landed, written as acme-svc");

        Map<String, Object> c = client(virtualCluster, "alice");
        c.put("group.id", "acme-readers-" + virtualCluster);
        c.put("auto.offset.reset", "earliest");
        int mine = 0;
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(c)) {
            consumer.subscribe(List.of(TOPIC));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (mine < records && System.nanoTime() < deadline) {
                for (var r : consumer.poll(Duration.ofMillis(500))) {
                    if (r.value().startsWith(virtualCluster + "-")) {
                        mine++;
                    }
                }
            }
            consumer.commitSync();
        }
        assertEquals(records, mine, "alice's group (acme-svc's READ on group acme-*) read them back");
    }

    @ParameterizedTest
    @ValueSource(strings = {"mirrored", "woven", "mirrored-tls"})
    void anUnmappedPrincipalReachesTheBrokerAsTheProxyAndIsRefusedThere(String virtualCluster) throws Exception {
        long before = endOffsets(virtualCluster);
        Map<String, Object> p = client(virtualCluster, "bob");
        p.put("enable.idempotence", false); // a plain Produce, so the refusal is the topic's
        p.put("acks", "1");
        p.put("retries", 0);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
            ExecutionException e = assertThrows(ExecutionException.class,
                    () -> producer.send(new ProducerRecord<>(TOPIC, "k", "bob")).get(30, TimeUnit.SECONDS));
            assertInstanceOf(TopicAuthorizationException.class, e.getCause(), "weft may only describe acme.*: " + e.getCause());
        }
        assertEquals(before, endOffsets(virtualCluster), "nothing of bob's was written");
    }

    @Test
    void aPrincipalsIdentityNeedsTheClustersOwnOfTheSameKind() {
        ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.parse("""
                clusters:
                  acme:
                    bootstrap: "127.0.0.1:9092"
                    principals:
                      alice: { sasl: { mechanism: PLAIN, username: acme-svc, password: env:ACME } }
                virtualClusters:
                  main:
                    target: { cluster: acme }
                    gateways: [ { name: plain, bind: "127.0.0.1:19092" } ]
                """, "p.yaml"));
        assertTrue(e.getMessage().contains("p.yaml: clusters.acme.principals.alice.sasl: needs the cluster's own 'sasl' too"),
                e.getMessage());
        assertEquals(1, e.getMessage().lines().count(), e.getMessage());
        ConfigException noTls = assertThrows(ConfigException.class, () -> ConfigLoader.parse("""
                clusters:
                  acme:
                    bootstrap: "127.0.0.1:9092"
                    principals:
                      alice: { tls: { certificate: /nope.pem, key: /nope.key } }
                      bob: {}
                virtualClusters:
                  main:
                    target: { cluster: acme }
                    gateways: [ { name: plain, bind: "127.0.0.1:19092" } ]
                """, "p.yaml"));
        assertTrue(noTls.getMessage().contains("clusters.acme.principals.alice.tls: needs the cluster's own 'tls' too"), noTls.getMessage());
        assertTrue(noTls.getMessage().contains("clusters.acme.principals.bob: needs 'sasl' (a SASL login) or 'tls'"), noTls.getMessage());
    }
}
