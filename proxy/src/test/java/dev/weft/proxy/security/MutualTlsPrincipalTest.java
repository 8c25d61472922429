package dev.weft.proxy.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.weft.iocore.testing.LogCapture;
import dev.weft.proxy.conformance.ExternalProcess;
import dev.weft.proxy.conformance.Prerequisites;
import dev.weft.proxy.server.WeftProxy;
import dev.weft.proxy.testing.Poll;
import dev.weft.proxy.testing.ProxyFixture;
import dev.weft.proxy.testing.TestPki;
import dev.weft.testkit.KafkaCluster;
import dev.weft.testkit.KafkaClusterConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * mTLS principals end to end (issue 15): real clients with client certificates produce through TLS
 * gateways with {@code principalMappingRules}, and the branch's audit records (which carry the
 * connection's principal) name who each client is. Two gateways of one virtual cluster: {@code mtls}
 * ({@code RULE:^O=Weft,CN=([^,]+)$/$1/L,DEFAULT}) and {@code strict} (the same rule, no DEFAULT, so a
 * certificate from elsewhere is refused); and a virtual cluster terminating SASL over mTLS, where the
 * SASL login names the client, as on a Kafka SASL_SSL listener.
 *
 * <p>TestPki writes subjects in the order given: {@code issue("Alice,O=Weft")} reads as
 * {@code O=Weft,CN=Alice} (RFC 2253).
 */
class MutualTlsPrincipalTest {

    private static final String RULE = "RULE:^O=Weft,CN=([^,]+)$/$1/L";

    @KafkaClusterConfig
    static KafkaCluster kafka;

