package dev.weft.proxy.session;

import io.netty.channel.EventLoop;

/** Hands each session the {@link SessionMetrics} of its virtual cluster on its own event loop. */
@FunctionalInterface
public interface SessionMetricsFactory {

    SessionMetricsFactory NONE = (virtualCluster, loop) -> SessionMetrics.NONE;

    /** Called on {@code loop}; returns the same instance for the same arguments. */
    SessionMetrics metricsFor(String virtualCluster, EventLoop loop);
}
