package dev.weft.proxy.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import dev.weft.proxy.testing.Poll;
import dev.weft.proxy.testing.ScrapedMetrics;
import dev.weft.proxy.testing.TestPki;
import dev.weft.proxy.testing.VirtualClusterFixture;
import dev.weft.proxy.testing.VirtualClusterKind;
import dev.weft.testkit.KafkaCluster;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
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
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.security.auth.callback.Callback;
import javax.security.auth.callback.UnsupportedCallbackException;
import javax.security.auth.login.AppConfigurationEntry;
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
import org.apache.kafka.common.security.auth.AuthenticateCallbackHandler;
import org.apache.kafka.common.security.oauthbearer.OAuthBearerToken;
import org.apache.kafka.common.security.oauthbearer.OAuthBearerTokenCallback;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.jose4j.jwk.JsonWebKey;
import org.jose4j.jwk.JsonWebKeySet;
import org.jose4j.jwk.RsaJsonWebKey;
import org.jose4j.jwk.RsaJwkGenerator;
import org.jose4j.jws.AlgorithmIdentifiers;
import org.jose4j.jws.JsonWebSignature;
import org.jose4j.jwt.JwtClaims;
import org.jose4j.jwt.NumericDate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * OAUTHBEARER termination at the gateway (issue 15) on every kind of virtual cluster, with kafka-clients'
 * own OAUTHBEARER login: the test is its own identity provider (an RSA key pair, its JWKS served over
 * HTTPS with a {@link TestPki} certificate the proxy is told to trust, tokens it signs), the brokers
 * behind know nothing of it. A valid token produces and consumes; an expired one, one for another
 * audience, one from another issuer and one signed by another key each get the client's
 * {@link SaslAuthenticationException}, counted under their reason; tokens valid for 8 s keep a producer
 * sending for 13 s working: the proxy tells the token's lifetime (KIP-368), kafka-clients re-authenticates
 * with a fresh token before it runs out, and no session expires. The JWKS is fetched again every
 * {@code jwksRefreshMs}, so a key published after start is accepted.
 */
class OAuthBearerTerminationTest {

    static final String ISSUER = "https://idp.weft.test";
    static final String AUDIENCE = "weft-main";

    private static Path dir;
    private static Tokens tokens;
    private static HttpsServer jwksServer;
    private static final AtomicInteger JWKS_FETCHES = new AtomicInteger();
    private static final AtomicReference<String> SERVED_JWKS = new AtomicReference<>();
    private static String jwksUrl;
    private static VirtualClusterFixture fixture;

    @BeforeAll
    static void start() throws Exception {
        dir = Files.createTempDirectory("weft-oauth");
        tokens = new Tokens();
        SERVED_JWKS.set(tokens.jwks(tokens.key));
        TestPki pki = new TestPki(dir);
        jwksServer = httpsServer(pki.issue("idp"));
        jwksUrl = "https://localhost:" + jwksServer.getAddress().getPort() + "/jwks.json";
        fixture = VirtualClusterFixture.over(KafkaCluster.builder().brokers(1).build().start())
                .virtualClusterSettings("""
                            authentication:
                              sasl:
                                mechanisms: [OAUTHBEARER]
                                failures: { max: 1000, windowMs: 1000 }
                                oauthbearer:
                                  jwks: "%s"
                                  trustCertificates: "%s"
                                  jwksRefreshMs: 1000
                                  issuer: "%s"
                                  audience: [other-cluster, %s]
                        """.formatted(jwksUrl, pki.caPem(), ISSUER, AUDIENCE))
                .clientSettings(client("good", 600_000))
                .build();
    }

