package dev.weft.proxy.security;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import dev.weft.iocore.testing.LogCapture;
import dev.weft.protocol.cold.ColdCodec;
import dev.weft.protocol.frame.KafkaFrameDecoder;
import dev.weft.proxy.config.ConfigLoader;
import dev.weft.proxy.config.Secret;
import dev.weft.proxy.config.WeftConfig;
import dev.weft.proxy.net.FreePorts;
import dev.weft.proxy.server.WeftProxy;
import dev.weft.proxy.session.Session;
import dev.weft.proxy.testing.SaslListener;
import dev.weft.proxy.upstream.UpstreamSaslHandshake;
import dev.weft.testkit.KafkaCluster;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ScramMechanism;
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
 * The connections Weft opens itself to brokers authenticate with the cluster's {@code sasl}
 * credentials: a topic-woven virtual cluster over a cluster whose client listener requires PLAIN and
 * one that requires SCRAM-SHA-512 (its password in a {@code file:} secret), reached by clients in
 * plaintext without SASL; a collapsed virtual cluster over the second one with SCRAM-SHA-256. A
 * rejected password fails the client within its own timeout (the cluster is answered as unreachable)
 * and the log names cluster, user and mechanism; a rotated password file is used by the next
 * connections. And the handler itself, on an
 * {@link EmbeddedChannel}: frames written before authenticating are held and go out in order after it,
 * and are released when it fails.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class UpstreamSaslTest {

    private static final String PLAIN_PASSWORD = "weft-plain-secret";
    private static final String SCRAM_PASSWORD = "weft-scram-secret";
    private static final String EAST = "east-orders"; // on c0 (PLAIN)
    private static final String WEST = "west-orders"; // on c1 (SCRAM-SHA-512)
    private static final int RECORDS = 50;

    private static KafkaCluster plain;
    private static KafkaCluster scram;
    private static Path passwordFile;
    private static WeftProxy proxy;

    @BeforeAll
    static void start() throws Exception {
        plain = SaslListener.external(KafkaCluster.builder().brokers(1), Map.of("PLAIN",
                "org.apache.kafka.common.security.plain.PlainLoginModule required user_weft=\"" + PLAIN_PASSWORD + "\";")).build();
        plain.start();
        scram = SaslListener.scram(KafkaCluster.builder().brokers(1), "SCRAM-SHA-256", "SCRAM-SHA-512").build();
        scram.start();
        SaslListener.addScramUsers(scram, Map.of("weft", SCRAM_PASSWORD), ScramMechanism.SCRAM_SHA_512, ScramMechanism.SCRAM_SHA_256);
        try (Admin admin = Admin.create(scram.adminConfig())) {
            admin.createTopics(List.of(new NewTopic(WEST, 2, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
        try (Admin admin = Admin.create(plain.adminConfig())) {
            admin.createTopics(List.of(new NewTopic(EAST, 2, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
        plain.awaitLeaders(EAST, 2);
        scram.awaitLeaders(WEST, 2);
        passwordFile = Files.createTempFile("weft-scram", ".secret");
        Files.writeString(passwordFile, SCRAM_PASSWORD + "\n");
        RuntimeException last = null;
        for (int attempt = 0; attempt < 5 && proxy == null; attempt++) {
            int port = FreePorts.randomRange(1 + 24);
            try {
                proxy = WeftProxy.start(ConfigLoader.parse("""
                        server: { eventLoops: 2 }
                        admin: { enabled: false }
                        clusters:
                          c0:
                            bootstrap: "%s"
                            sasl: { mechanism: PLAIN, username: weft, password: "%s" }
                          c1:
                            bootstrap: "%s"
                            sasl: { mechanism: SCRAM-SHA-512, username: weft, password: "file:%s" }
                        routers:
                          weave:
                            type: topic-weave
                            routes:
                              - { name: east, target: { cluster: c0 } }
                              - { name: west, target: { cluster: c1 } }
                        virtualClusters:
                          main:
                            target: { router: weave }
                            gateways:
                              - { name: plain, bind: "127.0.0.1:%d", brokerPorts: { start: %d, nodeIds: "0-23" } }
                        """.formatted(plain.bootstrapServers("EXTERNAL"), PLAIN_PASSWORD, scram.bootstrapServers("EXTERNAL"),
                        passwordFile, port, port + 1), "upstream sasl test"));
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
        if (plain != null) {
            plain.close();
        }
        if (scram != null) {
            scram.close();
        }
        if (passwordFile != null) {
            Files.deleteIfExists(passwordFile);
        }
    }

    private static Map<String, Object> producerConfig() {
        Map<String, Object> p = new HashMap<>();
        p.put("bootstrap.servers", proxy.bootstrapAddresses("main").get(0));
        p.put("enable.idempotence", true);
        p.put("acks", "all");
        p.put("max.block.ms", 15_000);
        p.put("request.timeout.ms", 5_000);
        p.put("delivery.timeout.ms", 15_000);
        return p;
    }

    @Test
    @Order(1)
    void wovenClusterProducesAndConsumesOverAuthenticatedLinks() throws Exception {
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerConfig(), new StringSerializer(),
                new StringSerializer())) {
            List<java.util.concurrent.Future<?>> sent = new ArrayList<>();
            for (int i = 0; i < RECORDS; i++) {
                sent.add(producer.send(new ProducerRecord<>(EAST, "k" + i, "east-" + i)));
                sent.add(producer.send(new ProducerRecord<>(WEST, "k" + i, "west-" + i)));
            }
            for (var f : sent) {
                f.get(30, TimeUnit.SECONDS);
            }
        }
        Map<String, Object> c = new HashMap<>();
        c.put("bootstrap.servers", proxy.bootstrapAddresses("main").get(0));
        c.put("group.id", "upstream-sasl-group");
        c.put("auto.offset.reset", "earliest");
        Set<String> read = new HashSet<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(c, new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of(EAST, WEST));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (read.size() < 2 * RECORDS && System.nanoTime() - deadline < 0) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    read.add(r.value());
                }
            }
            consumer.commitSync(Duration.ofSeconds(30)); // the group lives on c0, over an authenticated link
        }
        assertEquals(2 * RECORDS, read.size(), "records read back through Weft: " + read.size());
        assertEquals(RECORDS, readDirectly(plain, EAST, "east-").size(), "records on the PLAIN cluster");
        assertEquals(RECORDS, readDirectly(scram, WEST, "west-").size(), "records on the SCRAM cluster");
    }

    /** The topic's records, read from the cluster's plaintext listener, not through Weft. */
    private static Set<String> readDirectly(KafkaCluster cluster, String topic, String prefix) {
        Set<String> values = new HashSet<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(cluster.consumerConfig(), new StringDeserializer(),
                new StringDeserializer())) {
            List<TopicPartition> parts = List.of(new TopicPartition(topic, 0), new TopicPartition(topic, 1));
            consumer.assign(parts);
            consumer.seekToBeginning(parts);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (values.size() < RECORDS && System.nanoTime() - deadline < 0) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    assertTrue(r.value().startsWith(prefix), r.value());
                    values.add(r.value());
                }
            }
        }
        return values;
    }

    @Test
    @Order(2)
    void aRejectedPasswordFailsTheClientInItsTimeoutNamingClusterUserAndMechanismAndARotatedOneIsPickedUp() throws Exception {
        Files.writeString(passwordFile, "not-the-password\n");
        try (LogCapture handshakes = LogCapture.of(UpstreamSaslHandshake.class); LogCapture sessions = LogCapture.of(Session.class)) {
            Map<String, Object> config = producerConfig();
            config.put("max.block.ms", 8_000); // the topic's cluster is answered as unreachable (retriable), as in an outage
            long start = System.nanoTime();
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(config, new StringSerializer(),
                    new StringSerializer())) {
                assertThrows(Exception.class, () -> producer.send(new ProducerRecord<>(WEST, "k", "refused")).get(30, TimeUnit.SECONDS));
                long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                assertTrue(tookMillis < 25_000, "the send failed after " + tookMillis + " ms");
                // the other cluster's links authenticate as before
                producer.send(new ProducerRecord<>(EAST, "k", "east-still-works")).get(30, TimeUnit.SECONDS);
            }
            List<String> warnings = handshakes.messages(Level.WARN);
            assertTrue(warnings.stream().anyMatch(m -> m.contains("cluster 'c1'")
                    && m.contains("SASL authentication as 'weft' with SCRAM-SHA-512 failed: SASL_AUTHENTICATION_FAILED")),
                    warnings.toString());
            long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
            assertTrue(warnings.size() <= 1 + seconds / 10, "at most one WARN line per 10 s for the cluster's failures, not one per"
                    + " request, link or attempt: " + warnings);
            // the reason reaches the session's own log line about the link
            assertTrue(sessions.events().stream().map(e -> e.getFormattedMessage())
                    .anyMatch(m -> m.contains("cluster 'c1'") && m.contains("SASL authentication as 'weft' with SCRAM-SHA-512 failed")),
                    sessions.events().stream().map(e -> e.getFormattedMessage()).toList().toString());
            for (var e : handshakes.events()) {
                assertFalse(e.getFormattedMessage().contains("not-the-password") || e.getFormattedMessage().contains(SCRAM_PASSWORD),
                        "a password in the log: " + e.getFormattedMessage());
            }
        } finally {
            Files.writeString(passwordFile, SCRAM_PASSWORD + "\n");
        }
        // the rotated file is read by the next connections
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerConfig(), new StringSerializer(),
                new StringSerializer())) {
            producer.send(new ProducerRecord<>(WEST, "k", "west-after-rotation")).get(30, TimeUnit.SECONDS);
        }
    }

    @Test
    @Order(3)
    void aCollapsedVirtualClusterOverTheScramClusterServesClientsWithoutSasl() throws Exception {
        // SCRAM-SHA-256 here (the woven cluster's links use SCRAM-SHA-512): every mechanism against a real broker
        WeftProxy collapsed = null;
        RuntimeException last = null;
        for (int attempt = 0; attempt < 5 && collapsed == null; attempt++) {
            int port = FreePorts.randomRange(2);
            try {
                collapsed = WeftProxy.start(ConfigLoader.parse("""
                        server: { eventLoops: 2 }
                        admin: { enabled: false }
                        clusters:
                          c1:
                            bootstrap: "%s"
                            sasl: { mechanism: SCRAM-SHA-256, username: weft, password: "file:%s" }
                        virtualClusters:
                          solo:
                            target: { cluster: c1 }
                            topology: collapsed
                            nodes:
                              - { id: 100, address: "127.0.0.1:%d" }
                              - { id: 101, address: "127.0.0.1:%d" }
                            gateways:
                              - { name: n100, bind: "127.0.0.1:%d" }
                              - { name: n101, bind: "127.0.0.1:%d" }
                        """.formatted(scram.bootstrapServers("EXTERNAL"), passwordFile, port, port + 1, port, port + 1),
                        "collapsed upstream sasl test"));
            } catch (dev.weft.proxy.gateway.GatewayBindException e) {
                last = e;
            }
        }
        if (collapsed == null) {
            throw last;
        }
        try {
            String bootstrap = String.join(",", collapsed.bootstrapAddresses("solo"));
            Map<String, Object> p = producerConfig();
            p.put("bootstrap.servers", bootstrap);
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
                for (int i = 0; i < 10; i++) {
                    producer.send(new ProducerRecord<>(WEST, "c" + i, "collapsed-" + i)).get(30, TimeUnit.SECONDS);
                }
            }
            Map<String, Object> c = new HashMap<>();
            c.put("bootstrap.servers", bootstrap);
            c.put("group.id", "collapsed-sasl-group");
            c.put("auto.offset.reset", "earliest");
            Set<String> read = new HashSet<>();
            try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(c, new StringDeserializer(), new StringDeserializer())) {
                consumer.subscribe(List.of(WEST));
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (read.stream().filter(v -> v.startsWith("collapsed-")).count() < 10 && System.nanoTime() - deadline < 0) {
                    for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                        read.add(r.value());
                    }
                }
            }
            for (int i = 0; i < 10; i++) {
                assertTrue(read.contains("collapsed-" + i), "read through the collapsed cluster: " + read);
            }
        } finally {
            collapsed.close();
        }
    }

    @Test
    void aCollapsedVirtualClusterOverASaslClusterIsAccepted() throws Exception {
        WeftConfig config = ConfigLoader.parse("""
                clusters:
                  c0: { bootstrap: "a:9092", sasl: { mechanism: SCRAM-SHA-256, username: u, password: "env:WEFT_NO_SUCH_VAR" } }
                virtualClusters:
                  main:
                    target: { cluster: c0 }
                    topology: collapsed
                    nodes: [ { id: 0, address: "127.0.0.1:19092" } ]
                    gateways:
                      - { name: n0, bind: "127.0.0.1:19092" }
                """, "c.yaml");
        assertEquals(WeftConfig.SaslMechanism.SCRAM_SHA_256, config.clusters().get("c0").sasl().mechanism());
    }

    // ---- the handler on an EmbeddedChannel -------------------------------------------------------

    private static final WeftConfig.SaslCredentials PLAIN_WEFT = new WeftConfig.SaslCredentials(WeftConfig.SaslMechanism.PLAIN,
            "weft", Secret.of("s3cret"));

    /** Records what reaches the link's place in the pipeline. */
    private static final class LinkEnd extends ChannelInboundHandlerAdapter {
        final List<Object> reads = new ArrayList<>();
        final List<Throwable> errors = new ArrayList<>();
        int active;

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            active++;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            reads.add(msg);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            errors.add(cause);
        }
    }

    private record Request(RequestHeaderData header, ByteBufferAccessor body) {
    }

    /** The next request the handler wrote (released here). */
    private static Request request(EmbeddedChannel ch) {
        ByteBuf out = ch.readOutbound();
        assertNotNull(out, "the handler sent nothing");
        try {
            byte[] bytes = new byte[out.readableBytes()];
            out.readBytes(bytes);
            ByteBuffer b = ByteBuffer.wrap(bytes);
            assertEquals(bytes.length - 4, b.getInt());
            short key = b.getShort(4);
            short version = b.getShort(6);
            ByteBufferAccessor accessor = new ByteBufferAccessor(b.slice());
            RequestHeaderData h = new RequestHeaderData(accessor, ApiKeys.forId(key).requestHeaderVersion(version));
            return new Request(h, accessor);
        } finally {
            out.release();
        }
    }

    private static ByteBuf frame(String text) {
        return Unpooled.directBuffer().writeBytes(text.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void framesWrittenBeforeAuthenticatingAreHeldAndGoOutInOrderAfterIt() {
        LinkEnd link = new LinkEnd();
        UpstreamSaslHandshake handshake = new UpstreamSaslHandshake("cluster 'east' broker 1", "127.0.0.1:9092", PLAIN_WEFT,
                10_000, null, () -> 0);
        EmbeddedChannel ch = new EmbeddedChannel(handshake, link);
        try {
            Request hs = request(ch);
            assertEquals(ApiKeys.SASL_HANDSHAKE.id, hs.header().requestApiKey());
            assertEquals(1, hs.header().requestApiVersion());
            assertEquals("PLAIN", new SaslHandshakeRequestData(hs.body(), (short) 1).mechanism());
            ChannelFuture first = ch.writeAndFlush(frame("first"));
            ChannelFuture second = ch.writeAndFlush(frame("second"));
            assertNull(ch.readOutbound(), "nothing of the link's goes out before authenticating");
            assertFalse(first.isDone());
            assertEquals(2, handshake.heldFrames());
            assertEquals(0, link.active, "the link does not see the channel active yet");

            ch.writeInbound(ColdCodec.writeResponse(ch.alloc(), hs.header().correlationId(), (short) 1,
                    new SaslHandshakeResponseData().setMechanisms(List.of("PLAIN", "SCRAM-SHA-512"))));
            Request auth = request(ch);
            assertEquals(ApiKeys.SASL_AUTHENTICATE.id, auth.header().requestApiKey());
            assertEquals(2, auth.header().requestApiVersion());
            assertArrayEquals("\0weft\0s3cret".getBytes(StandardCharsets.UTF_8),
                    new SaslAuthenticateRequestData(auth.body(), (short) 2).authBytes());
            assertNull(ch.readOutbound());

            ch.writeInbound(ColdCodec.writeResponse(ch.alloc(), auth.header().correlationId(), (short) 2,
                    new SaslAuthenticateResponseData().setAuthBytes(new byte[0])));
            assertTrue(handshake.authenticated());
            assertTrue(link.reads.isEmpty(), "the handler's own answers are not passed on");
            for (String expected : List.of("first", "second")) {
                ByteBuf out = ch.readOutbound();
                assertEquals(expected, out.toString(StandardCharsets.UTF_8));
                out.release();
            }
            assertTrue(first.isSuccess() && second.isSuccess());
            assertEquals(1, link.active);
            assertNull(ch.pipeline().get(UpstreamSaslHandshake.class), "out of the pipeline once authenticated");
            ByteBuf answer = frame("answer");
            ch.writeInbound(answer);
            assertEquals(List.of(answer), link.reads);
            answer.release();
        } finally {
            ch.finishAndReleaseAll();
        }
    }

    /** The handshake and authentication of {@code ch}'s handler, answered as a broker that sets a session lifetime. */
    private static void authenticate(EmbeddedChannel ch, long sessionLifetimeMs) {
        Request hs = request(ch);
        assertEquals(ApiKeys.SASL_HANDSHAKE.id, hs.header().requestApiKey());
        ch.writeInbound(ColdCodec.writeResponse(ch.alloc(), hs.header().correlationId(), (short) 1,
                new SaslHandshakeResponseData().setMechanisms(List.of("PLAIN"))));
        Request auth = request(ch);
        assertEquals(ApiKeys.SASL_AUTHENTICATE.id, auth.header().requestApiKey());
        ch.writeInbound(ColdCodec.writeResponse(ch.alloc(), auth.header().correlationId(), (short) 2,
                new SaslAuthenticateResponseData().setAuthBytes(new byte[0]).setSessionLifetimeMs(sessionLifetimeMs)));
    }

    /** A broker's answer to one of the link's own requests (correlation id {@code id}). */
    private static ByteBuf linkAnswer(EmbeddedChannel ch, int id) {
        return ColdCodec.writeResponse(ch.alloc(), id, (short) 1, new SaslHandshakeResponseData().setMechanisms(List.of()));
    }

    /**
     * KIP-368 on a link, with a frozen clock: at 85-95% of the session's lifetime a re-authenticating
     * handler joins after the frame decoder; it holds the link's new frames, lets the two answers owed for
     * what was sent before pass, re-authenticates after them (while the link also waits for the answer to
     * a frame it holds: counting the link's waits would never begin), then lets the held frames go (the
     * link sees no second channelActive), leaves, and the next one is due a lifetime later.
     */
    @Test
    void aSessionWithALifetimeIsReauthenticatedOnItsConnectionOnceTheLinkIsQuiet() {
        LinkEnd link = new LinkEnd();
        AtomicInteger awaited = new AtomicInteger();
        EmbeddedChannel ch = new EmbeddedChannel(new KafkaFrameDecoder(1 << 20, "broker 127.0.0.1:9092", true),
                new UpstreamSaslHandshake("cluster 'east' broker 1", "127.0.0.1:9092", PLAIN_WEFT, 10_000, null, awaited::get), link);
        ch.freezeTime();
        try {
            authenticate(ch, 10_000);
            assertNull(ch.pipeline().get(UpstreamSaslHandshake.class));
            assertEquals(1, link.active);
            awaited.set(2); // the link sent two requests and waits for their answers

            ch.advanceTimeBy(8_400, TimeUnit.MILLISECONDS);
            ch.runScheduledPendingTasks();
            assertNull(ch.pipeline().get(UpstreamSaslHandshake.class), "not before 85% of the lifetime");
            ch.advanceTimeBy(1_200, TimeUnit.MILLISECONDS);
            ch.runScheduledPendingTasks();
            UpstreamSaslHandshake again = ch.pipeline().get(UpstreamSaslHandshake.class);
            assertNotNull(again, "a re-authenticating handler joined by 95% of the lifetime");
            assertTrue(again.reauthenticating());
            ChannelFuture during = ch.writeAndFlush(frame("during"));
            awaited.set(3); // and waits for the answer to that one too
            assertNull(ch.readOutbound(), "answers are owed: nothing goes out, the link's new frame is held");

            for (int id : new int[] {7, 8}) {
                ch.writeInbound(linkAnswer(ch, id));
                awaited.decrementAndGet();
            }
            assertEquals(2, link.reads.size(), "the answers owed pass to the link");
            link.reads.forEach(r -> ((ByteBuf) r).release());
            link.reads.clear();
            authenticate(ch, 10_000);
            ByteBuf out = ch.readOutbound();
            assertEquals("during", out.toString(StandardCharsets.UTF_8), "the held frame goes out once re-authenticated");
            out.release();
            assertTrue(during.isSuccess());
            assertEquals(1, link.active, "the link is not told the channel is active again");
            assertTrue(link.errors.isEmpty(), link.errors.toString());
            assertNull(ch.pipeline().get(UpstreamSaslHandshake.class), "out of the pipeline again");

            awaited.set(0);
            ch.advanceTimeBy(9_600, TimeUnit.MILLISECONDS);
            ch.runScheduledPendingTasks();
            assertNotNull(ch.pipeline().get(UpstreamSaslHandshake.class), "and due again a lifetime later");
            assertEquals(ApiKeys.SASL_HANDSHAKE.id, request(ch).header().requestApiKey(), "nothing owed: it begins at once");
        } finally {
            ch.finishAndReleaseAll();
        }
    }

    /** A refused re-authentication fails the link as a refused first one does, naming it a re-authentication. */
    @Test
    void aRefusedReauthenticationClosesTheLinkAndSaysSo() {
        LinkEnd link = new LinkEnd();
        EmbeddedChannel ch = new EmbeddedChannel(new KafkaFrameDecoder(1 << 20, "broker 127.0.0.1:9092", true),
                new UpstreamSaslHandshake("cluster 'east' broker 1", "127.0.0.1:9092", PLAIN_WEFT, 10_000, null, () -> 0), link);
        ch.freezeTime();
        try (LogCapture log = LogCapture.of(UpstreamSaslHandshake.class)) {
            authenticate(ch, 1_000);
            ch.advanceTimeBy(1_000, TimeUnit.MILLISECONDS);
            ch.runScheduledPendingTasks();
            Request hs = request(ch);
            ch.writeInbound(ColdCodec.writeResponse(ch.alloc(), hs.header().correlationId(), (short) 1,
                    new SaslHandshakeResponseData().setMechanisms(List.of("PLAIN"))));
            ByteBuf held = frame("held");
            ch.writeAndFlush(held);
            Request auth = request(ch);
            ch.writeInbound(ColdCodec.writeResponse(ch.alloc(), auth.header().correlationId(), (short) 2,
                    new SaslAuthenticateResponseData().setErrorCode(Errors.SASL_AUTHENTICATION_FAILED.code())
                            .setErrorMessage("Authentication failed: Invalid username or password").setAuthBytes(new byte[0])));
            assertFalse(ch.isOpen(), "the link closes");
            assertEquals(0, held.refCnt(), "the held frame is released");
            assertEquals(1, link.errors.size(), link.errors.toString());
            assertTrue(link.errors.get(0).getMessage().startsWith("SASL re-authentication as 'weft' with PLAIN failed: "
                    + "SASL_AUTHENTICATION_FAILED"), link.errors.get(0).getMessage());
            assertEquals(1, log.messages(Level.WARN).size(), log.messages(Level.WARN).toString());
        } finally {
            ch.finishAndReleaseAll();
        }
    }

    @Test
    void aRejectionReleasesTheHeldFramesAndTellsTheLinkWhy() {
        LinkEnd link = new LinkEnd();
        EmbeddedChannel ch = new EmbeddedChannel(new UpstreamSaslHandshake("cluster 'east' broker 1", "127.0.0.1:9092",
                PLAIN_WEFT, 10_000, null, () -> 0), link);
        try (LogCapture log = LogCapture.of(UpstreamSaslHandshake.class)) {
            Request hs = request(ch);
            ByteBuf held = frame("held");
            ChannelFuture write = ch.writeAndFlush(held);
            ch.writeInbound(ColdCodec.writeResponse(ch.alloc(), hs.header().correlationId(), (short) 1,
                    new SaslHandshakeResponseData().setMechanisms(List.of("PLAIN"))));
            Request auth = request(ch);
            ch.writeInbound(ColdCodec.writeResponse(ch.alloc(), auth.header().correlationId(), (short) 2,
                    new SaslAuthenticateResponseData().setErrorCode(Errors.SASL_AUTHENTICATION_FAILED.code())
                            .setErrorMessage("Authentication failed: Invalid username or password").setAuthBytes(new byte[0])));
            assertEquals(0, held.refCnt(), "the held frame is released");
            assertTrue(write.isDone() && !write.isSuccess());
            assertFalse(ch.isOpen());
            assertEquals(1, link.errors.size(), link.errors.toString());
            UpstreamSaslHandshake.UpstreamSaslException e = assertInstanceOf(UpstreamSaslHandshake.UpstreamSaslException.class,
                    link.errors.get(0));
            assertEquals("SASL authentication as 'weft' with PLAIN failed: SASL_AUTHENTICATION_FAILED: Authentication failed:"
                    + " Invalid username or password", e.getMessage());
            assertEquals(List.of("cluster 'east' broker 1 (127.0.0.1:9092): " + e.getMessage()), log.messages(Level.WARN));
            assertEquals(0, link.active);
            assertTrue(link.reads.isEmpty());
        } finally {
            ch.finishAndReleaseAll();
        }
    }

    @Test
    void aMechanismTheListenerDoesNotEnableIsNamed() {
        LinkEnd link = new LinkEnd();
        EmbeddedChannel ch = new EmbeddedChannel(new UpstreamSaslHandshake("cluster 'east' broker 1", "127.0.0.1:9092",
                new WeftConfig.SaslCredentials(WeftConfig.SaslMechanism.SCRAM_SHA_256, "weft", Secret.of("x")), 10_000, null, () -> 0), link);
        try {
            Request hs = request(ch);
            assertEquals("SCRAM-SHA-256", new SaslHandshakeRequestData(hs.body(), (short) 1).mechanism());
            ch.writeInbound(ColdCodec.writeResponse(ch.alloc(), hs.header().correlationId(), (short) 1,
                    new SaslHandshakeResponseData().setErrorCode(Errors.UNSUPPORTED_SASL_MECHANISM.code())
                            .setMechanisms(List.of("PLAIN"))));
            assertEquals(1, link.errors.size());
            assertEquals("SASL authentication as 'weft' with SCRAM-SHA-256 failed: UNSUPPORTED_SASL_MECHANISM: the listener"
                    + " enables [PLAIN]", link.errors.get(0).getMessage());
            assertFalse(ch.isOpen());
        } finally {
            ch.finishAndReleaseAll();
        }
    }

    @Test
    void noAnswerFailsAfterTheTimeoutAndAnUnreadablePasswordIsNamed() {
        LinkEnd link = new LinkEnd();
        EmbeddedChannel ch = new EmbeddedChannel(new UpstreamSaslHandshake("cluster 'east' broker 1", "127.0.0.1:9092",
                PLAIN_WEFT, 2_000, null, () -> 0), link);
        try {
            request(ch);
            ByteBuf held = frame("held");
            ch.writeAndFlush(held);
            ch.advanceTimeBy(2_001, TimeUnit.MILLISECONDS);
            ch.runScheduledPendingTasks();
            assertEquals(0, held.refCnt());
            assertEquals(1, link.errors.size());
            assertTrue(link.errors.get(0).getMessage().endsWith("failed: the broker did not finish it within 2000 ms"),
                    link.errors.get(0).getMessage());
        } finally {
            ch.finishAndReleaseAll();
        }
        LinkEnd other = new LinkEnd();
        EmbeddedChannel missing = new EmbeddedChannel(new UpstreamSaslHandshake("cluster 'east' broker 1", "127.0.0.1:9092",
                new WeftConfig.SaslCredentials(WeftConfig.SaslMechanism.PLAIN, "weft", Secret.of("file:/nonexistent/weft-pw")),
                2_000, null, () -> 0), other);
        try {
            assertNull(missing.readOutbound(), "nothing is sent without a password");
            assertEquals(1, other.errors.size());
            String m = other.errors.get(0).getMessage();
            assertTrue(m.startsWith("SASL authentication as 'weft' with PLAIN failed: the password (file:/nonexistent/weft-pw)"
                    + " cannot be read: cannot read secret file /nonexistent/weft-pw"), m);
            assertFalse(missing.isOpen());
        } finally {
            missing.finishAndReleaseAll();
        }
    }

    @Test
    void theBrokerClosingDuringAuthenticationIsTheReason() {
        LinkEnd link = new LinkEnd();
        EmbeddedChannel ch = new EmbeddedChannel(new UpstreamSaslHandshake("cluster 'east' broker 1", "127.0.0.1:9092",
                PLAIN_WEFT, 10_000, null, () -> 0), link);
        try {
            request(ch);
            ByteBuf held = frame("held");
            ch.writeAndFlush(held);
            ch.close();
            assertEquals(0, held.refCnt());
            assertEquals(1, link.errors.size(), link.errors.toString());
            assertTrue(link.errors.get(0).getMessage().contains("the broker closed the connection before it finished"),
                    link.errors.get(0).getMessage());
        } finally {
            ch.finishAndReleaseAll();
        }
    }
}
