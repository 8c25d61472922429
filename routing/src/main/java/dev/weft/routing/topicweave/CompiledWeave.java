package dev.weft.routing.topicweave;

import dev.weft.routing.RealTopic;
import dev.weft.routing.dag.InvalidRoutingException;
import dev.weft.routing.dag.RoutingProblem;
import java.util.ArrayList;
import java.util.List;

/** Validated settings of one topic-weave router, compiled once: shared by every catalog snapshot. */
final class CompiledWeave {

    final CollisionPolicy policy;
    final List<RouteNaming> routes;
    final PrefixMatcher groups;
    final PrefixMatcher transactions;
    final PrefixMatcher placement;

    /** @throws InvalidRoutingException when the settings have problems (paths under {@code path}) */
    CompiledWeave(String path, TopicWeaveSettings settings, List<String> routeNames) {
        List<RoutingProblem> problems = settings.validate(path, routeNames);
        if (!problems.isEmpty()) {
            throw new InvalidRoutingException(problems);
        }
        policy = settings.collisions();
        List<RouteNaming> list = new ArrayList<>();
        for (int k = 0; k < routeNames.size(); k++) {
            list.add(new RouteNaming(routeNames.get(k), settings.qualifyPrefix(k, routeNames.get(k)), settings.route(k)));
        }
        routes = List.copyOf(list);
        groups = new PrefixMatcher(settings.groups(), routeNames);
        transactions = new PrefixMatcher(settings.transactions(), routeNames);
        placement = new PrefixMatcher(settings.placement(), routeNames);
    }

    TopicCatalog catalog(List<List<RealTopic>> topicsByRoute) {
        return new TopicCatalog(this, topicsByRoute);
    }
}
