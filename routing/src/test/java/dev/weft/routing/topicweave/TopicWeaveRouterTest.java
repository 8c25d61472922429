package dev.weft.routing.topicweave;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.routing.RealTopic;
import dev.weft.routing.Router;
import dev.weft.routing.RouterRegistry;
import dev.weft.routing.TopicRouting;
import dev.weft.routing.dag.InvalidRoutingException;
import dev.weft.routing.dag.RouteSpec;
import dev.weft.routing.dag.RouteTarget;
import dev.weft.routing.dag.RouterSpec;
import dev.weft.routing.dag.RoutingGraph;
import dev.weft.routing.dag.RoutingProblem;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class TopicWeaveRouterTest {

    private static final List<RouteSpec> ROUTES = List.of(new RouteSpec("us", RouteTarget.cluster("us-east")),
            new RouteSpec("eu", RouteTarget.cluster("eu-west")), new RouteSpec("ap", RouteTarget.cluster("ap-south")));

    /** The README example, as a YAML reader would hand it over. */
    private static Map<String, Object> readmeConfig() {
        return Map.of(
                "type", "topic-weave",
                "collisions", "qualify",
                "routes", List.of(
                        Map.of("name", "us", "target", Map.of("cluster", "us-east"),
                                "topics", Map.of("include", List.of("orders", "re:payments-.*"), "exclude", List.of("re:.*-internal")),
                                "naming", Map.of("prefix", "us.")),
                        Map.of("name", "eu", "target", Map.of("cluster", "eu-west"), "naming", "identity"),
                        Map.of("name", "ap", "target", Map.of("cluster", "ap-south"),
                                "naming", Map.of("renames", Map.of("orders", "orders-ap")))),
                "groups", Map.of("homes", List.of(Map.of("prefix", "eu-", "route", "eu"), Map.of("prefix", "eu-ap-", "route", "ap")),
                        "default", "us"),
                "transactions", Map.of("homes", List.of(Map.of("prefix", "eu-", "route", "eu")), "default", "ap"),
                "placement", Map.of("rules", List.of(Map.of("prefix", "us.", "route", "us")), "default", "eu"));
    }

    private static Router build(Object settings, List<RoutingProblem> problems) {
        return RouterRegistry.standard().create(new RouterSpec("weave", "topic-weave", ROUTES, settings), problems);
    }

    @Test
    void buildsFromConfigMapping() {
        List<RoutingProblem> problems = new ArrayList<>();
        Router router = build(readmeConfig(), problems);
        assertEquals(List.of(), problems);
        assertEquals("topic-weave", router.type());
        TopicRouting c = router.catalog(List.of(
                List.of(RealTopic.of("orders"), RealTopic.of("payments-1"), RealTopic.of("payments-internal"), RealTopic.of("x")),
                List.of(RealTopic.of("orders")), List.of(RealTopic.of("orders"))));
        assertEquals(List.of("orders", "orders-ap", "us.orders", "us.payments-1"),
                c.visibleTopics().stream().map(t -> t.virtualName()).toList());
        assertEquals(1, c.resolve("orders").route());
    }

    @Test
    void groupAndTransactionHomesLongestPrefixWinsElseDefault() {
        Router router = build(readmeConfig(), new ArrayList<>());
        assertEquals(1, router.groups().homeRoute("eu-billing"));
        assertEquals(2, router.groups().homeRoute("eu-ap-billing"), "longest prefix wins, whatever the rule order");
        assertEquals(0, router.groups().homeRoute("billing"));
        assertEquals(1, router.transactions().homeRoute("eu-tx"));
        assertEquals(2, router.transactions().homeRoute("tx"));
        assertTrue(router.transactions().confinedTo("eu-tx", 1));
        assertFalse(router.transactions().confinedTo("eu-tx", 0));
    }

    @Test
    void homesDefaultToTheFirstRoute() {
        Router router = build(null, new ArrayList<>());
        assertEquals(0, router.groups().homeRoute("anything"));
        assertEquals(0, router.transactions().homeRoute("anything"));
    }

    @Test
    void configProblemsNameTheirPaths() {
        Map<String, Object> bad = Map.of(
                "collisions", "last-wins",
                "routes", List.of(Map.of("name", "us", "naming", "upper", "topics", Map.of("include", "orders")),
                        Map.of("name", "eu", "colour", "blue")),
                "groups", Map.of("homes", List.of(Map.of("prefix", "x", "route", "mars"))));
        List<RoutingProblem> problems = new ArrayList<>();
        assertNull(build(bad, problems));
        List<String> text = problems.stream().map(RoutingProblem::toString).toList();
        assertTrue(text.contains("routers.weave.collisions: 'last-wins' is not a collision policy; use reject | first-wins | qualify"), text.toString());
        assertTrue(text.contains("routers.weave.routes[0].topics.include: expected a list, got 'orders'"), text.toString());
        assertTrue(text.contains("routers.weave.routes[0].naming: 'upper' is not a naming; use identity, { prefix: \"p.\" } or { renames: { real: virtual } }"), text.toString());
        assertTrue(text.contains("routers.weave.routes[1].colour: unknown key 'colour'; known keys: [name, naming, qualify, target, topics]"), text.toString());
        assertTrue(text.contains("routers.weave.groups.homes[0].route: route 'mars' does not exist; routes: [us, eu, ap]"), text.toString());
        assertEquals(5, text.size(), text.toString());
    }

    @Test
    void unknownTypeIsAProblemAndCreateAllCollectsEverything() {
        Map<String, RouterSpec> routers = Map.of(
                "weave", new RouterSpec("weave", "topic-weave", List.of(new RouteSpec("us", RouteTarget.router("x"))),
                        Map.of("collisions", "sometimes")),
                "x", new RouterSpec("x", "tapioca", List.of(new RouteSpec("a", RouteTarget.cluster("us-east"))), null));
        RoutingGraph graph = RoutingGraph.build(routers, Set.of("us-east"), Map.of("main", RouteTarget.router("weave")));
        InvalidRoutingException e = assertThrows(InvalidRoutingException.class, () -> RouterRegistry.standard().createAll(graph));
        List<String> text = e.problems().stream().map(RoutingProblem::toString).sorted().toList();
        assertEquals(List.of("routers.weave.collisions: 'sometimes' is not a collision policy; use reject | first-wins | qualify",
                "routers.x.type: unknown router type 'tapioca'; known types: [branch, partition-weave, switch, topic-weave]"), text);
    }
}
