package dev.weft.routing.node;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.routing.dag.InvalidRoutingException;
import dev.weft.routing.dag.RoutingProblem;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The proxy node list of a collapsed virtual cluster: validation and the arithmetic every replica shares. */
class CollapsedNodesTest {

    private static final String PATH = "virtualClusters.main.nodes";

    private static ProxyNode node(int id, String rack) {
        return new ProxyNode(id, "proxy-" + id + ".example.com", 9192, rack);
    }

    /** Six nodes over racks a, b, c (two each), listed out of id order. */
    private static List<ProxyNode> sixNodes() {
        return List.of(node(5, "c"), node(0, "a"), node(3, "b"), node(1, "a"), node(4, "c"), node(2, "b"));
    }

    private static CollapsedNodes three() {
        return CollapsedNodes.of(PATH, List.of(node(1, null), node(2, null), node(3, null)));
    }

    @Test
    void everyProblemOfANodeListIsReportedWithItsPath() {
        List<ProxyNode> nodes = Arrays.asList(
                new ProxyNode(1, "p1", 9192, "az1"),
                new ProxyNode(1, "p2", 9192, null),
                new ProxyNode(-3, "", 0, " "),
                null,
                new ProxyNode(7, "p7", 65536, "az1"));
        List<RoutingProblem> problems = CollapsedNodes.validate(PATH, nodes);
        assertEquals(List.of(
                new RoutingProblem(PATH + "[1].id", "duplicate node id 1 (also nodes[0])"),
                new RoutingProblem(PATH + "[2].id", "node id -3 is negative; node ids are 0 or more"),
                new RoutingProblem(PATH + "[2].host", "node -3 has no host"),
                new RoutingProblem(PATH + "[2].port", "port 0 of node -3 is not between 1 and 65535"),
                new RoutingProblem(PATH + "[2].rack", "rack of node -3 is empty; leave it out for a node without a rack"),
                new RoutingProblem(PATH + "[3]", "node is empty; a node needs an id, a host and a port"),
                new RoutingProblem(PATH + "[4].port", "port 65536 of node 7 is not between 1 and 65535")), problems);
        InvalidRoutingException e = assertThrows(InvalidRoutingException.class, () -> CollapsedNodes.of(PATH, nodes));
        assertEquals(problems, e.problems());
        assertTrue(e.getMessage().contains("virtualClusters.main.nodes[1].id: duplicate node id 1"), e.getMessage());
    }

    @Test
    void aCollapsedVirtualClusterNeedsANode() {
        assertEquals(List.of(new RoutingProblem(PATH, "a collapsed virtual cluster needs at least one proxy node")),
                CollapsedNodes.validate(PATH, List.of()));
        assertEquals(1, CollapsedNodes.validate(PATH, null).size());
        assertThrows(InvalidRoutingException.class, () -> CollapsedNodes.of(PATH, List.of()));
    }

    @Test
    void nodesMayShareAnAddressAndIdZeroIsANodeId() {
        CollapsedNodes nodes = CollapsedNodes.of(PATH, List.of(new ProxyNode(0, "lb", 9192, null), new ProxyNode(1, "lb", 9192, null)));
        assertEquals(2, nodes.size());
        assertEquals(0, nodes.controllerId());
    }

    @Test
    void nodesAreKeptInIdOrderAndFoundById() {
        CollapsedNodes nodes = CollapsedNodes.of(PATH, sixNodes());
        assertEquals(List.of(0, 1, 2, 3, 4, 5), nodes.nodes().stream().map(ProxyNode::id).toList());
        assertEquals("b", nodes.node(3).rack());
        assertNull(nodes.node(6));
        assertTrue(nodes.contains(5));
        assertFalse(nodes.contains(-1));
        assertEquals(0, nodes.controllerId(), "the lowest id");
        assertEquals(Set.of("a", "b", "c"), nodes.racks());
        assertEquals("proxy-3.example.com:9192", nodes.node(3).hostPort());
        assertEquals("[::1]:9192", new ProxyNode(1, "::1", 9192, null).hostPort());
    }

