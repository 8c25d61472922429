package dev.weft.routing.dag;

import dev.weft.routing.node.NodeIdBijection;
import dev.weft.routing.node.NodeIdMapping;
import java.util.ArrayList;
import java.util.List;

/**
 * The node-id mapping of one virtual cluster in mirrored topology: every (leaf, real node id) gets one
 * virtual node id, by composing a {@link NodeIdBijection} per router level (DESIGN §4,
 * {@code V_outer = V_inner × N_outer + k}). A leaf is one path to an upstream cluster (see
 * {@link LeafPath}); leaves are numbered in route order, depth first.
 *
 * <p>Immutable and allocation-free per call (except when throwing): safe to share between cores.
 * Negative ids are protocol sentinels (−1: no leader) and pass through in both directions.
 */
public final class ComposedNodeIds implements NodeIdMapping {

    private final String virtualCluster;
    private final List<LeafPath> leaves;
    /** Per leaf, outermost level first. */
    private final NodeIdBijection[][] levels;
    private final int[][] routes;
    /** Null when the virtual cluster targets one cluster directly: identity. */
    private final Level root;

    /** One router level on the way down; each route leads to a leaf or a deeper level. */
    private static final class Level {
        final NodeIdBijection bijection;
        final Level[] next;
        final int[] leafOfRoute;

        Level(int routeCount) {
            bijection = new NodeIdBijection(routeCount);
            next = new Level[routeCount];
            leafOfRoute = new int[routeCount];
        }
    }

    ComposedNodeIds(String virtualCluster, RoutingGraph graph, RouteTarget target) {
        this.virtualCluster = virtualCluster;
        List<LeafPath> found = new ArrayList<>();
        List<NodeIdBijection[]> foundLevels = new ArrayList<>();
        if (target instanceof RouterTarget rt) {
            root = build(graph, rt.router(), new ArrayList<>(), new ArrayList<>(), new ArrayList<>(), new ArrayList<>(),
                    found, foundLevels);
        } else {
            root = null;
            found.add(new LeafPath(target.name(), List.of(), List.of(), List.of()));
            foundLevels.add(new NodeIdBijection[0]);
        }
        this.leaves = List.copyOf(found);
        this.levels = foundLevels.toArray(NodeIdBijection[][]::new);
        this.routes = new int[leaves.size()][];
        for (int i = 0; i < leaves.size(); i++) {
            routes[i] = leaves.get(i).routeIndices().stream().mapToInt(Integer::intValue).toArray();
        }
    }

    private static Level build(RoutingGraph graph, String routerName, List<String> routers, List<Integer> indices,
            List<String> names, List<NodeIdBijection> chain, List<LeafPath> found, List<NodeIdBijection[]> foundLevels) {
        RouterSpec spec = graph.router(routerName);
        Level level = new Level(spec.routes().size());
        for (int k = 0; k < spec.routes().size(); k++) {
            RouteSpec route = spec.routes().get(k);
            routers.add(routerName);
            indices.add(k);
            names.add(route.name());
            chain.add(level.bijection);
            if (route.target() instanceof RouterTarget inner) {
                level.next[k] = build(graph, inner.router(), routers, indices, names, chain, found, foundLevels);
                level.leafOfRoute[k] = -1;
            } else {
                level.leafOfRoute[k] = found.size();
                found.add(new LeafPath(route.target().name(), routers, indices, names));
                foundLevels.add(chain.toArray(NodeIdBijection[]::new));
            }
            routers.removeLast();
            indices.removeLast();
            names.removeLast();
            chain.removeLast();
        }
        return level;
    }

    public String virtualCluster() {
        return virtualCluster;
    }

    /** The leaves in route order (depth first); a leaf's index is its position here. */
    public List<LeafPath> leaves() {
        return leaves;
    }

    public int leafCount() {
        return leaves.size();
    }

    /** The first leaf ending at {@code cluster}, or -1. A cluster reached along two paths has two leaves. */
    public int firstLeafOf(String cluster) {
        for (int i = 0; i < leaves.size(); i++) {
            if (leaves.get(i).cluster().equals(cluster)) {
                return i;
            }
        }
        return -1;
    }

    /**
     * The virtual node id of real node {@code realNodeId} of the cluster at {@code leaf}.
     *
     * @throws NodeIdOverflowException when the id does not fit; its message names the cluster and id
     */
    @Override
    public int toVirtual(int leaf, int realNodeId) {
        if (realNodeId < 0) {
            return realNodeId;
        }
        NodeIdBijection[] chain = levels[leaf];
        int[] ks = routes[leaf];
        int v = realNodeId;
        try {
            for (int i = chain.length - 1; i >= 0; i--) {
                v = chain[i].toVirtual(ks[i], v);
            }
        } catch (ArithmeticException e) {
            throw new NodeIdOverflowException(overflow(leaf, realNodeId));
        }
        return v;
    }

    /** Leaves are the routes of the composed id space. */
    @Override
    public int routes() {
        return leaves.size();
    }

    @Override
    public int routeOf(int virtualId) {
        return leafOf(virtualId);
    }

    /** The leaf behind a virtual node id; -1 for a negative sentinel. */
    public int leafOf(int virtualId) {
        if (virtualId < 0) {
            return -1;
        }
        if (root == null) {
            return 0;
        }
        Level level = root;
        int v = virtualId;
        while (true) {
            int k = level.bijection.routeOf(v);
            v = level.bijection.realNodeId(v);
            if (level.next[k] == null) {
                return level.leafOfRoute[k];
            }
            level = level.next[k];
        }
    }

    /** The real node id (in its leaf's cluster) behind a virtual node id; negative sentinels pass through. */
    @Override
    public int realNodeId(int virtualId) {
        if (virtualId < 0 || root == null) {
            return virtualId;
        }
        Level level = root;
        int v = virtualId;
        while (true) {
            int k = level.bijection.routeOf(v);
            v = level.bijection.realNodeId(v);
            if (level.next[k] == null) {
                return v;
            }
            level = level.next[k];
        }
    }

    /** The largest real node id that {@code leaf} can map without overflowing an int. */
    public int maxRealNodeId(int leaf) {
        long multiplier = 1;
        long offset = 0;
        NodeIdBijection[] chain = levels[leaf];
        int[] ks = routes[leaf];
        for (int i = chain.length - 1; i >= 0; i--) {
            offset = offset * chain[i].routes() + ks[i];
            multiplier *= chain[i].routes();
        }
        return (int) ((Integer.MAX_VALUE - offset) / multiplier);
    }

    /** Problems for every id in {@code realNodeIds} that does not fit at {@code leaf} (for startup and discovery). */
    public List<RoutingProblem> check(int leaf, int[] realNodeIds) {
        List<RoutingProblem> problems = new ArrayList<>();
        int max = maxRealNodeId(leaf);
        for (int id : realNodeIds) {
            if (id > max) {
                problems.add(overflow(leaf, id));
            }
        }
        return problems;
    }

    private RoutingProblem overflow(int leaf, int realNodeId) {
        LeafPath path = leaves.get(leaf);
        return new RoutingProblem("virtualClusters." + virtualCluster,
                "node id " + realNodeId + " of cluster '" + path.cluster() + "' (" + path.describe()
                        + ") does not fit in a virtual node id: at this place in the routing DAG the largest node id is "
                        + maxRealNodeId(leaf));
    }
}
