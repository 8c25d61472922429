package dev.weft.proxy.resilience;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import dev.weft.iocore.testing.LogCapture;
import dev.weft.proxy.config.ConfigException;
import dev.weft.proxy.config.ConfigLoader;
import dev.weft.proxy.session.ConnectionsPerIp;
import dev.weft.proxy.testing.Poll;
import dev.weft.proxy.testing.ProxyFixture;
import dev.weft.proxy.testing.RawKafkaClient;
import dev.weft.proxy.testing.ScrapedMetrics;
import dev.weft.proxy.testing.VirtualClusterFixture;
import dev.weft.proxy.testing.VirtualClusterKind;
import dev.weft.testkit.KafkaCluster;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code server.maxConnectionsPerIp} and its overrides, as Kafka's {@code max.connections.per.ip}: a
 * client address holding its limit has its next connection closed as it is accepted (before a byte is
 * read; a WARN line and {@code weft_errors_total{error="connections_per_ip"}} say so), gets one again
 * once one of its own closes, and other addresses are not affected; for every kind of virtual cluster
 * ({@link VirtualClusterFixture}: the check sits where every gateway accepts). Clients come from
 * different loopback source addresses (127.0.0.1 and 127.0.0.2).
 */
class ConnectionsPerIpTest {

    private static KafkaCluster kafka;
    private static VirtualClusterFixture fixture;

    @BeforeAll
    static void start() {
        kafka = KafkaCluster.builder().brokers(1).build().start();
        fixture = VirtualClusterFixture.over(kafka)
                .serverSettings(", maxConnectionsPerIp: 2, maxConnectionsPerIpOverrides: { \"127.0.0.2\": 3, \"::1\": 0 }")
                .build();
    }

    @AfterAll
    static void stop() {
        if (fixture != null) {
            fixture.close();
        }
    }

    private static RawKafkaClient connectFrom(VirtualClusterKind kind, String source) throws IOException {
        InetSocketAddress bootstrap = fixture.bootstrapAddress(kind);
        return new RawKafkaClient(bootstrap.getHostString(), bootstrap.getPort(), source);
    }

