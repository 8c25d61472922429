package dev.weft.routing;

import dev.weft.routing.dag.RouterSpec;
import dev.weft.routing.dag.RoutingProblem;
import java.util.List;

/** Builds routers of one type from their config; registered in {@link RouterRegistry} under {@link #type()}. */
public interface RouterFactory {

    /** The value of {@code type:} in the config, e.g. {@code "topic-weave"}. */
    String type();

    /**
     * Reads {@code spec.settings()} and builds the router.
     *
     * @param path the router's path in the config ({@code routers.<name>}), to prefix problem paths
     * @param problems where to add every problem found in the settings
     * @return the router, or null when a problem was added
     */
    Router create(String path, RouterSpec spec, List<RoutingProblem> problems);
}
