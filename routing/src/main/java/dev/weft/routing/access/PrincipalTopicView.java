package dev.weft.routing.access;

import dev.weft.routing.Placement;
import dev.weft.routing.TopicCollision;
import dev.weft.routing.TopicRouting;
import dev.weft.routing.VisibleTopic;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * A router's topic view as one principal sees it for one operation: only the topics of its tenant
 * (named without the tenant prefix), behind its routes, on which its grants allow that operation; every other topic does not
 * exist. Planners given this view instead of the router's act on nothing else: a Produce to a topic the
 * principal may not write is refused like a Produce to a topic that does not exist, and the proxy then
 * answers it as an authorization failure ({@link HotAccess}, {@link AccessGuard}).
 *
 * <p>Built off the hot path, once per (rules, operation, catalog snapshot); lookups are map gets, as the
 * router's own view's.
 */
public final class PrincipalTopicView implements TopicRouting {

    private final TopicRouting base;
    private final AccessRules rules;
    private final RouteScope scope;
    private final List<VisibleTopic> visible;
    private final Map<String, VisibleTopic> byName;
    /** The router's topic → this view's (renamed) one, for lookups the router's view answers. */
    private final Map<VisibleTopic, VisibleTopic> fromBase;
    private final Map<VisibleTopic, VisibleTopic> toBase;

    /**
     * @param operation the operation every topic of the view is allowed, or null for "any" (the topics the
     *     principal may describe)
     */
    public PrincipalTopicView(TopicRouting base, AccessRules rules, TopicOperation operation) {
        this(base, rules, operation, RouteScope.ANY);
    }

    /** @param scope the routes whose topics the principal sees (the others' do not exist for it) */
    public PrincipalTopicView(TopicRouting base, AccessRules rules, TopicOperation operation, RouteScope scope) {
        this.base = base;
        this.rules = rules;
        this.scope = scope;
        int needed = operation == null ? TopicOperation.DESCRIBE.bit() : operation.bit();
        List<VisibleTopic> out = new ArrayList<>();
        Map<String, VisibleTopic> names = new HashMap<>();
        Map<VisibleTopic, VisibleTopic> from = new IdentityHashMap<>();
        Map<VisibleTopic, VisibleTopic> to = new IdentityHashMap<>();
        for (VisibleTopic v : base.visibleTopics()) {
            String clientName = rules.clientNameOf(v.virtualName());
            if (clientName == null || !scope.allows(v.route()) || (rules.topicOperations(clientName) & needed) == 0) {
                continue;
            }
            VisibleTopic mine = clientName.equals(v.virtualName()) ? v
                    : new VisibleTopic(clientName, v.route(), v.realName(), v.virtualId(), v.realId(), v.segments());
            out.add(mine);
            names.put(clientName, mine);
            from.put(v, mine);
            to.put(mine, v);
        }
        out.sort(java.util.Comparator.comparing(VisibleTopic::virtualName)); // the prefix removed keeps the order; cheap insurance
        this.visible = List.copyOf(out);
        this.byName = names;
        this.fromBase = from;
        this.toBase = to;
    }

    /** The principal's rules this view was built for. */
    public AccessRules rules() {
        return rules;
    }

    @Override
    public List<VisibleTopic> visibleTopics() {
        return visible;
    }

    @Override
    public VisibleTopic resolve(String virtualName) {
        return byName.get(virtualName);
    }

    @Override
    public String virtualNameOf(int route, String realName) {
        String name = base.virtualNameOf(route, realName);
        VisibleTopic mine = name == null ? null : fromBase.get(base.resolve(name));
        return mine == null ? null : mine.virtualName();
    }

    @Override
    public VisibleTopic byVirtualId(long mostSignificantBits, long leastSignificantBits) {
        VisibleTopic v = base.byVirtualId(mostSignificantBits, leastSignificantBits);
        return v == null ? null : fromBase.get(v);
    }

    @Override
    public VisibleTopic byRealId(int route, long mostSignificantBits, long leastSignificantBits) {
        VisibleTopic v = base.byRealId(route, mostSignificantBits, leastSignificantBits);
        return v == null ? null : fromBase.get(v);
    }

    @Override
    public VisibleTopic wovenOf(int route, String realName) {
        VisibleTopic v = base.wovenOf(route, realName);
        return v == null ? null : fromBase.get(v);
    }

    @Override
    public int partitionCountOf(VisibleTopic topic) {
        VisibleTopic v = toBase.get(topic);
        return base.partitionCountOf(v != null ? v : topic);
    }

    @Override
    public List<String> segmentProblems() {
        return base.segmentProblems();
    }

    @Override
    public boolean routeServes(int route) {
        return base.routeServes(route);
    }

    @Override
    public boolean produceFenced(int route) {
        return base.produceFenced(route);
    }

    @Override
    public List<TopicCollision> collisions() {
        return base.collisions();
    }

    /**
     * A new topic named {@code virtualName} by the principal: refused unless its grants allow creating
     * it, else placed as the router places its tenant's name.
     */
    @Override
    public Placement place(String virtualName) {
        if (!rules.allows(TopicOperation.CREATE, virtualName)) {
            return new Placement.Refused(Placement.Reason.NOT_AUTHORIZED, "principal '" + rules.name()
                    + "' may not create topic '" + virtualName + "'");
        }
        Placement placed = base.place(rules.catalogNameOf(virtualName));
        if (placed instanceof Placement.Placed p && !scope.allows(p.route())) {
            return new Placement.Refused(Placement.Reason.NOT_AUTHORIZED, "principal '" + rules.name() + "' may not create topic '"
                    + virtualName + "' on route '" + p.routeName() + "', where the router places it (not one of its routes "
                    + rules.routes() + ")");
        }
        return placed;
    }
}