    @Test
    void configOrderDoesNotMatter() {
        List<ProxyNode> shuffled = new ArrayList<>(sixNodes());
        Collections.shuffle(shuffled, new Random(42));
        CollapsedNodes a = CollapsedNodes.of(PATH, sixNodes());
        CollapsedNodes b = CollapsedNodes.of(PATH, shuffled);
        assertEquals(a, b);
        assertEquals(a.hashCode(), b.hashCode());
        for (String topic : List.of("orders", "clicks", "payments-eu", "日本")) {
            for (String rack : Arrays.asList(null, "a", "b", "c", "mars")) {
                for (int p = 0; p < 200; p++) {
                    assertEquals(a.virtualLeader(topic, p, rack), b.virtualLeader(topic, p, rack), topic + "-" + p + " " + rack);
                    assertArrayEquals(a.replicas(topic, p, rack, 3), b.replicas(topic, p, rack, 3));
                }
                assertEquals(a.coordinatorFor(topic, rack), b.coordinatorFor(topic, rack));
            }
        }
    }

    @Test
    void leadersArePinnedAcrossReplicasJvmsAndReleases() {
        // Values computed outside Java (FNV-1a over UTF-8, fmix32; floorMod): changing the arithmetic
        // moves every client's leaders during a rolling upgrade, so it must be a deliberate change.
        assertEquals(2069166408, CollapsedNodes.stableHash("orders"));
        assertEquals(-1013710709, CollapsedNodes.stableHash("payments-eu"));
        assertEquals(-1421968373, CollapsedNodes.stableHash(""));
        assertEquals(-548303534, CollapsedNodes.stableHash("café"));
        assertEquals(-268136161, CollapsedNodes.stableHash("日本"));
        assertEquals(855877642, CollapsedNodes.stableHash("😀"));
        CollapsedNodes three = three();
        assertEquals(List.of(1, 2, 3, 1, 2, 3), leaders(three, "orders", 6, null));
        CollapsedNodes five = CollapsedNodes.of(PATH, List.of(node(12, null), node(0, null), node(7, null), node(10, null), node(4, null)));
        assertEquals(List.of(4, 7, 10, 12, 0, 4), leaders(five, "payments-eu", 6, null));
        assertEquals(3, three.coordinatorFor("group-a"));
    }

    @Test
    void theHashIsOverUtf8Bytes() {
        for (String s : List.of("a", "orders", "ñandú", "日本語のトピック", "emoji-😀-x", "\uD800lone-high", "lone-low\uDC00", "end\uD800")) {
            assertEquals(referenceHash(s.getBytes(StandardCharsets.UTF_8)), CollapsedNodes.stableHash(s), s);
        }
        assertEquals(CollapsedNodes.stableHash(""), CollapsedNodes.stableHash(null));
    }

    private static int referenceHash(byte[] bytes) {
        int h = 0x811C9DC5;
        for (byte b : bytes) {
            h = (h ^ (b & 0xFF)) * 0x01000193;
        }
        h ^= h >>> 16;
        h *= 0x85EBCA6B;
        h ^= h >>> 13;
        h *= 0xC2B2AE35;
        return h ^ (h >>> 16);
    }

    @Test
    void aTopicsPartitionsSpreadEvenlyOverTheNodes() {
        CollapsedNodes three = three();
        for (String topic : List.of("orders", "clicks", "a", "payments-eu")) {
            TreeMap<Integer, Integer> counts = count(leaders(three, topic, 300, null));
            assertEquals(Set.of(1, 2, 3), counts.keySet());
            for (int c : counts.values()) {
                assertTrue(Math.abs(c - 100) <= 15, topic + ": " + counts);
            }
        }
        CollapsedNodes six = CollapsedNodes.of(PATH, sixNodes());
        for (int partitions = 1; partitions < 40; partitions++) {
            TreeMap<Integer, Integer> counts = count(leaders(six, "t" + partitions, partitions, null));
            int min = counts.size() < 6 ? 0 : Collections.min(counts.values());
            assertTrue(Collections.max(counts.values()) - min <= 1, partitions + " partitions: " + counts);
        }
    }

    @Test
    void manySmallTopicsSpreadOverTheNodesToo() {
        CollapsedNodes three = three();
        List<Integer> leaders = new ArrayList<>();
        for (int t = 0; t < 3000; t++) {
            leaders.add(three.virtualLeader("topic-" + t, 0, null));
        }
        for (int c : count(leaders).values()) {
            assertTrue(Math.abs(c - 1000) <= 150, count(leaders).toString());
        }
    }

