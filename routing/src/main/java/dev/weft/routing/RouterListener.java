package dev.weft.routing;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/** What a router with state of its own tells the proxy serving it ({@link Router#watch}). */
@FunctionalInterface
public interface RouterListener {

    /**
     * The router's state changed: build the catalog again from the topics last listed and put it in force.
     * With a {@code drainReason}, every client connection of the virtual cluster is then drained: it stops
     * reading, finishes the requests it has in flight and is closed (clients reconnect and learn the new
     * state from their next Metadata); the reason is logged.
     *
     * @param drainReason why client connections are drained, or null to keep them
     * @param drainTimeout how long drained connections get to finish their in-flight requests before they are closed
     * @return completes once the new catalog is in force and the drained connections are closed
     */
    CompletableFuture<Void> routerChanged(String drainReason, Duration drainTimeout);
}
