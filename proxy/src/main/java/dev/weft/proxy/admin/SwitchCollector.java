package dev.weft.proxy.admin;

import dev.weft.proxy.switching.CutoverPhase;
import dev.weft.proxy.switching.SwitchController;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.time.Duration;
import java.util.Collection;
import java.util.function.Supplier;

/**
 * The switches: {@code weft_switch_active{switch,route}} (1 for the active route, 0 for the others),
 * {@code weft_switch_fenced{switch}}, {@code weft_switches_total{switch}}, {@code weft_switch_aborts_total{switch}},
 * {@code weft_switch_fenced_seconds_total{switch}} and {@code weft_switch_last_phase_seconds{switch,phase}}
 * (the last completed or aborted cutover, per phase that ran).
 */
public final class SwitchCollector implements MultiCollector {

    private final Supplier<Collection<SwitchController.Status>> statuses;

    public SwitchCollector(Supplier<Collection<SwitchController.Status>> statuses) {
        this.statuses = statuses;
    }

    @Override
    public MetricSnapshots collect() {
        GaugeSnapshot.Builder active = GaugeSnapshot.builder().name("weft_switch_active")
                .help("1 for the route a switch points at, 0 for its other candidates");
        GaugeSnapshot.Builder fenced = GaugeSnapshot.builder().name("weft_switch_fenced")
                .help("1 while a switch refuses produce for a cutover");
        CounterSnapshot.Builder switches = CounterSnapshot.builder().name("weft_switches")
                .help("Completed cutovers of a switch");
        CounterSnapshot.Builder aborts = CounterSnapshot.builder().name("weft_switch_aborts")
                .help("Cutovers that aborted and left the switch where it was");
        CounterSnapshot.Builder fencedTime = CounterSnapshot.builder().name("weft_switch_fenced_seconds")
                .help("Time a switch refused produce for cutovers, in total");
        GaugeSnapshot.Builder phases = GaugeSnapshot.builder().name("weft_switch_last_phase_seconds")
                .help("How long each phase of a switch's last cutover took");
        for (SwitchController.Status s : statuses.get()) {
            for (String route : s.routes()) {
                active.dataPoint(gauge(route.equals(s.activeRoute()) ? 1 : 0, "switch", s.name(), "route", route));
            }
            fenced.dataPoint(gauge(s.fenced() ? 1 : 0, "switch", s.name()));
            switches.dataPoint(counter(s.switches(), s.name()));
            aborts.dataPoint(counter(s.aborts(), s.name()));
            fencedTime.dataPoint(counter(seconds(s.fencedTotal()), s.name()));
            if (s.last() != null) {
                for (CutoverPhase p : CutoverPhase.values()) {
                    Duration d = s.last().phases().get(p);
                    if (d != null) {
                        phases.dataPoint(gauge(seconds(d), "switch", s.name(), "phase", p.label()));
                    }
                }
            }
        }
        return MetricSnapshots.of(active.build(), fenced.build(), switches.build(), aborts.build(), fencedTime.build(), phases.build());
    }

    private static double seconds(Duration d) {
        return d.toNanos() / 1e9;
    }

    private static GaugeDataPointSnapshot gauge(double value, String... labels) {
        return GaugeDataPointSnapshot.builder().labels(Labels.of(labels)).value(value).build();
    }

    private static CounterDataPointSnapshot counter(double value, String switchName) {
        return CounterDataPointSnapshot.builder().labels(Labels.of("switch", switchName)).value(value).build();
    }
}
