package dev.weft.routing.dag;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The routing DAG (DESIGN §1): virtual clusters point at a router or a cluster; each router's routes
 * point at clusters or other routers. {@link #build} validates the whole configuration and reports
 * every problem at once, each with the path in the config document; a built graph is known to be
 * acyclic, fully resolved and without unused routers, and answers the structural queries the proxy
 * needs (leaf clusters, paths, composed node ids).
 *
 * <p>Iteration order of the maps passed in is kept (pass the YAML reader's order, so messages follow
 * the file). Immutable once built.
 */
public final class RoutingGraph {

    private final Map<String, RouterSpec> routers;
    private final Set<String> clusters;
    private final Map<String, RouteTarget> virtualClusters;
    private final Map<String, ComposedNodeIds> nodeIds = new HashMap<>();

    private RoutingGraph(Map<String, RouterSpec> routers, Set<String> clusters, Map<String, RouteTarget> virtualClusters) {
        this.routers = Collections.unmodifiableMap(new LinkedHashMap<>(routers));
        this.clusters = Collections.unmodifiableSet(new LinkedHashSet<>(clusters));
        this.virtualClusters = Collections.unmodifiableMap(new LinkedHashMap<>(virtualClusters));
        for (Map.Entry<String, RouteTarget> vc : this.virtualClusters.entrySet()) {
            nodeIds.put(vc.getKey(), new ComposedNodeIds(vc.getKey(), this, vc.getValue()));
        }
    }

    /**
     * Validates and builds the graph.
     *
     * @param routers router name (the key under {@code routers}) → spec
     * @param clusterNames the names under {@code clusters}
     * @param virtualClusterTargets virtual cluster name → its {@code target}
     * @throws InvalidRoutingException carrying every problem found, when there is any
     */
    public static RoutingGraph build(Map<String, RouterSpec> routers, Set<String> clusterNames,
            Map<String, RouteTarget> virtualClusterTargets) {
        List<RoutingProblem> problems = validate(routers, clusterNames, virtualClusterTargets);
        if (!problems.isEmpty()) {
            throw new InvalidRoutingException(problems);
        }
        return new RoutingGraph(routers, clusterNames, virtualClusterTargets);
    }

    /** Every problem in the configuration, in file order by kind; empty when it is valid. */
    public static List<RoutingProblem> validate(Map<String, RouterSpec> routers, Set<String> clusterNames,
            Map<String, RouteTarget> virtualClusterTargets) {
        List<RoutingProblem> problems = new ArrayList<>();
        for (Map.Entry<String, RouterSpec> e : routers.entrySet()) {
            checkRouter(e.getKey(), e.getValue(), routers, clusterNames, problems);
        }
        for (Map.Entry<String, RouteTarget> vc : virtualClusterTargets.entrySet()) {
            String path = "virtualClusters." + vc.getKey() + ".target";
            if (vc.getValue() == null) {
                problems.add(new RoutingProblem(path, "virtual cluster '" + vc.getKey() + "' has no target"));
                continue;
            }
            String dangling = dangling(vc.getValue(), routers, clusterNames);
            if (dangling != null) {
                problems.add(new RoutingProblem(path, "virtual cluster '" + vc.getKey() + "' targets " + dangling));
            }
        }
        findCycles(routers, problems);
        findUnused(routers, virtualClusterTargets, problems);
        return problems;
    }

    private static void checkRouter(String key, RouterSpec spec, Map<String, RouterSpec> routers, Set<String> clusters,
            List<RoutingProblem> problems) {
        String base = "routers." + key;
        if (!spec.name().equals(key)) {
            problems.add(new RoutingProblem(base, "router is named '" + spec.name() + "' but listed under '" + key + "'"));
        }
        if (spec.routes().isEmpty()) {
            problems.add(new RoutingProblem(base + ".routes", "router '" + key + "' has no routes"));
        }
        Map<String, Integer> seen = new HashMap<>();
        for (int i = 0; i < spec.routes().size(); i++) {
            RouteSpec route = spec.routes().get(i);
            String path = base + ".routes[" + i + "]";
            if (route.name().isBlank()) {
                problems.add(new RoutingProblem(path + ".name", "route name is empty"));
            } else {
                Integer earlier = seen.putIfAbsent(route.name(), i);
                if (earlier != null) {
                    problems.add(new RoutingProblem(path + ".name", "duplicate route name '" + route.name()
                            + "' in router '" + key + "' (also routes[" + earlier + "])"));
                }
            }
            String dangling = dangling(route.target(), routers, clusters);
            if (dangling != null) {
                problems.add(new RoutingProblem(path + ".target", "route '" + route.name() + "' targets " + dangling));
            }
        }
    }

    /** Null when the target exists, else the rest of a message saying what is missing and what exists. */
    private static String dangling(RouteTarget target, Map<String, RouterSpec> routers, Set<String> clusters) {
        switch (target) {
            case ClusterTarget c -> {
                if (clusters.contains(c.cluster())) {
                    return null;
                }
                String hint = routers.containsKey(c.cluster())
                        ? "; there is a router of that name: write { router: " + c.cluster() + " }" : "";
                return "cluster '" + c.cluster() + "', which is not defined; defined clusters: "
                        + new TreeSet<>(clusters) + hint;
            }
            case RouterTarget r -> {
                if (routers.containsKey(r.router())) {
                    return null;
                }
                String hint = clusters.contains(r.router())
                        ? "; there is a cluster of that name: write { cluster: " + r.router() + " }" : "";
                return "router '" + r.router() + "', which is not defined; defined routers: "
                        + new TreeSet<>(routers.keySet()) + hint;
            }
        }
    }

    private static void findCycles(Map<String, RouterSpec> routers, List<RoutingProblem> problems) {
        Map<String, Integer> color = new HashMap<>(); // absent: unvisited, 1: on the stack, 2: done
        Deque<String> stack = new ArrayDeque<>();
        for (String start : routers.keySet()) {
            if (!color.containsKey(start)) {
                visit(start, routers, color, stack, problems);
            }
        }
    }

    private static void visit(String name, Map<String, RouterSpec> routers, Map<String, Integer> color,
            Deque<String> stack, List<RoutingProblem> problems) {
        color.put(name, 1);
        stack.addLast(name);
        List<RouteSpec> routes = routers.get(name).routes();
        for (int i = 0; i < routes.size(); i++) {
            if (!(routes.get(i).target() instanceof RouterTarget next) || !routers.containsKey(next.router())) {
                continue;
            }
            Integer c = color.get(next.router());
            if (c == null) {
                visit(next.router(), routers, color, stack, problems);
            } else if (c == 1) {
                List<String> cycle = new ArrayList<>();
                boolean in = false;
                for (String s : stack) {
                    in |= s.equals(next.router());
                    if (in) {
                        cycle.add(s);
                    }
                }
                cycle.add(next.router());
                problems.add(new RoutingProblem("routers." + name + ".routes[" + i + "].target",
                        "cycle: " + String.join(" -> ", cycle)));
            }
        }
        stack.removeLast();
        color.put(name, 2);
    }

    private static void findUnused(Map<String, RouterSpec> routers, Map<String, RouteTarget> virtualClusters,
            List<RoutingProblem> problems) {
        Set<String> reached = new HashSet<>();
        Deque<String> todo = new ArrayDeque<>();
        for (RouteTarget t : virtualClusters.values()) {
            if (t instanceof RouterTarget r && routers.containsKey(r.router()) && reached.add(r.router())) {
                todo.add(r.router());
            }
        }
        while (!todo.isEmpty()) {
            for (RouteSpec route : routers.get(todo.poll()).routes()) {
                if (route.target() instanceof RouterTarget r && routers.containsKey(r.router()) && reached.add(r.router())) {
                    todo.add(r.router());
                }
            }
        }
        for (String name : routers.keySet()) {
            if (!reached.contains(name)) {
                problems.add(new RoutingProblem("routers." + name, "router '" + name + "' is not used by any virtual cluster"));
            }
        }
    }

    // ---- queries on a valid graph ----

    public Map<String, RouterSpec> routers() {
        return routers;
    }

    /** The router with this name; throws when there is none. */
    public RouterSpec router(String name) {
        RouterSpec spec = routers.get(name);
        if (spec == null) {
            throw new IllegalArgumentException("no router '" + name + "'; routers: " + routers.keySet());
        }
        return spec;
    }

    public Set<String> clusters() {
        return clusters;
    }

    public Set<String> virtualClusters() {
        return virtualClusters.keySet();
    }

    /** The target of a virtual cluster; throws when there is no such virtual cluster. */
    public RouteTarget target(String virtualCluster) {
        RouteTarget t = virtualClusters.get(virtualCluster);
        if (t == null) {
            throw new IllegalArgumentException("no virtual cluster '" + virtualCluster + "'; virtual clusters: "
                    + virtualClusters.keySet());
        }
        return t;
    }

    /** The distinct clusters under {@code target}, in route order (depth first, first occurrence). */
    public List<String> leafClusters(RouteTarget target) {
        Set<String> out = new LinkedHashSet<>();
        for (LeafPath leaf : leaves(target)) {
            out.add(leaf.cluster());
        }
        return List.copyOf(out);
    }

    /** Every path from {@code target} down to a cluster, in route order (depth first). */
    public List<LeafPath> leaves(RouteTarget target) {
        return new ComposedNodeIds("", this, target).leaves();
    }

    /** Every path from the virtual cluster's target down to a cluster; leaf i is {@code nodeIds(vc)}'s leaf i. */
    public List<LeafPath> leaves(String virtualCluster) {
        return nodeIds(virtualCluster).leaves();
    }

    /** The composed node-id mapping of a virtual cluster (mirrored topology). */
    public ComposedNodeIds nodeIds(String virtualCluster) {
        target(virtualCluster);
        return nodeIds.get(virtualCluster);
    }
}
