package dev.weft.proxy.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import dev.weft.iocore.testing.Await;
import dev.weft.iocore.testing.LogCapture;
import dev.weft.proxy.config.ConfigException;
import dev.weft.proxy.config.ConfigLoader;
import dev.weft.proxy.net.FreePorts;
import dev.weft.proxy.server.WeftProxy;
import dev.weft.proxy.testing.TestPki;
import dev.weft.testkit.KafkaCluster;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An SNI gateway: one TLS port for a 3-broker cluster, brokers told apart by the server name. Host
 * names under {@code .weft.test} resolve to 127.0.0.1 in this JVM (TestNamesResolverProvider).
 */
class SniGatewayTest {

    @TempDir
    static Path dir;

    private static TestPki pki;
    private static KafkaCluster kafka;
    private static WeftProxy proxy;
    private static int port;

    @BeforeAll
    static void start() throws Exception {
        pki = new TestPki(dir);
        TestPki.Issued cert = pki.issue("sni", "*.main.weft.test");
        kafka = KafkaCluster.builder().brokers(3).build();
        kafka.start();
        port = FreePorts.randomRange(1);
        proxy = WeftProxy.start(ConfigLoader.parse("""
                server: { eventLoops: 2 }
                admin: { enabled: false }
                clusters:
                  upstream: { bootstrap: "%s" }
                virtualClusters:
                  main:
                    target: { cluster: upstream }
                    gateways:
                      - name: public
                        bind: "127.0.0.1:%d"
                        nodes: sni
                        tls: { certificate: "%s", key: "%s" }
                        sni:
                          bootstrapHost: bootstrap.main.weft.test
                          brokerHostPattern: broker-$(nodeId).main.weft.test
                """.formatted(kafka.bootstrapServers(), port, cert.certificatePem(), cert.keyPem()), "sni test"));
    }

    @AfterAll
    static void stop() {
        if (proxy != null) {
            proxy.close();
        }
        if (kafka != null) {
            kafka.close();
        }
    }

    private static Map<String, Object> client() {
        Map<String, Object> c = new HashMap<>();
        c.put("bootstrap.servers", "bootstrap.main.weft.test:" + port);
        c.put("security.protocol", "SSL");
        c.put("ssl.truststore.type", "PEM");
        c.put("ssl.truststore.location", pki.caPem().toString());
        return c;
    }

    @Test
    void everyBrokerIsAdvertisedByNameOnTheOnePort() throws Exception {
        assertEquals("bootstrap.main.weft.test:" + port, proxy.bootstrapAddresses("main").get(0));
        try (Admin admin = Admin.create(client())) {
            Collection<Node> nodes = admin.describeCluster().nodes().get(30, TimeUnit.SECONDS);
            assertEquals(3, nodes.size());
            for (Node n : nodes) {
                assertEquals("broker-" + n.id() + ".main.weft.test", n.host());
                assertEquals(port, n.port());
            }
        }
    }

    @Test
    void producesAndConsumesThroughServerNamesWithHostnameVerification() throws Exception {
        String topic = "sni-topic";
        try (Admin admin = Admin.create(client())) {
            admin.createTopics(List.of(new NewTopic(topic, 3, (short) 3))).all().get(30, TimeUnit.SECONDS);
        }
        Map<String, Object> p = new HashMap<>(client());
        p.put("acks", "all");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < 300; i++) {
                producer.send(new ProducerRecord<>(topic, "k" + i, "v" + i));
            }
            producer.flush();
        }
        Map<String, Object> c = new HashMap<>(client());
        c.put("group.id", "sni-group");
        c.put("auto.offset.reset", "earliest");
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(c, new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of(topic));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (values.size() < 300 && System.nanoTime() - deadline < 0) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    values.add(r.value());
                }
            }
        }
        assertEquals(300, values.size());
        assertEquals(300, values.stream().distinct().count(), "each record once");
    }

    @Test
    void anUnknownServerNameIsRefusedWithALogLine() throws Exception {
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        java.security.KeyStore trust = java.security.KeyStore.getInstance("PKCS12");
        try (var in = java.nio.file.Files.newInputStream(pki.trustStore())) {
            trust.load(in, TestPki.PASSWORD.toCharArray());
        }
        tmf.init(trust);
        SSLContext ssl = SSLContext.getInstance("TLS");
        ssl.init(null, tmf.getTrustManagers(), null);
        try (LogCapture log = LogCapture.of(Class.forName("dev.weft.proxy.gateway.SniRouter"));
                SSLSocket socket = (SSLSocket) ssl.getSocketFactory().createSocket("127.0.0.1", port)) {
            SSLParameters params = socket.getSSLParameters();
            params.setServerNames(List.of(new SNIHostName("elsewhere.weft.test")));
            socket.setSSLParameters(params);
            socket.setSoTimeout(10_000);
            assertThrows(java.io.IOException.class, () -> {
                socket.startHandshake();
                if (socket.getInputStream().read() < 0) {
                    throw new java.io.EOFException("closed");
                }
            });
            Await.until(Duration.ofSeconds(15),
                    () -> log.messages(Level.WARN).stream().anyMatch(m -> m.contains("asked for server name 'elsewhere.weft.test'")),
                    () -> "log line about the unknown name: " + log.messages(Level.WARN));
        }
    }

    @Test
    void sniNeedsTlsAndAPatternWithTheNodeId() {
        ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.parse("""
                clusters: { a: { bootstrap: "h:1" } }
                virtualClusters:
                  main:
                    target: { cluster: a }
                    gateways:
                      - name: s
                        bind: "127.0.0.1:9443"
                        nodes: sni
                        sni: { bootstrapHost: b.example.com, brokerHostPattern: "broker.example.com" }
                """, "s.yaml"));
        assertTrue(e.getMessage().contains("s.yaml: virtualClusters.main.gateways[0].tls: an SNI gateway needs 'tls'"), e.getMessage());
        assertTrue(e.getMessage().contains("brokerHostPattern: \"broker.example.com\" must contain $(nodeId) exactly once"), e.getMessage());
    }
}
