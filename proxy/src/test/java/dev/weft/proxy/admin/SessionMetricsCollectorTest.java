package dev.weft.proxy.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.protocol.cold.ColdCodec;
import dev.weft.proxy.metrics.ProxyMetrics;
import dev.weft.proxy.session.SessionMetrics;
import dev.weft.proxy.session.SessionMetrics.SessionError;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.EventLoop;
import io.netty.channel.embedded.EmbeddedChannel;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** What the exposition of recorded session metrics says, parsed back from the Prometheus text format. */
class SessionMetricsCollectorTest {

    private final EmbeddedChannel channel0 = new EmbeddedChannel();
    private final EmbeddedChannel channel1 = new EmbeddedChannel();
    private final EventLoop core0 = channel0.eventLoop();
    private final EventLoop core1 = channel1.eventLoop();
    private final ProxyMetrics metrics = new ProxyMetrics(List.of("main", "other"), 2, loop -> loop == core0 ? 0 : 1);
    private final PrometheusRegistry registry = new PrometheusRegistry();

    SessionMetricsCollectorTest() {
        registry.register(new SessionMetricsCollector(metrics));
    }

    @AfterEach
    void closeChannels() {
        channel0.finishAndReleaseAll();
        channel1.finishAndReleaseAll();
    }

    @Test
    void countersAndGaugeAreSummedOverCoresPerVirtualCluster() throws IOException {
        SessionMetrics a = metrics.metricsFor("main", core0);
        SessionMetrics b = metrics.metricsFor("main", core1);
        a.connectionOpened();
        a.connectionOpened();
        b.connectionOpened();
        b.connectionClosed();
        a.requestForwarded(ApiKeys.PRODUCE.id, 1000);
        b.requestForwarded(ApiKeys.PRODUCE.id, 24);
        a.responseReturned(ApiKeys.PRODUCE.id, 60, 1_000_000);
        b.requestForwarded(ApiKeys.FETCH.id, 90);
        b.responseReturned(ApiKeys.FETCH.id, 70_000, 3_000_000);

        PromText m = scrape();
        Map<String, String> main = Map.of("virtual_cluster", "main");
        assertEquals(3, m.value("weft_connections_opened_total", main));
        assertEquals(1, m.value("weft_connections_closed_total", main));
        assertEquals(2, m.value("weft_connections_active", main));
        assertEquals(0, m.value("weft_connections_active", Map.of("virtual_cluster", "other")));
        Map<String, String> produce = Map.of("virtual_cluster", "main", "api", "Produce");
        assertEquals(2, m.value("weft_requests_total", produce));
        assertEquals(1024, m.value("weft_request_bytes_total", produce));
        assertEquals(1, m.value("weft_responses_total", produce));
        assertEquals(60, m.value("weft_response_bytes_total", produce));
        assertEquals(70_000, m.value("weft_response_bytes_total", Map.of("virtual_cluster", "main", "api", "Fetch")));
        assertFalse(m.has("weft_requests_total", Map.of("api", "ApiVersions")), "APIs without traffic list no series");
        assertFalse(m.has("weft_requests_total", Map.of("virtual_cluster", "other")));
        assertTrue(m.comments().contains("# TYPE weft_connections_active gauge"), m.comments()::toString);
        assertTrue(m.comments().contains("# TYPE weft_upstream_latency_seconds histogram"), m.comments()::toString);
    }

