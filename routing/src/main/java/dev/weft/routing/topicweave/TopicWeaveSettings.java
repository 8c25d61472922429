package dev.weft.routing.topicweave;

import dev.weft.routing.dag.RoutingProblem;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * The settings of a topic-weave router. {@code routes.get(k)} holds the rules of route k; a shorter list
 * leaves the remaining routes at {@link RouteRules#DEFAULT} (all topics, identity names).
 *
 * @param collisions the collision policy
 * @param routes per-route visibility and naming
 * @param groups consumer-group homes by group-id prefix
 * @param transactions transactional-id homes by prefix
 * @param placement CreateTopics placement by virtual topic-name prefix
 */
public record TopicWeaveSettings(CollisionPolicy collisions, List<RouteRules> routes, PrefixHomes groups,
        PrefixHomes transactions, PrefixHomes placement) {

    public TopicWeaveSettings {
        collisions = collisions == null ? CollisionPolicy.REJECT : collisions;
        routes = List.copyOf(routes);
        groups = groups == null ? PrefixHomes.FIRST_ROUTE : groups;
        transactions = transactions == null ? PrefixHomes.FIRST_ROUTE : transactions;
        placement = placement == null ? PrefixHomes.FIRST_ROUTE : placement;
    }

    /** All routes at their defaults, policy {@code reject}, everything homed on the first route. */
    public static TopicWeaveSettings defaults() {
        return new TopicWeaveSettings(CollisionPolicy.REJECT, List.of(), null, null, null);
    }

    /** The rules of route {@code k}. */
    public RouteRules route(int k) {
        return k < routes.size() ? routes.get(k) : RouteRules.DEFAULT;
    }

    /** The qualify prefix of route {@code k}, named {@code routeName}. */
    public String qualifyPrefix(int k, String routeName) {
        String p = route(k).qualifyPrefix();
        return p != null ? p : routeName + ".";
    }

    /**
     * Every problem in these settings for a router with these routes.
     *
     * @param path the router's path ({@code routers.<name>})
     */
    public List<RoutingProblem> validate(String path, List<String> routeNames) {
        List<RoutingProblem> problems = new ArrayList<>();
        if (routes.size() > routeNames.size()) {
            problems.add(new RoutingProblem(path + ".routes", "topic rules for " + routes.size()
                    + " routes but the router has " + routeNames.size()));
        }
        Map<String, Integer> qualifyPrefixes = new HashMap<>();
        for (int k = 0; k < routeNames.size(); k++) {
            String base = path + ".routes[" + k + "]";
            RouteRules rules = route(k);
            checkPatterns(base + ".topics.include", rules.topics().include(), problems);
            checkPatterns(base + ".topics.exclude", rules.topics().exclude(), problems);
            Map<String, String> virtualToReal = new HashMap<>();
            for (Map.Entry<String, String> r : rules.naming().renames().entrySet()) {
                if (r.getValue().isEmpty()) {
                    problems.add(new RoutingProblem(base + ".naming.renames." + r.getKey(), "renamed to an empty name"));
                }
                String other = virtualToReal.putIfAbsent(r.getValue(), r.getKey());
                if (other != null) {
                    problems.add(new RoutingProblem(base + ".naming.renames", "topics '" + other + "' and '" + r.getKey()
                            + "' are both renamed to '" + r.getValue() + "'"));
                }
            }
            String q = qualifyPrefix(k, routeNames.get(k));
            if (q.isEmpty()) {
                problems.add(new RoutingProblem(base + ".qualify", "qualify prefix is empty"));
            } else {
                Integer earlier = qualifyPrefixes.putIfAbsent(q, k);
                if (earlier != null && collisions == CollisionPolicy.QUALIFY) {
                    problems.add(new RoutingProblem(base + ".qualify", "qualify prefix '" + q + "' is also used by route '"
                            + routeNames.get(earlier) + "'"));
                }
            }
        }
        checkHomes(path + ".groups", "homes", groups, routeNames, problems);
        checkHomes(path + ".transactions", "homes", transactions, routeNames, problems);
        checkHomes(path + ".placement", "rules", placement, routeNames, problems);
        return problems;
    }

    private static void checkPatterns(String path, List<String> entries, List<RoutingProblem> problems) {
        for (int i = 0; i < entries.size(); i++) {
            String e = entries.get(i);
            if (e.startsWith(TopicFilter.REGEX_PREFIX)) {
                try {
                    Pattern.compile(e.substring(TopicFilter.REGEX_PREFIX.length()));
                } catch (PatternSyntaxException ex) {
                    problems.add(new RoutingProblem(path + "[" + i + "]", "invalid regular expression '"
                            + e.substring(TopicFilter.REGEX_PREFIX.length()) + "': " + ex.getDescription()));
                }
            } else if (e.isEmpty()) {
                problems.add(new RoutingProblem(path + "[" + i + "]", "empty topic name"));
            }
        }
    }

    private static void checkHomes(String path, String listKey, PrefixHomes homes, List<String> routeNames,
            List<RoutingProblem> problems) {
        Set<String> prefixes = new HashSet<>();
        for (int i = 0; i < homes.rules().size(); i++) {
            PrefixRule rule = homes.rules().get(i);
            String p = path + "." + listKey + "[" + i + "]";
            if (!routeNames.contains(rule.route())) {
                problems.add(new RoutingProblem(p + ".route", "route '" + rule.route() + "' does not exist; routes: " + routeNames));
            }
            if (!prefixes.add(rule.prefix())) {
                problems.add(new RoutingProblem(p + ".prefix", "prefix '" + rule.prefix() + "' is listed twice"));
            }
        }
        if (homes.defaultRoute() != null && !routeNames.contains(homes.defaultRoute())) {
            problems.add(new RoutingProblem(path + ".default", "route '" + homes.defaultRoute()
                    + "' does not exist; routes: " + routeNames));
        }
    }
}
