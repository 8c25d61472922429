package dev.weft.proxy.admin;

import dev.weft.proxy.reload.ReloadCounters;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;

/**
 * {@code weft_config_reloads_total{outcome="applied|refused"}}, {@code weft_config_last_reload_success}
 * (0 while the file on disk is one the proxy refused) and
 * {@code weft_config_last_reload_timestamp_seconds{outcome}}.
 */
public final class ReloadCollector implements MultiCollector {

    private final ReloadCounters counters;

    public ReloadCollector(ReloadCounters counters) {
        this.counters = counters;
    }

    @Override
    public MetricSnapshots collect() {
        CounterSnapshot total = CounterSnapshot.builder().name("weft_config_reloads")
                .help("Config reloads (SIGHUP, POST /reload), by outcome")
                .dataPoint(counter("applied", counters.applied()))
                .dataPoint(counter("refused", counters.refused()))
                .build();
        GaugeSnapshot success = GaugeSnapshot.builder().name("weft_config_last_reload_success")
                .help("1 when the last config reload was applied (or none was asked), 0 when it was refused")
                .dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder().value(counters.lastSucceeded() ? 1 : 0).build())
                .build();
        GaugeSnapshot.Builder last = GaugeSnapshot.builder().name("weft_config_last_reload_timestamp_seconds")
                .help("When the last config reload of each outcome happened (Unix time; absent before any)");
        if (counters.lastAppliedMillis() > 0) {
            last.dataPoint(gauge("applied", counters.lastAppliedMillis() / 1000.0));
        }
        if (counters.lastRefusedMillis() > 0) {
            last.dataPoint(gauge("refused", counters.lastRefusedMillis() / 1000.0));
        }
        return MetricSnapshots.of(total, success, last.build());
    }

    private static CounterSnapshot.CounterDataPointSnapshot counter(String outcome, long n) {
        return CounterSnapshot.CounterDataPointSnapshot.builder().labels(Labels.of("outcome", outcome)).value(n).build();
    }

    private static GaugeSnapshot.GaugeDataPointSnapshot gauge(String outcome, double v) {
        return GaugeSnapshot.GaugeDataPointSnapshot.builder().labels(Labels.of("outcome", outcome)).value(v).build();
    }
}