    /** The connection is served: an ApiVersions request is answered. */
    private static boolean served(RawKafkaClient c) {
        try {
            c.send(ApiKeys.API_VERSIONS.id, (short) 3, 7, new ApiVersionsRequestData().setClientSoftwareName("weft-test")
                    .setClientSoftwareVersion("1"));
            ApiVersionsResponseData answer = (ApiVersionsResponseData) c.readResponse(ApiKeys.API_VERSIONS.id, (short) 3, 7);
            return answer.errorCode() == Errors.NONE.code();
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * A served connection from {@code source}, once there is room: the other test's connections from
     * the same address may still be closing on the proxy's side.
     */
    private static RawKafkaClient servedSoon(VirtualClusterKind kind, String source) throws Exception {
        RawKafkaClient[] served = new RawKafkaClient[1];
        Poll.until(Duration.ofSeconds(10), "a connection from " + source + " to be served", () -> {
            try {
                RawKafkaClient c = connectFrom(kind, source);
                if (served(c)) {
                    served[0] = c;
                    return true;
                }
                c.close();
                return false;
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        return served[0];
    }

    /** The proxy closed it without reading: the first read sees the end of the stream. */
    private static boolean closedByTheProxy(RawKafkaClient c) throws IOException {
        c.readTimeout(Duration.ofSeconds(10));
        try {
            return c.read() == -1;
        } catch (java.net.SocketException reset) {
            return true;
        }
    }

    private static double refusals(VirtualClusterKind kind) {
        return ScrapedMetrics.of(fixture.proxy(kind)).sum("weft_errors_total", Map.of("error", "connections_per_ip"));
    }

    @ParameterizedTest
    @MethodSource("dev.weft.proxy.testing.VirtualClusterKind#all")
    void anAddressAtItsLimitHasItsNextConnectionClosedAndGetsOneAgainOnceOneOfItsOwnCloses(VirtualClusterKind kind) throws Exception {
        List<RawKafkaClient> open = new ArrayList<>();
        try (LogCapture log = LogCapture.of(ConnectionsPerIp.class)) {
            open.add(servedSoon(kind, "127.0.0.1"));
            open.add(connectFrom(kind, "127.0.0.1"));
            assertTrue(served(open.get(1)), "the second connection of 2 is served");
            double refusedBefore = refusals(kind);
            try (RawKafkaClient third = connectFrom(kind, "127.0.0.1")) {
                assertTrue(closedByTheProxy(third), "the third connection from 127.0.0.1 is closed as accepted");
            }
            assertTrue(log.messages(Level.WARN).stream().anyMatch(m -> m.contains("127.0.0.1 already holds 2 client connection(s)")
                    && m.contains("server.maxConnectionsPerIp")), log.messages(Level.WARN).toString());
            assertEquals(refusedBefore + 1, refusals(kind), "counted in weft_errors_total{error=\"connections_per_ip\"}");

            // a kafka-clients client from the same address is refused too while the limit is held
            try (Admin admin = Admin.create(Map.of("bootstrap.servers", fixture.bootstrap(kind),
                    "default.api.timeout.ms", 3_000, "request.timeout.ms", 2_000, "reconnect.backoff.max.ms", 200))) {
                assertThrows(java.util.concurrent.ExecutionException.class,
                        () -> admin.describeCluster().nodes().get(10, TimeUnit.SECONDS));
            }

            open.remove(0).close();
            open.add(servedSoon(kind, "127.0.0.1")); // once the proxy saw it close
            try (Admin admin = Admin.create(Map.of("bootstrap.servers", fixture.bootstrap(kind)))) {
                open.forEach(c -> {
                    try {
                        c.close();
                    } catch (IOException ignored) {
                        // closing
                    }
                });
                open.clear();
                assertEquals(fixture.visibleBrokers(kind), admin.describeCluster().nodes().get(30, TimeUnit.SECONDS).size(),
                        "with its connections closed, a kafka-clients client from 127.0.0.1 is served");
            }
        } finally {
            for (RawKafkaClient c : open) {
                c.close();
            }
        }
    }

    @Test
    void anOverrideGivesItsAddressItsOwnLimitAndOtherAddressesKeepTheirs() throws Exception {
        VirtualClusterKind kind = VirtualClusterKind.PASS_THROUGH; // the count is the proxy's, not the kind's
        List<RawKafkaClient> open = new ArrayList<>();
        try {
            open.add(servedSoon(kind, "127.0.0.2"));
            for (int i = 1; i < 3; i++) {
                open.add(connectFrom(kind, "127.0.0.2"));
                assertTrue(served(open.get(i)), "127.0.0.2's connection " + (i + 1) + " of 3 (its override) is served");
            }
            try (RawKafkaClient fourth = connectFrom(kind, "127.0.0.2")) {
                assertTrue(closedByTheProxy(fourth), "127.0.0.2's fourth connection is closed");
            }
            servedSoon(kind, "127.0.0.1").close(); // 127.0.0.1 holds its own count
        } finally {
            for (RawKafkaClient c : open) {
                c.close();
            }
        }
    }

    @Test
    void aBadLimitOrAddressIsOneLineNamingItsPath() {
        ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.parse(
                ProxyFixture.singleClusterConfig("enabled: false", "127.0.0.1:9092", 1,
                        ", maxConnectionsPerIp: 0, maxConnectionsPerIpOverrides: { \"broker.example.com\": 5, \"10.0.0.1\": -1 }",
                        19092, 0, 0), "weft.yaml"));
        List<String> problems = e.problems();
        assertEquals(3, problems.size(), problems.toString());
        assertTrue(problems.stream().anyMatch(p -> p.contains("server.maxConnectionsPerIp") && !p.contains("Overrides")), problems.toString());
        assertTrue(problems.stream().anyMatch(p -> p.contains("server.maxConnectionsPerIpOverrides.broker.example.com")
                && p.contains("is not an IP address")), problems.toString());
        assertTrue(problems.stream().anyMatch(p -> p.contains("server.maxConnectionsPerIpOverrides.10.0.0.1")), problems.toString());
    }
}
