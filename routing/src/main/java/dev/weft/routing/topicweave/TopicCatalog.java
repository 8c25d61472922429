package dev.weft.routing.topicweave;

import dev.weft.routing.Placement;
import dev.weft.routing.RealTopic;
import dev.weft.routing.TopicCollision;
import dev.weft.routing.TopicCollision.Claim;
import dev.weft.routing.TopicCollision.Outcome;
import dev.weft.routing.VisibleTopic;
import dev.weft.routing.dag.InvalidRoutingException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.kafka.common.Uuid;

/**
 * An immutable snapshot of a topic-weave router's topics: built from each route's real topics and the
 * settings, it decides visibility, names, collisions and ids once; per-request lookups are hash gets.
 *
 * <p><b>Collisions.</b> Virtual names claimed by more than one (route, real topic) are settled by the
 * policy: {@code reject} hides every claimant, {@code first-wins} keeps the lowest route, {@code qualify}
 * exposes each as its route's qualify prefix + the contested name. A qualified name that is itself
 * already a visible name (or claimed twice) loses: that claimant is hidden and the collision is an
 * error. Error collisions refuse startup ({@link #startupProblems}); in a later snapshot they are
 * reported in {@link #collisions()} for the proxy to log and count.
 *
 * <p><b>Topic ids.</b> A visible topic keeps its real id, unless an earlier visible topic (route order,
 * then real name) already has it, e.g. two routes onto the same cluster: then it gets a synthetic id,
 * a name-based UUID of {@code weft-topic-id:<route name>:<real id>}, stable across snapshots and
 * replicas and different from every real id in the snapshot. Topics with no id (zero) have none. Should
 * discovery ever report one real id under two names of one route (inconsistent metadata), the id
 * finds the first of them by real name; the second still gets its own virtual id.
 */
public final class TopicCatalog implements IndexedTopicRouting {

    private final List<RouteNaming> routes;
    private final PrefixMatcher placement;
    private final VisibleTopicIndex index;
    private final List<TopicCollision> collisions;
    private final Set<String> contested;
    /** Per route, the partition counts the listing gave (only routers that count partitions get them). */
    private final List<java.util.Map<String, Integer>> partitionCounts = new ArrayList<>();

    private record Candidate(int route, RealTopic topic) {
    }

    /**
     * Builds a snapshot from the settings (validated here: throws {@link InvalidRoutingException} when
     * they have problems).
     */
    public static TopicCatalog build(TopicWeaveSettings settings, List<String> routeNames,
            List<List<RealTopic>> topicsByRoute) {
        return new CompiledWeave("routers.topic-weave", settings, routeNames).catalog(topicsByRoute);
    }

    TopicCatalog(CompiledWeave weave, List<List<RealTopic>> topicsByRoute) {
        this.routes = weave.routes;
        this.placement = weave.placement;
        if (topicsByRoute.size() != routes.size()) {
            throw new IllegalArgumentException("topics for " + topicsByRoute.size() + " routes, but the router has "
                    + routes.size());
        }
        for (List<RealTopic> route : topicsByRoute) {
            java.util.Map<String, Integer> counts = new java.util.HashMap<>();
            route.forEach(t -> counts.putIfAbsent(t.name(), t.partitionCount()));
            partitionCounts.add(counts);
        }
        TreeMap<String, List<Candidate>> claims = new TreeMap<>();
        for (int k = 0; k < routes.size(); k++) {
            RouteNaming route = routes.get(k);
            TreeMap<String, RealTopic> sorted = new TreeMap<>();
            for (RealTopic t : topicsByRoute.get(k)) {
                sorted.putIfAbsent(t.name(), t);
            }
            for (RealTopic t : sorted.values()) {
                if (route.visible(t.name())) {
                    claims.computeIfAbsent(route.virtualName(t.name()), n -> new ArrayList<>()).add(new Candidate(k, t));
                }
            }
        }
        TreeMap<String, Candidate> accepted = new TreeMap<>();
        Map<String, List<Candidate>> qualified = new HashMap<>();
        List<Map.Entry<String, List<Candidate>>> contestedClaims = new ArrayList<>();
        for (Map.Entry<String, List<Candidate>> e : claims.entrySet()) {
            List<Candidate> c = e.getValue();
            if (c.size() == 1) {
                accepted.put(e.getKey(), c.getFirst());
            } else {
                contestedClaims.add(e);
                switch (weave.policy) {
                    case REJECT -> { }
                    case FIRST_WINS -> accepted.put(e.getKey(), c.getFirst());
                    case QUALIFY -> {
                        for (Candidate cand : c) {
                            qualified.computeIfAbsent(routes.get(cand.route()).qualifyPrefix + e.getKey(),
                                    n -> new ArrayList<>()).add(cand);
                        }
                    }
                }
            }
        }
        Map<Candidate, String> qualifiedAs = new HashMap<>();
        for (Map.Entry<String, List<Candidate>> q : qualified.entrySet()) {
            if (q.getValue().size() == 1 && !accepted.containsKey(q.getKey())) {
                qualifiedAs.put(q.getValue().getFirst(), q.getKey());
            }
        }
        qualifiedAs.forEach((cand, name) -> accepted.put(name, cand));

        List<TopicCollision> found = new ArrayList<>();
        Set<String> contestedNames = new HashSet<>();
        for (Map.Entry<String, List<Candidate>> e : contestedClaims) {
            contestedNames.add(e.getKey());
            List<Claim> list = new ArrayList<>();
            boolean allExposed = true;
            for (int i = 0; i < e.getValue().size(); i++) {
                Candidate cand = e.getValue().get(i);
                String exposedAs = switch (weave.policy) {
                    case REJECT -> null;
                    case FIRST_WINS -> i == 0 ? e.getKey() : null;
                    case QUALIFY -> qualifiedAs.get(cand);
                };
                allExposed &= exposedAs != null;
                list.add(new Claim(cand.route(), routes.get(cand.route()).routeName, cand.topic().name(), exposedAs));
            }
            Outcome outcome = switch (weave.policy) {
                case REJECT -> Outcome.REJECTED;
                case FIRST_WINS -> Outcome.FIRST_WINS;
                case QUALIFY -> allExposed ? Outcome.QUALIFIED : Outcome.QUALIFIED_NAME_TAKEN;
            };
            found.add(new TopicCollision(e.getKey(), list, outcome));
        }
        this.collisions = List.copyOf(found);
        this.contested = Set.copyOf(contestedNames);

        // ids: first claimant (route order, then real name) keeps its real id
        List<Map.Entry<String, Candidate>> byPlace = new ArrayList<>(accepted.entrySet());
        byPlace.sort(Comparator.comparingInt((Map.Entry<String, Candidate> e) -> e.getValue().route())
                .thenComparing(e -> e.getValue().topic().name()));
        Set<Uuid> allReal = new HashSet<>();
        for (List<RealTopic> ts : topicsByRoute) {
            for (RealTopic t : ts) {
                allReal.add(t.id());
            }
        }
        Set<Uuid> used = new HashSet<>();
        Map<String, VisibleTopic> topics = new HashMap<>();
        for (Map.Entry<String, Candidate> e : byPlace) {
            Candidate cand = e.getValue();
            Uuid real = cand.topic().id();
            Uuid virtual = real;
            if (!Uuid.ZERO_UUID.equals(real) && !used.add(real)) {
                virtual = syntheticId(routes.get(cand.route()).routeName, real, allReal, used);
                used.add(virtual);
            }
            topics.put(e.getKey(), new VisibleTopic(e.getKey(), cand.route(), cand.topic().name(), virtual, real));
        }
        List<VisibleTopic> ordered = new ArrayList<>();
        for (String name : accepted.keySet()) {
            ordered.add(topics.get(name));
        }
        this.index = new VisibleTopicIndex(ordered, routes.size());
    }

