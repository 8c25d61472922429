package dev.weft.routing.partitionweave;

import static dev.weft.routing.partitionweave.WovenFixture.EAST;
import static dev.weft.routing.partitionweave.WovenFixture.EAST_ORDERS;
import static dev.weft.routing.partitionweave.WovenFixture.PATH;
import static dev.weft.routing.partitionweave.WovenFixture.WEST;
import static dev.weft.routing.partitionweave.WovenFixture.WEST_ORDERS;
import static dev.weft.routing.partitionweave.WovenFixture.config;
import static dev.weft.routing.partitionweave.WovenFixture.ordersCatalog;
import static dev.weft.routing.partitionweave.WovenFixture.router;
import static dev.weft.routing.partitionweave.WovenFixture.seg;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.routing.Placement;
import dev.weft.routing.RealTopic;
import dev.weft.routing.TopicRouting;
import dev.weft.routing.TopicSegment;
import dev.weft.routing.VisibleTopic;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

class WovenCatalogTest {

    @Test
    void onlyTheLogicalTopicsAreVisibleAsWovenTopicsOverTheirSegments() {
        TopicRouting catalog = ordersCatalog();
        assertEquals(List.of("orders"), catalog.visibleTopics().stream().map(VisibleTopic::virtualName).toList());
        VisibleTopic orders = catalog.resolve("orders");
        assertTrue(orders.woven());
        assertEquals(-1, orders.route());
        assertEquals(5, orders.segments().partitionCount());
        assertEquals(List.of(new TopicSegment(EAST, "orders", EAST_ORDERS, 0, 0, 3),
                new TopicSegment(WEST, "orders-eu", WEST_ORDERS, 3, 0, 2)), orders.segments().list());
        assertNull(catalog.resolve("orders-eu"), "a physical topic is not visible");
        assertNull(catalog.resolve("other"), "a topic no segment names is not visible");
        assertNull(catalog.virtualNameOf(EAST, "orders"), "never renames a woven topic's real topic");
        assertSame(orders, catalog.wovenOf(WEST, "orders-eu"));
        assertSame(orders, catalog.byVirtualId(orders.virtualId()));
        assertNull(catalog.byRealId(EAST, EAST_ORDERS));
        assertEquals(List.of(), catalog.segmentProblems());
        assertEquals(List.of(), catalog.collisions());
    }

    @Test
    void theSyntheticIdIsStablePerRouterAndTopicAndNeverZero() {
        Uuid id = ordersCatalog().resolve("orders").virtualId();
        assertEquals(id, ordersCatalog().resolve("orders").virtualId(), "the same on every build (replica, restart)");
        assertEquals(id, WovenCatalog.syntheticId("pw", "orders"));
        assertNotEquals(Uuid.ZERO_UUID, id);
        assertNotEquals(Uuid.ONE_UUID, id);
        assertNotEquals(EAST_ORDERS, id);
        assertNotEquals(id, WovenCatalog.syntheticId("pw", "payments"), "another topic");
        assertNotEquals(id, WovenCatalog.syntheticId("other-router", "orders"), "another router");
        for (String name : List.of("a", "b", "orders-1", "x.y", "")) {
            Uuid u = WovenCatalog.syntheticId("pw", name);
            assertNotEquals(Uuid.ZERO_UUID, u, name);
            assertFalse(u.toString().startsWith("-"), name + " " + u);
        }
    }

    @Test
    void aMissingPhysicalTopicIsASegmentProblem() {
        TopicRouting catalog = WovenFixture.ordersRouter().catalog(List.of(List.of(new RealTopic("orders", EAST_ORDERS, 3)),
                List.of()));
        assertEquals(1, catalog.segmentProblems().size(), catalog.segmentProblems().toString());
        String problem = catalog.segmentProblems().getFirst();
        assertTrue(problem.contains("topics.orders[1]"), problem);
        assertTrue(problem.contains("route west has no topic 'orders-eu'"), problem);
        VisibleTopic orders = catalog.resolve("orders");
        assertEquals(5, orders.segments().partitionCount(), "the topic keeps its partitions");
        assertEquals(Uuid.ZERO_UUID, orders.segments().get(1).realId());
    }

    @Test
    void tooFewPartitionsIsASegmentProblem() {
        TopicRouting catalog = WovenFixture.ordersRouter().catalog(List.of(List.of(new RealTopic("orders", EAST_ORDERS, 2)),
                List.of(new RealTopic("orders-eu", WEST_ORDERS, 2))));
        assertEquals(1, catalog.segmentProblems().size(), catalog.segmentProblems().toString());
        String problem = catalog.segmentProblems().getFirst();
        assertTrue(problem.contains("topics.orders[0]"), problem);
        assertTrue(problem.contains("has 2 partition(s) (0-1)"), problem);
    }

    @Test
    void unknownPartitionCountsAreNoProblem() {
        TopicRouting catalog = WovenFixture.ordersRouter().catalog(List.of(List.of(new RealTopic("orders", EAST_ORDERS)),
                List.of(new RealTopic("orders-eu", WEST_ORDERS, -1))));
        assertEquals(List.of(), catalog.segmentProblems());
        assertEquals(5, catalog.resolve("orders").segments().partitionCount());
    }

    @Test
    void twoSegmentsOfOnePhysicalTopicAreNumberedInOrder() {
        TopicRouting catalog = router(config("orders", List.of(seg("east", "orders", "0-1"), seg("east", "orders", "4-5"))))
                .catalog(List.of(List.of(new RealTopic("orders", EAST_ORDERS, 6)), List.of()));
        assertEquals(List.of(), catalog.segmentProblems());
        VisibleTopic orders = catalog.resolve("orders");
        assertEquals(4, orders.segments().partitionCount());
        assertEquals(List.of(0, 1, 4, 5), java.util.stream.IntStream.range(0, 4)
                .map(v -> orders.segments().of(v).toReal(v)).boxed().toList());
        assertEquals(2, orders.segments().toVirtual(EAST, "orders", 4));
        assertEquals(-1, orders.segments().toVirtual(EAST, "orders", 3), "real partition 3 is woven nowhere");
        assertEquals(-1, orders.segments().indexOf(4));
    }

    @Test
    void topicsAreNeverPlacedAndTheRefusalNamesTheConfig() {
        TopicRouting catalog = ordersCatalog();
        Placement.Refused woven = assertInstanceOf(Placement.Refused.class, catalog.place("orders"));
        assertEquals(Placement.Reason.WOULD_BE_HIDDEN, woven.reason());
        assertTrue(woven.message().contains(PATH + ".topics.orders"), woven.message());
        Placement.Refused other = assertInstanceOf(Placement.Refused.class, catalog.place("payments"));
        assertEquals(Placement.Reason.WOULD_BE_HIDDEN, other.reason());
        assertTrue(other.message().contains(PATH), other.message());
    }
}
