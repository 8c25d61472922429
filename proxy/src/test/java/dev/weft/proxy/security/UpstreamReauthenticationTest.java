package dev.weft.proxy.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import dev.weft.iocore.testing.LogCapture;
import dev.weft.proxy.config.ConfigLoader;
import dev.weft.proxy.net.FreePorts;
import dev.weft.proxy.server.WeftProxy;
import dev.weft.proxy.testing.Poll;
import dev.weft.proxy.testing.SaslListener;
import dev.weft.proxy.testing.SteadyTraffic;
import dev.weft.proxy.upstream.UpstreamSaslHandshake;
import dev.weft.testkit.KafkaCluster;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * KIP-368 on Weft's own links: a broker whose SASL sessions last {@value #SESSION_MS} ms
 * ({@code connections.max.reauth.ms}) closes a connection at its first request after the session ended.
 * Weft's links re-authenticate before that, on the same connection, while an idempotent producer and a
 * consumer group run for several session lifetimes through a mirrored virtual cluster that terminates
 * SASL (its clients log in to Weft with PLAIN) and a topic-woven one (its clients do not log in):
 * the broker kills no expired connection, no client connection to Weft closes or is opened again, no
 * send fails, and every acknowledged record is on the cluster. And through a pass-through virtual
 * cluster, where the clients' own SASL goes to the broker, the clients' own re-authentications pass
 * through Weft the same way.
 */
class UpstreamReauthenticationTest {

    /**
     * Long enough that the answer to a consumer's Fetch (up to its 500 ms fetch.max.wait.ms) and what
     * is queued behind it reach the broker before the session ends, when re-authentication begins at
     * 85% of it (a broker reads a connection's next request only once it answered the one before).
     */
    private static final long SESSION_MS = 4000;
    private static final String EXTERNAL = "EXTERNAL";

    private static KafkaCluster kafka;
    private static WeftProxy proxy;

    @TempDir
    static Path dir;

