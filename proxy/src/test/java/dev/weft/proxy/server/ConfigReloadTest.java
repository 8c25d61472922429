package dev.weft.proxy.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.proxy.config.ConfigLoader;
import dev.weft.proxy.net.FreePorts;
import dev.weft.proxy.reload.ReloadOutcome;
import dev.weft.proxy.testing.Poll;
import dev.weft.proxy.testing.ScrapedMetrics;
import dev.weft.proxy.testing.SteadyTraffic;
import dev.weft.proxy.testing.TestPki;
import dev.weft.testkit.KafkaCluster;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Live reconfiguration against real brokers and kafka-clients producers and consumers that keep running
 * across the reload: a route and a cluster added behind a topic weave, a virtual cluster removed, TLS
 * certificates replaced, and a file that does not validate. Nothing acknowledged is lost, and the
 * connections of clients whose virtual cluster the reload leaves alone, or only re-routes, are never
 * closed: the clients' own {@code connection-creation-total} and {@code connection-close-total} stay the same.
 * The three clusters are shared; each case runs its own proxy from its own file.
 */
class ConfigReloadTest {

    @TempDir
    static Path dir;

    private static KafkaCluster east;
    private static KafkaCluster west;
    private static KafkaCluster north;

    @BeforeAll
    static void start() throws Exception {
        east = KafkaCluster.builder().brokers(1).build();
        west = KafkaCluster.builder().brokers(1).build();
        north = KafkaCluster.builder().brokers(1).build();
        east.start();
        west.start();
        north.start();
        try (Admin e = Admin.create(Map.of("bootstrap.servers", east.bootstrapServers()));
                Admin w = Admin.create(Map.of("bootstrap.servers", west.bootstrapServers()));
                Admin n = Admin.create(Map.of("bootstrap.servers", north.bootstrapServers()))) {
            e.createTopics(List.of(new NewTopic("east-orders", 2, (short) 1), new NewTopic("east-audit", 1, (short) 1)))
                    .all().get(60, TimeUnit.SECONDS);
            w.createTopics(List.of(new NewTopic("west-orders", 2, (short) 1))).all().get(60, TimeUnit.SECONDS);
            n.createTopics(List.of(new NewTopic("north-orders", 1, (short) 1))).all().get(60, TimeUnit.SECONDS);
        }
    }

    @AfterAll
    static void stop() {
        for (KafkaCluster c : new KafkaCluster[] {east, west, north}) {
            if (c != null) {
                c.close();
            }
        }
    }

    /** The weave's gateway: bootstrap port {@code p}, node ids 0-5 on p+1..p+6 (room for three routes). */
    private static String wovenConfig(int p, int plainPort, boolean withNorth) {
        return """
                server: { eventLoops: 2, drainTimeoutMs: 3000 }
                admin: { enabled: false }
                clusters:
                  east: { bootstrap: "%s" }
                  west: { bootstrap: "%s" }
                %s
                routers:
                  weave:
                    type: topic-weave
                    routes:
                      - { name: east, target: { cluster: east } }
                      - { name: west, target: { cluster: west } }
                %s
                virtualClusters:
                  woven:
                    target: { router: weave }
                    gateways:
                      - { name: plain, bind: "127.0.0.1:%d", brokerPorts: { start: %d, nodeIds: "0-5" } }
                  direct:
                    target: { cluster: east }
                    gateways:
                      - { name: plain, bind: "127.0.0.1:%d", brokerPorts: { start: %d, nodeIds: "0" } }
                """.formatted(east.bootstrapServers(), west.bootstrapServers(),
                withNorth ? "  north: { bootstrap: \"" + north.bootstrapServers() + "\" }" : "",
                withNorth ? "      - { name: north, target: { cluster: north } }" : "",
                p, p + 1, plainPort, plainPort + 1);
    }

    private static WeftProxy startFrom(Path file) throws Exception {
        return WeftProxy.start(ConfigLoader.load(file));
    }

