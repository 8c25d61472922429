package dev.weft.proxy.reload;

import dev.weft.proxy.config.ConfigFingerprints;
import dev.weft.proxy.config.WeftConfig;
import dev.weft.routing.dag.ClusterTarget;
import dev.weft.routing.dag.RouteSpec;
import dev.weft.routing.dag.RouteTarget;
import dev.weft.routing.dag.RouterSpec;
import dev.weft.routing.dag.RouterTarget;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * What a config reload changes, section by section, as written ({@link ConfigFingerprints}). A virtual
 * cluster counts as changed when its own section, a gateway, a router its target leads to, or a cluster
 * those routers name changed: it is what gets a new runtime; the others are not touched at all.
 *
 * @param restartOnly settings a running proxy cannot take (server, admin, an embedded cluster), one line each
 * @param clusters clusters to start or start again (added, or changed and not embedded)
 * @param removedClusters clusters the new config no longer has
 * @param added virtual clusters to start
 * @param removed virtual clusters to drain and close
 * @param changed virtual clusters to replace
 */
public record ConfigChanges(List<String> restartOnly, Set<String> clusters, Set<String> removedClusters, Set<String> added,
        Set<String> removed, Set<String> changed) {

    public static ConfigChanges between(WeftConfig before, WeftConfig after) {
        ConfigFingerprints b = before.fingerprints();
        ConfigFingerprints a = after.fingerprints();
        List<String> restartOnly = new ArrayList<>();
        if (!b.server().equals(a.server())) {
            restartOnly.add("server: changed; server settings take effect at the next restart");
        }
        if (!b.admin().equals(a.admin())) {
            restartOnly.add("admin: changed; the admin endpoint's settings take effect at the next restart");
        }
        Set<String> clusters = new LinkedHashSet<>();
        for (String name : a.clusters().keySet()) {
            String was = b.clusters().get(name);
            if (was == null) {
                clusters.add(name);
            } else if (!was.equals(a.clusters().get(name))) {
                if (before.clusters().get(name).isEmbedded() || after.clusters().get(name).isEmbedded()) {
                    restartOnly.add("clusters." + name + ": changed; an embedded cluster is started again only at a restart");
                } else {
                    clusters.add(name);
                }
            }
        }
        Set<String> removedClusters = new LinkedHashSet<>(b.clusters().keySet());
        removedClusters.removeAll(a.clusters().keySet());
        Set<String> touchedClusters = new LinkedHashSet<>(clusters);
        touchedClusters.addAll(removedClusters);

        Set<String> added = new LinkedHashSet<>();
        Set<String> changed = new LinkedHashSet<>();
        for (String vc : a.virtualClusters().keySet()) {
            if (!b.virtualClusters().containsKey(vc)) {
                added.add(vc);
            } else if (!b.virtualClusters().get(vc).equals(a.virtualClusters().get(vc))
                    || !Objects.equals(b.gateways().get(vc), a.gateways().get(vc))
                    || routersChanged(before, after, vc) || dependsOn(before, vc, touchedClusters) || dependsOn(after, vc, touchedClusters)) {
                changed.add(vc);
            }
        }
        Set<String> removed = new LinkedHashSet<>(b.virtualClusters().keySet());
        removed.removeAll(a.virtualClusters().keySet());
        return new ConfigChanges(List.copyOf(restartOnly), clusters, removedClusters, added, removed, changed);
    }

    /** Whether anything changes for clients and brokers at all (restart-only settings aside). */
    public boolean isEmpty() {
        return clusters.isEmpty() && removedClusters.isEmpty() && added.isEmpty() && removed.isEmpty() && changed.isEmpty();
    }

    /** One line for the log: what the reload does. */
    public String describe() {
        List<String> parts = new ArrayList<>();
        describe(parts, "virtual clusters added", added);
        describe(parts, "changed", changed);
        describe(parts, "removed", removed);
        describe(parts, "clusters (re)started", clusters);
        describe(parts, "clusters removed", removedClusters);
        return parts.isEmpty() ? "nothing changed" : String.join("; ", parts);
    }

    private static void describe(List<String> parts, String what, Set<String> names) {
        if (!names.isEmpty()) {
            parts.add(what + ": " + String.join(", ", names));
        }
    }

    private static boolean routersChanged(WeftConfig before, WeftConfig after, String vc) {
        Set<String> routers = reachableRouters(before, vc);
        routers.addAll(reachableRouters(after, vc));
        for (String r : routers) {
            if (!Objects.equals(before.fingerprints().routers().get(r), after.fingerprints().routers().get(r))) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether {@code vc} reaches one of {@code clusters}: as a route's target, or named anywhere in the
     * settings of a router it reaches (a switch's state cluster, a branch's target).
     */
    private static boolean dependsOn(WeftConfig config, String vc, Set<String> clusters) {
        if (clusters.isEmpty() || !config.virtualClusters().containsKey(vc)) {
            return false;
        }
        RouteTarget target = config.virtualClusters().get(vc).target();
        if (target instanceof ClusterTarget c && clusters.contains(c.cluster())) {
            return true;
        }
        for (String r : reachableRouters(config, vc)) {
            String section = config.fingerprints().routers().getOrDefault(r, "");
            for (String cluster : clusters) {
                if (section.contains('"' + cluster + '"')) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The routers a virtual cluster's target leads to, down the DAG. */
    public static Set<String> reachableRouters(WeftConfig config, String vc) {
        Set<String> out = new LinkedHashSet<>();
        if (!config.virtualClusters().containsKey(vc)) {
            return out;
        }
        ArrayDeque<RouteTarget> todo = new ArrayDeque<>();
        if (config.virtualClusters().get(vc).target() != null) {
            todo.push(config.virtualClusters().get(vc).target());
        }
        while (!todo.isEmpty()) {
            if (todo.pop() instanceof RouterTarget rt && out.add(rt.router())) {
                RouterSpec spec = config.routers().get(rt.router());
                if (spec != null) {
                    for (RouteSpec route : spec.routes()) {
                        todo.push(route.target());
                    }
                }
            }
        }
        return out;
    }
}
