package dev.weft.routing.access;

import java.util.List;

/**
 * Where a principal's requests may go, as route indexes of the virtual cluster's router: the routes
 * whose topics it sees (and may create topics on), and the home of its consumer groups and
 * transactional ids in place of the router's homes. Compiled once per rules from the route names the
 * config gives ({@link AccessRules#routes()}, {@link AccessRules#home()}).
 *
 * @param routes which routes it sees, by index; null: every route
 * @param home the route of its groups and transactions, or -1: the router's homes decide (a principal
 *     with a single route and no {@code home} has that route as its home)
 */
public record RouteScope(boolean[] routes, int home) {

    /** Every route, the router's homes. */
    public static final RouteScope ANY = new RouteScope(null, -1);

    /**
     * @param routeNames the router's routes, in index order
     * @throws IllegalArgumentException naming the route {@code rules} name that the router does not have
     */
    public static RouteScope of(AccessRules rules, List<String> routeNames) {
        if (rules.routes().isEmpty() && rules.home() == null) {
            return ANY;
        }
        boolean[] allowed = null;
        if (!rules.routes().isEmpty()) {
            allowed = new boolean[routeNames.size()];
            for (String r : rules.routes()) {
                allowed[indexOf(r, routeNames, "routes")] = true;
            }
        }
        int home = rules.home() == null ? -1 : indexOf(rules.home(), routeNames, "home");
        if (home < 0 && rules.routes().size() == 1) {
            home = indexOf(rules.routes().get(0), routeNames, "routes"); // one route: its groups live there too
        }
        if (allowed != null && home >= 0 && !allowed[home]) {
            throw new IllegalArgumentException("home: route '" + rules.home() + "' is not one of its routes " + rules.routes());
        }
        return new RouteScope(allowed, home);
    }

    private static int indexOf(String route, List<String> routeNames, String key) {
        int i = routeNames.indexOf(route);
        if (i < 0) {
            throw new IllegalArgumentException(key + ": the router has no route '" + route + "' (routes: "
                    + String.join(", ", routeNames) + ")");
        }
        return i;
    }

    /** Whether the principal sees the topics behind {@code route}. */
    public boolean allows(int route) {
        return routes == null || route >= 0 && route < routes.length && routes[route];
    }
}