    @BeforeAll
    static void start() throws Exception {
        kafka = SaslListener.scram(KafkaCluster.builder().brokers(1), "SCRAM-SHA-512")
                .brokerProperty("connections.max.reauth.ms", Long.toString(SESSION_MS))
                .build();
        kafka.start();
        SaslListener.addScramUsers(kafka, Map.of("weft", "weft-secret", "carol", "carol-secret"), ScramMechanism.SCRAM_SHA_512);
        for (String topic : new String[] {"reauth-mirrored", "reauth-woven", "reauth-passthrough"}) {
            kafka.createTopic(topic, 2, 1);
            kafka.awaitLeaders(topic, 2);
        }
        Path credentials = dir.resolve("users");
        TestCredentials.add(credentials, "alice", "alice-secret");
        int port = FreePorts.randomRange(9);
        proxy = WeftProxy.start(ConfigLoader.parse("""
                server: { eventLoops: 1 }
                admin: { enabled: false }
                clusters:
                  east:
                    bootstrap: "%1$s"
                    sasl: { mechanism: SCRAM-SHA-512, username: weft, password: weft-secret }
                routers:
                  weave:
                    type: topic-weave
                    routes:
                      - { name: only, target: { cluster: east } }
                virtualClusters:
                  mirrored:
                    target: { cluster: east }
                    gateways:
                      - { name: plain, bind: "127.0.0.1:%2$d", brokerPorts: { start: %3$d, nodeIds: "0-1" } }
                    authentication:
                      sasl: { mechanisms: [PLAIN], credentials: "%6$s" }
                  woven:
                    target: { router: weave }
                    gateways:
                      - { name: plain, bind: "127.0.0.1:%4$d", brokerPorts: { start: %5$d, nodeIds: "0-1" } }
                  passthrough:
                    target: { cluster: east }
                    gateways:
                      - { name: plain, bind: "127.0.0.1:%7$d", brokerPorts: { start: %8$d, nodeIds: "0-1" } }
                """.formatted(kafka.bootstrapServers(EXTERNAL), port, port + 1, port + 3, port + 4, credentials, port + 6, port + 7),
                "reauth.yaml"));
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

    /** The mirrored virtual cluster's clients log in to Weft as alice; the woven one's do not log in. */
    private static Map<String, Object> login(String virtualCluster) {
        return virtualCluster.equals("woven") ? Map.of() : Map.of("security.protocol", "SASL_PLAINTEXT", "sasl.mechanism", "PLAIN",
                "sasl.jaas.config", "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"alice\" password=\"alice-secret\";");
    }

    private static double broker(String metric) {
        return kafka.socketServerMetric(kafka.brokerIds().get(0), EXTERNAL, metric);
    }

    @ParameterizedTest
    @ValueSource(strings = {"mirrored", "woven"})
    void linksReauthenticateOnTheirConnectionAndNothingIsCutOrLost(String virtualCluster) throws Exception {
        try (LogCapture log = LogCapture.of(UpstreamSaslHandshake.class, Level.DEBUG);
                SteadyTraffic traffic = SteadyTraffic.start(proxy.bootstrapAddresses(virtualCluster).get(0), "reauth-" + virtualCluster,
                        "reauth-" + virtualCluster, login(virtualCluster), kafka)) {
            traffic.awaitAcked(100);
            Baseline before = Baseline.of(traffic);
            // Six re-authentications over the three or four links Weft holds for these clients (the
            // producer's, the group's fetch and coordinator links): the traffic ran across at least two
            // session lifetimes of each.
            Poll.until(Duration.ofSeconds(30), "Weft's links to re-authenticate six times",
                    () -> log.count(Level.DEBUG, "re-authenticated") >= 6,
                    () -> log.count(Level.DEBUG, "re-authenticated") + " re-authenticated, " + log.count(Level.DEBUG, ": authenticated")
                            + " links authenticated anew; WARN: " + log.messages(Level.WARN));
            traffic.finish();
            before.assertNothingCutOrLost(traffic);
            assertTrue(log.messages(Level.WARN).isEmpty(), "no link failed: " + log.messages(Level.WARN));
        }
    }

    /**
     * The clients log in to the broker through Weft (SCRAM-SHA-512 as carol) and re-authenticate
     * themselves, as kafka-clients does when SaslAuthenticate gives a lifetime: Weft forwards their
     * SaslHandshake and SaslAuthenticate on the connection's own link like any request.
     */
    @Test
    void clientsReauthenticateThemselvesThroughAPassThroughVirtualCluster() throws Exception {
        Map<String, Object> carol = Map.of("security.protocol", "SASL_PLAINTEXT", "sasl.mechanism", "SCRAM-SHA-512",
                "sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"carol\" password=\"carol-secret\";");
        try (SteadyTraffic traffic = SteadyTraffic.start(proxy.bootstrapAddresses("passthrough").get(0), "reauth-passthrough",
                "reauth-passthrough", carol, kafka)) {
            traffic.awaitAcked(100);
            Baseline before = Baseline.of(traffic);
            Poll.until(Duration.ofSeconds(30), "the clients to re-authenticate through Weft four times",
                    () -> traffic.reauthentications() >= 4, () -> traffic.reauthentications() + " re-authenticated");
            traffic.finish();
            before.assertNothingCutOrLost(traffic);
        }
    }

    /** The clients' connections and acknowledgements, and the broker's expiry counts, once traffic runs. */
    private record Baseline(SteadyTraffic.Connections connections, int acked, double killed, double failedReauthentications) {

        static Baseline of(SteadyTraffic traffic) {
            return new Baseline(traffic.connections(), traffic.acked(), broker("expired-connections-killed-count"),
                    broker("failed-reauthentication-total"));
        }

        /** Since then: the producer went on, nothing failed or was lost, no connection was cut on either side. */
        void assertNothingCutOrLost(SteadyTraffic traffic) {
            assertEquals(0, traffic.failed(), "no send failed");
            assertTrue(traffic.acked() > acked + 100, "the producer went on: " + acked + " -> " + traffic.acked());
            assertEquals(traffic.acked(), traffic.landed(), "every acknowledged record is on the cluster, once");
            assertEquals(killed, broker("expired-connections-killed-count"),
                    "the broker closed no connection because its session had expired");
            assertEquals(failedReauthentications, broker("failed-reauthentication-total"), "no re-authentication failed");
            assertEquals(connections, traffic.connections(), "the clients' connections to Weft were neither closed nor opened again");
        }
    }
}