    @AfterAll
    static void stop() throws IOException {
        if (fixture != null) {
            fixture.close();
        }
        if (jwksServer != null) {
            jwksServer.stop(0);
        }
        if (dir != null) {
            try (var files = Files.walk(dir)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private static HttpsServer httpsServer(TestPki.Issued certificate) throws Exception {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = new FileInputStream(certificate.keyStore().toFile())) {
            ks.load(in, TestPki.PASSWORD.toCharArray());
        }
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(ks, TestPki.PASSWORD.toCharArray());
        SSLContext tls = SSLContext.getInstance("TLS");
        tls.init(kmf.getKeyManagers(), null, null);
        HttpsServer server = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.setHttpsConfigurator(new HttpsConfigurator(tls));
        server.createContext("/jwks.json", exchange -> {
            JWKS_FETCHES.incrementAndGet();
            byte[] body = SERVED_JWKS.get().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
        return server;
    }

    /** kafka-clients settings for OAUTHBEARER with {@link TestLogin} handing out tokens of {@code kind}. */
    static Map<String, Object> client(String kind, long lifetimeMs) {
        Map<String, Object> c = new HashMap<>();
        c.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_PLAINTEXT");
        c.put(SaslConfigs.SASL_MECHANISM, "OAUTHBEARER");
        // distinct options, distinct logins: kafka-clients shares one login among clients of equal JAAS config
        c.put(SaslConfigs.SASL_JAAS_CONFIG, "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required token=\"%s\" lifetimeMs=\"%d\" login=\"%d\";"
                .formatted(kind, lifetimeMs, LOGINS.incrementAndGet()));
        c.put(SaslConfigs.SASL_LOGIN_CALLBACK_HANDLER_CLASS, TestLogin.class.getName());
        // refresh at half the token's lifetime, whatever it is (the defaults' 60 s minimum and 300 s buffer are
        // ignored for tokens shorter than that anyway)
        c.put(SaslConfigs.SASL_LOGIN_REFRESH_WINDOW_FACTOR, 0.5);
        c.put(SaslConfigs.SASL_LOGIN_REFRESH_WINDOW_JITTER, 0.0);
        c.put(SaslConfigs.SASL_LOGIN_REFRESH_MIN_PERIOD_SECONDS, (short) 0);
        c.put(SaslConfigs.SASL_LOGIN_REFRESH_BUFFER_SECONDS, (short) 0);
        return c;
    }

    private static final AtomicLong LOGINS = new AtomicLong();

    private static Map<String, Object> client(VirtualClusterKind kind, String token, long lifetimeMs) {
        Map<String, Object> c = client(token, lifetimeMs);
        c.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, fixture.bootstrap(kind));
        return c;
    }

    @ParameterizedTest
    @MethodSource("dev.weft.proxy.testing.VirtualClusterKind#all")
    void aValidTokenProducesAndConsumesAsAGroup(VirtualClusterKind kind) throws Exception {
        String topic = kind.name("oauth-orders");
        fixture.createTopic(kind, topic, 2, 1);
        Map<String, Object> producerConfig = client(kind, "good", 600_000);
        producerConfig.put(ProducerConfig.ACKS_CONFIG, "all");
        producerConfig.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        Set<String> sent = new TreeSet<>();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerConfig, new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < 50; i++) {
                sent.add("v" + i);
                producer.send(new ProducerRecord<>(topic, "k" + i, "v" + i)).get(30, TimeUnit.SECONDS);
            }
        }
        Map<String, Object> consumerConfig = client(kind, "good", 600_000);
        consumerConfig.put(ConsumerConfig.GROUP_ID_CONFIG, kind.name("oauth-readers"));
        consumerConfig.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        Set<String> received = new TreeSet<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(consumerConfig, new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of(topic));
            Poll.until(Duration.ofSeconds(60), "the group to read the 50 records", () -> {
                consumer.poll(Duration.ofMillis(200)).forEach(r -> received.add(r.value()));
                return received.containsAll(sent);
            }, () -> received.size() + " received");
            consumer.commitSync();
        }
        assertEquals(sent, received);
    }