    @Test
    void latencyIsAClassicHistogramInSecondsThatKeepsCounting() throws IOException {
        SessionMetrics a = metrics.metricsFor("main", core0);
        SessionMetrics b = metrics.metricsFor("main", core1);
        a.responseReturned(ApiKeys.PRODUCE.id, 10, 50_000);         // 50 µs
        a.responseReturned(ApiKeys.PRODUCE.id, 10, 2_000_000);      // 2 ms
        b.responseReturned(ApiKeys.PRODUCE.id, 10, 2_000_000);      // 2 ms, other core
        b.responseReturned(ApiKeys.PRODUCE.id, 10, 700_000_000);    // 700 ms
        b.responseReturned(ApiKeys.METADATA.id, 10, 5_000_000);     // coarse (1 digit) histogram

        PromText m = scrape();
        Map<String, String> produce = Map.of("virtual_cluster", "main", "api", "Produce");
        assertEquals(1, bucket(m, produce, "1.0E-4"));
        assertEquals(1, bucket(m, produce, "0.001"));
        assertEquals(3, bucket(m, produce, "0.0025"));
        assertEquals(3, bucket(m, produce, "0.5"));
        assertEquals(4, bucket(m, produce, "1.0"));
        assertEquals(4, bucket(m, produce, "+Inf"));
        assertEquals(4, m.value("weft_upstream_latency_seconds_count", produce));
        assertEquals(0.70405, m.value("weft_upstream_latency_seconds_sum", produce), 0.70405 * 0.01);
        Map<String, String> metadata = Map.of("virtual_cluster", "main", "api", "Metadata");
        assertEquals(0, bucket(m, metadata, "0.0025"));
        assertEquals(1, bucket(m, metadata, "0.005"));
        assertEquals(0.005, m.value("weft_upstream_latency_seconds_sum", metadata), 0.005 * 0.07);

        a.responseReturned(ApiKeys.PRODUCE.id, 10, 50_000);
        PromText again = scrape();
        assertEquals(5, again.value("weft_upstream_latency_seconds_count", produce), "cumulative, not per interval");
        assertEquals(2, bucket(again, produce, "1.0E-4"));
    }

    @Test
    void errorsByKindAndApiWithABaselineForEveryKind() throws IOException {
        SessionMetrics a = metrics.metricsFor("main", core0);
        a.connectionError(SessionError.UNSUPPORTED_REQUEST, (short) 9999);
        a.connectionError(SessionError.UNSUPPORTED_REQUEST, (short) -7);
        a.connectionError(SessionError.UNSUPPORTED_REQUEST, ApiKeys.PRODUCE.id);
        metrics.metricsFor("main", core1).connectionError(SessionError.UPSTREAM_UNREACHABLE, (short) -1);
        a.connectionError(SessionError.REWRITE_FAILED, ApiKeys.METADATA.id);

        PromText m = scrape();
        assertEquals(2, m.value("weft_errors_total",
                Map.of("virtual_cluster", "main", "error", "unsupported_request", "api", "unknown")));
        assertEquals(1, m.value("weft_errors_total",
                Map.of("virtual_cluster", "main", "error", "unsupported_request", "api", "Produce")));
        assertEquals(3, m.sum("weft_errors_total", Map.of("virtual_cluster", "main", "error", "unsupported_request")));
        assertEquals(1, m.value("weft_errors_total",
                Map.of("virtual_cluster", "main", "error", "upstream_unreachable", "api", "none")));
        assertEquals(1, m.value("weft_errors_total",
                Map.of("virtual_cluster", "main", "error", "rewrite_failed", "api", "Metadata")));
        for (SessionError kind : SessionError.values()) {
            String label = kind.name().toLowerCase(java.util.Locale.ROOT);
            assertTrue(m.has("weft_errors_total", Map.of("virtual_cluster", "other", "error", label, "api", "none")),
                    () -> "baseline series for " + label);
        }
        assertEquals(0, m.sum("weft_errors_total", Map.of("virtual_cluster", "other")));
    }

    @Test
    void requestsWithTrailingBytesAreCountedPerProcessByApi() throws IOException {
        double requests = scrape().sum("weft_requests_with_trailing_bytes_total", Map.of("api", "Metadata"));
        double bytes = scrape().sum("weft_request_trailing_bytes_total", Map.of("api", "Metadata"));
        // What librdkafka 2.x sends for all topics at Metadata v9+: the message is 4 bytes, 3 follow it.
        ByteBuf body = Unpooled.wrappedBuffer(new byte[7]);
        try {
            ColdCodec.readRequestBody(ApiKeys.METADATA.id, (short) 13, body);
        } finally {
            body.release();
        }

        PromText m = scrape();
        assertEquals(requests + 1, m.value("weft_requests_with_trailing_bytes_total", Map.of("api", "Metadata")));
        assertEquals(bytes + 3, m.value("weft_request_trailing_bytes_total", Map.of("api", "Metadata")));
        assertFalse(m.has("weft_requests_with_trailing_bytes_total", Map.of("api", "Produce")), "APIs without any list no series");
    }

    private static double bucket(PromText m, Map<String, String> labels, String le) {
        java.util.Map<String, String> withLe = new java.util.HashMap<>(labels);
        withLe.put("le", le);
        return m.value("weft_upstream_latency_seconds_bucket", withLe);
    }

    private PromText scrape() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrometheusTextFormatWriter.create().write(out, registry.scrape());
        return PromText.parse(out.toString(StandardCharsets.UTF_8));
    }
}
