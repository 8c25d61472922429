package dev.weft.proxy.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.proxy.config.ConfigLoader;
import dev.weft.proxy.net.FreePorts;
import dev.weft.proxy.server.WeftProxy;
import dev.weft.proxy.testing.ProxyFixture;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** A proxy whose upstream cluster cannot be reached: alive, serving metrics, and not ready, saying why. */
class ReadinessTest {

    private static HttpClient http;

    @BeforeAll
    static void client() {
        http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    }

    @AfterAll
    static void closeClient() {
        http.close();
    }

    @Test
    void notReadyWhileTheBrokersAreUnknownAndWhileShuttingDown() throws Exception {
        int nothingListens = FreePorts.randomRange(1);
        WeftProxy proxy = start("bind: \"127.0.0.1:0\"", nothingListens);
        InetSocketAddress address;
        try {
            address = proxy.adminAddress().orElseThrow();
            HttpResponse<String> ready = get(address, "/readyz");
            assertEquals(503, ready.statusCode());
            assertTrue(ready.headers().firstValue("Content-Type").orElse("").startsWith("text/plain"));
            assertEquals("cluster 'upstream': brokers not discovered yet (bootstrap 127.0.0.1:" + nothingListens + ")\n",
                    ready.body());
            assertEquals(200, get(address, "/livez").statusCode(), "alive all the same");
            HttpResponse<String> metrics = get(address, "/metrics");
            assertEquals(200, metrics.statusCode());
            PromText m = PromText.parse(metrics.body());
            assertEquals(0, m.value("weft_connections_active", Map.of("virtual_cluster", "main")));
            assertEquals(0, m.sum("weft_errors_total", Map.of()));
            assertFalse(metrics.body().contains("127.0.0.1:" + nothingListens), "no config in metrics");
        } finally {
            proxy.close();
        }
        assertEquals(List.of("shutting down"), proxy.readiness().reasons());
        InetSocketAddress closed = address;
        assertThrows(IOException.class, () -> new Socket(closed.getAddress(), closed.getPort()).close(),
                "the admin endpoint stops with the proxy");
    }

    @Test
    void disabledAdminEndpointListensNowhere() throws Exception {
        WeftProxy proxy = start("enabled: false", FreePorts.randomRange(1));
        try {
            assertTrue(proxy.adminAddress().isEmpty());
            assertFalse(proxy.readiness().isReady());
        } finally {
            proxy.close();
        }
    }

    /** Weft over an upstream at {@code upstreamPort} (where nothing listens), {@code admin} the admin map's body. */
    private static WeftProxy start(String admin, int upstreamPort) throws Exception {
        RuntimeException last = null;
        for (int attempt = 0; attempt < 5; attempt++) {
            String yaml = ProxyFixture.singleClusterConfig(admin, "127.0.0.1:" + upstreamPort, 1, "", FreePorts.randomRange(2), 0, 0);
            try {
                return WeftProxy.start(ConfigLoader.parse(yaml, "test config"));
            } catch (RuntimeException e) {
                last = e; // a port taken between the check and the bind
            }
        }
        throw last;
    }

    private static HttpResponse<String> get(InetSocketAddress address, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + address.getPort() + path))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
