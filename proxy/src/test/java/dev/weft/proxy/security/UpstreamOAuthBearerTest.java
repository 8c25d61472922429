package dev.weft.proxy.security;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import dev.weft.iocore.testing.LogCapture;
import dev.weft.protocol.cold.ColdCodec;
import dev.weft.proxy.config.ConfigException;
import dev.weft.proxy.config.ConfigLoader;
import dev.weft.proxy.config.Secret;
import dev.weft.proxy.config.WeftConfig;
import dev.weft.proxy.net.FreePorts;
import dev.weft.proxy.server.WeftProxy;
import dev.weft.proxy.testing.Poll;
import dev.weft.proxy.testing.SaslListener;
import dev.weft.proxy.testing.SteadyTraffic;
import dev.weft.proxy.tls.DiscoveryClientSecurity;
import dev.weft.proxy.upstream.StaticBearerTokenLogin;
import dev.weft.proxy.upstream.UpstreamSaslHandshake;
import dev.weft.testkit.KafkaCluster;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslAuthenticateResponseData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.message.SaslHandshakeResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The proxy's own OAUTHBEARER identity ({@code clusters.NAME.sasl: { mechanism: OAUTHBEARER, token }}):
 * a collapsed virtual cluster over a cluster whose client listener enables OAUTHBEARER only, the broker
 * validating tokens with Kafka's own {@code OAuthBearerValidatorCallbackHandler} against a JWKS file
 * (tokens signed by {@link OAuthBearerTerminationTest.Tokens}). Clients reach Weft in plaintext without
 * SASL; its discovery client logs in through {@link StaticBearerTokenLogin}, its links through
 * {@link UpstreamSaslHandshake}, both reading the token from a {@code file:} secret. An expired token in
 * the file fails new links with a WARN naming the cluster and the broker's error, and writes nothing; the
 * rotated file is picked up by the next connections. Plus the config rules and the handshake's RFC 7628
 * exchange on an {@link EmbeddedChannel}.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class UpstreamOAuthBearerTest {

    private static final String TOPIC = "bearer-orders";
    private static final int RECORDS = 30;

    private static OAuthBearerTerminationTest.Tokens tokens;
    private static Path dir;
    private static Path tokenFile;
    private static KafkaCluster cluster;
    private static WeftProxy proxy;

    @BeforeAll
    static void start() throws Exception {
        tokens = new OAuthBearerTerminationTest.Tokens();
        dir = Files.createTempDirectory("weft-upstream-oauth");
        Path jwks = dir.resolve("jwks.json");
        Files.writeString(jwks, tokens.jwks(tokens.key));
        String jwksUrl = jwks.toUri().toString();
        String allowed = System.getProperty(OAuthBearerValidation.ALLOWED_URLS_PROPERTY, "");
        System.setProperty(OAuthBearerValidation.ALLOWED_URLS_PROPERTY, allowed.isBlank() ? jwksUrl : allowed + "," + jwksUrl);
        tokenFile = dir.resolve("kafka-token");
        Files.writeString(tokenFile, tokens.token("good", "weft", 600_000) + "\n");
        cluster = SaslListener.external(KafkaCluster.builder().brokers(1),
                        Map.of("OAUTHBEARER", "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required;"))
                .brokerProperty("listener.name.external.oauthbearer.sasl.server.callback.handler.class",
                        "org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallbackHandler")
                .brokerProperty("sasl.oauthbearer.jwks.endpoint.url", jwksUrl)
                .brokerProperty("sasl.oauthbearer.expected.audience", OAuthBearerTerminationTest.AUDIENCE)
                .brokerProperty("sasl.oauthbearer.expected.issuer", OAuthBearerTerminationTest.ISSUER)
                // KIP-368: a session lasts as long as its token (at most this); the broker closes a
                // connection whose session ended at its next request
                .brokerProperty("connections.max.reauth.ms", "600000")
                .build();
        cluster.start();
        try (Admin admin = Admin.create(cluster.adminConfig())) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 2, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
        cluster.awaitLeaders(TOPIC, 2);
        RuntimeException last = null;
        for (int attempt = 0; attempt < 5 && proxy == null; attempt++) {
            int port = FreePorts.randomRange(1);
            try {
                proxy = WeftProxy.start(ConfigLoader.parse("""
                        server: { eventLoops: 2 }
                        admin: { enabled: false }
                        clusters:
                          c0:
                            bootstrap: "%s"
                            sasl: { mechanism: OAUTHBEARER, token: "file:%s" }
                        virtualClusters:
                          solo:
                            target: { cluster: c0 }
                            topology: collapsed
                            nodes: [ { id: 100, address: "127.0.0.1:%d" } ]
                            gateways:
                              - { name: n100, bind: "127.0.0.1:%d" }
                        """.formatted(cluster.bootstrapServers("EXTERNAL"), tokenFile, port, port), "upstream oauthbearer test"));
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
        if (cluster != null) {
            cluster.close();
        }
        if (dir != null) {
            try (var files = Files.list(dir)) {
                for (Path f : files.toList()) {
                    Files.deleteIfExists(f);
                }
            }
            Files.deleteIfExists(dir);
        }
    }

    private static Map<String, Object> producerConfig() {
        Map<String, Object> p = new HashMap<>();
        p.put("bootstrap.servers", String.join(",", proxy.bootstrapAddresses("solo")));
        p.put("enable.idempotence", true);
        p.put("acks", "all");
        p.put("max.block.ms", 15_000);
        p.put("request.timeout.ms", 5_000);
        p.put("delivery.timeout.ms", 15_000);
        return p;
    }

    @Test
    @Order(1)
    void aCollapsedClusterProducesAndConsumesOverLinksThatLogInWithTheBearerToken() throws Exception {
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerConfig(), new StringSerializer(),
                new StringSerializer())) {
            List<java.util.concurrent.Future<?>> sent = new ArrayList<>();
            for (int i = 0; i < RECORDS; i++) {
                sent.add(producer.send(new ProducerRecord<>(TOPIC, "k" + i, "bearer-" + i)));
            }
            for (var f : sent) {
                f.get(30, TimeUnit.SECONDS);
            }
        }
        Map<String, Object> c = new HashMap<>();
        c.put("bootstrap.servers", String.join(",", proxy.bootstrapAddresses("solo")));
        c.put("group.id", "upstream-oauth-group");
        c.put("auto.offset.reset", "earliest");
        Set<String> read = new HashSet<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(c, new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of(TOPIC));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (read.size() < RECORDS && System.nanoTime() - deadline < 0) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    read.add(r.value());
                }
            }
            consumer.commitSync(Duration.ofSeconds(30)); // the group coordinator, over an authenticated link
        }
        assertEquals(RECORDS, read.size(), "records read back through Weft: " + read);
        assertEquals(RECORDS, readDirectly().size(), "records on the cluster");
    }

    /** The topic's values, read from the cluster's plaintext listener, not through Weft. */
    private static Set<String> readDirectly() {
        Set<String> values = new HashSet<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(cluster.consumerConfig(), new StringDeserializer(),
                new StringDeserializer())) {
            List<TopicPartition> parts = List.of(new TopicPartition(TOPIC, 0), new TopicPartition(TOPIC, 1));
            consumer.assign(parts);
            Map<TopicPartition, Long> end = consumer.endOffsets(parts, Duration.ofSeconds(10));
            consumer.seekToBeginning(parts);
            long total = end.values().stream().mapToLong(Long::longValue).sum();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            int seen = 0;
            while (seen < total && System.nanoTime() - deadline < 0) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    values.add(r.value());
                    seen++;
                }
            }
        }
        return values;
    }

    @Test
    @Order(2)
    void anExpiredTokenFailsNewLinksNamingTheClusterAndTheBrokersErrorAndARotatedOneIsPickedUp() throws Exception {
        String expired = tokens.token("expired", "weft", 600_000);
        Files.writeString(tokenFile, expired + "\n");
        try (LogCapture handshakes = LogCapture.of(UpstreamSaslHandshake.class)) {
            Map<String, Object> config = producerConfig();
            config.put("max.block.ms", 6_000); // the cluster is answered as unreachable (retriable), as in an outage
            // not idempotent: kafka-clients' idempotent producer, told the coordinator is unavailable, loops on a
            // FindCoordinator without a key (NullPointerException in its I/O thread) and never closes
            config.put("enable.idempotence", false);
            config.put("acks", "1");
            config.put("delivery.timeout.ms", 8_000);
            config.put("request.timeout.ms", 3_000);
            config.put("linger.ms", 0);
            KafkaProducer<String, String> producer = new KafkaProducer<>(config, new StringSerializer(), new StringSerializer());
            try {
                assertThrows(Exception.class, () -> producer.send(new ProducerRecord<>(TOPIC, "k", "refused")).get(20, TimeUnit.SECONDS));
            } finally {
                producer.close(Duration.ofSeconds(5));
            }
            List<String> warnings = handshakes.messages(Level.WARN);
            assertTrue(warnings.stream().anyMatch(m -> m.contains("cluster 'c0'")
                    && m.contains("SASL authentication with a bearer token from file:" + tokenFile + " with OAUTHBEARER failed:"
                            + " SASL_AUTHENTICATION_FAILED")
                    && m.contains("invalid_token") && m.contains("the token expired at")), warnings.toString());
            for (var e : handshakes.events()) {
                assertFalse(e.getFormattedMessage().contains(expired), "a token in the log: " + e.getFormattedMessage());
            }
        } finally {
            Files.writeString(tokenFile, tokens.token("good", "weft", 600_000) + "\n");
        }
        assertFalse(readDirectly().contains("refused"), "nothing is written with an expired token");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerConfig(), new StringSerializer(),
                new StringSerializer())) {
            producer.send(new ProducerRecord<>(TOPIC, "k", "after-rotation")).get(30, TimeUnit.SECONDS);
        }
        assertTrue(readDirectly().contains("after-rotation"));
    }

    /** The token file replaced in one rename, as a sidecar renews it: a reader never sees it half written. */
    private static void rotateToken(String token) throws IOException {
        Path next = dir.resolve("kafka-token.next");
        Files.writeString(next, token + "\n");
        Files.move(next, tokenFile, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /**
     * Tokens that live 6 s, renewed in the file every 2 s: each link's session lasts as long as the
     * token it logged in with, and Weft's links re-authenticate on their connections with the token the
     * file holds then (an old one would be refused as expired). An idempotent producer and a group run
     * through the collapsed virtual cluster for several token lifetimes: nothing fails, no client
     * connection to Weft closes, every acknowledged record is on the cluster.
     */
    @Test
    @Order(3)
    void linksReauthenticateWithTheRenewedTokenBeforeTheirSessionEnds() throws Exception {
        rotateToken(tokens.token("good", "weft", 6_000));
        ScheduledExecutorService renewer = Executors.newSingleThreadScheduledExecutor();
        renewer.scheduleAtFixedRate(() -> {
            try {
                rotateToken(tokens.token("good", "weft", 6_000));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }, 2, 2, TimeUnit.SECONDS);
        try (LogCapture log = LogCapture.of(UpstreamSaslHandshake.class, Level.DEBUG);
                SteadyTraffic traffic = SteadyTraffic.start(String.join(",", proxy.bootstrapAddresses("solo")), TOPIC, "bearer-reauth",
                        Map.of(), cluster)) {
            traffic.awaitAcked(100);
            SteadyTraffic.Connections before = traffic.connections();
            int acked = traffic.acked();
            Poll.until(Duration.ofSeconds(40), "Weft's links to re-authenticate with renewed tokens four times",
                    () -> log.count(Level.DEBUG, "re-authenticated") >= 4,
                    () -> log.count(Level.DEBUG, "re-authenticated") + " re-authenticated; WARN: " + log.messages(Level.WARN));
            traffic.finish();
            assertEquals(0, traffic.failed(), "no send failed");
            assertTrue(traffic.acked() > acked + 100, "the producer went on: " + acked + " -> " + traffic.acked());
            assertEquals(traffic.acked(), traffic.landed(), "every acknowledged record is on the cluster, once");
            assertEquals(before, traffic.connections(), "the clients' connections to Weft were neither closed nor opened again");
            assertTrue(log.messages(Level.WARN).isEmpty(), "no link failed: " + log.messages(Level.WARN));
        } finally {
            renewer.shutdownNow();
            rotateToken(tokens.token("good", "weft", 600_000));
        }
    }

    // ---- config ------------------------------------------------------------------------------------

    private static List<String> problems(String sasl) {
        return assertThrows(ConfigException.class, () -> ConfigLoader.parse("""
                clusters:
                  c0: { bootstrap: "a:9092", sasl: %s }
                virtualClusters:
                  main:
                    target: { cluster: c0 }
                    gateways: [ { name: g, bind: "127.0.0.1:19092" } ]
                """.formatted(sasl), "c.yaml")).problems();
    }

    @Test
    void theConfigTakesATokenSecretWithOAuthBearerOnly() throws Exception {
        WeftConfig config = ConfigLoader.parse("""
                clusters:
                  c0: { bootstrap: "a:9092", sasl: { mechanism: oauthbearer, token: "file:/run/secrets/kafka-token" } }
                virtualClusters:
                  main:
                    target: { cluster: c0 }
                    gateways: [ { name: g, bind: "127.0.0.1:19092" } ]
                """, "c.yaml");
        WeftConfig.SaslCredentials sasl = config.clusters().get("c0").sasl();
        assertEquals(WeftConfig.SaslMechanism.OAUTHBEARER, sasl.mechanism());
        assertEquals("file:/run/secrets/kafka-token", sasl.token().source());
        assertEquals(null, sasl.username());

        List<String> p = problems("{ mechanism: OAUTHBEARER, username: weft, token: \"env:T\" }");
        assertEquals(1, p.size(), p.toString());
        assertTrue(p.get(0).contains("clusters.c0.sasl.username") && p.get(0).contains("not used with OAUTHBEARER"), p.toString());
        p = problems("{ mechanism: OAUTHBEARER }");
        assertTrue(p.size() == 1 && p.get(0).contains("clusters.c0.sasl.token") && p.get(0).contains("is required"), p.toString());
        p = problems("{ mechanism: PLAIN, username: u, password: p, token: \"env:T\" }");
        assertTrue(p.size() == 1 && p.get(0).contains("clusters.c0.sasl.token") && p.get(0).contains("only used with mechanism"
                + " OAUTHBEARER"), p.toString());
        p = problems("{ mechanism: GSSAPI, username: u, password: p }");
        assertTrue(p.size() == 1 && p.get(0).contains("OAUTHBEARER"), p.toString());
    }

    @Test
    void theDiscoveryClientLogsInThroughTheStaticTokenLoginWithTheSecretsReferenceNotItsValue() {
        Map<String, Object> p = DiscoveryClientSecurity.of(null, WeftConfig.SaslCredentials.bearer(Secret.of("file:/run/t")));
        assertEquals("SASL_PLAINTEXT", p.get("security.protocol"));
        assertEquals("OAUTHBEARER", p.get("sasl.mechanism"));
        assertEquals(StaticBearerTokenLogin.class.getName(), p.get("sasl.login.callback.handler.class"));
        assertEquals("org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required "
                + StaticBearerTokenLogin.TOKEN_OPTION + "=\"file:/run/t\";", p.get("sasl.jaas.config"));
    }

    // ---- the handshake on an EmbeddedChannel ---------------------------------------------------------

    private static final String TOKEN = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ3ZWZ0IiwiZXhwIjoxfQ.c2ln"; // exp: 1970

    /** Records what reaches the link's place in the pipeline. */
    private static final class LinkEnd extends ChannelInboundHandlerAdapter {
        final List<Throwable> errors = new ArrayList<>();
        int active;

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            active++;
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            errors.add(cause);
        }
    }

    private record Request(RequestHeaderData header, ByteBufferAccessor body) {
    }

    private static Request request(EmbeddedChannel ch) {
        ByteBuf out = ch.readOutbound();
        assertNotNull(out, "the handler sent nothing");
        try {
            byte[] bytes = new byte[out.readableBytes()];
            out.readBytes(bytes);
            ByteBuffer b = ByteBuffer.wrap(bytes);
            short key = b.getShort(4);
            short version = b.getShort(6);
            ByteBufferAccessor accessor = new ByteBufferAccessor(ByteBuffer.wrap(bytes, 4, bytes.length - 4).slice());
            RequestHeaderData h = new RequestHeaderData(accessor, ApiKeys.forId(key).requestHeaderVersion(version));
            return new Request(h, accessor);
        } finally {
            out.release();
        }
    }

    private static EmbeddedChannel handshake(LinkEnd link) {
        return new EmbeddedChannel(new UpstreamSaslHandshake("cluster 'east' broker 1", "127.0.0.1:9092",
                WeftConfig.SaslCredentials.bearer(Secret.of(TOKEN)), 10_000, null, () -> 0), link);
    }

    private static Request answerHandshake(EmbeddedChannel ch) {
        Request hs = request(ch);
        assertEquals("OAUTHBEARER", new SaslHandshakeRequestData(hs.body(), (short) 1).mechanism());
        ch.writeInbound(ColdCodec.writeResponse(ch.alloc(), hs.header().correlationId(), (short) 1,
                new SaslHandshakeResponseData().setMechanisms(List.of("OAUTHBEARER"))));
        Request auth = request(ch);
        assertArrayEquals(("n,,\u0001auth=Bearer " + TOKEN + "\u0001\u0001").getBytes(StandardCharsets.UTF_8),
                new SaslAuthenticateRequestData(auth.body(), (short) 2).authBytes(), "the RFC 7628 initial client response");
        return auth;
    }

    @Test
    void theInitialResponseCarriesTheTokenAndAnEmptyAnswerAuthenticates() {
        LinkEnd link = new LinkEnd();
        EmbeddedChannel ch = handshake(link);
        try {
            ByteBuf held = Unpooled.directBuffer().writeBytes("held".getBytes(StandardCharsets.UTF_8));
            ChannelFuture write = ch.writeAndFlush(held);
            Request auth = answerHandshake(ch);
            ch.writeInbound(ColdCodec.writeResponse(ch.alloc(), auth.header().correlationId(), (short) 2,
                    new SaslAuthenticateResponseData().setAuthBytes(new byte[0]).setSessionLifetimeMs(60_000)));
            assertEquals(1, link.active);
            ByteBuf out = ch.readOutbound();
            assertEquals("held", out.toString(StandardCharsets.UTF_8));
            out.release();
            assertTrue(write.isSuccess());
            assertTrue(link.errors.isEmpty(), link.errors.toString());
        } finally {
            ch.finishAndReleaseAll();
        }
    }

    @Test
    void anErrorChallengeIsAcknowledgedAndTheLinkFailsWithTheBrokersError() {
        LinkEnd link = new LinkEnd();
        EmbeddedChannel ch = handshake(link);
        try (LogCapture log = LogCapture.of(UpstreamSaslHandshake.class)) {
            ByteBuf held = Unpooled.directBuffer().writeBytes("held".getBytes(StandardCharsets.UTF_8));
            ChannelFuture write = ch.writeAndFlush(held);
            Request auth = answerHandshake(ch);
            ch.writeInbound(ColdCodec.writeResponse(ch.alloc(), auth.header().correlationId(), (short) 2,
                    new SaslAuthenticateResponseData().setAuthBytes("{\"status\":\"invalid_token\"}".getBytes(StandardCharsets.UTF_8))));
            Request ack = request(ch);
            assertArrayEquals(new byte[] {0x01}, new SaslAuthenticateRequestData(ack.body(), (short) 2).authBytes());
            assertTrue(link.errors.isEmpty());
            ch.writeInbound(ColdCodec.writeResponse(ch.alloc(), ack.header().correlationId(), (short) 2,
                    new SaslAuthenticateResponseData().setErrorCode(Errors.SASL_AUTHENTICATION_FAILED.code())
                            .setErrorMessage("Authentication failed during authentication due to invalid credentials with SASL"
                                    + " mechanism OAUTHBEARER").setAuthBytes(new byte[0])));
            assertEquals(0, held.refCnt(), "the held frame is released");
            assertTrue(write.isDone() && !write.isSuccess());
            assertFalse(ch.isOpen());
            assertEquals(1, link.errors.size(), link.errors.toString());
            UpstreamSaslHandshake.UpstreamSaslException e = assertInstanceOf(UpstreamSaslHandshake.UpstreamSaslException.class,
                    link.errors.get(0));
            assertEquals("SASL authentication with a bearer token from (inline) with OAUTHBEARER failed: SASL_AUTHENTICATION_FAILED:"
                    + " Authentication failed during authentication due to invalid credentials with SASL mechanism OAUTHBEARER"
                    + " (the broker's challenge: {\"status\":\"invalid_token\"}); the token expired at 1970-01-01T00:00:01Z",
                    e.getMessage());
            assertEquals(List.of("cluster 'east' broker 1 (127.0.0.1:9092): " + e.getMessage()), log.messages(Level.WARN));
            assertEquals(0, link.active);
        } finally {
            ch.finishAndReleaseAll();
        }
    }

    /** The token kafka-clients gets from the login for the JAAS option's secret. */
    private static org.apache.kafka.common.security.oauthbearer.OAuthBearerToken login(String secret) throws Exception {
        StaticBearerTokenLogin login = new StaticBearerTokenLogin();
        login.configure(Map.of(), "OAUTHBEARER", List.of(new javax.security.auth.login.AppConfigurationEntry(
                "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule",
                javax.security.auth.login.AppConfigurationEntry.LoginModuleControlFlag.REQUIRED,
                Map.of(StaticBearerTokenLogin.TOKEN_OPTION, secret))));
        var callback = new org.apache.kafka.common.security.oauthbearer.OAuthBearerTokenCallback();
        login.handle(new javax.security.auth.callback.Callback[] {callback,
            new org.apache.kafka.common.security.auth.SaslExtensionsCallback()});
        return callback.token();
    }

    @Test
    void theStaticTokenLoginHandsKafkaClientsTheTokenWithItsClaimsUnverifiedReadEachTime() throws Exception {
        Path file = dir.resolve("login-token");
        String good = tokens.token("good", "weft", 600_000);
        Files.writeString(file, good + "\n");
        long now = System.currentTimeMillis();
        var token = login("file:" + file);
        assertEquals(good, token.value());
        assertEquals("weft", token.principalName());
        assertEquals(Set.of("kafka"), token.scope());
        assertTrue(Math.abs(token.lifetimeMs() - (now + 600_000)) < 2_000, "lifetime " + token.lifetimeMs());
        Files.writeString(file, "opaque-token\n");
        var opaque = login("file:" + file);
        assertEquals("opaque-token", opaque.value(), "read again on every login");
        assertTrue(Math.abs(opaque.lifetimeMs() - (now + 3_600_000)) < 5_000, "a token that is not a JWT lasts an hour");
        var expired = login(TOKEN);
        assertTrue(Math.abs(expired.lifetimeMs() - (System.currentTimeMillis() + 60_000)) < 5_000,
                "an expired token is told to last one more minute: " + expired.lifetimeMs());
        var callback = new org.apache.kafka.common.security.oauthbearer.OAuthBearerTokenCallback();
        StaticBearerTokenLogin missing = new StaticBearerTokenLogin();
        missing.configure(Map.of(), "OAUTHBEARER", List.of(new javax.security.auth.login.AppConfigurationEntry("m",
                javax.security.auth.login.AppConfigurationEntry.LoginModuleControlFlag.REQUIRED,
                Map.of(StaticBearerTokenLogin.TOKEN_OPTION, "file:/nonexistent/weft-token"))));
        missing.handle(new javax.security.auth.callback.Callback[] {callback});
        assertTrue(callback.errorDescription().contains("file:/nonexistent/weft-token"), callback.errorDescription());
    }
}
