package dev.weft.routing.dag;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.routing.node.NodeIdBijection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ComposedNodeIdsTest {

    /** outer: [inner, ap-south]; inner: [us-east, eu-west, us-east-2]. */
    private static ComposedNodeIds twoLevels() {
        Map<String, RouterSpec> r = new LinkedHashMap<>();
        r.put("outer", new RouterSpec("outer", "topic-weave", List.of(
                new RouteSpec("inner", RouteTarget.router("inner")), new RouteSpec("ap", RouteTarget.cluster("ap-south"))), null));
        r.put("inner", new RouterSpec("inner", "topic-weave", List.of(
                new RouteSpec("us", RouteTarget.cluster("us-east")), new RouteSpec("eu", RouteTarget.cluster("eu-west")),
                new RouteSpec("us2", RouteTarget.cluster("us-east-2"))), null));
        return RoutingGraph.build(r, Set.of("us-east", "eu-west", "us-east-2", "ap-south"),
                Map.of("main", RouteTarget.router("outer"))).nodeIds("main");
    }

    @Test
    void composesPerLevelAsDesignSays() {
        ComposedNodeIds ids = twoLevels();
        assertEquals(4, ids.leafCount());
        // leaf eu-west: inner route 1 of 3, outer route 0 of 2: V = (b*3 + 1)*2 + 0
        int eu = ids.firstLeafOf("eu-west");
        assertEquals(1, eu);
        assertEquals((5 * 3 + 1) * 2, ids.toVirtual(eu, 5));
        // same as composing two NodeIdBijections by hand
        NodeIdBijection inner = new NodeIdBijection(3);
        NodeIdBijection outer = new NodeIdBijection(2);
        assertEquals(outer.toVirtual(0, inner.toVirtual(1, 5)), ids.toVirtual(eu, 5));
        // leaf ap-south: outer route 1 only: V = b*2 + 1
        int ap = ids.firstLeafOf("ap-south");
        assertEquals(7 * 2 + 1, ids.toVirtual(ap, 7));
    }

    @Test
    void inverseRoundTripsAndIdsAreDistinct() {
        ComposedNodeIds ids = twoLevels();
        Set<Integer> seen = new HashSet<>();
        for (int leaf = 0; leaf < ids.leafCount(); leaf++) {
            for (int b = 0; b < 200; b++) {
                int v = ids.toVirtual(leaf, b);
                assertTrue(seen.add(v), "virtual id " + v + " given twice");
                assertEquals(leaf, ids.leafOf(v));
                assertEquals(b, ids.realNodeId(v));
            }
        }
        Random random = new Random(42);
        for (int i = 0; i < 10_000; i++) {
            int v = random.nextInt(Integer.MAX_VALUE);
            int leaf = ids.leafOf(v);
            assertEquals(v, ids.toVirtual(leaf, ids.realNodeId(v)), "every virtual id decodes and re-encodes");
        }
    }

    @Test
    void sentinelsPassThrough() {
        ComposedNodeIds ids = twoLevels();
        assertEquals(-1, ids.toVirtual(2, -1));
        assertEquals(-1, ids.leafOf(-1));
        assertEquals(-1, ids.realNodeId(-1));
        assertEquals(-2, ids.realNodeId(-2));
    }

    @Test
    void overflowNamesClusterAndNodeId() {
        ComposedNodeIds ids = twoLevels();
        int eu = ids.firstLeafOf("eu-west");
        int max = ids.maxRealNodeId(eu);
        assertEquals((Integer.MAX_VALUE - 2) / 6, max);
        assertEquals(max * 6 + 2, ids.toVirtual(eu, max));
        NodeIdOverflowException e = assertThrows(NodeIdOverflowException.class, () -> ids.toVirtual(eu, max + 1));
        assertTrue(e instanceof ArithmeticException);
        assertEquals("virtualClusters.main", e.problem().path());
        assertTrue(e.getMessage().contains("node id " + (max + 1) + " of cluster 'eu-west' (outer.inner -> inner.eu -> "
                + "cluster 'eu-west') does not fit"), e.getMessage());
        List<RoutingProblem> problems = ids.check(eu, new int[] {1, max, max + 1, Integer.MAX_VALUE});
        assertEquals(2, problems.size());
        assertTrue(problems.get(0).message().startsWith("node id " + (max + 1)));
    }

    @Test
    void directClusterTargetIsIdentity() {
        ComposedNodeIds ids = RoutingGraph.build(Map.of(), Set.of("solo"), Map.of("vc", RouteTarget.cluster("solo"))).nodeIds("vc");
        assertEquals(1, ids.leafCount());
        assertEquals(Integer.MAX_VALUE, ids.toVirtual(0, Integer.MAX_VALUE));
        assertEquals(0, ids.leafOf(17));
        assertEquals(17, ids.realNodeId(17));
    }
}
