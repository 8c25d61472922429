package dev.weft.routing.node;

/**
 * (route, real node id) ↔ virtual node id for one virtual cluster, where "route" is a path down to
 * one upstream cluster: a route of a single router ({@link NodeIdBijection}) or a leaf of a nested
 * routing DAG ({@link dev.weft.routing.dag.ComposedNodeIds}). Pure arithmetic, allocation-free;
 * negative ids are protocol sentinels and pass through.
 */
public interface NodeIdMapping {

    /** How many routes (leaves) share the virtual id space. */
    int routes();

    /** The virtual id of real node {@code nodeId} of {@code route}. */
    int toVirtual(int route, int nodeId);

    /** The route behind a virtual id; -1 for negative ids. */
    int routeOf(int virtualId);

    /** The real node id behind a virtual id. */
    int realNodeId(int virtualId);
}