    @Test
    void aKnownClientRackIsPreferred() {
        CollapsedNodes six = CollapsedNodes.of(PATH, sixNodes());
        TreeMap<Integer, Integer> inB = count(leaders(six, "orders", 300, "b"));
        assertEquals(Set.of(2, 3), inB.keySet(), "only rack b's nodes lead for a client in rack b");
        assertEquals(List.of(150, 150), List.copyOf(inB.values()));
        assertEquals(Set.of(0, 1, 2, 3, 4, 5), count(leaders(six, "orders", 300, "mars")).keySet(),
                "a rack no node is in: every node");
        assertEquals(leaders(six, "orders", 300, null), leaders(six, "orders", 300, "mars"));
        for (int k = 0; k < 100; k++) {
            int c = six.coordinatorFor("group-" + k, "c");
            assertTrue(c == 4 || c == 5, "group-" + k + " -> " + c);
        }
        CollapsedNodes someRacked = CollapsedNodes.of(PATH, List.of(node(1, "a"), node(2, null), node(3, null)));
        assertEquals(Set.of(1), count(leaders(someRacked, "orders", 30, "a")).keySet());
        assertEquals(Set.of(1, 2, 3), count(leaders(someRacked, "orders", 30, null)).keySet());
    }

    @Test
    void replicasStartWithTheLeaderAndFollowTheNodesInIdOrder() {
        CollapsedNodes six = CollapsedNodes.of(PATH, sixNodes());
        for (String rack : Arrays.asList(null, "a", "c")) {
            for (int p = 0; p < 50; p++) {
                int leader = six.virtualLeader("orders", p, rack);
                int[] replicas = six.replicas("orders", p, rack, 3);
                assertEquals(3, replicas.length);
                assertEquals(leader, replicas[0]);
                assertEquals((leader + 1) % 6, replicas[1], "ids 0..5: the next id, wrapping");
                assertEquals((leader + 2) % 6, replicas[2]);
            }
        }
        assertEquals(6, six.replicas("orders", 0, null, 9).length, "at most every node");
        assertEquals(6, new HashSet<>(Arrays.stream(six.replicas("orders", 0, null, 9)).boxed().toList()).size());
        assertEquals(1, six.replicas("orders", 0, null, 0).length, "at least the leader");
        assertArrayEquals(new int[] {4, 5}, CollapsedNodes.inSyncReplicas(new int[] {4, 5, 0}, 2));
        assertArrayEquals(new int[] {4, 5, 0}, CollapsedNodes.inSyncReplicas(new int[] {4, 5, 0}, 7));
        assertArrayEquals(new int[0], CollapsedNodes.inSyncReplicas(new int[] {4, 5, 0}, 0));
        int h = CollapsedNodes.stableHash("orders");
        assertArrayEquals(six.replicas("orders", 7, "b", 2), six.replicas(h, 7, "b", 2));
        assertEquals(six.virtualLeader("orders", 7, "b"), six.virtualLeader(h, 7, "b"));
    }

    @Test
    void coordinatorsSpreadOverTheNodes() {
        CollapsedNodes three = three();
        List<Integer> picks = new ArrayList<>();
        for (int k = 0; k < 3000; k++) {
            picks.add(three.coordinatorFor("group-" + k));
        }
        for (int c : count(picks).values()) {
            assertTrue(Math.abs(c - 1000) <= 150, count(picks).toString());
        }
        assertEquals(three.coordinatorFor("g"), three.coordinatorFor("g", null));
    }

    @Test
    void aLeaderLookupWithAPrecomputedHashAllocatesNothing() {
        CollapsedNodes six = CollapsedNodes.of(PATH, sixNodes());
        int h = CollapsedNodes.stableHash("orders");
        String rack = "b";
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long sum = spin(six, h, rack, 10_000);
        long before = threads.getCurrentThreadAllocatedBytes();
        sum += spin(six, h, rack, 100_000);
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        assertTrue(allocated < 4096, "100k lookups allocated " + allocated + " bytes (sum " + sum + ")");
    }

    private static long spin(CollapsedNodes nodes, int h, String rack, int rounds) {
        long sum = 0;
        for (int i = 0; i < rounds; i++) {
            sum += nodes.virtualLeader(h, i, rack) + nodes.virtualLeader(h, i, null) + CollapsedNodes.stableHash("orders");
        }
        return sum;
    }

    private static List<Integer> leaders(CollapsedNodes nodes, String topic, int partitions, String rack) {
        List<Integer> out = new ArrayList<>(partitions);
        for (int p = 0; p < partitions; p++) {
            out.add(nodes.virtualLeader(topic, p, rack));
        }
        return out;
    }

    private static TreeMap<Integer, Integer> count(List<Integer> ids) {
        TreeMap<Integer, Integer> counts = new TreeMap<>();
        ids.forEach(id -> counts.merge(id, 1, Integer::sum));
        return counts;
    }
}
