package dev.weft.proxy.metrics;

import dev.weft.iocore.metrics.CoreCounters;
import dev.weft.iocore.metrics.CoreMetrics;
import dev.weft.iocore.metrics.LatencyRecorder;
import dev.weft.proxy.session.SessionMetrics;

/**
 * The {@link SessionMetrics} of one virtual cluster on one core: every call comes from that core's event
 * loop, so it writes io-core's single-writer counters and latency recorders directly. Each call is a
 * couple of array loads and release stores: no lock, no CAS, no allocation.
 */
final class CoreSessionMetrics implements SessionMetrics {

    private final SessionMetricsLayout layout;
    private final CoreCounters counters;
    private final int opened;
    private final int closed;
    /** Per API-key slot, the recorder of that slot's upstream latency on this core. */
    private final LatencyRecorder[] latency;

    CoreSessionMetrics(SessionMetricsLayout layout, CoreMetrics core) {
        this.layout = layout;
        this.counters = core.counters();
        this.opened = layout.connectionsOpened.index();
        this.closed = layout.connectionsClosed.index();
        this.latency = new LatencyRecorder[layout.slotCount()];
        for (int s = 0; s < latency.length; s++) {
            latency[s] = core.latency(layout.latency[s]);
        }
    }

    @Override
    public void connectionOpened() {
        counters.increment(opened);
    }

    @Override
    public void connectionClosed() {
        counters.increment(closed);
    }

    @Override
    public void requestForwarded(short apiKey, int frameBytes) {
        int slot = layout.slot(apiKey);
        counters.increment(layout.requests[slot]);
        counters.add(layout.requestBytes[slot], frameBytes);
    }

    @Override
    public void responseReturned(short apiKey, int frameBytes, long latencyNanos) {
        int slot = layout.slot(apiKey);
        counters.increment(layout.responses[slot]);
        counters.add(layout.responseBytes[slot], frameBytes);
        latency[slot].recordNanos(latencyNanos);
    }

    @Override
    public void connectionError(SessionError reason, short apiKey) {
        counters.increment(layout.errors[reason.ordinal()][layout.slot(apiKey)]);
    }
}