    private static void write(Path file, String yaml) throws Exception {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.writeString(tmp, yaml);
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    @Test
    void aRouteAndAClusterAddedBehindATopicWeaveTakeEffectWhileClientsStayConnected() throws Exception {
        int p = FreePorts.randomRange(7);
        int q = FreePorts.randomRange(2);
        Path file = dir.resolve("weave.yaml");
        write(file, wovenConfig(p, q, false));
        try (WeftProxy proxy = startFrom(file)) {
            String woven = proxy.bootstrapAddresses("woven").get(0);
            String direct = proxy.bootstrapAddresses("direct").get(0);
            try (SteadyTraffic onWeave = SteadyTraffic.start(woven, "east-orders", "reload-weave", Map.of(), east);
                    SteadyTraffic onDirect = SteadyTraffic.start(direct, "east-audit", "reload-direct", Map.of(), east)) {
                onWeave.awaitAcked(200);
                onDirect.awaitAcked(200);
                SteadyTraffic.Connections weaveBefore = onWeave.connections();
                SteadyTraffic.Connections directBefore = onDirect.connections();
                try (Admin admin = Admin.create(Map.of("bootstrap.servers", woven))) {
                    assertFalse(admin.listTopics().names().get(30, TimeUnit.SECONDS).contains("north-orders"));
                }

                write(file, wovenConfig(p, q, true));
                ReloadOutcome outcome = proxy.reload();
                assertTrue(outcome.applied(), outcome.describe());
                assertTrue(outcome.lines().getFirst().contains("changed: woven") && outcome.lines().getFirst().contains("north"),
                        outcome.describe());

                try (Admin admin = Admin.create(Map.of("bootstrap.servers", woven))) {
                    Poll.until(Duration.ofSeconds(30), "north-orders shown by the weave", () -> {
                        try {
                            return admin.listTopics().names().get(30, TimeUnit.SECONDS).contains("north-orders");
                        } catch (Exception e) {
                            throw new IllegalStateException(e);
                        }
                    });
                }
                try (SteadyTraffic toNorth = SteadyTraffic.start(woven, "north-orders", "reload-north", Map.of(), north)) {
                    toNorth.awaitAcked(50);
                    toNorth.finish();
                    assertEquals(toNorth.acked(), toNorth.landed(), "every record to north-orders landed on north");
                }
                int weaveAtReload = onWeave.acked();
                onWeave.awaitAcked(weaveAtReload + 200);
                onDirect.awaitAcked(onDirect.acked() + 200);
                onWeave.finish();
                onDirect.finish();
                assertEquals(weaveBefore, onWeave.connections(),
                        "the weave's clients moved to the new router without reconnecting");
                assertEquals(directBefore, onDirect.connections(), "the untouched virtual cluster's clients were never disconnected");
                assertEquals(0, onWeave.failed(), "no send failed across the reload");
                assertEquals(onWeave.acked(), onWeave.landed(), "every acknowledged record is on east");
                assertEquals(onDirect.acked(), onDirect.landed(), "every acknowledged record is on east");
                assertTrue(onWeave.consumed() >= weaveAtReload, "the group kept consuming through the reload");
            }
        }
    }

    @Test
    void aRemovedVirtualClusterDrainsAndClosesWhileTheOthersCarryOn() throws Exception {
        int p = FreePorts.randomRange(7);
        int q = FreePorts.randomRange(2);
        Path file = dir.resolve("remove.yaml");
        String both = wovenConfig(p, q, false);
        write(file, both);
        try (WeftProxy proxy = startFrom(file)) {
            String woven = proxy.bootstrapAddresses("woven").get(0);
            String direct = proxy.bootstrapAddresses("direct").get(0);
            try (SteadyTraffic onWeave = SteadyTraffic.start(woven, "west-orders", "remove-weave", Map.of(), west);
                    SteadyTraffic onDirect = SteadyTraffic.start(direct, "east-audit", "remove-direct", Map.of(), east)) {
                onWeave.awaitAcked(100);
                onDirect.awaitAcked(100);
                SteadyTraffic.Connections weaveBefore = onWeave.connections();

                String withoutDirect = both.substring(0, both.indexOf("  direct:"));
                write(file, withoutDirect);
                ReloadOutcome outcome = proxy.reload();
                assertTrue(outcome.applied(), outcome.describe());
                assertEquals("removed: direct", outcome.lines().getFirst(), outcome.describe());

                Poll.until(Duration.ofSeconds(20), "the removed virtual cluster's port refuses connections", () -> {
                    try (java.net.Socket s = new java.net.Socket("127.0.0.1", q)) {
                        return false;
                    } catch (java.io.IOException refused) {
                        return true;
                    }
                });
                Poll.until(Duration.ofSeconds(20), "the removed virtual cluster's producer was disconnected",
                        () -> onDirect.connections().closed() > 0);
                onWeave.awaitAcked(onWeave.acked() + 100);
                onWeave.finish();
                assertEquals(weaveBefore, onWeave.connections(), "the remaining virtual cluster's clients were never disconnected");
                assertEquals(0, onWeave.failed());
                assertEquals(onWeave.acked(), onWeave.landed(), "every acknowledged record is on west");
                assertTrue(onDirect.landed() >= onDirect.acked(),
                        "what the removed virtual cluster acknowledged before it drained is on east");
            }
        }
    }

    @Test
    void aFileThatDoesNotValidateIsRefusedWithItsPathsAndTheOldConfigKeepsServing() throws Exception {
        int p = FreePorts.randomRange(7);
        int q = FreePorts.randomRange(2);
        Path file = dir.resolve("invalid.yaml");
        String good = wovenConfig(p, q, false).replace("admin: { enabled: false }", "admin: { bind: \"127.0.0.1:0\" }");
        write(file, good);
        try (WeftProxy proxy = startFrom(file)) {
            String woven = proxy.bootstrapAddresses("woven").get(0);
            String admin = "http://127.0.0.1:" + proxy.adminAddress().orElseThrow().getPort();
            try (SteadyTraffic onWeave = SteadyTraffic.start(woven, "east-orders", "invalid-weave", Map.of(), east)) {
                onWeave.awaitAcked(100);
                SteadyTraffic.Connections before = onWeave.connections();
                write(file, good.replace("type: topic-weave", "type: topic-weave\n    colisions: qualify")
                        .replace("nodeIds: \"0-5\"", "nodeIds: \"5-0\""));

                HttpResponse<String> refused = post(admin + "/reload");
                assertEquals(422, refused.statusCode(), refused.body());
                assertTrue(refused.body().startsWith("refused; the running config keeps serving\n"), refused.body());
                assertTrue(refused.body().contains(file + ": routers.weave.colisions"), refused.body());
                assertTrue(refused.body().contains(file + ": virtualClusters.woven.gateways[0].brokerPorts.nodeIds"), refused.body());
                ScrapedMetrics metrics = ScrapedMetrics.of(proxy);
                assertEquals(1, metrics.sum("weft_config_reloads_total", Map.of("outcome", "refused")));
                assertEquals(0, metrics.sum("weft_config_last_reload_success", Map.of()));

                onWeave.awaitAcked(onWeave.acked() + 100);
                write(file, good.replace("server: { eventLoops: 2, drainTimeoutMs: 3000 }", "server: { eventLoops: 1, drainTimeoutMs: 3000 }"));
                HttpResponse<String> applied = post(admin + "/reload");
                assertEquals(200, applied.statusCode(), applied.body());
                assertEquals(List.of("applied", "nothing changed", "server: changed; server settings take effect at the next restart"),
                        applied.body().lines().toList());
                metrics = ScrapedMetrics.of(proxy);
                assertEquals(1, metrics.sum("weft_config_reloads_total", Map.of("outcome", "applied")));
                assertEquals(1, metrics.sum("weft_config_last_reload_success", Map.of()));
                onWeave.finish();
                assertEquals(before, onWeave.connections(), "neither reload closed a connection");
                assertEquals(0, onWeave.failed());
                assertEquals(onWeave.acked(), onWeave.landed(), "every acknowledged record is on east");
            }
        }
    }

    @Test
    void replacedCertificatesAreUsedForNewHandshakesWhileOpenTlsConnectionsStay() throws Exception {
        TestPki first = new TestPki(Files.createDirectories(dir.resolve("pki-1")));
        TestPki second = new TestPki(Files.createDirectories(dir.resolve("pki-2")));
        TestPki.Issued a = first.issue("localhost", "127.0.0.1");
        TestPki.Issued b = second.issue("localhost", "127.0.0.1");
        Path cert = dir.resolve("gateway.pem");
        Path key = dir.resolve("gateway.key");
        Files.copy(a.certificatePem(), cert, StandardCopyOption.REPLACE_EXISTING);
        Files.copy(a.keyPem(), key, StandardCopyOption.REPLACE_EXISTING);
        int p = FreePorts.randomRange(2);
        Path file = dir.resolve("tls.yaml");
        write(file, """
                server: { eventLoops: 2 }
                admin: { enabled: false }
                clusters:
                  east: { bootstrap: "%s" }
                virtualClusters:
                  secure:
                    target: { cluster: east }
                    gateways:
                      - name: tls
                        bind: "127.0.0.1:%d"
                        advertisedHost: localhost
                        brokerPorts: { start: %d, nodeIds: "0" }
                        tls: { certificate: "%s", key: "%s" }
                """.formatted(east.bootstrapServers(), p, p + 1, cert, key));
        try (WeftProxy proxy = startFrom(file)) {
            String bootstrap = "localhost:" + p;
            Map<String, Object> trustFirst = Map.of("security.protocol", "SSL", "ssl.truststore.type", "PEM",
                    "ssl.truststore.location", first.caPem().toString());
            try (SteadyTraffic open = SteadyTraffic.start(bootstrap, "east-audit", "tls-open", trustFirst, east)) {
                open.awaitAcked(100);
                SteadyTraffic.Connections before = open.connections();
                assertEquals(TestPki.issuerOf(first.caPem()), TestPki.serverIssuer("127.0.0.1", p));

                Files.copy(b.certificatePem(), cert, StandardCopyOption.REPLACE_EXISTING);
                Files.copy(b.keyPem(), key, StandardCopyOption.REPLACE_EXISTING);
                ReloadOutcome outcome = proxy.reload();
                assertTrue(outcome.applied(), outcome.describe());

                assertEquals(TestPki.issuerOf(second.caPem()), TestPki.serverIssuer("127.0.0.1", p),
                        "a new handshake gets the new certificate");
                try (Admin trustsSecond = Admin.create(Map.of("bootstrap.servers", bootstrap, "security.protocol", "SSL",
                        "ssl.truststore.type", "PEM", "ssl.truststore.location", second.caPem().toString()))) {
                    assertEquals(east.clusterId(), trustsSecond.describeCluster().clusterId().get(30, TimeUnit.SECONDS));
                }
                open.awaitAcked(open.acked() + 100);
                open.finish();
                assertEquals(before, open.connections(), "the TLS connections open before the reload stayed open");
                assertEquals(0, open.failed());
                assertEquals(open.acked(), open.landed(), "every acknowledged record is on east");
            }
        }
    }

    private static HttpResponse<String> post(String uri) throws Exception {
        try (HttpClient http = HttpClient.newHttpClient()) {
            return http.send(HttpRequest.newBuilder(URI.create(uri)).POST(HttpRequest.BodyPublishers.noBody())
                    .timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofString());
        }
    }
}
