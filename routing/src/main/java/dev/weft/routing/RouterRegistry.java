package dev.weft.routing;

import dev.weft.routing.dag.InvalidRoutingException;
import dev.weft.routing.dag.RouterSpec;
import dev.weft.routing.dag.RoutingGraph;
import dev.weft.routing.dag.RoutingProblem;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Router types by name, so the config reader builds any router from its {@code type:} without a switch.
 * Immutable.
 */
public final class RouterRegistry {

    private final Map<String, RouterFactory> factories;

    private RouterRegistry(Map<String, RouterFactory> factories) {
        this.factories = Collections.unmodifiableMap(factories);
    }

    /**
     * The router types on the class path: every {@link RouterFactory} registered as a
     * {@link java.util.ServiceLoader} provider ({@code META-INF/services/dev.weft.routing.RouterFactory});
     * Weft's own (topic-weave) is registered that way too. A new router type is a package with its
     * factory and one line in that file: nothing in the proxy names it.
     */
    public static RouterRegistry standard() {
        List<RouterFactory> found = new ArrayList<>();
        java.util.ServiceLoader.load(RouterFactory.class, RouterRegistry.class.getClassLoader()).forEach(found::add);
        return of(found.toArray(RouterFactory[]::new));
    }

    public static RouterRegistry of(RouterFactory... factories) {
        Map<String, RouterFactory> byType = new LinkedHashMap<>();
        for (RouterFactory f : factories) {
            if (byType.putIfAbsent(f.type(), f) != null) {
                throw new IllegalArgumentException("two router factories for type '" + f.type() + "'");
            }
        }
        return new RouterRegistry(byType);
    }

    /** This registry plus {@code factory}. */
    public RouterRegistry with(RouterFactory factory) {
        List<RouterFactory> all = new ArrayList<>(factories.values());
        all.add(factory);
        return of(all.toArray(RouterFactory[]::new));
    }

    public Set<String> types() {
        return factories.keySet();
    }

    /** Builds one router, adding problems (an unknown type, bad settings) instead of throwing; null on problems. */
    public Router create(RouterSpec spec, List<RoutingProblem> problems) {
        String path = "routers." + spec.name();
        RouterFactory factory = factories.get(spec.type());
        if (factory == null) {
            problems.add(new RoutingProblem(path + ".type",
                    "unknown router type '" + spec.type() + "'; known types: " + factories.keySet().stream().sorted().toList()));
            return null;
        }
        return factory.create(path, spec, problems);
    }

    /**
     * Builds every router of a validated graph.
     *
     * @throws InvalidRoutingException with every problem of every router, when there is any
     */
    public Map<String, Router> createAll(RoutingGraph graph) {
        List<RoutingProblem> problems = new ArrayList<>();
        Map<String, Router> out = new LinkedHashMap<>();
        for (RouterSpec spec : graph.routers().values()) {
            Router r = create(spec, problems);
            if (r != null) {
                out.put(spec.name(), r);
            }
        }
        for (RouterSpec spec : graph.routers().values()) {
            for (int k = 0; k < spec.routes().size(); k++) {
                if (spec.routes().get(k).target() instanceof dev.weft.routing.dag.RouterTarget inner
                        && out.get(inner.router()) instanceof Router r && !r.nestable()) {
                    problems.add(new RoutingProblem("routers." + spec.name() + ".routes[" + k + "].target", "router '"
                            + inner.router() + "' (type " + r.type() + ") cannot sit under another router: nested routers are"
                            + " composed by their topic views only; make it the virtual cluster's target"));
                }
            }
        }
        if (!problems.isEmpty()) {
            throw new InvalidRoutingException(problems);
        }
        return Collections.unmodifiableMap(out);
    }
}
