package dev.weft.proxy.resilience;

import dev.weft.proxy.testing.Poll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import dev.weft.proxy.server.WeftProxy;
import dev.weft.proxy.session.Session;
import dev.weft.proxy.testing.VirtualClusterFixture;
import dev.weft.proxy.testing.VirtualClusterKind;
import dev.weft.testkit.KafkaCluster;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Upstream brokers that fail: one that dies in the middle of a response, and one that is gone and
 * refuses connections; for every kind of virtual cluster ({@link VirtualClusterFixture}).
 *
 * <p>One cluster of three brokers (dedicated controller) with two client listeners: PLAINTEXT, and
 * RELAYED, which each broker advertises at a relay of ours in front of it. A proxy bootstrapped on
 * RELAYED therefore reaches every broker through a relay, and the relay can cut a connection after
 * forwarding half of a response frame. Proxies bootstrapped on PLAINTEXT reach the brokers directly.
 * The woven kind's second cluster is reached directly and never fails.
 *
 * <p>What the client sees differs by kind, by design (DESIGN §4, §5):
 * <ul>
 *   <li>a connection bound to the broker that died (pass-through; woven broker connections) is closed:
 *       the client reconnects, as it would to a broker that went away;</li>
 *   <li>a Metadata the proxy plans itself (woven, collapsed) is answered without the failed cluster's
 *       brokers or leaders, on an open connection;</li>
 *   <li>collapsed binds no connection to a broker: a Produce or Fetch part that fails answers its
 *       partitions with a retriable error (NOT_LEADER_OR_FOLLOWER) and the connection stays open.</li>
 * </ul>
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class UpstreamFailureTest {

    private static final int BROKERS = 3;

    private static final Relay.Cut CUT = new Relay.Cut();
    private static final List<Relay> relays = new ArrayList<>();
    private static KafkaCluster kafka;
    /** Proxies that reach the brokers through the relays. */
    private static VirtualClusterFixture fixture;
    /** Proxies that reach the brokers directly, per kind. */
    private static final Map<VirtualClusterKind, WeftProxy> direct = new EnumMap<>(VirtualClusterKind.class);

    @BeforeAll
    static void start() throws Exception {
        for (int i = 0; i < BROKERS; i++) {
            relays.add(Relay.start("broker-" + i, CUT));
        }
        kafka = KafkaCluster.builder().brokers(BROKERS).dedicatedControllers(1)
                .listener("PLAINTEXT", SecurityProtocol.PLAINTEXT)
                .listener("RELAYED", SecurityProtocol.PLAINTEXT)
                .advertisedAddress("RELAYED", (id, port) -> "127.0.0.1:" + relays.get(id).port())
                .build().start();
        for (int i = 0; i < BROKERS; i++) {
            relays.get(i).target(KafkaWire.address(kafka.brokerAddress(i, "RELAYED")));
        }
        fixture = VirtualClusterFixture.over(kafka).bootstrap(kafka.bootstrapServers("RELAYED")).build();
    }

    @AfterAll
    static void stop() {
        direct.values().forEach(WeftProxy::close);
        if (fixture != null) {
            fixture.close();
        }
        relays.forEach(Relay::close);
    }

    /** {@code kind}'s proxy through the relays, once it knows every broker (so every upstream is a relay). */
    private static WeftProxy relayed(VirtualClusterKind kind) {
        WeftProxy p = fixture.proxy(kind);
        // Until discovery finishes, a bootstrap connection goes to the configured bootstrap address (the
        // broker's RELAYED port itself, not a relay): wait for the brokers, so every upstream is a relay.
        awaitBrokers(kind, p);
        return p;
    }

    private static WeftProxy direct(VirtualClusterKind kind) {
        WeftProxy p = direct.computeIfAbsent(kind, k -> fixture.startAnother(k, kafka.bootstrapServers()));
        awaitBrokers(kind, p);
        return p;
    }

    private static void awaitBrokers(VirtualClusterKind kind, WeftProxy p) {
        String cluster = VirtualClusterFixture.primaryClusterName(kind);
        Poll.until(Duration.ofSeconds(30), "the " + kind + " proxy to discover the brokers",
                () -> p.cluster(cluster).topology().current().brokers().size() == BROKERS);
    }

    @ParameterizedTest
    @MethodSource("dev.weft.proxy.testing.VirtualClusterKind#all")
    @Order(1)
    void aBrokerDyingMidResponseDisconnectsTheClientWhichSucceedsOnRetry(VirtualClusterKind kind) throws Exception {
        String topic = kind.name("cut-in-half");
        if (kind == VirtualClusterKind.PARTITION_WOVEN) {
            // made before the proxy is taken: the partition-woven proxy restarts to add a topic
            fixture.createTopic(kind, topic, 3, 3, Map.of("min.insync.replicas", "2"));
        }
        WeftProxy relayed = relayed(kind);
        Set<Integer> relayPorts = relays.stream().map(Relay::port).collect(Collectors.toSet());
        InetSocketAddress bootstrap = ResilientProxy.bootstrapAddress(relayed);
        int cutsBefore = CUT.count();
        String tag = "[mid-response " + kind + "]";
        try (LogTap sessions = LogTap.of(Session.class);
                LogTap clients = LogTap.quiet("org.apache.kafka.clients", Level.INFO)) {
            CUT.arm(ApiKeys.METADATA.id, 16);
            byte[] metadata = KafkaWire.request(ApiKeys.METADATA, (short) 12, 41, "cut-probe",
                    new MetadataRequestData().setTopics(null).setAllowAutoTopicCreation(false));
            if (kind.plansMetadata()) {
                metadataCutWhileTheProxyPlansIt(kind, bootstrap, metadata, cutsBefore, sessions, tag);
            } else {
                metadataCutOnTheBoundConnection(kind, bootstrap, metadata, cutsBefore, sessions, relayPorts, tag);
            }

            // A real idempotent producer: its Produce response is cut; it retries and succeeds.
            if (kind != VirtualClusterKind.PARTITION_WOVEN) {
                fixture.createTopic(kind, topic, 3, 3, Map.of("min.insync.replicas", "2"));
            }
            int records = 2_000;
            Properties p = new Properties();
            p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, ResilientProxy.bootstrap(relayed));
            p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
            p.put(ProducerConfig.ACKS_CONFIG, "all");
            p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
            double retries;
            try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
                producer.partitionsFor(topic); // metadata first, so the cut hits a Produce response
                CUT.arm(ApiKeys.PRODUCE.id, 16);
                List<Future<?>> acks = new ArrayList<>();
                for (int i = 0; i < records; i++) {
                    acks.add(producer.send(new ProducerRecord<>(topic, ("k" + i).getBytes(), ("v" + i).getBytes())));
                }
                for (Future<?> a : acks) {
                    a.get(60, TimeUnit.SECONDS); // every send succeeds
                }
                retries = metric(producer.metrics(), "record-retry-total");
            }
            assertEquals(cutsBefore + 2, CUT.count(), "the relay cut one Produce response: " + CUT.log());
            List<String> producerDisconnected = clients.lines(l -> l.message().contains("PRODUCE") && l.message().contains("disconnect")
                    || l.message().contains("NETWORK_EXCEPTION")).stream().map(LogTap.Line::message).toList();
            List<String> producerRetriable = clients.lines(l -> l.message().contains("NOT_LEADER_OR_FOLLOWER"))
                    .stream().map(LogTap.Line::message).toList();
            List<String> producerConnectionClosed = clients.lines(l -> l.message().contains("disconnected"))
                    .stream().map(LogTap.Line::message).toList();
            if (kind.bindsClientConnectionsToBrokers() && !kind.splitsProduceAndFetch()) {
                // Its connection was bound to the broker that "died": closed, the producer saw the disconnect.
                assertTrue(!producerDisconnected.isEmpty(), "the producer saw the disconnect: " + clients.lines());
            } else if (kind.bindsClientConnectionsToBrokers()) {
                // Partition-woven: the Produce went as the proxy's own part (renumbered). Its upstream failing
                // either answers it with a retriable error before the bound connection is closed (the producer
                // then sees both), or the close comes first (the Produce is cancelled in flight, as above).
                assertTrue(!producerDisconnected.isEmpty() || !producerRetriable.isEmpty() && !producerConnectionClosed.isEmpty(),
                        "the producer saw the disconnect, or NOT_LEADER_OR_FOLLOWER and then its connection closed: "
                                + clients.lines());
            } else {
                // Collapsed: the failed part answers its partitions with a retriable error, the connection stays.
                assertEquals(List.of(), producerDisconnected, "the producer saw no disconnect");
                assertTrue(!producerRetriable.isEmpty(), "the producer was told NOT_LEADER_OR_FOLLOWER: " + clients.lines());
            }
            assertTrue(retries >= 1, "the producer retried: record-retry-total " + retries);
            Map<String, Integer> stored = readAll(kafka.bootstrapServers(), topic, records);
            for (int i = 0; i < records; i++) {
                assertEquals(1, stored.getOrDefault("k" + i + "=v" + i, 0), "record " + i + " stored exactly once");
            }
            System.out.printf("%s idempotent producer: %s; it logged %s; record-retry-total %.0f; all %d "
                    + "records acknowledged and stored exactly once%n", tag, CUT.log().get(cutsBefore + 1),
                    (!producerDisconnected.isEmpty() ? producerDisconnected : producerRetriable).get(0), retries, records);

            // A real consumer: a Fetch response with records is cut; it fetches again and gets everything once.
            clients.clear();
            CUT.arm(ApiKeys.FETCH.id, 1_000);
            Map<String, Integer> consumed = readAll(ResilientProxy.bootstrap(relayed), topic, records);
            assertEquals(cutsBefore + 3, CUT.count(), "the relay cut one Fetch response: " + CUT.log());
            for (int i = 0; i < records; i++) {
                assertEquals(1, consumed.getOrDefault("k" + i + "=v" + i, 0), "record " + i + " consumed exactly once");
            }
            List<String> consumerDisconnected = clients.lines(l -> l.message().contains("FETCH") && l.message().contains("disconnect")
                    || l.message().contains("DisconnectException")).stream().map(LogTap.Line::message).toList();
            List<String> consumerConnectionClosed = clients.lines(l -> l.message().contains("disconnected"))
                    .stream().map(LogTap.Line::message).toList();
            if (kind.bindsClientConnectionsToBrokers() && !kind.splitsProduceAndFetch()) {
                assertTrue(!consumerDisconnected.isEmpty(), "the consumer saw the disconnect: " + clients.lines());
            } else if (kind.bindsClientConnectionsToBrokers()) {
                // Partition-woven: the failed part may be answered with a retriable error before the bound
                // connection closes, or the close cancels the Fetch in flight: either way the connection closed.
                assertTrue(!consumerConnectionClosed.isEmpty(), "the consumer saw its connection closed: " + clients.lines());
            } else {
                // Collapsed: the failed part's partitions come back with a retriable error; no disconnect.
                assertEquals(List.of(), consumerDisconnected, "the consumer saw no disconnect");
            }
            System.out.printf("%s consumer: %s; it logged %s; all %d records consumed exactly once%n", tag,
                    CUT.log().get(cutsBefore + 2), !consumerDisconnected.isEmpty() ? consumerDisconnected.get(0)
                            : !consumerConnectionClosed.isEmpty() ? consumerConnectionClosed.get(0) : "no disconnect",
                    records);

            List<LogTap.Line> clientClosed = sessions.lines(l -> l.message().contains("closed the connection")
                    && l.message().contains("closing the client connection"));
            // One client connection closed per cut on a bound connection: pass-through 3 (Metadata, Produce,
            // Fetch); woven 2 (its Metadata is planned, not bound); collapsed none.
            int expectedCloses = !kind.bindsClientConnectionsToBrokers() ? 0 : kind.plansMetadata() ? 2 : 3;
            assertEquals(expectedCloses, clientClosed.size(), "client connections closed for an upstream that died: " + clientClosed);
            sessions.lines().stream().filter(l -> l.level().isGreaterOrEqual(Level.INFO)).limit(8)
                    .forEach(l -> System.out.println(tag + " proxy: " + l));
            assertEquals(List.of(), sessions.lines(Level.ERROR));
        }
        // The proxy keeps serving.
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, ResilientProxy.bootstrap(relayed)))) {
            assertEquals(fixture.visibleBrokers(kind), admin.describeCluster().nodes().get(30, TimeUnit.SECONDS).size());
        }
    }

    /** Pass-through: the Metadata goes over the bound connection; the cut closes the client, which retries. */
    private static void metadataCutOnTheBoundConnection(VirtualClusterKind kind, InetSocketAddress bootstrap, byte[] metadata,
            int cutsBefore, LogTap sessions, Set<Integer> relayPorts, String tag) throws Exception {
        int bytesBeforeClose;
        long closeMillis;
        try (Socket s = new Socket()) {
            s.connect(bootstrap, 5_000);
            s.setSoTimeout(15_000);
            long t0 = System.nanoTime();
            s.getOutputStream().write(metadata);
            bytesBeforeClose = bytesUntilClosed(s.getInputStream());
            closeMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        }
        assertEquals(cutsBefore + 1, CUT.count(), "the relay cut one Metadata response: " + CUT.log());
        Poll.until(Duration.ofSeconds(10), "the proxy to log the upstream that died mid-response",
                () -> sessions.count(l -> l.message().contains("closed the connection with 1 request(s) unanswered")
                        && relayPorts.stream().anyMatch(p -> l.message().contains("127.0.0.1:" + p))) > 0,
                () -> sessions.lines().toString());
        // The retry on a new connection gets the whole response, with the proxy's addresses in it.
        try (Socket s = new Socket()) {
            s.connect(bootstrap, 5_000);
            s.setSoTimeout(15_000);
            s.getOutputStream().write(metadata);
            byte[] body = KafkaWire.readFrame(s.getInputStream());
            assertEquals(41, KafkaWire.correlationId(body));
            // Before the close the first client got no complete response: nothing it could take for an answer.
            // (Weft holds a response until it is whole today, so it got nothing; a cut-through proxy may pass a part.)
            assertTrue(bytesBeforeClose < 4 + body.length, "the client got " + bytesBeforeClose
                    + " bytes of a " + (4 + body.length) + "-byte response before the close");
            assertAtProxyPorts(kind, bootstrap, (MetadataResponseData) KafkaWire.parseResponse(ApiKeys.METADATA, (short) 12, body));
        }
        System.out.printf("%s raw Metadata client: %s; client got %d bytes, then the close after %d ms; "
                + "retry on a new connection answered in full%n", tag, CUT.log().get(cutsBefore), bytesBeforeClose, closeMillis);
    }

    /**
     * Woven, collapsed, switched: the proxy asks every serving route for Metadata itself; the cut route's
     * answer is missing, so the client is answered at once without that cluster's brokers (woven, switched) or leaders, on
     * an open connection, and asking again on the same connection gets the whole answer.
     */
    private static void metadataCutWhileTheProxyPlansIt(VirtualClusterKind kind, InetSocketAddress bootstrap, byte[] metadata,
            int cutsBefore, LogTap sessions, String tag) throws Exception {
        try (Socket s = new Socket()) {
            s.connect(bootstrap, 5_000);
            s.setSoTimeout(15_000);
            s.getOutputStream().write(metadata);
            byte[] body = KafkaWire.readFrame(s.getInputStream());
            assertEquals(cutsBefore + 1, CUT.count(), "the relay cut one Metadata response: " + CUT.log());
            assertEquals(41, KafkaWire.correlationId(body));
            MetadataResponseData degraded = (MetadataResponseData) KafkaWire.parseResponse(ApiKeys.METADATA, (short) 12, body);
            if (kind.listsBrokersOfTwoClusters()) {
                assertEquals(fixture.side().brokerIds().size(), degraded.brokers().size(),
                        "only the side cluster's brokers: the primary did not answer " + degraded.brokers());
                degraded.topics().stream().filter(t -> kafkaTopics().contains(t.name())).forEach(t -> t.partitions().forEach(
                        pt -> assertEquals(-1, pt.leaderId(), "no leader for " + t.name() + "-" + pt.partitionIndex())));
            } else if (kind == VirtualClusterKind.SWITCHED) {
                // the switch's one serving route did not answer: no broker to list (clients retry an empty list)
                assertEquals(List.of(), List.copyOf(degraded.brokers()), "no broker: the active route did not answer");
                degraded.topics().stream().filter(t -> kafkaTopics().contains(t.name())).forEach(t -> t.partitions().forEach(
                        pt -> assertEquals(-1, pt.leaderId(), "no leader for " + t.name() + "-" + pt.partitionIndex())));
            } else {
                assertEquals(1, degraded.brokers().size(), "the proxy node: " + degraded.brokers());
            }
            // Asked again on the same connection, as a client refreshing its metadata does (with a short
            // backoff): answered in full once the proxy is connected to the cluster again.
            MetadataResponseData full = null;
            int asks = 0;
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (full == null || full.brokers().size() < fixture.visibleBrokers(kind) && System.nanoTime() - until < 0) {
                if (asks++ > 0) {
                    java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100)); // the client's backoff
                }
                s.getOutputStream().write(metadata);
                body = KafkaWire.readFrame(s.getInputStream());
                assertEquals(41, KafkaWire.correlationId(body));
                full = (MetadataResponseData) KafkaWire.parseResponse(ApiKeys.METADATA, (short) 12, body);
            }
            assertAtProxyPorts(kind, bootstrap, full);
            System.out.printf("%s raw Metadata client: %s; answered at once without the cut cluster (%d brokers, "
                    + "%d topics), then in full on the same connection (asked %d more time(s))%n", tag, CUT.log().get(cutsBefore),
                    degraded.brokers().size(), degraded.topics().size(), asks);
        }
        assertEquals(0, sessions.count(l -> l.message().contains("closing the client connection")),
                "no client connection closed: " + sessions.lines());
    }

    private static Set<String> kafkaTopics() {
        try {
            return kafka.admin().listTopics().names().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** Every broker in a complete answer, at one of {@code kind}'s client addresses. */
    private static void assertAtProxyPorts(VirtualClusterKind kind, InetSocketAddress bootstrap, MetadataResponseData md) {
        assertEquals(fixture.visibleBrokers(kind), md.brokers().size(), "every broker: " + md.brokers());
        int proxyPort = bootstrap.getPort();
        int ports = fixture.brokerPortCount(kind);
        md.brokers().forEach(b -> assertTrue(ports == 0 ? b.port() == proxyPort : b.port() > proxyPort && b.port() <= proxyPort + ports,
                "broker " + b.nodeId() + " at a proxy port: " + b.port()));
    }

    @ParameterizedTest
    @MethodSource("dev.weft.proxy.testing.VirtualClusterKind#all")
    @Order(2)
    void aStoppedBrokerIsACleanCloseOnItsPortAndProducersFollowTheMovedLeader(VirtualClusterKind kind) throws Exception {
        String topic = kind.name("moving");
        kafka.createTopic(topic, 3, 3, Map.of("min.insync.replicas", "2"));
        // made here: the partition-woven kind shows only topics in its config, so it is declared before
        // that kind's direct and quiet proxies start
        fixture.declareWovenTopic(topic, 3);
        WeftProxy viaProxy = direct(kind);
        viaProxy.virtualCluster("main").refreshCatalog().get(30, TimeUnit.SECONDS);
        // the producer writes to (virtual) partition 0: the victim leads the cluster's partition behind it
        int physical0 = VirtualClusterFixture.physicalPartition(kind, 0, 3);
        int victim = leaderOf(topic, physical0);
        String victimAddress = kafka.brokerAddress(victim);
        String via = ResilientProxy.bootstrap(viaProxy);
        String tag = "[broker-stopped " + kind + "]";
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, via);
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        int batch = 500;
        try (LogTap sessions = LogTap.of(Session.class);
                KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            sendAll(producer, topic, 0, batch); // to partition 0, led by the victim
            // A proxy that has seen no traffic since: its snapshot still lists the broker.
            WeftProxy quiet = fixture.startAnother(kind, kafka.bootstrapServers());
            try {
                String cluster = VirtualClusterFixture.primaryClusterName(kind);
                Poll.until(Duration.ofSeconds(30), "the quiet proxy to know the brokers",
                        () -> !quiet.cluster(cluster).topology().current().isEmpty());
                long stopStart = System.nanoTime();
                kafka.stopBroker(victim);
                long stopMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stopStart);
                if (kind.bindsClientConnectionsToBrokers()) {
                    // The stopped broker's own port: a client connection there is bound to it, so it is closed.
                    InetSocketAddress victimPort = fixture.brokerAddress(kind, quiet, victim);
                    long first = cleanCloseMillis(kind, victimPort);
                    Poll.until(Duration.ofSeconds(10), "'cannot connect to broker " + victimAddress + "'",
                            () -> sessions.count(l -> l.level() == Level.WARN && l.message().contains("cannot connect to broker")
                                    && l.message().contains(victimAddress)) > 0, () -> sessions.lines().toString());
                    // The failed connect refreshed the quiet proxy's view: the broker is now unknown, also a clean close.
                    Poll.until(Duration.ofSeconds(20), "the quiet proxy to forget broker " + victim,
                            () -> quiet.cluster(cluster).topology().current().broker(victim) == null);
                    long second = cleanCloseMillis(kind, victimPort);
                    Poll.until(Duration.ofSeconds(10), "'no upstream broker to connect to' for node " + victim,
                            () -> sessions.count(l -> l.level() == Level.WARN && l.message().contains("no upstream broker")
                                    && l.message().contains("node id " + victim)) > 0, () -> sessions.lines().toString());
                    System.out.printf("%s broker %d (%s) stopped (controlled) in %d ms; its virtual port %s closed "
                            + "a new client connection cleanly in %d ms, and again in %d ms once the proxy forgot the broker%n",
                            tag, victim, victimAddress, stopMillis, victimPort, first, second);
                } else {
                    // Collapsed has no port per broker: new connections to the proxy node are served. Until the
                    // proxy forgets the stopped broker, the one it asks for its ApiVersions answer may be that one:
                    // such a connection may be closed, with a WARN naming the broker, and the client's next
                    // connection (kafka-clients reconnects) is served. Asked until answered, at most once per broker.
                    int attempts = 0;
                    boolean answered = false;
                    while (!answered && attempts < BROKERS) {
                        attempts++;
                        try (Socket s = new Socket()) {
                            s.connect(ResilientProxy.bootstrapAddress(quiet), 5_000);
                            s.setSoTimeout(15_000);
                            s.getOutputStream().write(KafkaWire.apiVersionsRequest(7));
                            ApiVersionsResponseData v = KafkaWire.checkApiVersionsResponse(KafkaWire.readFrame(s.getInputStream()), 7);
                            assertTrue(v.apiKeys().size() > 0);
                            s.getOutputStream().write(KafkaWire.request(ApiKeys.METADATA, (short) 12, 8, "after-stop",
                                    new MetadataRequestData().setTopics(null).setAllowAutoTopicCreation(false)));
                            assertEquals(8, KafkaWire.correlationId(KafkaWire.readFrame(s.getInputStream())));
                            answered = true;
                        } catch (java.io.EOFException closed) {
                            // Closed with a WARN saying why, and the proxy names the broker it could not reach.
                            int failedAttempt = attempts;
                            Poll.until(Duration.ofSeconds(10), "a WARN for the closed connection " + failedAttempt
                                    + " and a line naming the stopped broker", () -> sessions.count(l -> l.level() == Level.WARN
                                            && l.message().contains("closing")) >= failedAttempt
                                            && sessions.count(l -> l.message().contains(victimAddress)) > 0,
                                    () -> sessions.lines().toString());
                        }
                    }
                    assertTrue(answered, "a new connection was served within " + BROKERS + " attempts: " + sessions.lines());
                    int closedAttempts = attempts - 1;
                    System.out.printf("%s broker %d (%s) stopped (controlled) in %d ms; a new connection to the quiet "
                            + "proxy node was answered ApiVersions and Metadata after %d closed attempt(s)%n", tag, victim,
                            victimAddress, stopMillis, closedAttempts);
                }
            } finally {
                quiet.close();
            }

            // The producer that knew the old leader keeps working through the proxy, answered well before
            // its request timeout (30 s): a stall that long means the proxy left a request unanswered.
            long t0 = System.nanoTime();
            List<LogTap.Line> proxyDebug;
            try (LogTap debug = LogTap.quiet("dev.weft.proxy", Level.DEBUG)) {
                sendAll(producer, topic, batch, batch);
                proxyDebug = debug.lines();
            }
            long resumeMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            assertTrue(resumeMillis < 15_000, "the second batch, to the moved leader, was acknowledged only after "
                    + resumeMillis + " ms; the proxy logged meanwhile: " + proxyDebug.stream().limit(40).toList());
            int newLeader = leaderOf(topic, physical0);
            assertNotEquals(victim, newLeader, "leadership of partition 0 moved");
            Map<String, Integer> consumed = readAll(via, topic, 2 * batch);
            for (int i = 0; i < 2 * batch; i++) {
                assertEquals(1, consumed.getOrDefault("k" + i + "=v" + i, 0), "record " + i + " exactly once");
            }
            sessions.lines(l -> l.message().contains(victimAddress)).stream().limit(6)
                    .forEach(l -> System.out.println(tag + " proxy: " + l));
            System.out.printf("%s the producer's second batch of %d to partition 0 (leader now broker %d) "
                    + "was acknowledged in %d ms; both batches consumed through the proxy exactly once%n",
                    tag, batch, newLeader, resumeMillis);
            assertEquals(List.of(), sessions.lines(Level.ERROR));
        } finally {
            kafka.restartBroker(victim);
            awaitFullIsr(topic);
        }
    }

    /** Waits until every partition of {@code topic} has its 3 replicas in sync again (the next kind starts whole). */
    private static void awaitFullIsr(String topic) {
        Poll.untilNoThrow(Duration.ofSeconds(60), topic + " back to 3 in-sync replicas", () -> kafka.admin()
                .describeTopics(List.of(topic)).allTopicNames().get(10, TimeUnit.SECONDS).get(topic)
                .partitions().stream().allMatch(i -> i.isr().size() == 3));
    }

    /**
     * Connects to {@code address}, sends ApiVersions, and expects a close — with no answer where the broker
     * answers ApiVersions (pass-through); a kind whose proxy answers ApiVersions itself (woven, collapsed)
     * may answer it from its cache before the broker connection's failure closes the client. Returns how
     * long it took.
     */
    private static long cleanCloseMillis(VirtualClusterKind kind, InetSocketAddress address) throws IOException {
        try (Socket s = new Socket()) {
            long t0 = System.nanoTime();
            s.connect(address, 5_000);
            s.setSoTimeout(20_000);
            try {
                s.getOutputStream().write(KafkaWire.apiVersionsRequest(7));
            } catch (IOException e) {
                // already closed by the proxy: fine
            }
            int answered = bytesUntilClosed(s.getInputStream()); // fails if the proxy keeps it open
            if (!kind.answersApiVersions()) {
                assertEquals(0, answered, "no answer from a port whose broker is gone, only a close");
            }
            return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        }
    }

    /** Bytes read until the peer closes; fails if it stays open past the socket timeout. */
    private static int bytesUntilClosed(InputStream in) throws IOException {
        int total = 0;
        byte[] sink = new byte[4096];
        try {
            int n;
            while ((n = in.read(sink)) >= 0) {
                total += n;
            }
        } catch (SocketTimeoutException e) {
            throw new AssertionError("the proxy left the connection open", e);
        } catch (IOException e) {
            // reset: closed too
        }
        return total;
    }

    private static void sendAll(KafkaProducer<byte[], byte[]> producer, String topic, int from, int count) throws Exception {
        List<Future<?>> acks = new ArrayList<>();
        for (int i = from; i < from + count; i++) {
            acks.add(producer.send(new ProducerRecord<>(topic, 0, ("k" + i).getBytes(), ("v" + i).getBytes())));
        }
        for (Future<?> a : acks) {
            a.get(90, TimeUnit.SECONDS);
        }
    }

    private static int leaderOf(String topic, int partition) throws Exception {
        Node leader = kafka.admin().describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic)
                .partitions().get(partition).leader();
        return leader.id();
    }

    /** Reads a whole topic (assign, from the beginning, to the end offsets); counts each "key=value". */
    private static Map<String, Integer> readAll(String bootstrap, String topic, int atLeast) {
        Properties c = new Properties();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        Map<String, Integer> seen = new ConcurrentHashMap<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                    .map(i -> new TopicPartition(topic, i.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions, Duration.ofSeconds(30));
            long total = end.values().stream().mapToLong(Long::longValue).sum();
            assertTrue(total >= atLeast, "end offsets cover " + atLeast + " records: " + end);
            Poll.until(Duration.ofSeconds(60), "topic " + topic + " read to its end", () -> {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    seen.merge(new String(r.key()) + "=" + new String(r.value()), 1, Integer::sum);
                }
                return partitions.stream().allMatch(tp -> consumer.position(tp) >= end.get(tp));
            });
        }
        return seen;
    }

    private static double metric(Map<MetricName, ? extends Metric> metrics, String name) {
        Collection<? extends Map.Entry<MetricName, ? extends Metric>> entries = metrics.entrySet();
        return entries.stream().filter(e -> e.getKey().name().equals(name) && e.getKey().group().equals("producer-metrics"))
                .mapToDouble(e -> ((Number) e.getValue().metricValue()).doubleValue()).sum();
    }
}
