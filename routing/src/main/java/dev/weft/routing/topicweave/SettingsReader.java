package dev.weft.routing.topicweave;

import dev.weft.routing.dag.RoutingProblem;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads {@link TopicWeaveSettings} from a router's config mapping as plain Java (maps, lists, strings,
 * as a YAML reader produces), adding a problem with its path for every value of the wrong shape and
 * every unknown key. See routing/README.md for the shape.
 */
public final class SettingsReader {

    private static final Set<String> ROUTER_KEYS = Set.of("type", "routes", "collisions", "groups", "transactions", "placement");
    private static final Set<String> ROUTE_KEYS = Set.of("name", "target", "topics", "naming", "qualify");

    private final List<RoutingProblem> problems;

    private SettingsReader(List<RoutingProblem> problems) {
        this.problems = problems;
    }

    /**
     * A route's {@code topics} and {@code naming} (as a topic-weave route has them), for router types that
     * select and name topics the same way; {@code keys} are the route keys that type allows.
     */
    public static RouteRules routeRules(String path, Map<?, ?> raw, Set<String> keys, List<RoutingProblem> problems) {
        return new SettingsReader(problems).route(path, raw, keys);
    }

    static TopicWeaveSettings read(String path, Map<?, ?> raw, int routeCount, List<RoutingProblem> problems) {
        return new SettingsReader(problems).router(path, raw, routeCount);
    }

    private TopicWeaveSettings router(String path, Map<?, ?> raw, int routeCount) {
        unknownKeys(path, raw, ROUTER_KEYS);
        CollisionPolicy policy = CollisionPolicy.REJECT;
        String text = string(path + ".collisions", raw.get("collisions"));
        if (text != null) {
            policy = CollisionPolicy.fromConfig(text);
            if (policy == null) {
                problems.add(new RoutingProblem(path + ".collisions", "'" + text + "' is not a collision policy; use reject | first-wins | qualify"));
                policy = CollisionPolicy.REJECT;
            }
        }
        List<RouteRules> routes = new ArrayList<>();
        List<?> rawRoutes = list(path + ".routes", raw.get("routes"));
        for (int k = 0; k < routeCount; k++) {
            Object r = rawRoutes != null && k < rawRoutes.size() ? rawRoutes.get(k) : null;
            Map<?, ?> route = map(path + ".routes[" + k + "]", r);
            routes.add(route == null ? RouteRules.DEFAULT : route(path + ".routes[" + k + "]", route, ROUTE_KEYS));
        }
        return new TopicWeaveSettings(policy, routes, homes(path + ".groups", "homes", raw.get("groups")),
                homes(path + ".transactions", "homes", raw.get("transactions")),
                homes(path + ".placement", "rules", raw.get("placement")));
    }

    private RouteRules route(String path, Map<?, ?> raw, Set<String> keys) {
        unknownKeys(path, raw, keys);
        TopicFilter filter = TopicFilter.ALL;
        Map<?, ?> topics = map(path + ".topics", raw.get("topics"));
        if (topics != null) {
            unknownKeys(path + ".topics", topics, Set.of("include", "exclude"));
            filter = new TopicFilter(strings(path + ".topics.include", topics.get("include")),
                    strings(path + ".topics.exclude", topics.get("exclude")));
        }
        TopicNaming naming = TopicNaming.IDENTITY;
        Object rawNaming = raw.get("naming");
        if (rawNaming instanceof String s) {
            if (!s.equals("identity")) {
                problems.add(new RoutingProblem(path + ".naming", "'" + s + "' is not a naming; use identity, { prefix: \"p.\" } or { renames: { real: virtual } }"));
            }
        } else if (rawNaming != null) {
            Map<?, ?> m = map(path + ".naming", rawNaming);
            if (m != null) {
                unknownKeys(path + ".naming", m, Set.of("prefix", "renames"));
                String prefix = string(path + ".naming.prefix", m.get("prefix"));
                Map<String, String> renames = new LinkedHashMap<>();
                Map<?, ?> rawRenames = map(path + ".naming.renames", m.get("renames"));
                if (rawRenames != null) {
                    rawRenames.forEach((real, virtual) -> {
                        String v = string(path + ".naming.renames." + real, virtual);
                        if (v != null) {
                            renames.put(String.valueOf(real), v);
                        }
                    });
                }
                naming = new TopicNaming(prefix, renames);
            }
        }
        return new RouteRules(filter, naming, keys.contains("qualify") ? string(path + ".qualify", raw.get("qualify")) : null);
    }

    private PrefixHomes homes(String path, String listKey, Object raw) {
        Map<?, ?> m = map(path, raw);
        if (m == null) {
            return PrefixHomes.FIRST_ROUTE;
        }
        unknownKeys(path, m, Set.of(listKey, "default"));
        List<PrefixRule> rules = new ArrayList<>();
        List<?> list = list(path + "." + listKey, m.get(listKey));
        if (list != null) {
            for (int i = 0; i < list.size(); i++) {
                String p = path + "." + listKey + "[" + i + "]";
                Map<?, ?> rule = map(p, list.get(i));
                if (rule == null) {
                    continue;
                }
                unknownKeys(p, rule, Set.of("prefix", "route"));
                String prefix = string(p + ".prefix", rule.get("prefix"));
                String route = string(p + ".route", rule.get("route"));
                if (prefix == null || route == null) {
                    problems.add(new RoutingProblem(p, "a rule needs both prefix and route"));
                } else {
                    rules.add(new PrefixRule(prefix, route));
                }
            }
        }
        return new PrefixHomes(rules, string(path + ".default", m.get("default")));
    }

    private void unknownKeys(String path, Map<?, ?> m, Set<String> known) {
        for (Object key : m.keySet()) {
            if (!known.contains(String.valueOf(key))) {
                problems.add(new RoutingProblem(path + "." + key, "unknown key '" + key + "'; known keys: " + known.stream().sorted().toList()));
            }
        }
    }

    private String string(String path, Object value) {
        if (value == null || value instanceof String) {
            return (String) value;
        }
        problems.add(new RoutingProblem(path, "expected a string, got " + describe(value)));
        return null;
    }

    private List<String> strings(String path, Object value) {
        List<?> list = list(path, value);
        List<String> out = new ArrayList<>();
        if (list != null) {
            for (int i = 0; i < list.size(); i++) {
                String s = string(path + "[" + i + "]", list.get(i));
                if (s != null) {
                    out.add(s);
                }
            }
        }
        return out;
    }

    private List<?> list(String path, Object value) {
        if (value == null || value instanceof List<?>) {
            return (List<?>) value;
        }
        problems.add(new RoutingProblem(path, "expected a list, got " + describe(value)));
        return null;
    }

    private Map<?, ?> map(String path, Object value) {
        if (value == null || value instanceof Map<?, ?>) {
            return (Map<?, ?>) value;
        }
        problems.add(new RoutingProblem(path, "expected a mapping, got " + describe(value)));
        return null;
    }

    private static String describe(Object value) {
        return value instanceof List<?> ? "a list" : value instanceof Map<?, ?> ? "a mapping" : "'" + value + "'";
    }
}
