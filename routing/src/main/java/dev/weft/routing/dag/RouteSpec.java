package dev.weft.routing.dag;

import java.util.Objects;

/** One named route of a router, in config order. The index in its router is its route number. */
public record RouteSpec(String name, RouteTarget target) {
    public RouteSpec {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(target, "target");
    }
}
