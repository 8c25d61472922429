package dev.weft.proxy.admin;

import dev.weft.proxy.exchange.BranchCounters;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.util.Collection;
import java.util.function.Supplier;

/**
 * {@code weft_branch_copies_total{virtual_cluster, branch, outcome}} and
 * {@code weft_branch_copy_bytes_total{virtual_cluster, branch}}: what became of the copies a branch
 * router sends (one per partition of a Produce and branch), and the record bytes sent to each branch.
 */
public final class BranchCopiesCollector implements MultiCollector {

    private final Supplier<Collection<BranchCounters>> counters;

    public BranchCopiesCollector(Supplier<Collection<BranchCounters>> counters) {
        this.counters = counters;
    }

    @Override
    public MetricSnapshots collect() {
        CounterSnapshot.Builder copies = CounterSnapshot.builder().name("weft_branch_copies")
                .help("Branch copies (one partition of a Produce, for one branch), by outcome");
        CounterSnapshot.Builder bytes = CounterSnapshot.builder().name("weft_branch_copy_bytes")
                .help("Record bytes sent to each branch");
        for (BranchCounters c : counters.get()) {
            c.forEach((branch, outcome, n) -> copies.dataPoint(CounterDataPointSnapshot.builder()
                    .labels(Labels.of("virtual_cluster", c.virtualCluster(), "branch", branch, "outcome", outcome)).value(n).build()));
            c.forEachBytes((branch, n) -> bytes.dataPoint(CounterDataPointSnapshot.builder()
                    .labels(Labels.of("virtual_cluster", c.virtualCluster(), "branch", branch)).value(n).build()));
        }
        return MetricSnapshots.of(copies.build(), bytes.build());
    }
}
