package dev.weft.proxy.session;

/**
 * What a session reports about its traffic. One instance per (virtual cluster, event loop): it is
 * only ever called on that loop's thread, so an implementation can write plain per-core counters and
 * single-writer histograms that an exporter reads (DESIGN §3: share nothing between cores).
 */
public interface SessionMetrics {

    /** Reports nothing. */
    SessionMetrics NONE = new SessionMetrics() {
    };

    /** A client connection was accepted. */
    default void connectionOpened() {
    }

    /** A client connection ended (for any reason). */
    default void connectionClosed() {
    }

    /** A request of {@code frameBytes} (size prefix included) was forwarded upstream. */
    default void requestForwarded(short apiKey, int frameBytes) {
    }

    /** A response of {@code frameBytes} went back to the client {@code latencyNanos} after its request went upstream. */
    default void responseReturned(short apiKey, int frameBytes, long latencyNanos) {
    }

    /** A connection was closed because of {@code reason}; {@code apiKey} is -1 when no request is involved. */
    default void connectionError(SessionError reason, short apiKey) {
    }

    /** Why a session closed a connection, as counted in metrics. */
    enum SessionError {
        MALFORMED_REQUEST,
        UNSUPPORTED_REQUEST,
        UPSTREAM_UNREACHABLE,
        UPSTREAM_FAILED,
        UPSTREAM_PROTOCOL,
        REWRITE_FAILED,
        TOO_MANY_PENDING,
        SLOW_CLIENT,
        /** An incomplete frame that waited for its core's partial-frame budget past the partial-frame timeout. */
        PARTIAL_FRAME_BUDGET,
        TLS_HANDSHAKE,
        IDLE,
        /** A connection refused as accepted: its IP address already held {@code server.maxConnectionsPerIp}. */
        CONNECTIONS_PER_IP
    }
}
