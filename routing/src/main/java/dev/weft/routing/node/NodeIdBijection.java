package dev.weft.routing.node;

/**
 * Maps (route, real node id) to one virtual node id and back, by arithmetic alone (DESIGN §4): with
 * {@code N} routes at a router level, broker {@code b} of route {@code k} is virtual node
 * {@code b × N + k}. Every proxy replica computes the same answer without talking to the others.
 *
 * <p>Negative ids are sentinels in the protocol ({@code -1}: no leader, no coordinator) and pass
 * through unchanged in both directions. Levels compose: an outer bijection maps the virtual ids of
 * an inner one.
 */
public final class NodeIdBijection implements NodeIdMapping {

    private final int routes;

    /** @param routes how many routes (upstream clusters or inner routers) share the id space; at least 1 */
    public NodeIdBijection(int routes) {
        if (routes < 1) {
            throw new IllegalArgumentException("a node id bijection needs at least one route, got " + routes);
        }
        this.routes = routes;
    }

    /** The identity mapping of a virtual cluster over a single upstream cluster. */
    public static NodeIdBijection single() {
        return new NodeIdBijection(1);
    }

    @Override
    public int routes() {
        return routes;
    }

    /**
     * The virtual id of real node {@code nodeId} behind route {@code route}.
     *
     * @throws ArithmeticException when the virtual id would overflow an int (the cluster's node ids are
     *     too large for this many routes): a startup or discovery error, never silently wrapped
     */
    @Override
    public int toVirtual(int route, int nodeId) {
        if (nodeId < 0) {
            return nodeId;
        }
        checkRoute(route);
        return Math.addExact(Math.multiplyExact(nodeId, routes), route);
    }

    /** The route behind virtual node {@code virtualId} (undefined for negative sentinels: returns -1). */
    @Override
    public int routeOf(int virtualId) {
        return virtualId < 0 ? -1 : Math.floorMod(virtualId, routes);
    }

    /** The real node id behind virtual node {@code virtualId}; negative sentinels pass through. */
    @Override
    public int realNodeId(int virtualId) {
        return virtualId < 0 ? virtualId : Math.floorDiv(virtualId, routes);
    }

    private void checkRoute(int route) {
        if (route < 0 || route >= routes) {
            throw new IllegalArgumentException("route " + route + " is outside 0.." + (routes - 1));
        }
    }
}
