package dev.weft.proxy.security;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.weft.proxy.server.WeftProxy;
import dev.weft.proxy.testing.Poll;
import dev.weft.proxy.testing.ProxyFixture;
import dev.weft.testkit.KafkaCluster;
import dev.weft.testkit.KafkaClusterConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A branch's audit records name who produced each batch: the principal the gateway authenticated
 * (issue 13 left it null until the proxy could authenticate clients). Alice and Bob write through one
 * virtual cluster terminating SASL; every audit record on the side cluster says {@code User:alice} or
 * {@code User:bob}, matching the batch's client id.
 */
class AuditPrincipalTest {

    @KafkaClusterConfig
    static KafkaCluster prod;

    @KafkaClusterConfig
    static KafkaCluster side;

    @Test
    void auditRecordsCarryTheAuthenticatedPrincipal(@TempDir Path dir) throws Exception {
        Path users = dir.resolve("users");
        for (String user : List.of("alice", "bob")) {
            TestCredentials.add(users, user, user + "-secret");
        }
        prod.createTopic("orders", 1, 1);
        side.createTopic("weft-audit", 1, 1);
        try (WeftProxy proxy = ProxyFixture.startOnFreePorts(1 + 16, start -> """
                server: { eventLoops: 1 }
                admin: { enabled: false }
                clusters:
                  prod: { bootstrap: "%s" }
                  side: { bootstrap: "%s" }
                routers:
                  shadow:
                    type: branch
                    routes:
                      - { name: prod, target: { cluster: prod } }
                      - { name: audit, target: { cluster: side }, transforms: [ { derive: audit } ], topic: weft-audit }
                virtualClusters:
                  main:
                    target: { router: shadow }
                    authentication:
                      sasl: { mechanisms: [SCRAM-SHA-512], credentials: "%s" }
                    gateways:
                      - { name: plain, bind: "127.0.0.1:%d", brokerPorts: { start: %d, nodeIds: "0-15" } }
                """.formatted(prod.bootstrapServers(), side.bootstrapServers(), users, start, start + 1))) {
            Poll.until(Duration.ofSeconds(60), "the proxy ready", () -> proxy.readiness().isReady(), () -> proxy.readiness().reasons().toString());
            for (String user : List.of("alice", "bob")) {
                try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                        CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, ProxyFixture.bootstrap(proxy),
                        CommonClientConfigs.CLIENT_ID_CONFIG, user + "-app",
                        CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_PLAINTEXT", SaslConfigs.SASL_MECHANISM, "SCRAM-SHA-512",
                        SaslConfigs.SASL_JAAS_CONFIG, "org.apache.kafka.common.security.scram.ScramLoginModule required username=\""
                                + user + "\" password=\"" + user + "-secret\";",
                        ProducerConfig.ACKS_CONFIG, "all"), new StringSerializer(), new StringSerializer())) {
                    for (int i = 0; i < 3; i++) {
                        producer.send(new ProducerRecord<>("orders", user + i)).get(30, TimeUnit.SECONDS);
                    }
                }
            }
            List<JsonNode> audit = new ArrayList<>();
            TopicPartition tp = new TopicPartition("weft-audit", 0);
            try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(side.consumerConfig(), new StringDeserializer(),
                    new StringDeserializer())) {
                consumer.assign(List.of(tp));
                consumer.seekToBeginning(List.of(tp));
                ObjectMapper json = new ObjectMapper();
                Poll.until(Duration.ofSeconds(60), "six audit records (one per batch)", () -> {
                    for (var r : consumer.poll(Duration.ofMillis(200))) {
                        try {
                            audit.add(json.readTree(r.value()));
                        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                            throw new AssertionError("an audit record that is not JSON: " + r.value(), e);
                        }
                    }
                    return audit.size() >= 6;
                }, () -> audit.toString());
            }
            for (JsonNode a : audit) {
                String clientId = a.get("client_id").asText();
                assertEquals("User:" + clientId.substring(0, clientId.indexOf('-')), a.get("principal").asText(), a.toString());
            }
            assertEquals(6, audit.size(), audit.toString());
        }
    }
}
