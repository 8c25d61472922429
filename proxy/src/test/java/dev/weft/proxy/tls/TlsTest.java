package dev.weft.proxy.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import dev.weft.iocore.testing.Await;
import dev.weft.iocore.testing.LogCapture;
import dev.weft.proxy.config.ConfigException;
import dev.weft.proxy.config.ConfigLoader;
import dev.weft.proxy.config.WeftConfig;
import dev.weft.proxy.net.FreePorts;
import dev.weft.proxy.server.WeftProxy;
import dev.weft.proxy.session.Session;
import dev.weft.proxy.testing.TestPki;
import dev.weft.testkit.KafkaCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * TLS both ways against a real broker: termination at the gateway (PEM and PKCS12, optional mTLS),
 * and TLS from the proxy to a broker's SSL listener with host name verification.
 */
class TlsTest {

    @TempDir
    static Path dir;

    private static TestPki pki;
    private static TestPki.Issued server;
    private static TestPki.Issued client;
    private static TestPki.Issued broker;
    private static KafkaCluster kafka;
    private static final List<WeftProxy> proxies = new ArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        pki = new TestPki(dir);
        server = pki.issue("proxy");
        client = pki.issue("client");
        broker = pki.issue("broker");
        kafka = pki.sslListener(KafkaCluster.builder().brokers(1), broker).build();
        kafka.start();
    }

    @AfterAll
    static void stop() {
        proxies.forEach(WeftProxy::close);
        if (kafka != null) {
            kafka.close();
        }
    }

    @Test
    void gatewayTerminatesTlsWithPemFiles() throws Exception {
        WeftProxy proxy = start(plainUpstream(), """
                tls:
                  certificate: "%s"
                  key: "%s"
                """.formatted(server.certificatePem(), server.keyPem()));
        Map<String, Object> tls = Map.of("security.protocol", "SSL",
                "ssl.truststore.type", "PEM", "ssl.truststore.location", pki.caPem().toString());
        roundTrip(bootstrapOf(proxy), tls, "tls-pem");
    }

    @Test
    void mutualTlsRefusesAClientWithoutCertificateAndServesOneWithIt() throws Exception {
        WeftProxy proxy = start(plainUpstream(), """
                tls:
                  keyStore: "%s"
                  keyStorePassword: "%s"
                  clientAuth: required
                  trustCertificates: "%s"
                """.formatted(server.keyStore(), TestPki.PASSWORD, pki.caPem()));
        Map<String, Object> noCert = Map.of("security.protocol", "SSL",
                "ssl.truststore.type", "PEM", "ssl.truststore.location", pki.caPem().toString());
        try (LogCapture log = LogCapture.of(Session.class);
                Admin admin = Admin.create(config(bootstrapOf(proxy), noCert, Map.of("default.api.timeout.ms", 5000, "request.timeout.ms", 3000)))) {
            ExecutionException e = assertThrows(ExecutionException.class,
                    () -> admin.describeCluster().nodes().get(30, TimeUnit.SECONDS));
            assertTrue(e.getCause().getClass().getSimpleName().contains("Ssl") || e.getCause().getClass().getSimpleName().contains("Timeout"),
                    "refused at the TLS layer: " + e.getCause());
            Await.until(Duration.ofSeconds(15),
                    () -> log.messages(Level.WARN).stream().anyMatch(m -> m.contains("TLS handshake with the client failed")),
                    () -> "a log line naming the failed handshake: " + log.messages(Level.WARN));
        }
        Map<String, Object> withCert = new HashMap<>(noCert);
        withCert.put("ssl.keystore.type", "PKCS12");
        withCert.put("ssl.keystore.location", client.keyStore().toString());
        withCert.put("ssl.keystore.password", TestPki.PASSWORD);
        roundTrip(bootstrapOf(proxy), withCert, "tls-mutual");
    }

    @Test
    void proxyTalksTlsToTheBrokerAndVerifiesItsHostName() throws Exception {
        String upstream = """
                clusters:
                  upstream:
                    bootstrap: "%s"
                    tls:
                      trustCertificates: "%s"
                      verifyHostname: true
                """.formatted(kafka.bootstrapServers("SSL"), pki.caPem());
        WeftProxy proxy = start(upstream, "");
        roundTrip(bootstrapOf(proxy), Map.of(), "upstream-tls");
    }

    @Test
    void plaintextClientOnATlsPortIsToldApartInTheLog() throws Exception {
        WeftProxy proxy = start(plainUpstream(), """
                tls:
                  certificate: "%s"
                  key: "%s"
                """.formatted(server.certificatePem(), server.keyPem()));
        try (LogCapture log = LogCapture.of(Session.class);
                Admin admin = Admin.create(config(bootstrapOf(proxy), Map.of(), Map.of("default.api.timeout.ms", 3000, "request.timeout.ms", 2000)))) {
            assertThrows(ExecutionException.class, () -> admin.describeCluster().nodes().get(30, TimeUnit.SECONDS));
            Await.until(Duration.ofSeconds(15),
                    () -> log.messages(Level.WARN).stream().anyMatch(m -> m.contains("a plaintext client on a TLS port")),
                    () -> "log names a plaintext client on a TLS port: " + log.messages(Level.WARN));
        }
    }

    @Test
    void secretsNeverShowInTheConfigOrItsErrors() throws Exception {
        String yaml = plainUpstream() + """
                virtualClusters:
                  main:
                    target: { cluster: upstream }
                    gateways:
                      - name: tls
                        bind: "127.0.0.1:1"
                        tls:
                          keyStore: "%s"
                          keyStorePassword: "s3cret-value"
                """.formatted(server.keyStore());
        WeftConfig config = ConfigLoader.parse(yaml, "t.yaml");
        assertFalse(config.toString().contains("s3cret-value"), config.toString());
        ConfigException bad = assertThrows(ConfigException.class, () -> ConfigLoader.parse(yaml.replace(server.keyStore().toString(), "/nope.p12"), "t.yaml"));
        assertTrue(bad.getMessage().contains("virtualClusters.main.gateways[0].tls.keyStore: file /nope.p12 does not exist"), bad.getMessage());
        assertFalse(bad.getMessage().contains("s3cret-value"));
    }

    private static String plainUpstream() {
        return """
                clusters:
                  upstream: { bootstrap: "%s" }
                """.formatted(kafka.bootstrapServers());
    }

    private static WeftProxy start(String clustersYaml, String gatewayTls) throws Exception {
        int brokerId = kafka.brokerIds().get(0);
        int start = FreePorts.randomRange(2);
        String indented = gatewayTls.isEmpty() ? "" : gatewayTls.indent(8);
        String yaml = """
                server: { eventLoops: 1 }
                admin: { enabled: false }
                %svirtualClusters:
                  main:
                    target: { cluster: upstream }
                    gateways:
                      - name: g
                        bind: "127.0.0.1:%d"
                        advertisedHost: localhost
                        brokerPorts: { start: %d, nodeIds: "%d-%d" }
                %s""".formatted(clustersYaml, start, start + 1, brokerId, brokerId, indented);
        WeftProxy proxy = WeftProxy.start(ConfigLoader.parse(yaml, "tls test"));
        proxies.add(proxy);
        return proxy;
    }

    private static String bootstrapOf(WeftProxy proxy) {
        return proxy.bootstrapAddresses("main").get(0);
    }

    private static Map<String, Object> config(String bootstrap, Map<String, Object> security, Map<String, Object> extra) {
        Map<String, Object> c = new HashMap<>(security);
        c.putAll(extra);
        c.put("bootstrap.servers", bootstrap);
        return c;
    }

    /** Produces 200 records through the proxy and consumes them back, checking every value. */
    private static void roundTrip(String bootstrap, Map<String, Object> security, String topic) throws Exception {
        try (Admin admin = Admin.create(config(bootstrap, security, Map.of()))) {
            admin.createTopics(List.of(new org.apache.kafka.clients.admin.NewTopic(topic, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
        Map<String, Object> p = config(bootstrap, security, Map.of("acks", "all", "enable.idempotence", true));
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < 200; i++) {
                producer.send(new ProducerRecord<>(topic, "k" + i, "value-" + i));
            }
            producer.flush();
        }
        Map<String, Object> c = config(bootstrap, security, Map.of("auto.offset.reset", "earliest"));
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(c, new StringDeserializer(), new StringDeserializer())) {
            consumer.assign(List.of(new TopicPartition(topic, 0)));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (values.size() < 200 && System.nanoTime() - deadline < 0) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    values.add(r.value());
                }
            }
        }
        assertEquals(200, values.size());
        for (int i = 0; i < 200; i++) {
            assertEquals("value-" + i, values.get(i));
        }
    }
}
