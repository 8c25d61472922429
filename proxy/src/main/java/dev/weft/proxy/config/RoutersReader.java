package dev.weft.proxy.config;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weft.proxy.config.WeftConfig.VirtualClusterConfig;
import dev.weft.routing.RouterRegistry;
import dev.weft.routing.dag.ClusterTarget;
import dev.weft.routing.dag.RouteSpec;
import dev.weft.routing.dag.RouteTarget;
import dev.weft.routing.dag.RouterSpec;
import dev.weft.routing.dag.RouterTarget;
import dev.weft.routing.dag.RoutingGraph;
import dev.weft.routing.dag.RoutingProblem;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads the {@code routers:} section into routing specs and checks the whole graph: dangling
 * references, cycles, duplicate route names, unused routers, and each router's own settings (through
 * {@link RouterRegistry}, so a new router type needs no change here). Problems carry their path in the
 * file, like every other config problem.
 */
final class RoutersReader {

    private RoutersReader() {
    }

    static Map<String, RouterSpec> read(ConfigNode n) {
        Map<String, RouterSpec> out = new LinkedHashMap<>();
        for (Map.Entry<String, ConfigNode> e : n.entries().entrySet()) {
            ConfigNode r = e.getValue();
            if (!r.requireObject()) {
                continue;
            }
            String type = r.get("type").requiredText();
            List<RouteSpec> routes = new ArrayList<>();
            for (ConfigNode route : r.get("routes").elements()) {
                if (!route.requireObject()) {
                    continue;
                }
                String name = route.get("name").requiredText();
                RouteTarget target = target(route.get("target"));
                if (name != null && target != null) {
                    routes.add(new RouteSpec(name, target));
                }
            }
            if (type != null) {
                out.put(e.getKey(), new RouterSpec(e.getKey(), type, List.copyOf(routes), plain(r.json())));
            }
        }
        return out;
    }

    private static RouteTarget target(ConfigNode t) {
        if (!t.requireObject()) {
            return null;
        }
        t.allowOnly(Set.of("cluster", "router"));
        if (t.get("cluster").isMissing() == t.get("router").isMissing()) {
            t.problem("needs exactly one of 'cluster' or 'router'");
            return null;
        }
        return t.get("cluster").isMissing() ? new RouterTarget(t.get("router").requiredText())
                : new ClusterTarget(t.get("cluster").requiredText());
    }

    /** Adds the routing graph's problems, then each router's settings problems. */
    static void validate(Map<String, RouterSpec> routers, Set<String> clusters,
            Map<String, VirtualClusterConfig> virtualClusters, ConfigNode.Problems problems) {
        Map<String, RouteTarget> roots = new LinkedHashMap<>();
        boolean anyRouter = !routers.isEmpty();
        for (VirtualClusterConfig vc : virtualClusters.values()) {
            if (vc.target() != null) {
                roots.put(vc.name(), vc.target());
                anyRouter |= vc.target() instanceof RouterTarget;
            }
        }
        if (!anyRouter) {
            return; // cluster targets are checked where they are read
        }
        List<RoutingProblem> found = new ArrayList<>(RoutingGraph.validate(routers, clusters, roots));
        if (found.isEmpty()) {
            try {
                RouterRegistry.standard().createAll(RoutingGraph.build(routers, clusters, roots)); // settings, nesting
            } catch (dev.weft.routing.dag.InvalidRoutingException e) {
                found.addAll(e.problems());
            }
        }
        for (RoutingProblem p : found) {
            problems.add(p.path() + ": " + p.message());
        }
    }

    /** A YAML node as plain maps, lists, strings, numbers and booleans, as router factories read it. */
    private static Object plain(JsonNode node) {
        if (node == null || node.isNull() || node.isMissingNode()) {
            return null;
        }
        if (node.isObject()) {
            Map<String, Object> map = new LinkedHashMap<>();
            node.fields().forEachRemaining(e -> map.put(e.getKey(), plain(e.getValue())));
            return map;
        }
        if (node.isArray()) {
            List<Object> list = new ArrayList<>();
            node.forEach(x -> list.add(plain(x)));
            return list;
        }
        if (node.isBoolean()) {
            return node.asBoolean();
        }
        if (node.isNumber()) {
            return node.numberValue();
        }
        return node.asText();
    }
}
