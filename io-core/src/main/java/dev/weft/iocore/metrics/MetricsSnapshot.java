package dev.weft.iocore.metrics;

import org.HdrHistogram.Histogram;

/**
 * What a {@link MetricsExporter#collect()} saw. Owns its arrays and histograms (nothing is shared with
 * the cores), so it may be read from any thread; do not modify the histograms.
 */
public final class MetricsSnapshot {

    private final MetricsLayout layout;
    private final long[][] countersPerCore;
    private final Histogram[] intervals;
    private final Histogram[] cumulative;

    MetricsSnapshot(MetricsLayout layout, long[][] countersPerCore, Histogram[] intervals, Histogram[] cumulative) {
        this.layout = layout;
        this.countersPerCore = countersPerCore;
        this.intervals = intervals;
        this.cumulative = cumulative;
    }

    public MetricsLayout layout() {
        return layout;
    }

    /** Number of cores included. */
    public int coreCount() {
        return countersPerCore.length;
    }

    /** {@code counter} summed over all cores. */
    public long total(CounterId counter) {
        long sum = 0;
        for (long[] core : countersPerCore) {
            sum += core[counter.index()];
        }
        return sum;
    }

    /** {@code counter} on one core. */
    public long perCore(CounterId counter, int coreIndex) {
        return countersPerCore[coreIndex][counter.index()];
    }

    /** Every core's recordings of {@code latency} since the previous collect, merged. */
    public Histogram interval(LatencyId latency) {
        return intervals[latency.index()];
    }

    /** Every core's recordings of {@code latency} since the exporter was created, merged. */
    public Histogram cumulative(LatencyId latency) {
        return cumulative[latency.index()];
    }
}
