package dev.weft.proxy.admin;

import dev.weft.proxy.upstream.UpstreamRequestCounters;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.util.Collection;
import java.util.function.Supplier;

/**
 * {@code weft_upstream_requests_total{virtual_cluster, cluster, broker, api}}: requests the proxy sent
 * to each upstream broker ({@code broker="any"}: a connection to any broker of the cluster). A split
 * Produce or Fetch shows as sub-requests to several brokers for one client request.
 * {@code weft_upstream_fetch_bytes_total{virtual_cluster, cluster, broker, rack, zone}}: Fetch answer
 * bytes per broker, in the proxy's zone or across zones (rack-aware fetch).
 */
public final class UpstreamRequestsCollector implements MultiCollector {

    static final String NAME = "weft_upstream_requests";

    private final Supplier<Collection<UpstreamRequestCounters>> counters;

    public UpstreamRequestsCollector(Supplier<Collection<UpstreamRequestCounters>> counters) {
        this.counters = counters;
    }

    @Override
    public MetricSnapshots collect() {
        CounterSnapshot.Builder counter = CounterSnapshot.builder().name(NAME)
                .help("Requests sent to each upstream broker, by API (split requests count once per part)");
        for (UpstreamRequestCounters c : counters.get()) {
            c.forEach((cluster, broker, api, n) -> counter.dataPoint(CounterDataPointSnapshot.builder()
                    .labels(Labels.of("virtual_cluster", c.virtualCluster(), "cluster", cluster, "broker", broker, "api", api))
                    .value(n).build()));
        }
        CounterSnapshot.Builder discarded = CounterSnapshot.builder().name("weft_fetch_discarded_bytes")
                .help("Record bytes of split Fetch parts that answered after the client was answered (fetched again)");
        for (UpstreamRequestCounters c : counters.get()) {
            discarded.dataPoint(CounterDataPointSnapshot.builder().labels(Labels.of("virtual_cluster", c.virtualCluster()))
                    .value(c.fetchBytesDiscarded()).build());
        }
        CounterSnapshot.Builder fetchBytes = CounterSnapshot.builder().name("weft_upstream_fetch_bytes")
                .help("Fetch answer bytes each upstream broker sent; zone: in (the broker's rack is the proxy's zone),"
                        + " cross (another rack), unknown (no zone configured or no broker.rack)");
        for (UpstreamRequestCounters c : counters.get()) {
            c.forEachFetchBytes((cluster, broker, rack, zone, bytes) -> fetchBytes.dataPoint(CounterDataPointSnapshot.builder()
                    .labels(Labels.of("virtual_cluster", c.virtualCluster(), "cluster", cluster, "broker", broker,
                            "rack", rack == null ? "" : rack, "zone", zone))
                    .value(bytes).build()));
        }
        return MetricSnapshots.of(counter.build(), discarded.build(), fetchBytes.build());
    }
}
