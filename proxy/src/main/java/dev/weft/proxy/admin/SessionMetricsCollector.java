package dev.weft.proxy.admin;

import dev.weft.iocore.metrics.MetricsSnapshot;
import dev.weft.protocol.ApiKeyTable;
import dev.weft.protocol.wire.TrailingRequestBytes;
import dev.weft.proxy.metrics.ProxyMetrics;
import dev.weft.proxy.metrics.SessionMetricsLayout;
import dev.weft.proxy.session.SessionMetrics.SessionError;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot.HistogramDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.Unit;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * Turns what {@link ProxyMetrics} collected from every core into Prometheus metric families (the
 * exposition itself is the Prometheus client library's). Counters and gauges are summed over cores;
 * latencies become classic histograms read from the cumulative HdrHistogram of each API key.
 *
 * <p>Per-API series appear once an API has traffic (so a scrape lists tens, not hundreds, of series);
 * {@code weft_errors_total} always lists every error kind with {@code api="none"}, so alerts on a rate
 * of errors have a series from the first scrape.
 *
 * <p>Requests with bytes after their message ({@link TrailingRequestBytes}: served, as the broker serves
 * them, the extra bytes ignored) are counted per process, so those two families have an {@code api}
 * label and no {@code virtual_cluster}.
 */
public final class SessionMetricsCollector implements MultiCollector {

    /** Classic bucket upper bounds of {@code weft_upstream_latency_seconds} (+Inf is added). */
    static final double[] LATENCY_BUCKETS_SECONDS = {
        0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60
    };

    static final String CONNECTIONS_OPENED = "weft_connections_opened";
    static final String CONNECTIONS_CLOSED = "weft_connections_closed";
    static final String CONNECTIONS_ACTIVE = "weft_connections_active";
    static final String REQUESTS = "weft_requests";
    static final String REQUEST_BYTES = "weft_request_bytes";
    static final String RESPONSES = "weft_responses";
    static final String RESPONSE_BYTES = "weft_response_bytes";
    static final String ERRORS = "weft_errors";
    static final String UPSTREAM_LATENCY = "weft_upstream_latency_seconds";
    static final String TRAILING_REQUESTS = "weft_requests_with_trailing_bytes";
    static final String TRAILING_BYTES = "weft_request_trailing_bytes";

    private static final String VC = "virtual_cluster";
    private static final String API = "api";
    private static final String ERROR = "error";

    private final ProxyMetrics metrics;

    public SessionMetricsCollector(ProxyMetrics metrics) {
        this.metrics = metrics;
    }

    @Override
    public MetricSnapshots collect() {
        Map<String, MetricsSnapshot> byVc = metrics.collect();
        SessionMetricsLayout l = metrics.layout();
        CounterSnapshot.Builder opened = CounterSnapshot.builder().name(CONNECTIONS_OPENED)
                .help("Client connections accepted");
        CounterSnapshot.Builder closed = CounterSnapshot.builder().name(CONNECTIONS_CLOSED)
                .help("Client connections ended, for any reason");
        GaugeSnapshot.Builder active = GaugeSnapshot.builder().name(CONNECTIONS_ACTIVE)
                .help("Client connections open now (opened - closed)");
        CounterSnapshot.Builder requests = CounterSnapshot.builder().name(REQUESTS)
                .help("Requests forwarded upstream, by API");
        CounterSnapshot.Builder requestBytes = CounterSnapshot.builder().name(REQUEST_BYTES).unit(Unit.BYTES)
                .help("Bytes of requests forwarded upstream (size prefix included), by API");
        CounterSnapshot.Builder responses = CounterSnapshot.builder().name(RESPONSES)
                .help("Responses returned to clients, by API");
        CounterSnapshot.Builder responseBytes = CounterSnapshot.builder().name(RESPONSE_BYTES).unit(Unit.BYTES)
                .help("Bytes of responses returned to clients (size prefix included), by API");
        CounterSnapshot.Builder errors = CounterSnapshot.builder().name(ERRORS)
                .help("Client connections closed because of an error, by kind and API (none: no request involved)");
        HistogramSnapshot.Builder latency = HistogramSnapshot.builder().name(UPSTREAM_LATENCY).unit(Unit.SECONDS)
                .help("Time from forwarding a request upstream to returning its response, by API");

        for (Map.Entry<String, MetricsSnapshot> e : byVc.entrySet()) {
            String vc = e.getKey();
            MetricsSnapshot s = e.getValue();
            Labels vcLabels = Labels.of(VC, vc);
            long o = s.total(l.connectionsOpened());
            long c = s.total(l.connectionsClosed());
            opened.dataPoint(counter(vcLabels, o));
            closed.dataPoint(counter(vcLabels, c));
            active.dataPoint(GaugeDataPointSnapshot.builder().labels(vcLabels).value(o - c).build());
            for (int slot = 0; slot < l.slotCount(); slot++) {
                Labels apiLabels = Labels.of(VC, vc, API, l.apiLabel(slot));
                long req = s.total(l.requests(slot));
                long resp = s.total(l.responses(slot));
                if (req > 0 || resp > 0) {
                    requests.dataPoint(counter(apiLabels, req));
                    requestBytes.dataPoint(counter(apiLabels, s.total(l.requestBytes(slot))));
                    responses.dataPoint(counter(apiLabels, resp));
                    responseBytes.dataPoint(counter(apiLabels, s.total(l.responseBytes(slot))));
                }
                Histogram h = s.cumulative(l.latency(slot));
                if (h.getTotalCount() > 0) {
                    latency.dataPoint(histogram(apiLabels, h));
                }
            }
            for (SessionError kind : SessionMetricsLayout.errorKinds()) {
                String errorLabel = SessionMetricsLayout.errorLabel(kind);
                for (int slot = 0; slot < l.slotCount(); slot++) {
                    long n = s.total(l.errors(kind, slot));
                    if (n > 0 || SessionMetricsLayout.NONE_LABEL.equals(l.apiLabel(slot))) {
                        errors.dataPoint(counter(Labels.of(VC, vc, ERROR, errorLabel, API, l.apiLabel(slot)), n));
                    }
                }
            }
        }
        CounterSnapshot.Builder trailingRequests = CounterSnapshot.builder().name(TRAILING_REQUESTS)
                .help("Requests with bytes after the message, served with those bytes ignored as the broker ignores them,"
                        + " by API (per process, all virtual clusters)");
        CounterSnapshot.Builder trailingBytes = CounterSnapshot.builder().name(TRAILING_BYTES).unit(Unit.BYTES)
                .help("Bytes after the message in those requests, by API (per process, all virtual clusters)");
        for (int apiKey = 0; apiKey < ApiKeyTable.size(); apiKey++) {
            long n = TrailingRequestBytes.requests(apiKey);
            if (n > 0) {
                Labels apiLabels = Labels.of(API, ApiKeyTable.name(apiKey));
                trailingRequests.dataPoint(counter(apiLabels, n));
                trailingBytes.dataPoint(counter(apiLabels, TrailingRequestBytes.bytes(apiKey)));
            }
        }
        return MetricSnapshots.of(opened.build(), closed.build(), active.build(), requests.build(),
                requestBytes.build(), responses.build(), responseBytes.build(), errors.build(), latency.build(),
                trailingRequests.build(), trailingBytes.build());
    }

    @Override
    public List<String> getPrometheusNames() {
        return List.of(CONNECTIONS_OPENED, CONNECTIONS_CLOSED, CONNECTIONS_ACTIVE, REQUESTS, REQUEST_BYTES,
                RESPONSES, RESPONSE_BYTES, ERRORS, UPSTREAM_LATENCY, TRAILING_REQUESTS, TRAILING_BYTES);
    }

    private static CounterDataPointSnapshot counter(Labels labels, long value) {
        return CounterDataPointSnapshot.builder().labels(labels).value(value).build();
    }

    /**
     * Classic buckets from an HdrHistogram of nanoseconds. A bucket's count includes every HdrHistogram
     * sub-bucket that contains its bound, so a value within the histogram's precision (1% or ~6%) above
     * a bound may count below it. The sum is the histogram's mean times its count: exact to the same
     * precision, and monotonic as the histogram only grows.
     */
    static HistogramDataPointSnapshot histogram(Labels labels, Histogram h) {
        double[] bounds = new double[LATENCY_BUCKETS_SECONDS.length + 1];
        long[] counts = new long[bounds.length];
        long below = 0;
        for (int i = 0; i < LATENCY_BUCKETS_SECONDS.length; i++) {
            long atOrBelow = h.getCountBetweenValues(0, (long) (LATENCY_BUCKETS_SECONDS[i] * 1e9));
            bounds[i] = LATENCY_BUCKETS_SECONDS[i];
            counts[i] = atOrBelow - below;
            below = atOrBelow;
        }
        long total = h.getTotalCount();
        bounds[bounds.length - 1] = Double.POSITIVE_INFINITY;
        counts[counts.length - 1] = total - below;
        return HistogramDataPointSnapshot.builder()
                .labels(labels)
                .classicHistogramBuckets(ClassicHistogramBuckets.of(bounds, counts))
                .sum(h.getMean() * total / 1e9)
                .build();
    }
}
