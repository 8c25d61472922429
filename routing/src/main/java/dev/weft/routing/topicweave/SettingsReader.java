package dev.weft.routing.topicweave;

import dev.weft.routing.dag.RawSettings;
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
    private final RawSettings shapes;

    private SettingsReader(List<RoutingProblem> problems) {
        this.problems = problems;
        this.shapes = new RawSettings(problems);
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
        shapes.unknownKeys(path, raw, ROUTER_KEYS);
        CollisionPolicy policy = CollisionPolicy.REJECT;
        String text = shapes.string(path + ".collisions", raw.get("collisions"));
        if (text != null) {
            policy = CollisionPolicy.fromConfig(text);
            if (policy == null) {
                problems.add(new RoutingProblem(path + ".collisions", "'" + text + "' is not a collision policy; use reject | first-wins | qualify"));
                policy = CollisionPolicy.REJECT;
            }
        }
        List<RouteRules> routes = new ArrayList<>();
        List<?> rawRoutes = shapes.list(path + ".routes", raw.get("routes"));
        for (int k = 0; k < routeCount; k++) {
            Object r = rawRoutes != null && k < rawRoutes.size() ? rawRoutes.get(k) : null;
            Map<?, ?> route = shapes.map(path + ".routes[" + k + "]", r);
            routes.add(route == null ? RouteRules.DEFAULT : route(path + ".routes[" + k + "]", route, ROUTE_KEYS));
        }
        return new TopicWeaveSettings(policy, routes, homes(path + ".groups", "homes", raw.get("groups")),
                homes(path + ".transactions", "homes", raw.get("transactions")),
                homes(path + ".placement", "rules", raw.get("placement")));
    }

    private RouteRules route(String path, Map<?, ?> raw, Set<String> keys) {
        shapes.unknownKeys(path, raw, keys);
        TopicFilter filter = TopicFilter.ALL;
        Map<?, ?> topics = shapes.map(path + ".topics", raw.get("topics"));
        if (topics != null) {
            shapes.unknownKeys(path + ".topics", topics, Set.of("include", "exclude"));
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
            Map<?, ?> m = shapes.map(path + ".naming", rawNaming);
            if (m != null) {
                shapes.unknownKeys(path + ".naming", m, Set.of("prefix", "renames"));
                String prefix = shapes.string(path + ".naming.prefix", m.get("prefix"));
                Map<String, String> renames = new LinkedHashMap<>();
                Map<?, ?> rawRenames = shapes.map(path + ".naming.renames", m.get("renames"));
                if (rawRenames != null) {
                    rawRenames.forEach((real, virtual) -> {
                        String v = shapes.string(path + ".naming.renames." + real, virtual);
                        if (v != null) {
                            renames.put(String.valueOf(real), v);
                        }
                    });
                }
                naming = new TopicNaming(prefix, renames);
            }
        }
        return new RouteRules(filter, naming, keys.contains("qualify") ? shapes.string(path + ".qualify", raw.get("qualify")) : null);
    }

    private PrefixHomes homes(String path, String listKey, Object raw) {
        Map<?, ?> m = shapes.map(path, raw);
        if (m == null) {
            return PrefixHomes.FIRST_ROUTE;
        }
        shapes.unknownKeys(path, m, Set.of(listKey, "default"));
        List<PrefixRule> rules = new ArrayList<>();
        List<?> list = shapes.list(path + "." + listKey, m.get(listKey));
        if (list != null) {
            for (int i = 0; i < list.size(); i++) {
                String p = path + "." + listKey + "[" + i + "]";
                Map<?, ?> rule = shapes.map(p, list.get(i));
                if (rule == null) {
                    continue;
                }
                shapes.unknownKeys(p, rule, Set.of("prefix", "route"));
                String prefix = shapes.string(p + ".prefix", rule.get("prefix"));
                String route = shapes.string(p + ".route", rule.get("route"));
                if (prefix == null || route == null) {
                    problems.add(new RoutingProblem(p, "a rule needs both prefix and route"));
                } else {
                    rules.add(new PrefixRule(prefix, route));
                }
            }
        }
        return new PrefixHomes(rules, shapes.string(path + ".default", m.get("default")));
    }



    private List<String> strings(String path, Object value) {
        List<?> list = shapes.list(path, value);
        List<String> out = new ArrayList<>();
        if (list != null) {
            for (int i = 0; i < list.size(); i++) {
                String s = shapes.string(path + "[" + i + "]", list.get(i));
                if (s != null) {
                    out.add(s);
                }
            }
        }
        return out;
    }



}
