package dev.weft.routing.dag;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RoutingGraphTest {

    private static final Set<String> CLUSTERS = Set.of("us-east", "eu-west", "ap-south");

    private static RouterSpec router(String name, RouteSpec... routes) {
        return new RouterSpec(name, "topic-weave", List.of(routes), null);
    }

    private static RouteSpec toCluster(String name, String cluster) {
        return new RouteSpec(name, RouteTarget.cluster(cluster));
    }

    private static RouteSpec toRouter(String name, String router) {
        return new RouteSpec(name, RouteTarget.router(router));
    }

    @SafeVarargs
    private static Map<String, RouterSpec> routers(RouterSpec... specs) {
        Map<String, RouterSpec> m = new LinkedHashMap<>();
        for (RouterSpec s : specs) {
            m.put(s.name(), s);
        }
        return m;
    }

    private static List<String> problems(Map<String, RouterSpec> routers, Map<String, RouteTarget> vcs) {
        return RoutingGraph.validate(routers, CLUSTERS, vcs).stream().map(RoutingProblem::toString).toList();
    }

    @Test
    void validNestedGraphHasNoProblems() {
        Map<String, RouterSpec> r = routers(
                router("outer", toRouter("inner", "inner"), toCluster("ap", "ap-south")),
                router("inner", toCluster("us", "us-east"), toCluster("eu", "eu-west")));
        RoutingGraph g = RoutingGraph.build(r, CLUSTERS, Map.of("main", RouteTarget.router("outer")));
        assertEquals(List.of("us-east", "eu-west", "ap-south"), g.leafClusters(RouteTarget.router("outer")));
        List<LeafPath> leaves = g.leaves("main");
        assertEquals(List.of(0, 0), leaves.get(0).routeIndices());
        assertEquals(List.of(0, 1), leaves.get(1).routeIndices());
        assertEquals(List.of(1), leaves.get(2).routeIndices());
        assertEquals("outer.inner -> inner.eu -> cluster 'eu-west'", leaves.get(1).describe());
    }

    @Test
    void duplicateRouteNameNamesBothIndices() {
        Map<String, RouterSpec> r = routers(router("w", toCluster("us", "us-east"), toCluster("us", "eu-west")));
        assertEquals(List.of("routers.w.routes[1].name: duplicate route name 'us' in router 'w' (also routes[0])"),
                problems(r, Map.of("main", RouteTarget.router("w"))));
    }

    @Test
    void danglingClusterSaysWhatExists() {
        Map<String, RouterSpec> r = routers(router("w", toCluster("us", "us-east"), toCluster("eu", "eu-wset")));
        assertEquals(List.of("routers.w.routes[1].target: route 'eu' targets cluster 'eu-wset', which is not defined; "
                + "defined clusters: [ap-south, eu-west, us-east]"), problems(r, Map.of("main", RouteTarget.router("w"))));
    }

    @Test
    void danglingRouterFromVirtualClusterAndKindHint() {
        Map<String, RouterSpec> r = routers(router("w", toCluster("us", "us-east"), toRouter("eu", "eu-west")));
        List<String> p = problems(r, Map.of("main", RouteTarget.router("wevae"), "other", RouteTarget.router("w")));
        assertTrue(p.contains("routers.w.routes[1].target: route 'eu' targets router 'eu-west', which is not defined; "
                + "defined routers: [w]; there is a cluster of that name: write { cluster: eu-west }"), p.toString());
        assertTrue(p.contains("virtualClusters.main.target: virtual cluster 'main' targets router 'wevae', which is "
                + "not defined; defined routers: [w]"), p.toString());
    }

    @Test
    void cycleIsNamed() {
        Map<String, RouterSpec> r = routers(
                router("a", toRouter("to-b", "b")),
                router("b", toCluster("us", "us-east"), toRouter("back", "a")));
        assertEquals(List.of("routers.b.routes[1].target: cycle: a -> b -> a"),
                problems(r, Map.of("main", RouteTarget.router("a"))));
    }

    @Test
    void selfLoopIsACycle() {
        Map<String, RouterSpec> r = routers(router("a", toCluster("us", "us-east"), toRouter("me", "a")));
        assertEquals(List.of("routers.a.routes[1].target: cycle: a -> a"), problems(r, Map.of("main", RouteTarget.router("a"))));
    }

    @Test
    void unusedRouterAndEmptyRouter() {
        Map<String, RouterSpec> r = routers(router("used", toCluster("us", "us-east")), router("spare"));
        assertEquals(List.of("routers.spare.routes: router 'spare' has no routes",
                "routers.spare: router 'spare' is not used by any virtual cluster"),
                problems(r, Map.of("main", RouteTarget.router("used"))));
    }

    @Test
    void routerReachedOnlyFromAnUnusedRouterIsUnusedToo() {
        Map<String, RouterSpec> r = routers(router("used", toCluster("us", "us-east")),
                router("orphan", toRouter("x", "leaf")), router("leaf", toCluster("eu", "eu-west")));
        assertEquals(List.of("routers.orphan: router 'orphan' is not used by any virtual cluster",
                "routers.leaf: router 'leaf' is not used by any virtual cluster"),
                problems(r, Map.of("main", RouteTarget.cluster("us-east"), "w", RouteTarget.router("used"))));
    }

    @Test
    void everyProblemIsReportedAtOnce() {
        Map<String, RouterSpec> r = routers(
                router("a", toRouter("b", "b"), toCluster("b", "nowhere")),
                router("b", toRouter("a", "a")),
                router("lonely", toCluster("us", "us-east")));
        InvalidRoutingException e = assertThrows(InvalidRoutingException.class,
                () -> RoutingGraph.build(r, CLUSTERS, Map.of("main", RouteTarget.router("a"), "x", RouteTarget.cluster("mars"))));
        List<String> p = e.problems().stream().map(RoutingProblem::toString).toList();
        assertEquals(5, p.size(), p.toString());
        assertTrue(p.contains("routers.a.routes[1].name: duplicate route name 'b' in router 'a' (also routes[0])"), p.toString());
        assertTrue(p.contains("routers.a.routes[1].target: route 'b' targets cluster 'nowhere', which is not defined; "
                + "defined clusters: [ap-south, eu-west, us-east]"), p.toString());
        assertTrue(p.contains("virtualClusters.x.target: virtual cluster 'x' targets cluster 'mars', which is not "
                + "defined; defined clusters: [ap-south, eu-west, us-east]"), p.toString());
        assertTrue(p.contains("routers.b.routes[0].target: cycle: a -> b -> a"), p.toString());
        assertTrue(p.contains("routers.lonely: router 'lonely' is not used by any virtual cluster"), p.toString());
        assertTrue(e.getMessage().startsWith("5 routing problems:"), e.getMessage());
    }

    @Test
    void keyAndNameMustAgree() {
        Map<String, RouterSpec> r = new LinkedHashMap<>();
        r.put("w", router("v", toCluster("us", "us-east")));
        assertEquals(List.of("routers.w: router is named 'v' but listed under 'w'"),
                problems(r, Map.of("main", RouteTarget.router("w"))));
    }

    @Test
    void diamondGivesOneLeafPerPath() {
        Map<String, RouterSpec> r = routers(
                router("top", toRouter("left", "shared"), toRouter("right", "shared")),
                router("shared", toCluster("us", "us-east")));
        RoutingGraph g = RoutingGraph.build(r, CLUSTERS, Map.of("main", RouteTarget.router("top")));
        assertEquals(2, g.leaves("main").size());
        assertEquals(List.of("us-east"), g.leafClusters(g.target("main")));
    }
}
