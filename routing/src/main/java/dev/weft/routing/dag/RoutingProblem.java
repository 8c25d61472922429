package dev.weft.routing.dag;

import java.util.Objects;

/**
 * One thing wrong with the routing configuration, found at startup (or at discovery).
 *
 * @param path where in the config document, e.g. {@code routers.orders-weave.routes[1].target}
 * @param message what is wrong, naming the offending value and what would be valid
 */
public record RoutingProblem(String path, String message) {
    public RoutingProblem {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(message, "message");
    }

    @Override
    public String toString() {
        return path + ": " + message;
    }
}
