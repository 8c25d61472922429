package dev.weft.routing.dag;

import java.util.List;
import java.util.Objects;

/**
 * A router as configured: its name (the key under {@code routers}), its type (for example
 * {@code "topic-weave"}), its routes in order, and its type-specific settings.
 *
 * @param settings what the router type reads: either the router's config mapping as plain Java
 *     ({@code Map<String, Object>} / {@code List<Object>} / scalars, exactly as the YAML reader produced
 *     it, so problems can name their path), or an already typed settings object of that router type;
 *     may be null when the type needs none
 */
public record RouterSpec(String name, String type, List<RouteSpec> routes, Object settings) {
    public RouterSpec {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(type, "type");
        routes = List.copyOf(routes);
    }

    /** The index of the route with this name, or -1. */
    public int routeIndex(String routeName) {
        for (int i = 0; i < routes.size(); i++) {
            if (routes.get(i).name().equals(routeName)) {
                return i;
            }
        }
        return -1;
    }

    public List<String> routeNames() {
        return routes.stream().map(RouteSpec::name).toList();
    }
}
