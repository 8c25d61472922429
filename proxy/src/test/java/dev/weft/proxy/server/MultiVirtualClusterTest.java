package dev.weft.proxy.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.proxy.config.ConfigLoader;
import dev.weft.proxy.net.FreePorts;
import dev.weft.proxy.testing.TestPki;
import dev.weft.testkit.KafkaCluster;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** One proxy process, two virtual clusters over two real clusters; one of them has a plain and a TLS gateway. */
class MultiVirtualClusterTest {

    @TempDir
    static Path dir;

    private static KafkaCluster east;
    private static KafkaCluster west;
    private static WeftProxy proxy;
    private static TestPki pki;

    @BeforeAll
    static void start() throws Exception {
        east = KafkaCluster.builder().brokers(1).build();
        west = KafkaCluster.builder().brokers(1).build();
        east.start();
        west.start();
        pki = new TestPki(dir);
        TestPki.Issued cert = pki.issue("proxy");
        for (int attempt = 0; proxy == null; attempt++) {
            try {
                proxy = startProxy(cert);
            } catch (dev.weft.proxy.gateway.GatewayBindException e) {
                if (attempt == 4) {
                    throw e; // free ports kept being taken between the check and the bind
                }
            }
        }
    }

    private static WeftProxy startProxy(TestPki.Issued cert) throws Exception {
        int p = FreePorts.randomRange(6);
        int eastId = east.brokerIds().get(0);
        int westId = west.brokerIds().get(0);
        return WeftProxy.start(ConfigLoader.parse("""
                server: { eventLoops: 2 }
                admin: { enabled: false }
                clusters:
                  east: { bootstrap: "%s" }
                  west: { bootstrap: "%s" }
                virtualClusters:
                  east:
                    target: { cluster: east }
                    gateways:
                      - { name: inside, bind: "127.0.0.1:%d", brokerPorts: { start: %d, nodeIds: "%d" } }
                      - name: outside
                        bind: "127.0.0.1:%d"
                        brokerPorts: { start: %d, nodeIds: "%d" }
                        tls: { certificate: "%s", key: "%s" }
                  west:
                    target: { cluster: west }
                    gateways:
                      - { name: inside, bind: "127.0.0.1:%d", brokerPorts: { start: %d, nodeIds: "%d" } }
                """.formatted(east.bootstrapServers(), west.bootstrapServers(),
                p, p + 1, eastId, p + 2, p + 3, eastId, cert.certificatePem(), cert.keyPem(),
                p + 4, p + 5, westId), "multi"));
    }

    @AfterAll
    static void stop() {
        if (proxy != null) {
            proxy.close();
        }
        if (east != null) {
            east.close();
        }
        if (west != null) {
            west.close();
        }
    }

    @Test
    void eachVirtualClusterAndGatewayReachesItsOwnCluster() throws Exception {
        List<String> eastGateways = proxy.bootstrapAddresses("east");
        assertEquals(2, eastGateways.size());
        Map<String, Object> tls = Map.of("security.protocol", "SSL",
                "ssl.truststore.type", "PEM", "ssl.truststore.location", pki.caPem().toString());
        try (Admin eastPlain = admin(eastGateways.get(0), Map.of());
                Admin eastTls = admin(eastGateways.get(1), tls);
                Admin westPlain = admin(proxy.bootstrapAddresses("west").get(0), Map.of())) {
            assertEquals(east.clusterId(), eastPlain.describeCluster().clusterId().get(30, TimeUnit.SECONDS));
            assertEquals(east.clusterId(), eastTls.describeCluster().clusterId().get(30, TimeUnit.SECONDS));
            assertEquals(west.clusterId(), westPlain.describeCluster().clusterId().get(30, TimeUnit.SECONDS));

            eastPlain.createTopics(List.of(new NewTopic("only-east", 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
            // a created topic reaches every broker's metadata a moment later: the TLS gateway's broker may not have it yet
            java.util.concurrent.atomic.AtomicReference<Set<String>> seenByTls =
                    new java.util.concurrent.atomic.AtomicReference<>(Set.of());
            boolean shown = dev.weft.proxy.testing.Poll.within(java.time.Duration.ofSeconds(15), () -> {
                try {
                    seenByTls.set(eastTls.listTopics().names().get(30, TimeUnit.SECONDS));
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
                return seenByTls.get().contains("only-east");
            });
            Set<String> seenByWest = westPlain.listTopics().names().get(30, TimeUnit.SECONDS);
            assertTrue(shown, "the TLS gateway shows the same cluster: " + seenByTls.get());
            assertFalse(seenByWest.contains("only-east"), "the other virtual cluster does not: " + seenByWest);
        }
    }

    private static Admin admin(String bootstrap, Map<String, Object> security) {
        Map<String, Object> c = new HashMap<>(security);
        c.put("bootstrap.servers", bootstrap);
        return Admin.create(c);
    }
}
