package dev.weft.routing.dag;

import java.util.Objects;

/** A route that continues into another router, named as in the config's {@code routers} section. */
public record RouterTarget(String router) implements RouteTarget {
    public RouterTarget {
        Objects.requireNonNull(router, "router");
    }

    @Override
    public String name() {
        return router;
    }

    @Override
    public String kind() {
        return "router";
    }

    @Override
    public String toString() {
        return "router '" + router + "'";
    }
}
