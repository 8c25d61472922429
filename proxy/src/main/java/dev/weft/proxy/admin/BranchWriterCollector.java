package dev.weft.proxy.admin;

import dev.weft.proxy.branch.BranchWriter;
import dev.weft.proxy.branch.BranchWriterCounters;
import dev.weft.proxy.branch.BranchWriters;
import dev.weft.routing.branch.transform.TransformCounters;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.util.Map;
import java.util.function.Supplier;

/**
 * What the writers of transforming branches did, per virtual cluster and branch:
 * {@code weft_branch_records_total{virtual_cluster, branch, stage}} ({@code in}: handed over by the event
 * loops; {@code sent}, {@code acked}, {@code failed}: by the branch's producer; {@code dropped_queue_full},
 * {@code dropped_sampled}, {@code dropped_not_json}, {@code undecodable}, {@code transform_error}; with
 * {@code transactional: hold} also {@code held}, {@code dropped_aborted}, {@code dropped_hold_full},
 * {@code dropped_hold_expired}, and the gauge {@code weft_branch_held_bytes}),
 * {@code weft_branch_bytes_total{virtual_cluster, branch, stage}} ({@code in}, {@code sent}),
 * {@code weft_branch_queue_depth{virtual_cluster, branch}} (batches waiting for the writer),
 * {@code weft_branch_up{virtual_cluster, branch}} (1 while the branch's last send was acknowledged) and
 * {@code weft_branch_send_latency_seconds_total} (with {@code acked}: the mean send-to-acknowledgement time).
 */
public final class BranchWriterCollector implements MultiCollector {

    private final Supplier<Map<String, BranchWriters>> writers;

    /** @param writers per virtual cluster name, its branch writers */
    public BranchWriterCollector(Supplier<Map<String, BranchWriters>> writers) {
        this.writers = writers;
    }

    @Override
    public MetricSnapshots collect() {
        CounterSnapshot.Builder records = CounterSnapshot.builder().name("weft_branch_records")
                .help("Records of transforming branches, by stage: in, sent, acked, failed, and dropped by reason");
        CounterSnapshot.Builder latency = CounterSnapshot.builder().name("weft_branch_send_latency_seconds")
                .help("Sum of send-to-acknowledgement times of the branch records acknowledged");
        GaugeSnapshot.Builder depth = GaugeSnapshot.builder().name("weft_branch_queue_depth")
                .help("Batches handed over by the event loops and not yet taken by the branch's writer");
        GaugeSnapshot.Builder up = GaugeSnapshot.builder().name("weft_branch_up")
                .help("1 while the branch's last send was acknowledged, 0 after a failed one");
        CounterSnapshot.Builder bytes = CounterSnapshot.builder().name("weft_branch_bytes")
                .help("Bytes of transforming branches: in (record batches handed to the writer), sent (key and value bytes produced)");
        GaugeSnapshot.Builder heldBytes = GaugeSnapshot.builder().name("weft_branch_held_bytes")
                .help("Record bytes of open transactions a branch holds until they commit (transactional: hold)");
        writers.get().forEach((vc, all) -> all.forEach((branch, w) -> {
            Labels labels = Labels.of("virtual_cluster", vc, "branch", branch);
            BranchWriterCounters c = w.counters();
            TransformCounters t = w.chain().counters();
            stage(records, labels, "in", c.recordsIn());
            stage(bytes, labels, "in", c.bytesIn());
            stage(bytes, labels, "sent", c.bytesSent());
            stage(records, labels, "sent", c.recordsSent());
            stage(records, labels, "acked", c.recordsAcked());
            stage(records, labels, "failed", c.recordsFailed());
            stage(records, labels, "dropped_queue_full", c.droppedQueueFull());
            stage(records, labels, "undecodable", c.undecodable());
            stage(records, labels, "dropped_sampled", t.droppedSampledOut());
            stage(records, labels, "dropped_not_json", t.droppedNotJson());
            stage(records, labels, "transform_error", t.transformErrors());
            if (w.holdsTransactions()) {
                stage(records, labels, "held", c.held());
                stage(records, labels, "dropped_aborted", c.droppedAborted());
                stage(records, labels, "dropped_hold_full", c.droppedHoldFull());
                stage(records, labels, "dropped_hold_expired", c.droppedHoldExpired());
                heldBytes.dataPoint(GaugeDataPointSnapshot.builder().labels(labels).value(w.heldBytes()).build());
            }
            latency.dataPoint(CounterDataPointSnapshot.builder().labels(labels).value(c.sendLatencyMicros() / 1e6).build());
            depth.dataPoint(GaugeDataPointSnapshot.builder().labels(labels).value(w.queueDepth()).build());
            up.dataPoint(GaugeDataPointSnapshot.builder().labels(labels).value(w.isUp() ? 1 : 0).build());
        }));
        return MetricSnapshots.of(records.build(), bytes.build(), latency.build(), depth.build(), up.build(), heldBytes.build());
    }

    private static void stage(CounterSnapshot.Builder records, Labels labels, String stage, long n) {
        records.dataPoint(CounterDataPointSnapshot.builder().labels(labels.add("stage", stage)).value(n).build());
    }
}
