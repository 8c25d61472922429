package dev.weft.routing.partitionweave;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.routing.dag.RoutingProblem;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class PartitionWeaveSettingsReaderTest {

    private static final String PATH = "routers.orders-weave";
    private static final List<String> ROUTES = List.of("us-east", "eu-west");
    private static final String RANGE_HINT = "write A-B with 0 <= A <= B (e.g. 0-15) or a single partition N";
    private static final String NAME_RULE = "a topic name is 1 to 249 of the characters a-z A-Z 0-9 . _ - and not '.' or '..'";

    // ---- config as the proxy's config reader hands it over: plain maps (in document order) and lists

    /** A segment mapping; a null value leaves the key out. */
    private static Map<String, Object> seg(Object route, Object topic, Object partitions) {
        Map<String, Object> m = new LinkedHashMap<>();
        if (route != null) {
            m.put("route", route);
        }
        if (topic != null) {
            m.put("topic", topic);
        }
        if (partitions != null) {
            m.put("partitions", partitions);
        }
        return m;
    }

    /** The router mapping with the two routes and these logical topics (name, segments, name, segments, ...). */
    private static Map<String, Object> router(Object... topicsAndSegments) {
        Map<String, Object> topics = new LinkedHashMap<>();
        for (int i = 0; i < topicsAndSegments.length; i += 2) {
            topics.put((String) topicsAndSegments[i], topicsAndSegments[i + 1]);
        }
        return routerWithTopics(topics);
    }

    private static Map<String, Object> routerWithTopics(Object topics) {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("type", "partition-weave");
        r.put("routes", List.of(route("us-east"), route("eu-west")));
        r.put("topics", topics);
        return r;
    }

    private static Map<String, Object> route(String name) {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("name", name);
        r.put("target", Map.of("cluster", name));
        return r;
    }

    /** The problems reading {@code raw} gives, as "path: message"; asserts that it then returns null. */
    private static List<String> problems(Map<String, Object> raw) {
        List<RoutingProblem> problems = new ArrayList<>();
        PartitionWeaveSettings settings = PartitionWeaveSettingsReader.read(PATH, raw, ROUTES, problems);
        assertNull(settings, "settings with problems " + problems);
        return problems.stream().map(RoutingProblem::toString).toList();
    }

    private static PartitionWeaveSettings valid(Map<String, Object> raw) {
        List<RoutingProblem> problems = new ArrayList<>();
        PartitionWeaveSettings settings = PartitionWeaveSettingsReader.read(PATH, raw, ROUTES, problems);
        assertEquals(List.of(), problems);
        assertNotNull(settings);
        return settings;
    }

    private static Map<String, Object> ordersWeave() {
        return router("orders", List.of(seg("us-east", "orders", "0-15"), seg("eu-west", "orders-eu", "0-15")));
    }

    // ---- valid configs

    @Test
    void theDesignSketchReadsAsTwoSegmentsConcatenated() {
        PartitionWeaveSettings settings = valid(ordersWeave());
        LogicalTopic orders = new LogicalTopic("orders", List.of(new Segment(0, "us-east", "orders", 0, 15),
                new Segment(1, "eu-west", "orders-eu", 0, 15)));
        assertEquals(new PartitionWeaveSettings(Map.of("orders", orders)), settings);
        assertEquals(32, settings.topic("orders").partitionCount());
        assertNull(settings.topic("orders-eu"), "a physical topic is not a logical one");
    }

    @Test
    void logicalTopicsKeepTheirConfigOrderAndEveryPartitionSpelling() {
        PartitionWeaveSettings settings = valid(router(
                "payments", List.of(seg("eu-west", "payments", 3)),              // a YAML number
                "audit", List.of(seg("us-east", "audit", "7"), seg("eu-west", "audit", " 2 - 4 ")),
                "clicks", List.of(seg("us-east", "clicks", 5L))));
        assertEquals(List.of("payments", "audit", "clicks"), List.copyOf(settings.topics().keySet()));
        assertEquals(List.of(new Segment(1, "eu-west", "payments", 3, 3)), settings.topic("payments").segments());
        assertEquals(List.of(new Segment(0, "us-east", "audit", 7, 7), new Segment(1, "eu-west", "audit", 2, 4)),
                settings.topic("audit").segments());
        assertEquals(4, settings.topic("audit").partitionCount());
        assertEquals(List.of(new Segment(0, "us-east", "clicks", 5, 5)), settings.topic("clicks").segments());
    }

    @Test
    void gapsTheOperatorWroteAsSeparateSegmentsAreFine() {
        // orders 4-7 are left out on purpose: there is no gap rule beyond overlaps
        LogicalTopic orders = valid(router("orders", List.of(seg("us-east", "orders", "0-3"),
                seg("us-east", "orders", "8-11")))).topic("orders");
        assertEquals(8, orders.partitionCount());
        assertEquals(8, orders.physicalPartition(4));
        assertEquals(-1, orders.virtualPartition(0, 5), "partition 5 is woven nowhere");
        assertEquals(-1, orders.virtualPartition(1, 5));
    }

    @Test
    void oneNameOnTwoRoutesIsTwoPhysicalTopics() {
        LogicalTopic orders = valid(router("orders", List.of(seg("us-east", "orders", "0-15"),
                seg("eu-west", "orders", "0-15")))).topic("orders");
        assertEquals(32, orders.partitionCount());
    }

    @Test
    void twoLogicalTopicsMayShareAPhysicalTopicByDisjointPartitions() {
        PartitionWeaveSettings settings = valid(router(
                "orders-head", List.of(seg("us-east", "orders", "0-7")),
                "orders-tail", List.of(seg("us-east", "orders", "8-15"))));
        assertEquals(8, settings.topic("orders-tail").partitionCount());
    }

    @Test
    void aLogicalTopicNameOfTheLongestLengthKafkaAllowsIsValid() {
        String longest = "t".repeat(249);
        assertEquals(1, valid(router(longest, List.of(seg("us-east", "orders", 0)))).topic(longest).partitionCount());
    }

    @Test
    void aLogicalTopicOfExactlyIntegerMaxValuePartitionsFits() {
        LogicalTopic huge = valid(router("huge", List.of(seg("us-east", "a", "0-2147483645"), seg("eu-west", "b", "7"))))
                .topic("huge");
        assertEquals(Integer.MAX_VALUE, huge.partitionCount());
        assertEquals(1, huge.segmentOf(Integer.MAX_VALUE - 1));
        assertEquals(7, huge.physicalPartition(Integer.MAX_VALUE - 1));
        assertEquals(Integer.MAX_VALUE - 1, huge.virtualPartition(1, 7));
        assertEquals(-1, huge.segmentOf(Integer.MAX_VALUE));
    }

    // ---- lookups

    @Test
    void lookupsAcrossTheSegmentBoundary() {
        LogicalTopic orders = valid(ordersWeave()).topic("orders");
        int[][] virtualSegmentPhysical = {{0, 0, 0}, {1, 0, 1}, {15, 0, 15}, {16, 1, 0}, {17, 1, 1}, {31, 1, 15}};
        for (int[] c : virtualSegmentPhysical) {
            assertEquals(c[1], orders.segmentOf(c[0]), "segment of virtual " + c[0]);
            assertEquals(c[2], orders.physicalPartition(c[0]), "physical partition of virtual " + c[0]);
            assertEquals(c[0], orders.virtualPartition(c[1], c[2]), "virtual of segment " + c[1] + " partition " + c[2]);
        }
    }

    @Test
    void lookupsOutOfRangeAnswerMinusOne() {
        LogicalTopic orders = valid(ordersWeave()).topic("orders");
        for (int v : new int[] {-1, 32, 33, Integer.MAX_VALUE, Integer.MIN_VALUE}) {
            assertEquals(-1, orders.segmentOf(v), "segment of " + v);
            assertEquals(-1, orders.physicalPartition(v), "physical of " + v);
        }
        assertEquals(-1, orders.virtualPartition(0, 16), "us-east orders p16 is not woven");
        assertEquals(-1, orders.virtualPartition(1, -1));
        assertEquals(-1, orders.virtualPartition(2, 0), "no segment 2");
        assertEquals(-1, orders.virtualPartition(-1, 0), "no segment -1");
    }

    @Test
    void segmentsThatStartPastZeroShiftThePhysicalNumbers() {
        LogicalTopic t = valid(router("t", List.of(seg("us-east", "a", "4-7"), seg("eu-west", "b", "10-11")))).topic("t");
        assertEquals(6, t.partitionCount());
        assertEquals(4, t.physicalPartition(0));
        assertEquals(7, t.physicalPartition(3));
        assertEquals(10, t.physicalPartition(4));
        assertEquals(11, t.physicalPartition(5));
        assertEquals(-1, t.virtualPartition(0, 3), "a 3 is below the segment");
        assertEquals(-1, t.virtualPartition(0, 8), "a 8 is above it");
        assertEquals(5, t.virtualPartition(1, 11));
    }

    @Test
    void singlePartitionSegments() {
        LogicalTopic t = valid(router("t", List.of(seg("us-east", "a", "5"), seg("eu-west", "b", 0),
                seg("us-east", "c", "9")))).topic("t");
        assertEquals(3, t.partitionCount());
        assertEquals(List.of(0, 1, 2), List.of(t.segmentOf(0), t.segmentOf(1), t.segmentOf(2)));
        assertEquals(List.of(5, 0, 9), List.of(t.physicalPartition(0), t.physicalPartition(1), t.physicalPartition(2)));
        assertEquals(List.of(0, 1, 2), List.of(t.virtualPartition(0, 5), t.virtualPartition(1, 0), t.virtualPartition(2, 9)));
        assertEquals(-1, t.virtualPartition(0, 4));
        assertEquals(-1, t.segmentOf(3));
    }

    @Test
    void lookupsAgreeWithAWalkOverManySegmentsOfMixedSizes() {
        int[] sizes = {1, 3, 1, 1, 8, 2, 1, 5, 1, 13, 1};
        List<Segment> segments = new ArrayList<>();
        for (int s = 0; s < sizes.length; s++) {
            segments.add(new Segment(s % 2, ROUTES.get(s % 2), "t" + s, 2 * s, 2 * s + sizes[s] - 1));
        }
        LogicalTopic t = new LogicalTopic("many", segments);
        assertEquals(Arrays.stream(sizes).sum(), t.partitionCount());
        int v = 0;
        for (int s = 0; s < sizes.length; s++) {
            for (int k = 0; k < sizes[s]; k++, v++) {
                assertEquals(s, t.segmentOf(v), "segment of " + v);
                assertEquals(2 * s + k, t.physicalPartition(v), "physical of " + v);
                assertEquals(v, t.virtualPartition(s, 2 * s + k));
            }
        }
        assertEquals(-1, t.segmentOf(v));
    }

    @Test
    void lookupsAllocateNothing() {
        // Not a benchmark: a guard that the hot-path lookups read the arrays and build nothing per call
        LogicalTopic orders = valid(ordersWeave()).topic("orders");
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long sink = lookups(orders, 20_000); // warm up
        long before = threads.getCurrentThreadAllocatedBytes();
        int rounds = 200_000;
        sink += lookups(orders, rounds);
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        assertTrue(allocated < 4096, rounds + " rounds of 34 virtual partitions looked up three ways allocated "
                + allocated + " bytes");
        assertTrue(sink != 0);
    }

    private static long lookups(LogicalTopic t, int rounds) {
        long sum = 0;
        for (int r = 0; r < rounds; r++) {
            for (int v = -1; v <= 32; v++) {
                int s = t.segmentOf(v);
                int p = t.physicalPartition(v);
                sum += s + p + t.virtualPartition(s, p);
            }
        }
        return sum;
    }

    @Test
    void theModelRefusesWhatTheReaderNeverBuilds() {
        assertThrows(IllegalArgumentException.class, () -> new Segment(0, "us-east", "a", 3, 1));
        assertThrows(IllegalArgumentException.class, () -> new Segment(0, "us-east", "a", -1, 1));
        assertThrows(IllegalArgumentException.class, () -> new Segment(-1, "us-east", "a", 0, 1));
        assertThrows(IllegalArgumentException.class, () -> new Segment(0, "us-east", "", 0, 1));
        assertThrows(IllegalArgumentException.class, () -> new Segment(0, "us-east", "a", 0, Integer.MAX_VALUE));
        assertThrows(IllegalArgumentException.class, () -> new LogicalTopic("t", List.of()));
        assertThrows(IllegalArgumentException.class, () -> new LogicalTopic("t", List.of(
                new Segment(0, "us-east", "a", 1, Integer.MAX_VALUE), new Segment(1, "eu-west", "b", 0, 0))));
    }

    // ---- problems: path and message, exactly

    @Test
    void unknownKeysAtEveryLevel() {
        Map<String, Object> raw = router("orders", List.of(seg("us-east", "orders", "0-15"),
                new LinkedHashMap<>(Map.of("route", "eu-west", "topic", "orders-eu", "partition", "0-15"))));
        raw.put("collisions", "reject");
        @SuppressWarnings("unchecked")
        Map<String, Object> euRoute = (Map<String, Object>) ((List<?>) raw.get("routes")).get(1);
        euRoute.put("naming", Map.of("prefix", "eu."));
        assertEquals(List.of(
                "routers.orders-weave.collisions: unknown key 'collisions'; known keys: [routes, topics, type]",
                "routers.orders-weave.routes[1].naming: unknown key 'naming'; known keys: [name, target]",
                "routers.orders-weave.topics.orders[1].partition: unknown key 'partition'; known keys: [partitions, route, topic]",
                "routers.orders-weave.topics.orders[1].partitions: segment needs partitions; " + RANGE_HINT),
                problems(raw));
    }

    @Test
    void aRouteThatIsNotOneOfTheRoutersRoutes() {
        assertEquals(List.of("routers.orders-weave.topics.orders[1].route: route 'eu-wset' does not exist; routes: [us-east, eu-west]"),
                problems(router("orders", List.of(seg("us-east", "orders", "0-15"), seg("eu-wset", "orders-eu", "0-15")))));
    }

    @Test
    void aMissingOrMisshapenRoute() {
        assertEquals(List.of(
                "routers.orders-weave.topics.orders[0].route: segment needs a route; routes: [us-east, eu-west]",
                "routers.orders-weave.topics.orders[1].route: expected a string, got a list"),
                problems(router("orders", List.of(seg(null, "orders", "0-15"), seg(List.of("eu-west"), "orders-eu", "0-15")))));
    }

    @Test
    void aMissingEmptyOrInvalidPhysicalTopicName() {
        assertEquals(List.of(
                "routers.orders-weave.topics.orders[0].topic: segment needs a topic: the physical topic's name on its route",
                "routers.orders-weave.topics.orders[1].topic: topic name is empty; name the physical topic on its route",
                "routers.orders-weave.topics.orders[2].topic: topic name 'orders eu' is not a valid Kafka topic name; " + NAME_RULE,
                "routers.orders-weave.topics.orders[3].topic: expected a string, got '7'"),
                problems(router("orders", List.of(seg("us-east", null, "0-3"), seg("eu-west", "", "0-3"),
                        seg("eu-west", "orders eu", "4-7"), seg("eu-west", 7, "8")))));
    }

    static Stream<Arguments> malformedRanges() {
        return Stream.of(
                Arguments.of("3-1", "range '3-1' ends before it starts; write A-B with A <= B (e.g. 1-3)"),
                Arguments.of("-1", "'-1' is not a partition range; " + RANGE_HINT),
                Arguments.of("a-b", "'a-b' is not a partition range; " + RANGE_HINT),
                Arguments.of("0-", "'0-' is not a partition range; " + RANGE_HINT),
                Arguments.of("1-2-3", "'1-2-3' is not a partition range; " + RANGE_HINT),
                Arguments.of("", "'' is not a partition range; " + RANGE_HINT),
                Arguments.of("+4", "'+4' is not a partition range; " + RANGE_HINT),
                Arguments.of("0-2147483648", "partition 2147483648 in '0-2147483648' is beyond the largest partition number 2147483647"),
                Arguments.of("99999999999999999999", "partition 99999999999999999999 in '99999999999999999999' is beyond the"
                        + " largest partition number 2147483647"),
                Arguments.of(-1, "partition -1 is negative; partitions are numbered from 0"),
                Arguments.of(3_000_000_000L, "partition 3000000000 is beyond the largest partition number 2147483647"),
                Arguments.of(new java.math.BigInteger("99999999999999999999"), "partition 99999999999999999999 is beyond the"
                        + " largest partition number 2147483647"),
                Arguments.of(1.5, "'1.5' is not a partition range; " + RANGE_HINT),
                Arguments.of(true, "'true' is not a partition range; " + RANGE_HINT),
                Arguments.of(List.of(0, 15), "a list is not a partition range; " + RANGE_HINT));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("malformedRanges")
    void malformedPartitionRanges(Object partitions, String message) {
        assertEquals(List.of("routers.orders-weave.topics.orders[1].partitions: " + message),
                problems(router("orders", List.of(seg("us-east", "orders", "0-15"), seg("eu-west", "orders-eu", partitions)))));
    }

    @Test
    void noTopicsAtAll() {
        String message = "routers.orders-weave.topics: a partition-weave router needs at least one logical topic:"
                + " topics: { <name>: [ { route, topic, partitions }, ... ] }";
        assertEquals(List.of(message), problems(router()), "an empty mapping");
        Map<String, Object> missing = router();
        missing.remove("topics");
        assertEquals(List.of(message), problems(missing), "no topics key");
        assertEquals(List.of("routers.orders-weave.topics: expected a mapping, got 'orders'"), problems(routerWithTopics("orders")));
    }

    @Test
    void aLogicalTopicWithoutSegments() {
        Map<String, Object> topics = new LinkedHashMap<>();
        topics.put("orders", List.of());
        topics.put("clicks", null);
        topics.put("audit", "us-east");
        assertEquals(List.of(
                "routers.orders-weave.topics.orders: logical topic 'orders' has no segments; list at least one { route, topic, partitions }",
                "routers.orders-weave.topics.clicks: logical topic 'clicks' has no segments; list at least one { route, topic, partitions }",
                "routers.orders-weave.topics.audit: expected a list, got 'us-east'"),
                problems(routerWithTopics(topics)));
    }

    @Test
    void aSegmentThatIsNotAMapping() {
        List<Object> segments = new ArrayList<>();
        segments.add(null);
        segments.add("us-east/orders/0-15");
        assertEquals(List.of(
                "routers.orders-weave.topics.orders[0]: empty segment; write { route, topic, partitions }",
                "routers.orders-weave.topics.orders[1]: expected a mapping, got 'us-east/orders/0-15'"),
                problems(router("orders", segments)));
    }

    @Test
    void overlapsWithinOneLogicalTopic() {
        assertEquals(List.of(
                "routers.orders-weave.topics.orders[2].partitions: partitions 4-7 of topic 'orders' on route 'us-east' are"
                        + " also in segment [0] (0-7) of this logical topic; a physical partition can be in a logical topic once",
                "routers.orders-weave.topics.orders[3].partitions: partition 9 of topic 'orders' on route 'us-east' is"
                        + " also in segment [2] (4-11) of this logical topic; a physical partition can be in a logical topic once"),
                problems(router("orders", List.of(seg("us-east", "orders", "0-7"), seg("eu-west", "orders", "0-15"),
                        seg("us-east", "orders", "4-11"), seg("us-east", "orders", 9)))));
    }

    @Test
    void aPhysicalPartitionInTwoLogicalTopics() {
        assertEquals(List.of(
                "routers.orders-weave.topics.orders-copy[1].partitions: partition 7 of topic 'orders' on route 'us-east'"
                        + " is already in segment [0] (0-7) of logical topic 'orders'; a physical partition can belong to"
                        + " one logical topic only",
                "routers.orders-weave.topics.orders-copy[1].partitions: partition 8 of topic 'orders' on route 'us-east'"
                        + " is already in segment [0] (8) of logical topic 'orders-tail'; a physical partition can belong to"
                        + " one logical topic only"),
                problems(router(
                        "orders", List.of(seg("us-east", "orders", "0-7"), seg("eu-west", "orders-eu", "0-15")),
                        "orders-tail", List.of(seg("us-east", "orders", "8")),
                        "orders-copy", List.of(seg("eu-west", "orders", "0-15"), seg("us-east", "orders", "7-8")))));
    }

    @Test
    void logicalTopicNamesKafkaWouldRefuse() {
        String tooLong = "t".repeat(250);
        Map<String, Object> topics = new LinkedHashMap<>();
        for (String name : List.of("ord*rs", ".", "..", tooLong, "")) {
            topics.put(name, List.of(seg("us-east", "t-" + topics.size(), "0")));
        }
        assertEquals(Stream.of("ord*rs", ".", "..", tooLong, "")
                .map(n -> "routers.orders-weave.topics." + n + ": logical topic name '" + n + "' is not a valid Kafka topic"
                        + " name; " + NAME_RULE).toList(), problems(routerWithTopics(topics)));
    }

    @Test
    void aLogicalTopicOfMoreThanIntegerMaxValuePartitions() {
        assertEquals(List.of("routers.orders-weave.topics.huge: logical topic 'huge' has 2147483648 partitions in all; a topic"
                        + " has at most 2147483647"),
                problems(router("huge", List.of(seg("us-east", "a", "0-2147483646"), seg("eu-west", "b", "0")))));
        assertEquals(List.of("routers.orders-weave.topics.whole: logical topic 'whole' has 2147483648 partitions in all; a topic"
                        + " has at most 2147483647"),
                problems(router("whole", List.of(seg("us-east", "a", "0-2147483647")))), "one segment of 2^31 partitions");
    }

    @Test
    void everyProblemIsReportedAtOnceAndOnlyAdded() {
        List<RoutingProblem> problems = new ArrayList<>(List.of(new RoutingProblem("clusters.x", "an earlier problem")));
        Map<String, Object> raw = router(
                "orders", List.of(seg("mars", "orders", "0-15"), seg("eu-west", "orders-eu", "15-0")),
                "b@d", List.of(seg("us-east", "audit", "0")),
                "clicks", List.of(seg("us-east", "clicks", "0-3"), seg("us-east", "clicks", "3")));
        assertNull(PartitionWeaveSettingsReader.read(PATH, raw, ROUTES, problems));
        assertEquals(List.of(
                "clusters.x: an earlier problem",
                "routers.orders-weave.topics.orders[0].route: route 'mars' does not exist; routes: [us-east, eu-west]",
                "routers.orders-weave.topics.orders[1].partitions: range '15-0' ends before it starts; write A-B with A <= B (e.g. 0-15)",
                "routers.orders-weave.topics.b@d: logical topic name 'b@d' is not a valid Kafka topic name; " + NAME_RULE,
                "routers.orders-weave.topics.clicks[1].partitions: partition 3 of topic 'clicks' on route 'us-east' is also in"
                        + " segment [0] (0-3) of this logical topic; a physical partition can be in a logical topic once"),
                problems.stream().map(RoutingProblem::toString).toList());
    }
}
