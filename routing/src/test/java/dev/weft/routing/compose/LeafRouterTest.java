package dev.weft.routing.compose;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.weft.routing.Placement;
import dev.weft.routing.RealTopic;
import dev.weft.routing.Router;
import dev.weft.routing.RouterRegistry;
import dev.weft.routing.TopicRouting;
import dev.weft.routing.VisibleTopic;
import dev.weft.routing.dag.ClusterTarget;
import dev.weft.routing.dag.ComposedNodeIds;
import dev.weft.routing.dag.RouteSpec;
import dev.weft.routing.dag.RouteTarget;
import dev.weft.routing.dag.RouterSpec;
import dev.weft.routing.dag.RouterTarget;
import dev.weft.routing.dag.RoutingGraph;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

/**
 * A two-level DAG: router "outer" has route "us" (cluster us-east) and route "eu" (router "inner",
 * shown with prefix "eu."), and "inner" has routes "a" (cluster eu-1) and "b" (cluster eu-2, prefix
 * "b-"). Leaves in order: us-east, eu-1, eu-2.
 */
class LeafRouterTest {

    private static final Uuid ORDERS = Uuid.randomUuid();
    private static final Uuid LEDGER = Uuid.randomUuid();
    private static final Uuid AUDIT = Uuid.randomUuid();

    private final RoutingGraph graph;
    private final Router router;

    LeafRouterTest() {
        Map<String, RouterSpec> specs = new LinkedHashMap<>();
        specs.put("outer", new RouterSpec("outer", "topic-weave", List.of(
                new RouteSpec("us", new ClusterTarget("us-east")),
                new RouteSpec("eu", new RouterTarget("inner"))), Map.of(
                "routes", List.of(Map.of(), Map.of("naming", Map.of("prefix", "eu."))),
                "groups", Map.of("homes", List.of(Map.of("prefix", "eu-", "route", "eu"))),
                "placement", Map.of("rules", List.of(Map.of("prefix", "eu.", "route", "eu"))))));
        specs.put("inner", new RouterSpec("inner", "topic-weave", List.of(
                new RouteSpec("a", new ClusterTarget("eu-1")),
                new RouteSpec("b", new ClusterTarget("eu-2"))), Map.of(
                "routes", List.of(Map.of(), Map.of("naming", Map.of("prefix", "b-"))),
                "groups", Map.of("homes", List.of(Map.of("prefix", "eu-b", "route", "b"))),
                "placement", Map.of("rules", List.of(Map.of("prefix", "b-", "route", "b"))))));
        Map<String, RouteTarget> vcs = Map.of("main", new RouterTarget("outer"));
        graph = RoutingGraph.build(specs, Set.of("us-east", "eu-1", "eu-2"), vcs);
        router = LeafRouter.of(graph, RouterRegistry.standard().createAll(graph), "main", true);
    }

    private TopicRouting catalog() {
        return router.catalog(List.of(
                List.of(new RealTopic("orders", ORDERS)),
                List.of(new RealTopic("ledger", LEDGER)),
                List.of(new RealTopic("audit", AUDIT))));
    }

    @Test
    void routesAreTheLeaves() {
        assertEquals(List.of("us", "eu/a", "eu/b"), router.routes().stream().map(RouteSpec::name).toList());
        assertEquals(List.of("us-east", "eu-1", "eu-2"), router.routes().stream().map(r -> r.target().name()).toList());
    }

    @Test
    void namesComposeDownToTheLeafAndBack() {
        TopicRouting t = catalog();
        assertEquals(List.of("eu.b-audit", "eu.ledger", "orders"), t.visibleTopics().stream().map(VisibleTopic::virtualName).toList());
        VisibleTopic audit = t.resolve("eu.b-audit");
        assertEquals(2, audit.route());
        assertEquals("audit", audit.realName());
        assertEquals(AUDIT, audit.realId());
        assertEquals("eu.b-audit", t.virtualNameOf(2, "audit"));
        assertEquals("eu.ledger", t.virtualNameOf(1, "ledger"));
        assertNull(t.virtualNameOf(1, "audit"));
        assertSame(audit, t.byRealId(2, AUDIT));
        assertSame(audit, t.byVirtualId(AUDIT));
        assertNull(t.byRealId(1, AUDIT));
    }

    @Test
    void placementAndHomesAskEachLevel() {
        TopicRouting t = catalog();
        Placement.Placed p = assertInstanceOf(Placement.Placed.class, t.place("eu.b-metrics"));
        assertEquals(2, p.route());
        assertEquals("metrics", p.realName());
        assertEquals(1, assertInstanceOf(Placement.Placed.class, t.place("eu.journal")).route());
        assertEquals(0, assertInstanceOf(Placement.Placed.class, t.place("shipments")).route());
        assertInstanceOf(Placement.Refused.class, t.place("eu.ledger"));
        assertEquals(0, router.groups().homeRoute("app"));
        assertEquals(1, router.groups().homeRoute("eu-app"));
        assertEquals(2, router.groups().homeRoute("eu-billing"));
    }

    @Test
    void nodeIdsComposePerLevel() {
        ComposedNodeIds ids = ((LeafRouter) router).nodeIds();
        // leaf eu-2: inner route 1 of 2, outer route 1 of 2: V = (b*2 + 1)*2 + 1
        assertEquals((3 * 2 + 1) * 2 + 1, ids.toVirtual(2, 3));
        assertEquals(2, ids.routeOf((3 * 2 + 1) * 2 + 1));
        assertEquals(3, ids.realNodeId((3 * 2 + 1) * 2 + 1));
        assertEquals(3 * 2, ids.toVirtual(0, 3));
    }
}
