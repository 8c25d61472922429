package dev.weft.iocore.metrics;

import java.util.List;

/**
 * All metrics of one core, laid out by a {@link MetricsLayout}. Single writer: only the core's own event
 * loop calls the recording methods; a {@link MetricsExporter} reads from another thread.
 */
public final class CoreMetrics {

    private final MetricsLayout layout;
    private final int coreIndex;
    private final CoreCounters counters;
    private final LatencyRecorder[] latencies;

    CoreMetrics(MetricsLayout layout, int coreIndex) {
        this.layout = layout;
        this.coreIndex = coreIndex;
        this.counters = new CoreCounters(layout.counters().size());
        List<LatencyId> ids = layout.latencies();
        this.latencies = new LatencyRecorder[ids.size()];
        for (int i = 0; i < latencies.length; i++) {
            latencies[i] = new LatencyRecorder(ids.get(i));
        }
    }

    /** The layout this core's metrics follow. */
    public MetricsLayout layout() {
        return layout;
    }

    /** Which core these metrics belong to. */
    public int coreIndex() {
        return coreIndex;
    }

    /** Adds one to {@code counter}. Owner loop only. */
    public void increment(CounterId counter) {
        counters.increment(counter.index());
    }

    /** Adds {@code delta} to {@code counter}. Owner loop only. */
    public void add(CounterId counter, long delta) {
        counters.add(counter.index(), delta);
    }

    /** This core's current value of {@code counter}. Any thread. */
    public long get(CounterId counter) {
        return counters.get(counter.index());
    }

    /** Records one latency in nanoseconds. Owner loop only. */
    public void recordNanos(LatencyId latency, long nanos) {
        latencies[latency.index()].recordNanos(nanos);
    }

    /** The recorder behind {@code latency}, for a hot path that wants to hold it directly. */
    public LatencyRecorder latency(LatencyId latency) {
        return latencies[latency.index()];
    }

    /** The counters, for a hot path that indexes them directly. */
    public CoreCounters counters() {
        return counters;
    }
}
