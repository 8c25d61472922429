package dev.weft.routing.dag;

/**
 * Where a route (or a virtual cluster) points: an upstream cluster, or another router (DESIGN §1).
 * Typed, so a cluster and a router may share a name without ambiguity.
 */
public sealed interface RouteTarget permits ClusterTarget, RouterTarget {

    /** The name of the cluster or router targeted. */
    String name();

    /** {@code "cluster"} or {@code "router"}: the key used in the config ({@code { cluster: x }}). */
    String kind();

    static RouteTarget cluster(String name) {
        return new ClusterTarget(name);
    }

    static RouteTarget router(String name) {
        return new RouterTarget(name);
    }
}