    @ParameterizedTest
    @MethodSource("dev.weft.proxy.testing.VirtualClusterKind#all")
    void expiredForeignAndForgedTokensGetSaslAuthenticationFailedCountedByReason(VirtualClusterKind kind) {
        Map<String, Double> before = outcomes(kind);
        for (String token : List.of("expired", "audience", "issuer", "other-key", "unknown-kid")) {
            Throwable refused = describeClusterFailure(client(kind, token, 600_000));
            assertInstanceOf(SaslAuthenticationException.class, refused, token + ": " + refused);
        }
        Map<String, Double> after = outcomes(kind);
        for (String outcome : List.of("token_expired", "token_wrong_audience", "token_wrong_issuer")) {
            assertTrue(after.getOrDefault(outcome, 0.0) - before.getOrDefault(outcome, 0.0) >= 1, outcome + ": " + after);
        }
        assertTrue(after.getOrDefault("token_bad_signature", 0.0) - before.getOrDefault("token_bad_signature", 0.0) >= 2,
                "another key, and a key id the JWKS lacks: " + after);
        assertEquals(before.getOrDefault("success", 0.0), after.getOrDefault("success", 0.0), "none authenticated: " + after);
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

    /**
     * Tokens live 8 s (no {@code reauthenticateMs}): the proxy tells each connection its token's remaining
     * lifetime; kafka-clients' login refreshes the token at half its lifetime and re-authenticates each
     * connection before the session runs out (at 85 to 95% of it) with the fresh token, so a producer
     * sending for 13 s loses no send, no session expires, and more authentications succeed than
     * connections were opened. (The session after a re-authentication is the fresh token's remaining
     * lifetime, shorter than a whole one: shorter tokens leave the client margins a loaded machine misses.)
     */
    /** Two kinds: re-authentication is the gateway handler's, alike for every kind (SaslTerminationTest runs SCRAM's on all). */
    @ParameterizedTest
    @org.junit.jupiter.params.provider.EnumSource(value = VirtualClusterKind.class, names = {"PASS_THROUGH", "COLLAPSED"})
    void shortLivedTokensAreRefreshedAndConnectionsReauthenticateBeforeTheirTokenExpires(VirtualClusterKind kind) throws Exception {
        String topic = kind.name("oauth-reauth");
        fixture.createTopic(kind, topic, 1, 1);
        Map<String, Double> before = outcomes(kind);
        double openedBefore = ScrapedMetrics.of(fixture.proxy(kind)).connectionsOpened();
        int issuedBefore = TestLogin.ISSUED.get();
        Map<String, Object> config = client(kind, "good", 8_000);
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        AtomicInteger failed = new AtomicInteger();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(13);
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
        assertTrue(TestLogin.ISSUED.get() - issuedBefore >= 3, (TestLogin.ISSUED.get() - issuedBefore) + " tokens issued in 13 s");
        assertTrue(successes > opened, successes + " successful authentications over " + opened + " connections: re-authentications");
    }

    /** The JWKS is fetched again every {@code jwksRefreshMs}: a key the issuer publishes later is accepted without a restart. */
    @Test
    void aKeyPublishedAfterStartIsAcceptedOnceTheJwksIsRefreshed() throws Exception {
        VirtualClusterKind kind = VirtualClusterKind.PASS_THROUGH;
        fixture.proxy(kind);
        try {
            SERVED_JWKS.set(tokens.jwks(tokens.key, tokens.rotated));
            int fetched = JWKS_FETCHES.get();
            Thread.sleep(2_500); // over two jwksRefreshMs: every proxy of the fixture has fetched the new JWKS
            assertTrue(JWKS_FETCHES.get() >= fetched + 2, (JWKS_FETCHES.get() - fetched) + " fetches in 2.5 s");
            Map<String, Object> config = client(kind, "rotated", 600_000);
            config.put(CommonClientConfigs.DEFAULT_API_TIMEOUT_MS_CONFIG, 15_000);
            config.put(CommonClientConfigs.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
            try (Admin admin = Admin.create(config)) {
                assertTrue(admin.describeCluster().nodes().get(30, TimeUnit.SECONDS).size() >= 1);
            }
        } finally {
            SERVED_JWKS.set(tokens.jwks(tokens.key));
        }
    }

    @Test
    void theJwksUrlIsAllowedForKafkaClientsKeepingWhatWasThere() {
        fixture.proxy(VirtualClusterKind.PASS_THROUGH); // started: its JWKS URL is allowed
        String before = System.getProperty(OAuthBearerValidation.ALLOWED_URLS_PROPERTY);
        assertTrue(before != null && List.of(before.split(",")).contains(jwksUrl), before);
        OAuthBearerValidation.allowUrl("file:/elsewhere/jwks.json");
        OAuthBearerValidation.allowUrl(jwksUrl);
        String after = System.getProperty(OAuthBearerValidation.ALLOWED_URLS_PROPERTY);
        assertEquals(before + ",file:/elsewhere/jwks.json", after, "appended once, nothing dropped");
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

    /** The test's identity provider: its keys, its JWKS, the tokens it signs (jose4j, test only). */
    static final class Tokens {
        final RsaJsonWebKey key = generate("weft-test-1");
        /** Another key under the same key id: its signatures do not verify against the JWKS. */
        final RsaJsonWebKey forger = generate("weft-test-1");
        /** A key the JWKS does not list at first. */
        final RsaJsonWebKey rotated = generate("weft-test-2");

        private static RsaJsonWebKey generate(String keyId) {
            try {
                RsaJsonWebKey k = RsaJwkGenerator.generateJwk(2048);
                k.setKeyId(keyId);
                k.setAlgorithm(AlgorithmIdentifiers.RSA_USING_SHA256);
                return k;
            } catch (org.jose4j.lang.JoseException e) {
                throw new IllegalStateException(e);
            }
        }

        String jwks(RsaJsonWebKey... keys) {
            return new JsonWebKeySet(keys).toJson(JsonWebKey.OutputControlLevel.PUBLIC_ONLY);
        }

        /** A token of {@code kind}: good, expired, audience, issuer, other-key, unknown-kid, rotated. */
        String token(String kind, String subject, long lifetimeMs) {
            long now = System.currentTimeMillis();
            return switch (kind) {
                case "good" -> sign(key, ISSUER, AUDIENCE, subject, now, now + lifetimeMs);
                case "expired" -> sign(key, ISSUER, AUDIENCE, subject, now - 3_600_000, now - 600_000); // well past the 30 s skew
                case "audience" -> sign(key, ISSUER, "another-cluster", subject, now, now + lifetimeMs);
                case "issuer" -> sign(key, "https://elsewhere.test", AUDIENCE, subject, now, now + lifetimeMs);
                case "other-key" -> sign(forger, ISSUER, AUDIENCE, subject, now, now + lifetimeMs);
                case "unknown-kid", "rotated" -> sign(rotated, ISSUER, AUDIENCE, subject, now, now + lifetimeMs);
                default -> throw new IllegalArgumentException(kind);
            };
        }

        static String sign(RsaJsonWebKey k, String issuer, String audience, String subject, long issuedAtMs, long expiresAtMs) {
            JwtClaims claims = new JwtClaims();
            claims.setIssuer(issuer);
            claims.setAudience(audience);
            claims.setSubject(subject);
            claims.setIssuedAt(NumericDate.fromMilliseconds(issuedAtMs));
            claims.setExpirationTime(NumericDate.fromMilliseconds(expiresAtMs));
            claims.setClaim("scope", "kafka");
            JsonWebSignature jws = new JsonWebSignature();
            jws.setPayload(claims.toJson());
            jws.setKey(k.getPrivateKey());
            jws.setKeyIdHeaderValue(k.getKeyId());
            jws.setAlgorithmHeaderValue(AlgorithmIdentifiers.RSA_USING_SHA256);
            try {
                return jws.getCompactSerialization();
            } catch (org.jose4j.lang.JoseException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    /**
     * The clients' login callback handler ({@code sasl.login.callback.handler.class}): a freshly signed
     * token of the JAAS option {@code token}'s kind on every login and refresh, valid {@code lifetimeMs}.
     * The lifetime kafka-clients is told is the token's own, except for an expired token (told 10 min, so
     * the client's login does not refuse it before the proxy can).
     */
    public static final class TestLogin implements AuthenticateCallbackHandler {
        static final AtomicInteger ISSUED = new AtomicInteger();
        private String kind = "good";
        private long lifetimeMs = 600_000;

        @Override
        public void configure(Map<String, ?> configs, String saslMechanism, List<AppConfigurationEntry> jaasConfigEntries) {
            Map<String, ?> options = jaasConfigEntries.get(0).getOptions();
            kind = String.valueOf(options.get("token"));
            lifetimeMs = Long.parseLong(String.valueOf(options.get("lifetimeMs")));
        }

        @Override
        public void handle(Callback[] callbacks) throws UnsupportedCallbackException {
            for (Callback c : callbacks) {
                if (!(c instanceof OAuthBearerTokenCallback t)) {
                    throw new UnsupportedCallbackException(c);
                }
                long now = System.currentTimeMillis();
                String jwt = tokens.token(kind, "alice", lifetimeMs);
                long told = kind.equals("expired") ? now + 600_000 : now + lifetimeMs;
                ISSUED.incrementAndGet();
                t.token(new Token(jwt, told, now));
            }
        }

        @Override
        public void close() {
        }
    }

    record Token(String value, long lifetimeMs, Long startTimeMs) implements OAuthBearerToken {
        @Override
        public Set<String> scope() {
            return Set.of("kafka");
        }

        @Override
        public String principalName() {
            return "alice";
        }
    }
}
