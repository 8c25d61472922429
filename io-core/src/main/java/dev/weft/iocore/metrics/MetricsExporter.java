package dev.weft.iocore.metrics;

import java.util.List;
import org.HdrHistogram.Histogram;

/**
 * Reads every core's metrics from one exporter thread: sums counters across cores and merges each
 * core's interval histogram into a process-wide interval and a running (cumulative) histogram.
 *
 * <p>Not thread-safe: one exporter thread owns an instance (it is the single reader of the cores'
 * interval histograms, which is what makes them lossless).
 */
public final class MetricsExporter {

    private final MetricsLayout layout;
    private final List<CoreMetrics> cores;
    private final Histogram[] cumulative;

    /**
     * @param cores every core's metrics, all following the same layout
     */
    public MetricsExporter(List<CoreMetrics> cores) {
        if (cores.isEmpty()) {
            throw new IllegalArgumentException("no cores to export");
        }
        this.cores = List.copyOf(cores);
        this.layout = this.cores.getFirst().layout();
        for (CoreMetrics core : this.cores) {
            if (core.layout() != layout) {
                throw new IllegalArgumentException("core " + core.coreIndex() + " follows a different MetricsLayout");
            }
        }
        List<LatencyId> ids = layout.latencies();
        this.cumulative = new Histogram[ids.size()];
        for (int i = 0; i < cumulative.length; i++) {
            cumulative[i] = newHistogram(ids.get(i));
        }
    }

    /**
     * Takes a snapshot: per-core and total counter values now, and for each latency the merge of what
     * every core recorded since the previous collect, plus everything since this exporter was created.
     * The snapshot owns its data and may be handed to any thread.
     */
    public MetricsSnapshot collect() {
        long[][] perCore = new long[cores.size()][layout.counters().size()];
        for (int c = 0; c < cores.size(); c++) {
            CoreCounters counters = cores.get(c).counters();
            for (int i = 0; i < perCore[c].length; i++) {
                perCore[c][i] = counters.get(i);
            }
        }
        List<LatencyId> ids = layout.latencies();
        Histogram[] intervals = new Histogram[ids.size()];
        Histogram[] totals = new Histogram[ids.size()];
        for (int i = 0; i < intervals.length; i++) {
            Histogram merged = newHistogram(ids.get(i));
            for (CoreMetrics core : cores) {
                merged.add(core.latency(ids.get(i)).intervalHistogram());
            }
            cumulative[i].add(merged);
            intervals[i] = merged;
            totals[i] = cumulative[i].copy();
        }
        return new MetricsSnapshot(layout, perCore, intervals, totals);
    }

    private static Histogram newHistogram(LatencyId id) {
        return new Histogram(1, id.highestTrackableNanos(), id.significantDigits());
    }
}
