package dev.weft.routing.compose;

import dev.weft.routing.ClusterRouters;
import dev.weft.routing.GroupRouting;
import dev.weft.routing.RealTopic;
import dev.weft.routing.Router;
import dev.weft.routing.TopicRouting;
import dev.weft.routing.TransactionRouting;
import dev.weft.routing.dag.ClusterTarget;
import dev.weft.routing.dag.ComposedNodeIds;
import dev.weft.routing.dag.LeafPath;
import dev.weft.routing.dag.RouteSpec;
import dev.weft.routing.dag.RouterSpec;
import dev.weft.routing.dag.RouterTarget;
import dev.weft.routing.dag.RoutingGraph;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * A virtual cluster's routing DAG seen as one router whose routes are its leaves (one per path to a
 * cluster, numbered as {@link ComposedNodeIds} numbers them). Each router of the DAG still decides its
 * own level — visibility, names, collisions, placement, homes — exactly as it would at the top: the
 * "real topics" of a route that leads to an inner router are that router's visible topics.
 */
public final class LeafRouter implements Router {

    private final RoutingGraph graph;
    private final Map<String, Router> routers;
    private final String rootRouter;
    private final ComposedNodeIds nodeIds;
    private final List<RouteSpec> leafRoutes;
    private final Map<List<Integer>, Integer> leafByPath = new HashMap<>();

    /**
     * The router a virtual cluster is served by, whatever it targets: for a cluster, the router
     * {@link ClusterRouters#over} picks for the topology; for a router, that router when every route of
     * it leads to a cluster (one level: nothing to compose), else a {@code LeafRouter} over the DAG's
     * leaves. The proxy starts every virtual cluster through this one call (with
     * {@code graph.nodeIds(virtualCluster)} as its node ids).
     *
     * @param routers every router of the graph, built (by name)
     * @param bindsConnectionsToBrokers true for the mirrored topology (DESIGN §4)
     */
    public static Router of(RoutingGraph graph, Map<String, Router> routers, String virtualCluster,
            boolean bindsConnectionsToBrokers) {
        return of(graph, routers, virtualCluster, bindsConnectionsToBrokers, false);
    }

    /** @param plansEveryRequest see {@link ClusterRouters#over(String, boolean, boolean)} */
    public static Router of(RoutingGraph graph, Map<String, Router> routers, String virtualCluster,
            boolean bindsConnectionsToBrokers, boolean plansEveryRequest) {
        if (graph.target(virtualCluster) instanceof ClusterTarget cluster) {
            return ClusterRouters.over(cluster.cluster(), bindsConnectionsToBrokers, plansEveryRequest);
        }
        RouterTarget target = (RouterTarget) graph.target(virtualCluster);
        RouterSpec root = graph.router(target.router());
        if (root.routes().stream().allMatch(r -> r.target() instanceof ClusterTarget)) {
            return routers.get(root.name());
        }
        return new LeafRouter(graph, routers, root.name(), graph.nodeIds(virtualCluster));
    }

    private LeafRouter(RoutingGraph graph, Map<String, Router> routers, String rootRouter, ComposedNodeIds nodeIds) {
        this.graph = graph;
        this.routers = Map.copyOf(routers);
        this.rootRouter = rootRouter;
        this.nodeIds = nodeIds;
        List<RouteSpec> specs = new ArrayList<>();
        for (int i = 0; i < nodeIds.leaves().size(); i++) {
            LeafPath leaf = nodeIds.leaves().get(i);
            specs.add(new RouteSpec(String.join("/", leaf.routeNames()), new ClusterTarget(leaf.cluster())));
            leafByPath.put(leaf.routeIndices(), i);
        }
        this.leafRoutes = List.copyOf(specs);
    }

    @Override
    public String name() {
        return rootRouter;
    }

    @Override
    public String type() {
        return routers.get(rootRouter).type();
    }

    /** One route per leaf: named by its route names joined with '/', targeting the leaf's cluster. */
    @Override
    public List<RouteSpec> routes() {
        return leafRoutes;
    }

    @Override
    public TopicRouting catalog(List<List<RealTopic>> topicsByLeaf) {
        if (topicsByLeaf.size() != leafRoutes.size()) {
            throw new IllegalArgumentException("topics for " + topicsByLeaf.size() + " leaves, but the DAG has " + leafRoutes.size());
        }
        Level root = level(rootRouter, new ArrayList<>(), topicsByLeaf);
        return new LeafTopicRouting(root, leafRoutes);
    }

