package dev.weft.routing.switching;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.routing.Placement;
import dev.weft.routing.RealTopic;
import dev.weft.routing.Router;
import dev.weft.routing.RouterRegistry;
import dev.weft.routing.TopicRouting;
import dev.weft.routing.compose.LeafRouter;
import dev.weft.routing.dag.RouteSpec;
import dev.weft.routing.dag.RouteTarget;
import dev.weft.routing.dag.RouterSpec;
import dev.weft.routing.dag.RouterTarget;
import dev.weft.routing.dag.RoutingGraph;
import dev.weft.routing.dag.RoutingProblem;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class SwitchRouterTest {

    private static final List<RouteSpec> ROUTES = List.of(new RouteSpec("east", RouteTarget.cluster("east")),
            new RouteSpec("west", RouteTarget.cluster("west")));
    /** The same topic on both clusters (what MirrorMaker 2's identity replication makes), plus one of each's own. */
    private static final List<List<RealTopic>> TOPICS = List.of(
            List.of(RealTopic.of("orders"), RealTopic.of("east-only")),
            List.of(RealTopic.of("orders"), RealTopic.of("west-only")));

    private static SwitchRouter build(Map<String, Object> settings, List<RoutingProblem> problems) {
        return (SwitchRouter) RouterRegistry.standard().create(new RouterSpec("alias", SwitchFactory.TYPE, ROUTES, settings), problems);
    }

    private static SwitchRouter build(Map<String, Object> settings) {
        List<RoutingProblem> problems = new ArrayList<>();
        SwitchRouter r = build(settings, problems);
        assertEquals(List.of(), problems);
        return r;
    }

    @Test
    void servesOnlyTheActiveRouteUnderItsOwnNames() {
        SwitchRouter r = build(Map.of("type", "switch", "active", "east"));
        TopicRouting c = r.catalog(TOPICS);
        assertEquals(List.of("east-only", "orders"), c.visibleTopics().stream().map(t -> t.virtualName()).toList());
        assertEquals(0, c.resolve("orders").route());
        assertEquals("orders", c.resolve("orders").realName());
        assertNull(c.resolve("west-only"));
        assertTrue(c.routeServes(0));
        assertFalse(c.routeServes(1));
        assertFalse(c.produceFenced(0));
        assertTrue(c.collisions().isEmpty(), "one route shows at a time: the same name on both never collides");
        assertEquals(0, r.groups().homeRoute("g"));
        assertEquals(0, r.transactions().homeRoute("t"));
        assertEquals(new Placement.Placed(0, "east", "new-topic"), c.place("new-topic"));
    }

    @Test
    void fencingAndRepointingChangeTheNextCatalogAndTellEveryListener() {
        SwitchRouter r = build(Map.of("type", "switch"));
        List<String> told = new ArrayList<>();
        r.watch((reason, timeout) -> {
            told.add(reason + "/" + timeout.toMillis());
            return CompletableFuture.completedFuture(null);
        });
        TopicRouting before = r.catalog(TOPICS);
        r.apply(r.state().fence(), "fenced").join();
        TopicRouting fenced = r.catalog(TOPICS);
        assertTrue(fenced.produceFenced(0));
        assertFalse(fenced.produceFenced(1));
        assertFalse(before.produceFenced(0), "a snapshot keeps the state it was built from");
        r.apply(r.state().pointedAt(1), "moved").join();
        TopicRouting after = r.catalog(TOPICS);
        assertEquals(new SwitchState(1, false, 1), r.state(), "the epoch the fence began");
        assertEquals(1, after.resolve("orders").route());
        assertEquals(List.of("orders", "west-only"), after.visibleTopics().stream().map(t -> t.virtualName()).toList());
        assertFalse(after.routeServes(0));
        assertTrue(after.routeServes(1));
        assertFalse(after.produceFenced(1));
        assertEquals(1, r.groups().homeRoute("g"));
        assertEquals(1, r.transactions().homeRoute("t"));
        assertEquals(new Placement.Placed(1, "west", "n"), after.place("n"));
        assertEquals(List.of("fenced/5000", "moved/5000"), told);
        r.apply(r.state().unknown(), "unknown").join();
        TopicRouting unknown = r.catalog(TOPICS);
        assertEquals(List.of(), unknown.visibleTopics(), "a replica that cannot read the fleet state shows nothing");
        assertFalse(unknown.routeServes(1));
        assertTrue(unknown.produceFenced(1));
    }

    @Test
    void readsItsSettings() {
        SwitchRouter r = build(Map.of("type", "switch", "active", "west",
                "routes", List.of(Map.of("name", "east", "target", Map.of("cluster", "east"), "mirrorAlias", "us-east-1"), Map.of()),
                "state", Map.of("cluster", "witness", "leaseMs", 3_000),
                "cutover", Map.of("catchUpTimeoutMs", 90_000, "drainTimeoutMs", 2_000),
                "failover", Map.of("to", "east", "afterMs", 30_000)));
        SwitchSettings s = r.settings();
        assertEquals(1, s.initialActive());
        assertEquals(1, r.state().active());
        assertEquals(List.of("us-east-1", "west"), s.mirrorAliases());
        assertEquals("witness", s.stateCluster());
        assertEquals(Duration.ofSeconds(3), s.stateLease());
        assertEquals(Duration.ofSeconds(90), s.catchUpTimeout());
        assertEquals(Duration.ofSeconds(2), s.drainTimeout());
        assertEquals(new SwitchSettings.Failover(0, Duration.ofSeconds(30)), s.failover());
    }

    @Test
    void everyBadSettingIsOneProblemWithItsPath() {
        List<RoutingProblem> problems = new ArrayList<>();
        SwitchRouter r = build(Map.of("type", "switch", "active", "north", "colour", "red",
                "cutover", Map.of("catchUpTimeoutMs", -5, "drainMs", 1),
                "failover", Map.of("to", "west")), problems);
        assertNull(r);
        assertEquals(List.of(
                "routers.alias.colour: unknown key 'colour'; known keys: [active, cutover, failover, routes, state, type]",
                "routers.alias.active: no route named 'north' (routes: east, west)",
                "routers.alias.cutover.drainMs: unknown key 'drainMs'; known keys: [catchUpTimeoutMs, drainTimeoutMs]",
                "routers.alias.cutover.catchUpTimeoutMs: must be a positive whole number of milliseconds, got '-5'",
                "routers.alias.failover: automatic failover needs 'to' (the standby route) and 'afterMs' (how long the"
                        + " active route must be unreachable first)"),
                problems.stream().map(p -> p.path() + ": " + p.message()).toList());
    }

    @Test
    void oneCandidateIsNotASwitch() {
        List<RoutingProblem> problems = new ArrayList<>();
        RouterRegistry.standard().create(new RouterSpec("alias", SwitchFactory.TYPE, ROUTES.subList(0, 1), Map.of("type", "switch")),
                problems);
        assertEquals(List.of("routers.alias.routes: a switch needs at least two candidate routes to switch between; it has 1"),
                problems.stream().map(p -> p.path() + ": " + p.message()).toList());
    }

    /** A topic weave over a switch and a cluster: the switch's standby leaf neither serves nor shows topics. */
    @Test
    void composesUnderATopicWeave() {
        Map<String, RouterSpec> specs = Map.of(
                "alias", new RouterSpec("alias", SwitchFactory.TYPE, ROUTES, Map.of("type", "switch")),
                "weave", new RouterSpec("weave", "topic-weave", List.of(new RouteSpec("main", new RouterTarget("alias")),
                        new RouteSpec("other", RouteTarget.cluster("south"))),
                        Map.of("type", "topic-weave", "routes", List.of(Map.of(), Map.of("naming", Map.of("prefix", "s."))))));
        RoutingGraph graph = RoutingGraph.build(specs, Set.of("east", "west", "south"), Map.of("vc", new RouterTarget("weave")));
        Map<String, Router> routers = RouterRegistry.standard().createAll(graph);
        Router leaves = LeafRouter.of(graph, routers, "vc", true);
        List<String> told = new ArrayList<>();
        leaves.watch((reason, timeout) -> {
            told.add(reason);
            return CompletableFuture.completedFuture(null);
        });
        List<List<RealTopic>> byLeaf = List.of(TOPICS.get(0), TOPICS.get(1), List.of(RealTopic.of("inventory")));
        TopicRouting c = leaves.catalog(byLeaf);
        assertEquals(List.of(true, false, true), List.of(c.routeServes(0), c.routeServes(1), c.routeServes(2)));
        assertEquals(List.of("east-only", "orders", "s.inventory"), c.visibleTopics().stream().map(t -> t.virtualName()).toList());
        SwitchRouter alias = (SwitchRouter) routers.get("alias");
        alias.apply(alias.state().fence(), "fence").join();
        TopicRouting fenced = leaves.catalog(byLeaf);
        assertEquals(List.of(true, false, false), List.of(fenced.produceFenced(0), fenced.produceFenced(1), fenced.produceFenced(2)));
        alias.apply(alias.state().pointedAt(1), "moved").join();
        TopicRouting moved = leaves.catalog(byLeaf);
        assertEquals(List.of(false, true, true), List.of(moved.routeServes(0), moved.routeServes(1), moved.routeServes(2)));
        assertEquals(1, moved.resolve("orders").route());
        assertEquals(List.of("fence", "moved"), told);
    }
}
