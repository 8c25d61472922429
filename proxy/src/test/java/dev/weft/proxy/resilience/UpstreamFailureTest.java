package dev.weft.proxy.resilience;

import dev.weft.proxy.testing.Poll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import dev.weft.proxy.server.WeftProxy;
import dev.weft.proxy.session.Session;
import dev.weft.proxy.testing.ProxyFixture;
import dev.weft.testkit.KafkaCluster;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Upstream brokers that fail: one that dies in the middle of a response, and one that is gone and
 * refuses connections.
 *
 * <p>One cluster of three brokers (dedicated controller) with two client listeners: PLAINTEXT, and
 * RELAYED, which each broker advertises at a relay of ours in front of it. A proxy bootstrapped on
 * RELAYED therefore reaches every broker through a relay, and the relay can cut a connection after
 * forwarding half of a response frame. Proxies bootstrapped on PLAINTEXT reach the brokers directly.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class UpstreamFailureTest {

    private static final int BROKERS = 3;

    private static final Relay.Cut CUT = new Relay.Cut();
    private static final List<Relay> relays = new ArrayList<>();
    private static KafkaCluster kafka;
    /** Reaches the brokers through the relays. */
    private static WeftProxy relayed;
    /** Reaches the brokers directly. */
    private static WeftProxy direct;

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
        relayed = ResilientProxy.start(kafka.bootstrapServers("RELAYED"), 0, BROKERS - 1, "");
        direct = ProxyFixture.startInFrontOf(kafka);
        // Until discovery finishes, a bootstrap connection goes to the configured bootstrap address (the
        // broker's RELAYED port itself, not a relay): wait for the brokers, so every upstream is a relay.
        for (WeftProxy p : new WeftProxy[] {relayed, direct}) {
            Poll.until(Duration.ofSeconds(30), "the proxy to discover the brokers",
                    () -> p.cluster("upstream").topology().current().brokers().size() == BROKERS);
        }
    }

    @AfterAll
    static void stop() {
        for (WeftProxy p : new WeftProxy[] {relayed, direct}) {
            if (p != null) {
                p.close();
            }
        }
        if (kafka != null) {
            kafka.close();
        }
        relays.forEach(Relay::close);
    }

    @Test
    @Order(1)
    void aBrokerDyingMidResponseDisconnectsTheClientWhichSucceedsOnRetry() throws Exception {
        Set<Integer> relayPorts = relays.stream().map(Relay::port).collect(Collectors.toSet());
        InetSocketAddress bootstrap = ResilientProxy.bootstrapAddress(relayed);
        try (LogTap sessions = LogTap.of(Session.class);
                LogTap clients = LogTap.quiet("org.apache.kafka.clients", Level.INFO)) {
            // A raw client: the Metadata response is cut half way; the proxy forwards none of it and closes.
            CUT.arm(ApiKeys.METADATA.id, 16);
            byte[] metadata = KafkaWire.request(ApiKeys.METADATA, (short) 12, 41, "cut-probe",
                    new MetadataRequestData().setTopics(null).setAllowAutoTopicCreation(false));
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
            assertEquals(1, CUT.count(), "the relay cut one Metadata response: " + CUT.log());
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
                MetadataResponseData md = (MetadataResponseData) KafkaWire.parseResponse(ApiKeys.METADATA, (short) 12, body);
                assertEquals(BROKERS, md.brokers().size());
                int proxyPort = bootstrap.getPort();
                md.brokers().forEach(b -> assertTrue(b.port() > proxyPort && b.port() <= proxyPort + BROKERS,
                        "broker " + b.nodeId() + " at a proxy port: " + b.port()));
            }
            System.out.printf("[mid-response] raw Metadata client: %s; client got %d bytes, then the close after %d ms; "
                    + "retry on a new connection answered in full%n", CUT.log(), bytesBeforeClose, closeMillis);

            // A real idempotent producer: its Produce response is cut; it sees a disconnect, retries, succeeds.
            String topic = "cut-in-half";
            kafka.createTopic(topic, 3, 3, Map.of("min.insync.replicas", "2"));
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
            assertEquals(2, CUT.count(), "the relay cut one Produce response: " + CUT.log());
            List<String> producerSaw = clients.lines(l -> l.message().contains("PRODUCE") && l.message().contains("disconnect")
                    || l.message().contains("NETWORK_EXCEPTION")).stream().map(LogTap.Line::message).toList();
            assertTrue(!producerSaw.isEmpty(), "the producer saw the disconnect: " + clients.lines());
            assertTrue(retries >= 1, "the producer retried: record-retry-total " + retries);
            Map<String, Integer> stored = readAll(kafka.bootstrapServers(), topic, records);
            for (int i = 0; i < records; i++) {
                assertEquals(1, stored.getOrDefault("k" + i + "=v" + i, 0), "record " + i + " stored exactly once");
            }
            System.out.printf("[mid-response] idempotent producer: %s; it logged %s; record-retry-total %.0f; all %d "
                    + "records acknowledged and stored exactly once%n", CUT.log().get(1), producerSaw.get(0), retries, records);

            // A real consumer: a Fetch response with records is cut; it sees a disconnect, fetches again, gets everything once.
            CUT.arm(ApiKeys.FETCH.id, 1_000);
            Map<String, Integer> consumed = readAll(ResilientProxy.bootstrap(relayed), topic, records);
            assertEquals(3, CUT.count(), "the relay cut one Fetch response: " + CUT.log());
            for (int i = 0; i < records; i++) {
                assertEquals(1, consumed.getOrDefault("k" + i + "=v" + i, 0), "record " + i + " consumed exactly once");
            }
            List<String> consumerSaw = clients.lines(l -> l.message().contains("FETCH") && l.message().contains("disconnect")
                    || l.message().contains("DisconnectException")).stream().map(LogTap.Line::message).toList();
            assertTrue(!consumerSaw.isEmpty(), "the consumer saw the disconnect: " + clients.lines());
            System.out.printf("[mid-response] consumer: %s; it logged %s; all %d records consumed exactly once%n",
                    CUT.log().get(2), consumerSaw.get(0), records);

            List<LogTap.Line> proxySaw = sessions.lines(l -> l.message().contains("closed the connection"));
            assertEquals(3, proxySaw.size(), "one upstream close per cut: " + proxySaw);
            proxySaw.forEach(l -> System.out.println("[mid-response] proxy: " + l));
            assertEquals(List.of(), sessions.lines(Level.ERROR));
        }
        // The proxy keeps serving.
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, ResilientProxy.bootstrap(relayed)))) {
            assertEquals(BROKERS, admin.describeCluster().nodes().get(30, TimeUnit.SECONDS).size());
        }
    }

    @Test
    @Order(2)
    void aStoppedBrokerIsACleanCloseOnItsPortAndProducersFollowTheMovedLeader() throws Exception {
        String topic = "moving";
        kafka.createTopic(topic, 3, 3, Map.of("min.insync.replicas", "2"));
        int victim = leaderOf(topic, 0);
        String victimAddress = kafka.brokerAddress(victim);
        String via = ResilientProxy.bootstrap(direct);
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, via);
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        int batch = 500;
        try (LogTap sessions = LogTap.of(Session.class);
                KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            sendAll(producer, topic, 0, batch); // to partition 0, led by the victim
            // A proxy that has seen no traffic since: its snapshot still lists the broker.
            WeftProxy quiet = ProxyFixture.startInFrontOf(kafka);
            try {
                Poll.until(Duration.ofSeconds(30), "the quiet proxy to know the brokers",
                        () -> !quiet.cluster("upstream").topology().current().isEmpty());
                long stopStart = System.nanoTime();
                kafka.stopBroker(victim);
                long stopMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stopStart);
                InetSocketAddress victimPort = ResilientProxy.brokerAddress(quiet, 0, victim);

                long first = cleanCloseMillis(victimPort);
                Poll.until(Duration.ofSeconds(10), "'cannot connect to broker " + victimAddress + "'",
                        () -> sessions.count(l -> l.level() == Level.WARN && l.message().contains("cannot connect to broker")
                                && l.message().contains(victimAddress)) > 0, () -> sessions.lines().toString());
                // The failed connect refreshed the quiet proxy's view: the broker is now unknown, also a clean close.
                Poll.until(Duration.ofSeconds(20), "the quiet proxy to forget broker " + victim,
                        () -> quiet.cluster("upstream").topology().current().broker(victim) == null);
                long second = cleanCloseMillis(victimPort);
                Poll.until(Duration.ofSeconds(10), "'no upstream broker to connect to' for node " + victim,
                        () -> sessions.count(l -> l.level() == Level.WARN && l.message().contains("no upstream broker")
                                && l.message().contains("node id " + victim)) > 0, () -> sessions.lines().toString());
                System.out.printf("[broker-stopped] broker %d (%s) stopped (controlled) in %d ms; its virtual port %s closed "
                        + "a new client connection cleanly in %d ms, and again in %d ms once the proxy forgot the broker%n",
                        victim, victimAddress, stopMillis, victimPort, first, second);
            } finally {
                quiet.close();
            }

            // The producer that knew the old leader keeps working through the proxy.
            long t0 = System.nanoTime();
            sendAll(producer, topic, batch, batch);
            long resumeMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            int newLeader = leaderOf(topic, 0);
            assertNotEquals(victim, newLeader, "leadership of partition 0 moved");
            Map<String, Integer> consumed = readAll(via, topic, 2 * batch);
            for (int i = 0; i < 2 * batch; i++) {
                assertEquals(1, consumed.getOrDefault("k" + i + "=v" + i, 0), "record " + i + " exactly once");
            }
            sessions.lines(l -> l.message().contains(victimAddress)).stream().limit(6)
                    .forEach(l -> System.out.println("[broker-stopped] proxy: " + l));
            System.out.printf("[broker-stopped] the producer's second batch of %d to partition 0 (leader now broker %d) "
                    + "was acknowledged in %d ms; both batches consumed through the proxy exactly once%n",
                    batch, newLeader, resumeMillis);
            assertEquals(List.of(), sessions.lines(Level.ERROR));
        } finally {
            kafka.restartBroker(victim);
        }
    }

    /** Connects to {@code address}, sends ApiVersions, and expects a close with no answer; returns how long it took. */
    private static long cleanCloseMillis(InetSocketAddress address) throws IOException {
        try (Socket s = new Socket()) {
            long t0 = System.nanoTime();
            s.connect(address, 5_000);
            s.setSoTimeout(20_000);
            try {
                s.getOutputStream().write(KafkaWire.apiVersionsRequest(7));
            } catch (IOException e) {
                // already closed by the proxy: fine
            }
            assertEquals(0, bytesUntilClosed(s.getInputStream()), "no answer from a port whose broker is gone, only a close");
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
