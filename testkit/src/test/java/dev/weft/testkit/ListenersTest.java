package dev.weft.testkit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * A second client listener with its own security protocol and advertised address: PLAINTEXT for the
 * brokers themselves, SASL_PLAINTEXT (PLAIN and SCRAM-SHA-512) advertised as {@code localhost} for clients.
 */
class ListenersTest {

    private static final String JAAS = "org.apache.kafka.common.security.plain.PlainLoginModule required "
        + "user_alice=\"alice-secret\";";

    private static KafkaCluster cluster;

    @BeforeAll
    static void start() {
        cluster = KafkaCluster.builder()
            .listener("PLAINTEXT", SecurityProtocol.PLAINTEXT)
            .listener("EXTERNAL", SecurityProtocol.SASL_PLAINTEXT)
            .advertisedAddress("EXTERNAL", (nodeId, boundPort) -> "localhost:" + boundPort)
            .brokerProperty("listener.name.external.sasl.enabled.mechanisms", "PLAIN,SCRAM-SHA-512")
            .brokerProperty("listener.name.external.plain.sasl.jaas.config", JAAS)
            .brokerProperty("listener.name.external.scram-sha-512.sasl.jaas.config",
                "org.apache.kafka.common.security.scram.ScramLoginModule required;")
            .build()
            .start();
    }

    @AfterAll
    static void stop() {
        cluster.close();
    }

    @Test
    void eachListenerAdvertisesItsOwnAddress() throws Exception {
        Node plain = cluster.admin().describeCluster().nodes().get(30, TimeUnit.SECONDS).iterator().next();
        assertEquals(cluster.brokerAddress(0), plain.host() + ":" + plain.port());

        try (Admin external = Admin.create(sasl("alice-secret"))) {
            Node node = external.describeCluster().nodes().get(30, TimeUnit.SECONDS).iterator().next();
            assertEquals("localhost", node.host());
            assertEquals(cluster.brokerAddress(0, "EXTERNAL"), KafkaCluster.HOST + ":" + node.port());
        }
    }

    @Test
    void saslListenerServesAuthenticatedClientsAndRefusesOthers() throws Exception {
        cluster.createTopic("sasl", 1, 1);
        Records.produce(sasl("alice-secret"), "sasl", List.of("secret-1", "secret-2"));
        assertEquals(List.of("secret-1", "secret-2"),
            Records.consume(withEarliest(sasl("alice-secret")), "sasl", 1, 2, Duration.ofSeconds(30)));

        try (Admin intruder = Admin.create(sasl("wrong"))) {
            ExecutionException failure = assertThrows(ExecutionException.class,
                () -> intruder.describeCluster().clusterId().get(30, TimeUnit.SECONDS));
            assertInstanceOf(SaslAuthenticationException.class, failure.getCause());
        }
    }

    @Test
    void scramCredentialsCreatedThroughAdminAuthenticate() throws Exception {
        cluster.admin().alterUserScramCredentials(List.of(new UserScramCredentialUpsertion("bob",
                new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096), "bob-secret")))
            .all().get(30, TimeUnit.SECONDS);
        Map<String, Object> config = cluster.clientConfig("EXTERNAL");
        config.put(SaslConfigs.SASL_MECHANISM, "SCRAM-SHA-512");
        config.put(SaslConfigs.SASL_JAAS_CONFIG, "org.apache.kafka.common.security.scram.ScramLoginModule required "
            + "username=\"bob\" password=\"bob-secret\";");
        try (Admin bob = Admin.create(config)) {
            // The credential reaches the broker through the metadata log, a moment after the call returns.
            Await.until(Duration.ofSeconds(30), "bob to authenticate with SCRAM-SHA-512",
                () -> cluster.clusterId().equals(bob.describeCluster().clusterId().get(10, TimeUnit.SECONDS)));
        }
    }

    private static Map<String, Object> sasl(String password) {
        Map<String, Object> config = cluster.clientConfig("EXTERNAL");
        assertEquals("SASL_PLAINTEXT", config.get(AdminClientConfig.SECURITY_PROTOCOL_CONFIG));
        config.put(SaslConfigs.SASL_MECHANISM, "PLAIN");
        config.put(SaslConfigs.SASL_JAAS_CONFIG, "org.apache.kafka.common.security.plain.PlainLoginModule required "
            + "username=\"alice\" password=\"" + password + "\";");
        return config;
    }

    private static Map<String, Object> withEarliest(Map<String, Object> config) {
        config.put("auto.offset.reset", "earliest");
        return config;
    }
}