    private static Uuid syntheticId(String routeName, Uuid real, Set<Uuid> allReal, Set<Uuid> used) {
        for (int attempt = 0; ; attempt++) {
            String seed = "weft-topic-id:" + routeName + ":" + real + (attempt == 0 ? "" : ":" + attempt);
            UUID u = UUID.nameUUIDFromBytes(seed.getBytes(StandardCharsets.UTF_8));
            Uuid id = new Uuid(u.getMostSignificantBits(), u.getLeastSignificantBits());
            if (!allReal.contains(id) && !used.contains(id) && !Uuid.RESERVED.contains(id)) {
                return id;
            }
        }
    }

    @Override
    public VisibleTopicIndex index() {
        return index;
    }

    @Override
    public int partitionCountOf(VisibleTopic topic) {
        return topic.woven() ? topic.segments().partitionCount()
                : partitionCounts.get(topic.route()).getOrDefault(topic.realName(), -1);
    }

    @Override
    public List<TopicCollision> collisions() {
        return collisions;
    }

    /**
     * Placement for CreateTopics: the placement rule picks the route (longest prefix, else default),
     * then that route's naming is inverted (renames reversed, prefix stripped). Refused when the name is
     * already visible, cannot be mapped back, or the new topic would not be visible under that name.
     */
    @Override
    public Placement place(String virtualName) {
        VisibleTopic existing = index.resolve(virtualName);
        if (existing != null) {
            return new Placement.Refused(Placement.Reason.ALREADY_EXISTS, "topic '" + virtualName
                    + "' already exists (route '" + routes.get(existing.route()).routeName + "', real topic '"
                    + existing.realName() + "')");
        }
        int k = placement.homeRoute(virtualName);
        RouteNaming route = routes.get(k);
        String real;
        try {
            real = route.realName(virtualName);
        } catch (IllegalArgumentException e) {
            return new Placement.Refused(Placement.Reason.CANNOT_MAP, "cannot create '" + virtualName
                    + "' on route '" + route.routeName + "' (chosen by placement): " + e.getMessage());
        }
        if (!route.visible(real)) {
            return new Placement.Refused(Placement.Reason.WOULD_BE_HIDDEN, "cannot create '" + virtualName
                    + "': real topic '" + real + "' on route '" + route.routeName
                    + "' would be hidden by the route's topics include/exclude");
        }
        if (contested.contains(virtualName)) {
            return new Placement.Refused(Placement.Reason.WOULD_BE_HIDDEN, "cannot create '" + virtualName
                    + "': the name is contested: " + collisions.stream()
                    .filter(c -> c.virtualName().equals(virtualName)).findFirst().orElseThrow().describe());
        }
        return new Placement.Placed(k, route.routeName, real);
    }

    @Override
    public String toString() {
        return "TopicCatalog{visible=" + index.visibleTopics().stream().map(VisibleTopic::virtualName).toList() + ", collisions=" + collisions.size() + "}";
    }
}
