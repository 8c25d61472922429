package dev.weft.proxy.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.iocore.testing.Await;
import dev.weft.proxy.server.WeftProxy;
import dev.weft.proxy.testing.ProxyFixture;
import dev.weft.testkit.KafkaCluster;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The admin endpoint of a live proxy over a real broker: real clients' traffic shows up in /metrics
 * with consistent values, a garbage frame is counted as an error, and the probes answer.
 */
class AdminEndpointTest {

    private static final int RECORDS = 500;
    private static final int RECORD_BYTES = 1000;
    private static final Map<String, String> MAIN = Map.of("virtual_cluster", "main");

    private static KafkaCluster kafka;
    private static WeftProxy proxy;
    private static String bootstrap;
    private static URI admin;
    private static HttpClient http;

    @BeforeAll
    static void start() throws Exception {
        kafka = KafkaCluster.builder().brokers(1).build();
        kafka.start();
        proxy = ProxyFixture.startInFrontOf(kafka, kafka.brokerIds());
        bootstrap = proxy.bootstrapAddresses("main").getFirst();
        InetSocketAddress address = proxy.adminAddress().orElseThrow();
        assertTrue(address.getAddress().isLoopbackAddress(), address::toString);
        assertTrue(address.getPort() > 0, "port 0 in the config is the bound port here");
        admin = URI.create("http://127.0.0.1:" + address.getPort());
        http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    }

    @AfterAll
    static void stop() {
        if (http != null) {
            http.close();
        }
        if (proxy != null) {
            proxy.close();
        }
        if (kafka != null) {
            kafka.close();
        }
    }

    @Test
    void livezIs200AndReadyzBecomes200OnceTheTopologyIsKnown() throws Exception {
        HttpResponse<String> live = get("/livez");
        assertEquals(200, live.statusCode());
        assertEquals("ok\n", live.body());
        Await.until(Duration.ofSeconds(30), () -> get("/readyz").statusCode() == 200, () -> "ready: " + get("/readyz").body());
        assertEquals("ready\n", get("/readyz").body());
        assertTrue(proxy.readiness().isReady());
    }

    @Test
    void unknownPathsAndMethodsAreRefused() throws Exception {
        assertEquals(404, get("/config").statusCode());
        assertEquals(404, get("/metricsz").statusCode());
        HttpResponse<String> post = http.send(HttpRequest.newBuilder(admin.resolve("/metrics"))
                .POST(HttpRequest.BodyPublishers.ofString("x")).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(405, post.statusCode());
        assertEquals("GET, HEAD", post.headers().firstValue("Allow").orElse(""));
    }

    @Test
    void produceAndConsumeShowUpConsistentlyInMetrics() throws Exception {
        PromText before = metrics();
        String topic = "metered";
        try (Admin a = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            a.createTopics(List.of(new NewTopic(topic, 2, (short) 1))).all().get(60, TimeUnit.SECONDS);
        }
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(producerProps())) {
            List<Future<RecordMetadata>> acks = new ArrayList<>();
            for (int i = 0; i < RECORDS; i++) {
                byte[] value = new byte[RECORD_BYTES];
                Arrays.fill(value, (byte) i);
                acks.add(producer.send(new ProducerRecord<>(topic, value)));
            }
            for (Future<RecordMetadata> ack : acks) {
                ack.get(60, TimeUnit.SECONDS);
            }
        }
        int consumed = 0;
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(consumerProps())) {
            List<TopicPartition> partitions = List.of(new TopicPartition(topic, 0), new TopicPartition(topic, 1));
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (consumed < RECORDS && System.nanoTime() - deadline < 0) {
                consumed += consumer.poll(Duration.ofMillis(200)).count();
            }
        }
        assertEquals(RECORDS, consumed);

        // Every client is closed: the gauge comes back to where it was (0: no other test holds a connection).
        Await.until(Duration.ofSeconds(30), () -> metrics().value("weft_connections_active", MAIN) == 0,
                () -> "connections still active:\n" + metrics());
        PromText m = metrics();
        assertEquals(m.value("weft_connections_opened_total", MAIN), m.value("weft_connections_closed_total", MAIN));
        assertTrue(delta(before, m, "weft_connections_opened_total", MAIN) >= 3, "admin, producer, consumer connections");

