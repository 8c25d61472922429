package dev.weft.iocore.metrics;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.SingleWriterRecorder;

/**
 * One core's latency histogram: the owning loop records with a wait-free {@link SingleWriterRecorder};
 * one exporter thread takes interval histograms (everything recorded since its previous call) without
 * stopping the writer.
 *
 * <p>Two threads, two roles: {@link #recordNanos} only on the owning loop, {@link #intervalHistogram}
 * only on the exporter thread.
 */
public final class LatencyRecorder {

    private final LatencyId id;
    private final SingleWriterRecorder recorder;
    private final long highest;

    // The exporter's previous interval, handed back to the recorder for reuse so exporting allocates
    // nothing in steady state. Read and written only by the exporter thread.
    private Histogram exporterRecycle;

    LatencyRecorder(LatencyId id) {
        this.id = id;
        this.recorder = new SingleWriterRecorder(1, id.highestTrackableNanos(), id.significantDigits());
        this.highest = id.highestTrackableNanos();
    }

    /** Which metric this is. */
    public LatencyId id() {
        return id;
    }

    /**
     * Records one latency. Owner loop only. Values above the histogram's range are recorded as its
     * highest value (a stall longer than the range still shows up at the top); negative values (a clock
     * misuse) as 0.
     */
    public void recordNanos(long nanos) {
        recorder.recordValue(nanos > highest ? highest : Math.max(nanos, 0));
    }

    /**
     * Everything recorded since the previous call. Exporter thread only. The returned histogram is
     * reused by the next call: merge or copy it before calling again.
     */
    public Histogram intervalHistogram() {
        Histogram interval = recorder.getIntervalHistogram(exporterRecycle);
        exporterRecycle = interval;
        return interval;
    }
}
