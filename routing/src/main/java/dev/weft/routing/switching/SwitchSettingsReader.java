package dev.weft.routing.switching;

import dev.weft.routing.dag.RouterSpec;
import dev.weft.routing.dag.RoutingProblem;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Reads a switch router's config mapping; every problem is added with its path, nothing is thrown. */
final class SwitchSettingsReader {

    private static final Set<String> ROUTER_KEYS = Set.of("type", "routes", "active", "state", "cutover", "failover");
    private static final Set<String> ROUTE_KEYS = Set.of("name", "target", "mirrorAlias");
    private static final Set<String> STATE_KEYS = Set.of("cluster", "leaseMs");
    private static final Set<String> CUTOVER_KEYS = Set.of("catchUpTimeoutMs", "drainTimeoutMs");
    private static final Set<String> FAILOVER_KEYS = Set.of("to", "afterMs");

    private SwitchSettingsReader() {
    }

    static SwitchSettings read(String path, RouterSpec spec, List<RoutingProblem> problems) {
        Map<?, ?> raw = switch (spec.settings()) {
            case null -> Map.of();
            case Map<?, ?> m -> m;
            default -> {
                problems.add(new RoutingProblem(path, "switch settings must be a mapping, got "
                        + spec.settings().getClass().getSimpleName()));
                yield Map.of();
            }
        };
        unknownKeys(path, raw, ROUTER_KEYS, problems);
        if (spec.routes().size() < 2) {
            problems.add(new RoutingProblem(path + ".routes", "a switch needs at least two candidate routes to switch between;"
                    + " it has " + spec.routes().size()));
        }
        int active = 0;
        if (raw.get("active") != null) {
            active = route(path + ".active", raw.get("active"), spec, problems);
        }
        List<String> aliases = new ArrayList<>();
        List<?> rawRoutes = raw.get("routes") instanceof List<?> l ? l : List.of();
        for (int k = 0; k < spec.routes().size(); k++) {
            Map<?, ?> r = k < rawRoutes.size() && rawRoutes.get(k) instanceof Map<?, ?> m ? m : Map.of();
            unknownKeys(path + ".routes[" + k + "]", r, ROUTE_KEYS, problems);
            Object alias = r.get("mirrorAlias");
            if (alias != null && !(alias instanceof String s && !s.isBlank())) {
                problems.add(new RoutingProblem(path + ".routes[" + k + "].mirrorAlias",
                        "the MirrorMaker 2 alias of a cluster must be a name, got '" + alias + "'"));
            }
            aliases.add(alias instanceof String s && !s.isBlank() ? s : spec.routes().get(k).name());
        }
        Map<?, ?> state = mapping(path + ".state", raw.get("state"), STATE_KEYS, problems);
        Object stateCluster = state.get("cluster");
        if (stateCluster != null && !(stateCluster instanceof String s && !s.isBlank())) {
            problems.add(new RoutingProblem(path + ".state.cluster", "must name a cluster under 'clusters', got '" + stateCluster + "'"));
        }
        Duration lease = millis(path + ".state.leaseMs", state.get("leaseMs"), SwitchSettings.DEFAULT_STATE_LEASE, problems);
        Map<?, ?> cutover = mapping(path + ".cutover", raw.get("cutover"), CUTOVER_KEYS, problems);
        Duration catchUp = millis(path + ".cutover.catchUpTimeoutMs", cutover.get("catchUpTimeoutMs"),
                SwitchSettings.DEFAULT_CATCH_UP_TIMEOUT, problems);
        Duration drain = millis(path + ".cutover.drainTimeoutMs", cutover.get("drainTimeoutMs"),
                SwitchSettings.DEFAULT_DRAIN_TIMEOUT, problems);
        SwitchSettings.Failover failover = null;
        if (raw.get("failover") != null) {
            Map<?, ?> f = mapping(path + ".failover", raw.get("failover"), FAILOVER_KEYS, problems);
            if (f.get("to") == null || f.get("afterMs") == null) {
                problems.add(new RoutingProblem(path + ".failover", "automatic failover needs 'to' (the standby route) and"
                        + " 'afterMs' (how long the active route must be unreachable first)"));
            } else {
                int standby = route(path + ".failover.to", f.get("to"), spec, problems);
                Duration after = millis(path + ".failover.afterMs", f.get("afterMs"), null, problems);
                if (standby == active && standby >= 0) {
                    problems.add(new RoutingProblem(path + ".failover.to", "the standby must be another route than the"
                            + " initially active one ('" + spec.routes().get(active).name() + "')"));
                }
                failover = new SwitchSettings.Failover(standby, after);
            }
        }
        return new SwitchSettings(Math.max(active, 0), aliases, stateCluster instanceof String s ? s : null, lease, catchUp,
                drain, failover);
    }

    private static int route(String at, Object value, RouterSpec spec, List<RoutingProblem> problems) {
        int k = value instanceof String s ? spec.routeIndex(s) : -1;
        if (k < 0) {
            problems.add(new RoutingProblem(at, "no route named '" + value + "' (routes: "
                    + String.join(", ", spec.routeNames()) + ")"));
        }
        return k;
    }

    private static Map<?, ?> mapping(String at, Object value, Set<String> keys, List<RoutingProblem> problems) {
        if (value == null) {
            return Map.of();
        }
        if (!(value instanceof Map<?, ?> m)) {
            problems.add(new RoutingProblem(at, "must be a mapping with keys " + keys.stream().sorted().toList()));
            return Map.of();
        }
        unknownKeys(at, m, keys, problems);
        return m;
    }

    private static Duration millis(String at, Object value, Duration fallback, List<RoutingProblem> problems) {
        if (value == null) {
            return fallback;
        }
        if (value instanceof Number n && n.longValue() > 0 && n.doubleValue() == n.longValue()) {
            return Duration.ofMillis(n.longValue());
        }
        problems.add(new RoutingProblem(at, "must be a positive whole number of milliseconds, got '" + value + "'"));
        return fallback == null ? Duration.ofSeconds(1) : fallback;
    }

    private static void unknownKeys(String at, Map<?, ?> raw, Set<String> known, List<RoutingProblem> problems) {
        for (Object key : raw.keySet()) {
            if (!known.contains(String.valueOf(key))) {
                problems.add(new RoutingProblem(at + "." + key, "unknown key '" + key + "'; known keys: "
                        + known.stream().sorted().toList()));
            }
        }
    }
}
