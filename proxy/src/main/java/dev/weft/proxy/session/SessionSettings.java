package dev.weft.proxy.session;

import dev.weft.iocore.EventLoops;
import dev.weft.iocore.buffer.BufferPolicy;
import dev.weft.proxy.upstream.LinkSettings;

/**
 * What every session of a proxy shares: the event loops (for upstream connections on the session's
 * own core), the buffer policy and limits.
 *
 * @param loops the proxy's event loops
 * @param buffers allocation policy for upstream channels
 * @param maxFrameBytes largest frame accepted from a client or a broker
 * @param connectTimeoutMillis how long connecting to a broker may take
 * @param maxPendingFrames frames a client may send before its upstream connection is up
 * @param partialFrameTimeoutMillis a client holding an incomplete frame this long is closed
 * @param idleTimeoutMillis a client with nothing in flight that is silent this long is closed
 * @param metrics where sessions report their traffic
 * @param registry every open client connection, for draining at shutdown
 * @param maxInflightRequests unanswered requests per client connection before the proxy stops reading it
 * @param partialFrames per-core memory budgets and deadlines of clients' incomplete frames
 * @param connectionsPerIp how many client connections one IP address may hold at once
 */
public record SessionSettings(
        EventLoops loops,
        BufferPolicy buffers,
        int maxFrameBytes,
        int connectTimeoutMillis,
        int maxPendingFrames,
        int partialFrameTimeoutMillis,
        int idleTimeoutMillis,
        SessionMetricsFactory metrics,
        SessionRegistry registry,
        int maxInflightRequests,
        PartialFrameBudgets partialFrames,
        ConnectionsPerIp connectionsPerIp) {

    /** The clock sessions read "now" from (deadlines, idle time, latency): the system's, or a manual one in tests. */
    public dev.weft.iocore.time.NanoClock clock() {
        return partialFrames.clock();
    }

    /** What the session's upstream links are opened with. */
    public LinkSettings links() {
        return new LinkSettings(loops, buffers, maxFrameBytes, connectTimeoutMillis);
    }

    /**
     * Settings with the default partial-frame budgets ({@link PartialFrameBudgets#DEFAULT_PER_CONNECTION_BYTES},
     * {@link PartialFrameBudgets#DEFAULT_PER_CORE_BYTES}) on {@code loops}' cores, no limit of connections per IP.
     */
    public SessionSettings(EventLoops loops, BufferPolicy buffers, int maxFrameBytes, int connectTimeoutMillis,
            int maxPendingFrames, int partialFrameTimeoutMillis, int idleTimeoutMillis, SessionMetricsFactory metrics,
            SessionRegistry registry, int maxInflightRequests) {
        this(loops, buffers, maxFrameBytes, connectTimeoutMillis, maxPendingFrames, partialFrameTimeoutMillis,
                idleTimeoutMillis, metrics, registry, maxInflightRequests,
                PartialFrameBudgets.of(loops, PartialFrameBudgets.DEFAULT_PER_CONNECTION_BYTES,
                        PartialFrameBudgets.DEFAULT_PER_CORE_BYTES, partialFrameTimeoutMillis), ConnectionsPerIp.UNLIMITED);
    }
}