    /** Builds a router's catalog after its inner routers' (their visible topics are its real topics). */
    private Level level(String routerName, List<Integer> path, List<List<RealTopic>> topicsByLeaf) {
        RouterSpec spec = graph.router(routerName);
        Level[] inner = new Level[spec.routes().size()];
        int[] leafOfRoute = new int[spec.routes().size()];
        List<List<RealTopic>> topics = new ArrayList<>();
        for (int k = 0; k < spec.routes().size(); k++) {
            path.add(k);
            if (spec.routes().get(k).target() instanceof RouterTarget rt) {
                inner[k] = level(rt.router(), path, topicsByLeaf);
                leafOfRoute[k] = -1;
                TopicRouting innerCatalog = inner[k].catalog;
                topics.add(innerCatalog.visibleTopics().stream()
                        .map(t -> new RealTopic(t.virtualName(), t.virtualId(), innerCatalog.partitionCountOf(t))).toList());
            } else {
                leafOfRoute[k] = leafByPath.get(path);
                topics.add(topicsByLeaf.get(leafOfRoute[k]));
            }
            path.removeLast();
        }
        Router router = routers.get(routerName);
        return new Level(router, router.catalog(topics), inner, leafOfRoute);
    }

    /** The first router of the DAG (root first, then down its routes) that names a fleet state cluster. */
    @Override
    public String fleetStateCluster() {
        java.util.ArrayDeque<String> todo = new java.util.ArrayDeque<>(List.of(rootRouter));
        java.util.Set<String> seen = new java.util.HashSet<>();
        while (!todo.isEmpty()) {
            String name = todo.removeFirst();
            if (!seen.add(name)) {
                continue;
            }
            String cluster = routers.get(name).fleetStateCluster();
            if (cluster != null) {
                return cluster;
            }
            for (RouteSpec route : graph.router(name).routes()) {
                if (route.target() instanceof RouterTarget rt) {
                    todo.addLast(rt.router());
                }
            }
        }
        return null;
    }

    /** Every router below the root may change its catalog on its own (a switch at any level). */
    @Override
    public void watch(dev.weft.routing.RouterListener listener) {
        watch(rootRouter, listener, new java.util.HashSet<>());
    }

    private void watch(String routerName, dev.weft.routing.RouterListener listener, java.util.Set<String> seen) {
        if (!seen.add(routerName)) {
            return; // reached again through another route of the DAG
        }
        routers.get(routerName).watch(listener);
        for (RouteSpec route : graph.router(routerName).routes()) {
            if (route.target() instanceof RouterTarget rt) {
                watch(rt.router(), listener, seen);
            }
        }
    }

    @Override
    public GroupRouting groups() {
        return group -> leafOf(rootRouter, r -> r.groups().homeRoute(group));
    }

    @Override
    public TransactionRouting transactions() {
        return id -> leafOf(rootRouter, r -> r.transactions().homeRoute(id));
    }

    /** Follows the route each level picks down to a leaf. */
    private int leafOf(String routerName, Function<Router, Integer> pick) {
        List<Integer> path = new ArrayList<>();
        String current = routerName;
        while (true) {
            int k = pick.apply(routers.get(current));
            path.add(k);
            RouteSpec route = graph.router(current).routes().get(k);
            if (route.target() instanceof RouterTarget rt) {
                current = rt.router();
            } else {
                return leafByPath.get(path);
            }
        }
    }

    /** The composed node ids of the leaves (DESIGN §4). */
    public ComposedNodeIds nodeIds() {
        return nodeIds;
    }

    @Override
    public String toString() {
        return "routing DAG of router '" + rootRouter + "' over leaves " + leafRoutes.stream().map(RouteSpec::name).toList();
    }

    /** One router of the DAG in one snapshot: its catalog, and per route either an inner level or a leaf. */
    record Level(Router router, TopicRouting catalog, Level[] inner, int[] leafOfRoute) {
    }

    @Override
    public dev.weft.routing.api.ApiRoute apiRoute(short apiKey) {
        return dev.weft.routing.plan.Planners.catalogApiRoute(apiKey);
    }

    @Override
    public dev.weft.routing.api.HotPlanner hotPlanner() {
        return dev.weft.routing.topicweave.CatalogHotPlanner.INSTANCE;
    }

    @Override
    public dev.weft.routing.plan.ColdPlanner coldPlanner(short apiKey) {
        return dev.weft.routing.plan.Planners.forApi(apiKey);
    }

    /** When any router of the DAG counts partitions (a partition-weave router at any level). */
    @Override
    public boolean countsPartitions() {
        return reachable(rootRouter).stream().anyMatch(name -> routers.get(name).countsPartitions());
    }

    /** The routers of the DAG below (and including) {@code routerName}. */
    private java.util.Set<String> reachable(String routerName) {
        java.util.Set<String> out = new java.util.LinkedHashSet<>();
        java.util.ArrayDeque<String> todo = new java.util.ArrayDeque<>(List.of(routerName));
        while (!todo.isEmpty()) {
            String r = todo.pop();
            if (out.add(r)) {
                for (RouteSpec route : graph.router(r).routes()) {
                    if (route.target() instanceof RouterTarget rt) {
                        todo.push(rt.router());
                    }
                }
            }
        }
        return out;
    }

    @Override
    public boolean usesTopicCatalog() {
        return true;
    }
}
