package dev.weft.proxy.admin;

import dev.weft.proxy.security.SaslCounters;
import dev.weft.proxy.security.SaslOutcome;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.util.Map;
import java.util.function.Supplier;

/**
 * {@code weft_sasl_authentications_total{virtual_cluster, mechanism, outcome}}: SASL authentications
 * (and re-authentications) at the gateways of virtual clusters that terminate SASL, by outcome
 * ({@link SaslOutcome}). Mechanism {@code none}: refused before a handshake chose one.
 */
public final class SaslCollector implements MultiCollector {

    private final Supplier<Map<String, SaslCounters>> counters;

    public SaslCollector(Supplier<Map<String, SaslCounters>> counters) {
        this.counters = counters;
    }

    @Override
    public MetricSnapshots collect() {
        CounterSnapshot.Builder total = CounterSnapshot.builder().name("weft_sasl_authentications")
                .help("SASL authentications at terminating gateways, by mechanism and outcome");
        counters.get().forEach((virtualCluster, c) -> c.snapshot().forEach((mechanism, byOutcome) -> byOutcome.forEach((outcome, n) ->
                total.dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder()
                        .labels(Labels.of("virtual_cluster", virtualCluster, "mechanism", mechanism, "outcome", outcome.label()))
                        .value(n).build()))));
        return MetricSnapshots.of(total.build());
    }
}