    @Test
    void auditRecordsNameTheCertificatesMappedPrincipal(@TempDir Path dir) throws Exception {
        TestPki pki = new TestPki(dir);
        TestPki.Issued server = pki.issue("proxy");
        TestPki.Issued alice = pki.issue("Alice,O=Weft");
        TestPki.Issued carol = pki.issue("carol");
        TestPki.Issued kcatCert = pki.issue("Kcat,O=Weft");
        TestPki.Issued mallory = pki.issue("Mallory,O=Elsewhere");
        Path users = dir.resolve("users");
        TestCredentials.add(users, "bob", "bob-secret");
        kafka.createTopic("orders", 1, 1);
        kafka.createTopic("weft-audit", 1, 1);
        String tls = "{ certificate: \"%s\", key: \"%s\", trustCertificates: \"%s\", clientAuth: required"
                .formatted(server.certificatePem(), server.keyPem(), pki.caPem());
        int node = kafka.brokerIds().get(0); // the router numbers the broker twice: as cluster prod's and as side's
        try (WeftProxy proxy = ProxyFixture.startOnFreePorts(9, start -> """
                server: { eventLoops: 1 }
                admin: { enabled: false }
                clusters:
                  prod: { bootstrap: "%1$s" }
                  side: { bootstrap: "%1$s" }
                routers:
                  shadow:
                    type: branch
                    routes:
                      - { name: prod, target: { cluster: prod } }
                      - { name: audit, target: { cluster: side }, transforms: [ { derive: audit } ], topic: weft-audit }
                virtualClusters:
                  certs:
                    target: { router: shadow }
                    gateways:
                      - { name: mtls, bind: "127.0.0.1:%3$d", brokerPorts: { start: %4$d, nodeIds: "%9$d-%12$d" },
                          tls: %2$s, principalMappingRules: "%10$s,DEFAULT" } }
                      - { name: strict, bind: "127.0.0.1:%5$d", brokerPorts: { start: %6$d, nodeIds: "%9$d-%12$d" },
                          tls: %2$s, principalMappingRules: "%10$s" } }
                  sasl:
                    target: { router: shadow }
                    authentication:
                      sasl: { mechanisms: [SCRAM-SHA-512], credentials: "%11$s" }
                    gateways:
                      - { name: mtls, bind: "127.0.0.1:%7$d", brokerPorts: { start: %8$d, nodeIds: "%9$d-%12$d" }, tls: %2$s } }
                """.formatted(kafka.bootstrapServers(), tls, start, start + 1, start + 3, start + 4, start + 6, start + 7, node,
                RULE, users, node + 1))) {
            Poll.until(Duration.ofSeconds(60), "the proxy ready", () -> proxy.readiness().isReady(), () -> proxy.readiness().reasons().toString());
            String mtls = proxy.bootstrapAddresses("certs").get(0);
            String strict = proxy.bootstrapAddresses("certs").get(1);
            String sasl = proxy.bootstrapAddresses("sasl").get(0);

            // Refused first: had anything of Mallory's gone through, it would be in the topics before the rest.
            try (LogCapture log = LogCapture.of(TlsClientPrincipal.class);
                    KafkaProducer<String, String> producer = producer(strict, "mallory-app", pki, mallory,
                            Map.of("max.block.ms", 3000, "delivery.timeout.ms", 3000, "request.timeout.ms", 2000))) {
                ExecutionException e = assertThrows(ExecutionException.class,
                        () -> producer.send(new ProducerRecord<>("orders", "mallory")).get(30, TimeUnit.SECONDS));
                assertTrue(e.getCause() instanceof org.apache.kafka.common.errors.TimeoutException, e.toString());
                assertTrue(log.messages(Level.WARN).stream().anyMatch(m -> m.contains("'O=Elsewhere,CN=Mallory'")
                        && m.contains("gateway 'strict' of virtual cluster 'certs'") && m.contains("closing")), log.messages(Level.WARN).toString());
            }
            produce(producer(mtls, "alice-app", pki, alice, Map.of()), "alice");
            produce(producer(mtls, "carol-app", pki, carol, Map.of()), "carol"); // no rule but DEFAULT: the whole subject
            Map<String, Object> bob = new HashMap<>(Map.of("security.protocol", "SASL_SSL", "sasl.mechanism", "SCRAM-SHA-512",
                    "sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"bob\" password=\"bob-secret\";"));
            produce(producer(sasl, "bob-app", pki, alice, bob), "bob"); // Alice's certificate, Bob's login: Bob
            kcat(strict, pki, kcatCert, dir);

            Map<String, String> principalByClient = new TreeMap<>();
            List<String> audit = new ArrayList<>();
            List<String> orders = new ArrayList<>();
            try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(kafka.consumerConfig(), new StringDeserializer(),
                    new StringDeserializer())) {
                List<TopicPartition> tps = List.of(new TopicPartition("weft-audit", 0), new TopicPartition("orders", 0));
                consumer.assign(tps);
                consumer.seekToBeginning(tps);
                ObjectMapper json = new ObjectMapper();
                Poll.until(Duration.ofSeconds(60), "four audit records and four orders", () -> {
                    for (var r : consumer.poll(Duration.ofMillis(200))) {
                        if (r.topic().equals("orders")) {
                            orders.add(r.value());
                            continue;
                        }
                        audit.add(r.value());
                        try {
                            JsonNode a = json.readTree(r.value());
                            principalByClient.put(a.get("client_id").asText(), a.get("principal").asText());
                        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                            throw new AssertionError("an audit record that is not JSON: " + r.value(), e);
                        }
                    }
                    return audit.size() >= 4 && orders.size() >= 4;
                }, () -> audit + " " + orders);
            }
            assertEquals(Map.of("alice-app", "User:alice", "carol-app", "User:CN=carol", "bob-app", "User:bob", "kcat-app", "User:kcat"),
                    principalByClient, audit.toString());
            assertEquals(4, audit.size(), audit.toString());
            assertEquals(List.of("alice", "carol", "bob", "kcat"), orders, "nothing of Mallory's was written");
        }
    }

    private static KafkaProducer<String, String> producer(String bootstrap, String clientId, TestPki pki, TestPki.Issued cert,
            Map<String, Object> extra) {
        Map<String, Object> c = new HashMap<>(Map.of("bootstrap.servers", bootstrap, "client.id", clientId, "acks", "all",
                "security.protocol", "SSL", "ssl.truststore.type", "PEM", "ssl.truststore.location", pki.caPem().toString(),
                "ssl.keystore.type", "PKCS12", "ssl.keystore.location", cert.keyStore().toString(),
                "ssl.keystore.password", TestPki.PASSWORD));
        c.putAll(extra);
        return new KafkaProducer<>(c, new StringSerializer(), new StringSerializer());
    }

    private static void produce(KafkaProducer<String, String> producer, String value) throws Exception {
        try (producer) {
            producer.send(new ProducerRecord<>("orders", value)).get(30, TimeUnit.SECONDS);
        }
    }

    /** librdkafka with PEM client certificate and key files. */
    private static void kcat(String bootstrap, TestPki pki, TestPki.Issued cert, Path dir) throws Exception {
        Path kcat = Prerequisites.kcat();
        Path input = Files.writeString(dir.resolve("kcat-input"), "kcat\n");
        ExternalProcess.Result r = ExternalProcess.run(List.of(kcat.toString(), "-P", "-b", bootstrap, "-t", "orders", "-p", "0",
                "-X", "client.id=kcat-app", "-X", "security.protocol=ssl", "-X", "ssl.ca.location=" + pki.caPem(),
                "-X", "ssl.certificate.location=" + cert.certificatePem(), "-X", "ssl.key.location=" + cert.keyPem(),
                "-X", "request.required.acks=-1"), dir, Map.of(), input, Duration.ofSeconds(30), dir);
        assertTrue(r.succeeded(), r.describe());
    }
}
