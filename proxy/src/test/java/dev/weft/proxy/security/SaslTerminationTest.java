package dev.weft.proxy.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.proxy.testing.Poll;
import dev.weft.proxy.testing.RawKafkaClient;
import dev.weft.proxy.testing.ScrapedMetrics;
import dev.weft.proxy.testing.VirtualClusterFixture;
import dev.weft.proxy.testing.VirtualClusterKind;
import dev.weft.testkit.KafkaCluster;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.UnsupportedSaslMechanismException;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * SASL termination at the gateway (issue 15) on every kind of virtual cluster, with kafka-clients: the
 * proxy checks clients against a credential file written by {@code weft credentials}, the brokers
 * behind it know nothing of them (plaintext listeners here). SCRAM-SHA-512 and PLAIN clients produce
 * and consume as a group; a wrong password, an unknown user and a mechanism not enabled each get the
 * exception kafka-clients raises against a broker; a client that skips authentication gets
 * ILLEGAL_SASL_STATE and nothing it sent reaches a broker; and kafka-clients re-authenticates
 * (KIP-368) within the session lifetime the proxy gives, its connection kept.
 */
class SaslTerminationTest {

    private static final long LIFETIME_MS = 2_000;
    private static final String JAAS_PLAIN = "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"%s\" password=\"%s\";";
    private static final String JAAS_SCRAM = "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"%s\" password=\"%s\";";

    private static Path credentials;
    private static VirtualClusterFixture fixture;

    @BeforeAll
    static void start() throws Exception {
        credentials = Files.createTempDirectory("weft-sasl").resolve("users");
        addUser("alice", "alice-secret");
        addUser("bob", "bob-secret");
        fixture = VirtualClusterFixture.over(KafkaCluster.builder().brokers(1).build().start())
                .virtualClusterSettings("""
                            authentication:
                              sasl:
                                mechanisms: [SCRAM-SHA-512, PLAIN]
                                credentials: "%s"
                                reauthenticateMs: %d
                                failures: { max: 1000, windowMs: 1000 }
                        """.formatted(credentials, LIFETIME_MS))
                .clientSettings(Map.of(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_PLAINTEXT", SaslConfigs.SASL_MECHANISM, "PLAIN",
                        SaslConfigs.SASL_JAAS_CONFIG, JAAS_PLAIN.formatted("bob", "bob-secret")))
                .build();
    }

    @AfterAll
    static void stop() throws IOException {
        if (fixture != null) {
            fixture.close();
        }
        Files.deleteIfExists(credentials);
    }

    private static void addUser(String user, String password) {
        TestCredentials.add(credentials, user, password);
    }

