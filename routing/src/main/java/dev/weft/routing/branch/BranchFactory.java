package dev.weft.routing.branch;

import dev.weft.routing.Router;
import dev.weft.routing.RouterFactory;
import dev.weft.routing.branch.transform.TransformChain;
import dev.weft.routing.branch.transform.TransformSpec;
import dev.weft.routing.dag.RouteSpec;
import dev.weft.routing.dag.RouterSpec;
import dev.weft.routing.dag.RouterTarget;
import dev.weft.routing.dag.RoutingProblem;
import dev.weft.routing.topicweave.CollisionPolicy;
import dev.weft.routing.topicweave.RouteNaming;
import dev.weft.routing.topicweave.RouteRules;
import dev.weft.routing.topicweave.SettingsReader;
import dev.weft.routing.topicweave.TopicFilter;
import dev.weft.routing.topicweave.TopicWeaveFactory;
import dev.weft.routing.topicweave.TopicWeaveSettings;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Builds {@code type: branch} routers. Route 0 is the primary (only {@code name} and {@code target});
 * each later route is a branch with the topic-weave route keys {@code topics} (which primary topics it
 * copies; default all but internal ones) and {@code naming} (the topic each copy goes to on the branch:
 * identity, a prefix, or renames), and optionally {@code transforms} (redact, sample, derive: see
 * {@link TransformChain}) with {@code topic}, the one topic a transformed stream goes to, and
 * {@code transactional} ({@code skip}, the default, or {@code hold}: transactional records reach the
 * branch once their transaction committed). The primary is served as a topic weave in which only route 0 shows.
 */
public final class BranchFactory implements RouterFactory {

    public static final String TYPE = "branch";
    private static final Set<String> ROUTER_KEYS = Set.of("type", "routes");
    private static final Set<String> PRIMARY_KEYS = Set.of("name", "target");
    private static final Set<String> BRANCH_KEYS = Set.of("name", "target", "topics", "naming", "transforms", "topic",
            "transactional");
    /** What the branches look like to clients: nothing (their topics never show). */
    private static final RouteRules HIDDEN = new RouteRules(new TopicFilter(List.of(), List.of(TopicFilter.REGEX_PREFIX + ".*")),
            dev.weft.routing.topicweave.TopicNaming.IDENTITY, null);

    @Override
    public String type() {
        return TYPE;
    }

    @Override
    public Router create(String path, RouterSpec spec, List<RoutingProblem> problems) {
        List<RoutingProblem> found = new ArrayList<>();
        List<RouteSpec> routes = spec.routes();
        if (routes.size() < 2) {
            found.add(new RoutingProblem(path + ".routes", "a branch router needs its primary route (routes[0]) and at least"
                    + " one branch; it has " + routes.size() + " route(s)"));
        }
        for (int k = 0; k < routes.size(); k++) {
            if (routes.get(k).target() instanceof RouterTarget rt) {
                found.add(new RoutingProblem(path + ".routes[" + k + "].target", "route '" + routes.get(k).name()
                        + "' targets router '" + rt.router() + "'; the routes of a branch router target clusters"));
            }
        }
        List<?> rawRoutes = List.of();
        if (spec.settings() instanceof Map<?, ?> raw) {
            for (Object key : raw.keySet()) {
                if (!ROUTER_KEYS.contains(String.valueOf(key))) {
                    found.add(new RoutingProblem(path + "." + key, "unknown key '" + key + "'; known keys: "
                            + ROUTER_KEYS.stream().sorted().toList()));
                }
            }
            if (raw.get("routes") instanceof List<?> l) {
                rawRoutes = l;
            }
        } else if (spec.settings() != null) {
            found.add(new RoutingProblem(path, "branch settings must be a mapping, got " + spec.settings().getClass().getSimpleName()));
        }
        List<BranchRoute> branches = new ArrayList<>();
        List<RouteRules> visibility = new ArrayList<>();
        visibility.add(RouteRules.DEFAULT);
        for (int k = 0; k < routes.size(); k++) {
            String at = path + ".routes[" + k + "]";
            Map<?, ?> raw = k < rawRoutes.size() && rawRoutes.get(k) instanceof Map<?, ?> m ? m : Map.of();
            if (k == 0) {
                for (Object key : raw.keySet()) {
                    if (!PRIMARY_KEYS.contains(String.valueOf(key))) {
                        found.add(new RoutingProblem(at + "." + key, "the primary route takes every topic as it is;"
                                + " '" + key + "' belongs on a branch (routes[1] and later)"));
                    }
                }
                continue;
            }
            RouteRules rules = SettingsReader.routeRules(at, raw, BRANCH_KEYS, found);
            branches.add(new BranchRoute(k, new RouteNaming(routes.get(k).name(), null, rules), transforms(at, raw, found)));
            visibility.add(HIDDEN);
        }
        if (!found.isEmpty()) {
            problems.addAll(found);
            return null;
        }
        Router primary = new TopicWeaveFactory().create(path, new RouterSpec(spec.name(), TopicWeaveFactory.TYPE, routes,
                new TopicWeaveSettings(CollisionPolicy.REJECT, visibility, null, null, null)), problems);
        return primary == null ? null : new BranchRouter(spec, primary, branches);
    }

    /**
     * A branch's {@code transforms}, {@code topic} and {@code transactional}: checked here (one problem per
     * error, with its path), kept as configured for the writers to build their own chains from. Null when
     * the branch copies exactly and skips transactional batches (no writer: copies go out on the event loops).
     */
    private static TransformSpec transforms(String at, Map<?, ?> raw, List<RoutingProblem> found) {
        Object transforms = raw.get("transforms");
        Object topic = raw.get("topic");
        Object transactional = raw.containsKey("transactional") ? raw.get("transactional") : "skip";
        if (!"skip".equals(transactional) && !"hold".equals(transactional)) {
            found.add(new RoutingProblem(at + ".transactional", "'" + transactional + "' is not a way to treat"
                    + " transactional records: 'skip' (never copied, counted) or 'hold' (copied once their transaction"
                    + " committed through this proxy, dropped when it aborted)"));
            return null;
        }
        boolean hold = "hold".equals(transactional);
        if (topic != null && !(topic instanceof String s && !s.isBlank())) {
            found.add(new RoutingProblem(at + ".topic", "the topic a branch writes everything to must be a topic name, got '"
                    + topic + "'"));
            return null;
        }
        if (transforms == null) {
            if (topic != null) {
                found.add(new RoutingProblem(at + ".topic", "'topic' sends a transformed or derived stream to one topic;"
                        + " without 'transforms' the branch copies exactly: name its topics with 'naming' instead"));
                return null;
            }
            // Holding needs the writer (off the event loops), which then copies exactly: an identity chain.
            return hold ? new TransformSpec(at + ".transforms", List.of(), null, true) : null;
        }
        int before = found.size();
        TransformChain chain = TransformChain.parse(at + ".transforms", transforms, "check", found);
        if (chain == null || found.size() > before) {
            return null;
        }
        if (chain.derives() && topic == null) {
            found.add(new RoutingProblem(at + ".topic", "this branch derives a stream (derive: audit or count), which goes"
                    + " to one topic: set 'topic' to it"));
            return null;
        }
        return new TransformSpec(at + ".transforms", transforms, (String) topic, hold);
    }
}
