package dev.weft.routing.dag;

import java.util.Objects;

/** A route that ends at an upstream cluster, named as in the config's {@code clusters} section. */
public record ClusterTarget(String cluster) implements RouteTarget {
    public ClusterTarget {
        Objects.requireNonNull(cluster, "cluster");
    }

    @Override
    public String name() {
        return cluster;
    }

    @Override
    public String kind() {
        return "cluster";
    }

    @Override
    public String toString() {
        return "cluster '" + cluster + "'";
    }
}