    private static Map<String, Object> client(VirtualClusterKind kind, String mechanism, String user, String password) {
        Map<String, Object> c = new HashMap<>();
        c.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, fixture.bootstrap(kind));
        c.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_PLAINTEXT");
        c.put(SaslConfigs.SASL_MECHANISM, mechanism);
        c.put(SaslConfigs.SASL_JAAS_CONFIG, (mechanism.equals("PLAIN") ? JAAS_PLAIN : JAAS_SCRAM).formatted(user, password));
        return c;
    }

    @ParameterizedTest
    @MethodSource("dev.weft.proxy.testing.VirtualClusterKind#all")
    void scramAndPlainClientsProduceAndConsumeAsAGroup(VirtualClusterKind kind) throws Exception {
        String topic = kind.name("sasl-orders");
        fixture.createTopic(kind, topic, 2, 1);
        Map<String, Object> producerConfig = client(kind, "SCRAM-SHA-512", "alice", "alice-secret");
        producerConfig.put(ProducerConfig.ACKS_CONFIG, "all");
        producerConfig.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        Set<String> sent = new TreeSet<>();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerConfig, new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < 50; i++) {
                sent.add("v" + i);
                producer.send(new ProducerRecord<>(topic, "k" + i, "v" + i)).get(30, TimeUnit.SECONDS);
            }
        }
        Map<String, Object> consumerConfig = client(kind, "PLAIN", "bob", "bob-secret");
        consumerConfig.put(ConsumerConfig.GROUP_ID_CONFIG, kind.name("sasl-readers"));
        consumerConfig.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        Set<String> received = new TreeSet<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(consumerConfig, new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of(topic));
            Poll.until(Duration.ofSeconds(60), "bob's group to read alice's 50 records", () -> {
                consumer.poll(Duration.ofMillis(200)).forEach(r -> received.add(r.value()));
                return received.containsAll(sent);
            }, () -> received.size() + " received");
            consumer.commitSync();
        }
        assertEquals(sent, received);
    }

    @ParameterizedTest
    @MethodSource("dev.weft.proxy.testing.VirtualClusterKind#all")
    void wrongPasswordUnknownUserAndADisabledMechanismGetTheClientsOwnExceptions(VirtualClusterKind kind) {
        assertInstanceOf(SaslAuthenticationException.class, describeClusterFailure(client(kind, "SCRAM-SHA-512", "alice", "wrong")));
        assertInstanceOf(SaslAuthenticationException.class, describeClusterFailure(client(kind, "PLAIN", "alice", "wrong")));
        assertInstanceOf(SaslAuthenticationException.class, describeClusterFailure(client(kind, "SCRAM-SHA-512", "mallory", "x")));
        Throwable disabled = describeClusterFailure(client(kind, "SCRAM-SHA-256", "alice", "alice-secret"));
        assertInstanceOf(UnsupportedSaslMechanismException.class, disabled);
        assertTrue(disabled.getMessage().contains("SCRAM-SHA-256"), disabled.getMessage());
        ScrapedMetrics m = ScrapedMetrics.of(fixture.proxy(kind));
        assertTrue(m.sum("weft_sasl_authentications_total", Map.of("mechanism", "SCRAM-SHA-512", "outcome", "bad_credentials")) >= 2,
                m.linesOf("weft_sasl_authentications_total"));
        assertTrue(m.sum("weft_sasl_authentications_total", Map.of("outcome", "unsupported_mechanism")) >= 1,
                m.linesOf("weft_sasl_authentications_total"));
    }

    private static Throwable describeClusterFailure(Map<String, Object> config) {
        config.put(CommonClientConfigs.DEFAULT_API_TIMEOUT_MS_CONFIG, 15_000);
        config.put(CommonClientConfigs.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        try (Admin admin = Admin.create(config)) {
            ExecutionException e = assertThrows(ExecutionException.class, () -> admin.describeCluster().nodes().get(30, TimeUnit.SECONDS));
            assertInstanceOf(AuthenticationException.class, e.getCause(), "the client is told it did not authenticate");
            return e.getCause();
        }
    }

    @ParameterizedTest
    @MethodSource("dev.weft.proxy.testing.VirtualClusterKind#all")
    void aClientThatSkipsAuthenticationIsRefusedAndNothingItSentReachesABroker(VirtualClusterKind kind) throws Exception {
        double upstreamBefore = ScrapedMetrics.of(fixture.proxy(kind)).sum(ScrapedMetrics.UPSTREAM_REQUESTS, Map.of("api", "Metadata"));
        try (RawKafkaClient raw = RawKafkaClient.connect(fixture.bootstrap(kind))) {
            raw.send(ApiKeys.METADATA.id, (short) 12, 1, new MetadataRequestData().setTopics(List.of(
                    new MetadataRequestData.MetadataRequestTopic().setName("anything"))));
            MetadataResponseData answer = (MetadataResponseData) raw.readResponse(ApiKeys.METADATA.id, (short) 12, 1);
            assertEquals(Errors.ILLEGAL_SASL_STATE.code(), answer.topics().find("anything").errorCode());
            assertEquals(-1, raw.read(), "then the connection is closed");
        }
        assertEquals(upstreamBefore, ScrapedMetrics.of(fixture.proxy(kind)).sum(ScrapedMetrics.UPSTREAM_REQUESTS, Map.of("api", "Metadata")),
                "nothing went upstream");
    }

    /**
     * The proxy gives a 2 s session lifetime; a producer sending for 5 s over the same connections
     * re-authenticates before each expiry (KIP-368), so more authentications succeed than connections
     * were opened, none expires, and no send fails.
     */
    @ParameterizedTest // two kinds: re-authentication is the gateway handler's, alike for every kind
    @org.junit.jupiter.params.provider.EnumSource(value = VirtualClusterKind.class, names = {"PASS_THROUGH", "TOPIC_WOVEN"})
    void kafkaClientsReauthenticateWithinTheSessionLifetimeAndKeepTheirConnections(VirtualClusterKind kind) throws Exception {
        String topic = kind.name("sasl-reauth");
        fixture.createTopic(kind, topic, 1, 1);
        Map<String, Double> before = outcomes(kind);
        double openedBefore = ScrapedMetrics.of(fixture.proxy(kind)).connectionsOpened();
        Map<String, Object> config = client(kind, "SCRAM-SHA-512", "alice", "alice-secret");
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        AtomicInteger failed = new AtomicInteger();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
            long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(LIFETIME_MS * 5 / 2);
            List<java.util.concurrent.Future<?>> acks = new ArrayList<>();
            while (System.nanoTime() - end < 0) {
                acks.add(producer.send(new ProducerRecord<>(topic, "x"), (md, e) -> {
                    if (e != null) {
                        failed.incrementAndGet();
                    }
                }));
                Thread.sleep(50);
            }
            for (var f : acks) {
                f.get(30, TimeUnit.SECONDS);
            }
        }
        Map<String, Double> after = outcomes(kind);
        double opened = ScrapedMetrics.of(fixture.proxy(kind)).connectionsOpened() - openedBefore;
        double successes = after.getOrDefault("success", 0.0) - before.getOrDefault("success", 0.0);
        assertEquals(0, failed.get(), "sends that failed");
        assertEquals(before.getOrDefault("expired", 0.0), after.getOrDefault("expired", 0.0), "no session expired");
        assertTrue(successes > opened, successes + " successful authentications over " + opened + " connections: re-authentications");
    }

    private static Map<String, Double> outcomes(VirtualClusterKind kind) {
        Map<String, Double> out = new HashMap<>();
        for (var s : ScrapedMetrics.of(fixture.proxy(kind)).samples()) {
            if (s.name().equals("weft_sasl_authentications_total")) {
                out.merge(s.labels().get("outcome"), s.value(), Double::sum);
            }
        }
        return out;
    }
}