        Map<String, String> produce = api("Produce");
        Map<String, String> fetch = api("Fetch");
        Map<String, String> metadata = api("Metadata");
        assertTrue(delta(before, m, "weft_requests_total", produce) > 0, m::toString);
        assertTrue(delta(before, m, "weft_requests_total", fetch) > 0, m::toString);
        assertTrue(delta(before, m, "weft_requests_total", metadata) > 0, m::toString);
        // acks=all and the producer closed after every ack: each Produce request got its response.
        assertEquals(m.value("weft_requests_total", produce), m.value("weft_responses_total", produce));
        assertTrue(m.value("weft_request_bytes_total", produce) > (double) RECORDS * RECORD_BYTES,
                () -> "produce bytes " + m.value("weft_request_bytes_total", produce));
        assertTrue(m.value("weft_response_bytes_total", fetch) > (double) RECORDS * RECORD_BYTES,
                () -> "fetch bytes " + m.value("weft_response_bytes_total", fetch));
        for (PromText.Sample s : m.samples("weft_requests_total", MAIN)) {
            Map<String, String> labels = s.labels();
            assertTrue(m.value("weft_responses_total", labels) <= s.value(), () -> "responses <= requests for " + labels);
            assertTrue(m.value("weft_request_bytes_total", labels) >= 12 * s.value(), () -> "a frame has a header: " + labels);
        }

        // One latency sample per response, in buckets that only grow.
        for (Map<String, String> labels : List.of(produce, fetch, metadata)) {
            double count = m.value("weft_upstream_latency_seconds_count", labels);
            assertEquals(m.value("weft_responses_total", labels), count, () -> "latency count of " + labels);
            assertTrue(count > 0);
            double previous = 0;
            for (PromText.Sample bucket : m.samples("weft_upstream_latency_seconds_bucket", labels)) {
                assertTrue(bucket.value() >= previous, () -> "cumulative buckets " + m.samples("weft_upstream_latency_seconds_bucket", labels));
                previous = bucket.value();
            }
            Map<String, String> inf = new HashMap<>(labels);
            inf.put("le", "+Inf");
            assertEquals(count, m.value("weft_upstream_latency_seconds_bucket", inf));
            assertTrue(m.value("weft_upstream_latency_seconds_sum", labels) > 0);
        }
        assertEquals(0, m.sum("weft_errors_total", Map.of("virtual_cluster", "main", "error", "malformed_request")));
    }

    @Test
    void aFrameWithAnUnknownApiKeyIsCountedAsAnUnsupportedRequest() throws Exception {
        Map<String, String> unsupported = Map.of("virtual_cluster", "main", "error", "unsupported_request");
        double before = metrics().sum("weft_errors_total", unsupported);
        int port = Integer.parseInt(bootstrap.substring(bootstrap.lastIndexOf(':') + 1));
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(10_000);
            // size, api key 9999, version 0, correlation id 7, client id null
            byte[] frame = ByteBuffer.allocate(14).putInt(10).putShort((short) 9999).putShort((short) 0).putInt(7)
                    .putShort((short) -1).array();
            OutputStream out = s.getOutputStream();
            out.write(frame);
            out.flush();
            InputStream in = s.getInputStream();
            assertEquals(-1, in.read(), "the proxy closes the connection without answering");
        } catch (IOException e) {
            // a reset instead of an orderly close is a close too
        }
        Await.until(Duration.ofSeconds(10), () -> metrics().sum("weft_errors_total", unsupported) > before,
                () -> "no unsupported_request counted:\n" + metrics());
        PromText m = metrics();
        assertEquals(before + 1, m.sum("weft_errors_total", unsupported));
        assertEquals(1, m.value("weft_errors_total", Map.of("virtual_cluster", "main", "error", "unsupported_request",
                "api", "unknown")));
    }

    private static double delta(PromText before, PromText after, String metric, Map<String, String> labels) {
        return after.sum(metric, labels) - before.sum(metric, labels);
    }

    private static Map<String, String> api(String name) {
        return Map.of("virtual_cluster", "main", "api", name);
    }

    private static PromText metrics() {
        HttpResponse<String> r = get("/metrics");
        assertEquals(200, r.statusCode(), r::body);
        assertTrue(r.headers().firstValue("Content-Type").orElse("").startsWith("text/plain; version=0.0.4"),
                () -> r.headers().toString());
        return PromText.parse(r.body());
    }

    private static HttpResponse<String> get(String path) {
        try {
            return http.send(HttpRequest.newBuilder(admin.resolve(path)).timeout(Duration.ofSeconds(10)).build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static Properties producerProps() {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        return p;
    }

    private static Properties consumerProps() {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        return p;
    }
}
