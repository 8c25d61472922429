package dev.weft.routing.api;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.protocol.fetch.FetchRequestSkim;
import dev.weft.protocol.fetch.FetchResponseMerger;
import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

/**
 * What rack-aware fetch does to a plan once the router made it: partitions moved to other targets
 * ({@link RoutePlan#moveTo}), the targets left empty dropped ({@link RoutePlan#dropEmptyTargets}),
 * follower answers set aside ({@link RoutePlan#answerEmpty}), and a pooled plan starting clean.
 */
class RoutePlanMovesTest {

    private static final int LEAF = 0;
    private static final int OTHER_LEAF = 1;

    /** A plan reset for a Fetch of partitions 0..{@code partitions}-1 of one topic. */
    private static RoutePlan resetFor(RoutePlan plan, int partitions) {
        ByteBuf frame = HotFrames.fetch((short) 12, HotFrames.topic("orders", new Uuid(1, 1), IntStream.range(0, partitions).toArray()));
        try {
            FetchRequestSkim skim = new FetchRequestSkim().wrap(frame);
            assertEquals(partitions, skim.partitionCount());
            return plan.reset(skim);
        } finally {
            frame.release();
        }
    }

    private static RoutePlan plan(int partitions) {
        return resetFor(new RoutePlan(new TopicNameCache()), partitions);
    }

    /** Sends partition {@code i} to target {@code t}, one partition at a time as leader-planning routers do. */
    private static void send(RoutePlan plan, int i, int t) {
        plan.send(i, i + 1, t);
    }

    private static int[] targetOf(RoutePlan plan, int partitions) {
        return Arrays.copyOf(plan.targetOf(), partitions);
    }

    /** The plan's targets as "leaf/broker", in order. */
    private static List<String> targets(RoutePlan plan) {
        List<String> out = new ArrayList<>();
        for (int t = 0; t < plan.targetCount(); t++) {
            out.add(plan.targetLeaf(t) + "/" + plan.targetBroker(t));
        }
        return out;
    }

    private static List<Boolean> replicaReads(RoutePlan plan, int partitions) {
        List<Boolean> out = new ArrayList<>();
        for (int i = 0; i < partitions; i++) {
            out.add(plan.isReplicaRead(i));
        }
        return out;
    }

    @Test
    void moveToRetargetsOnePartitionAndCountsReplicaReadsOnce() {
        RoutePlan plan = plan(4);
        plan.send(0, 4, plan.target(LEAF, RoutePlan.OWN_BROKER));
        int follower = plan.target(LEAF, 1);
        plan.moveTo(1, follower, true);
        plan.moveTo(1, follower, true);
        plan.moveTo(3, follower, true);
        assertArrayEquals(new int[] {0, follower, 0, follower}, targetOf(plan, 4));
        assertEquals(List.of(false, true, false, true), replicaReads(plan, 4));
        assertEquals(2, plan.replicaReads(), "moving a partition twice counts it once");
        assertEquals(4, plan.routed(), "a move sends nothing more");
    }

    @Test
    void aMoveToTheLeaderIsNoReplicaRead() {
        RoutePlan plan = plan(3);
        plan.send(0, 3, plan.target(LEAF, RoutePlan.OWN_BROKER));
        int follower = plan.target(LEAF, 1);
        int leader = plan.target(LEAF, 2);
        plan.moveTo(0, leader, false);
        plan.moveTo(1, follower, true);
        plan.moveTo(1, leader, false);
        assertEquals(List.of(false, false, false), replicaReads(plan, 3));
        assertEquals(0, plan.replicaReads(), "moved back to a leader: no longer a replica read");
        assertArrayEquals(new int[] {leader, leader, 0}, targetOf(plan, 3));
    }

    @Test
    void dropEmptyTargetsRenumbersTheRestInOrderAndLeavesUnsentPartitionsAlone() {
        RoutePlan plan = plan(7);
        int own = plan.target(LEAF, RoutePlan.OWN_BROKER);
        int five = plan.target(LEAF, 5);
        int six = plan.target(LEAF, 6);
        int seven = plan.target(OTHER_LEAF, 7);
        send(plan, 0, own);
        send(plan, 1, five);
        send(plan, 2, six);
        send(plan, 3, seven);
        send(plan, 4, five);
        plan.refuse(5, 6, false);
        send(plan, 6, seven);
        plan.answerEmpty(6);
        plan.moveTo(0, five, true); // own is left empty
        plan.moveTo(2, seven, false); // six is left empty

        plan.dropEmptyTargets(7);

        assertEquals(List.of(LEAF + "/5", OTHER_LEAF + "/7"), targets(plan), "the kept targets, in their order");
        assertArrayEquals(new int[] {0, 0, 1, 1, 0, RoutePlan.REFUSED, RoutePlan.ANSWERED_EMPTY}, targetOf(plan, 7));
        assertEquals(List.of(true, false, false, false, false, false, false), replicaReads(plan, 7),
                "replica reads are per partition: renumbering targets keeps them");
        assertEquals(0, plan.target(LEAF, 5), "target() finds the renumbered targets");
        assertEquals(2, plan.target(LEAF, 6), "a dropped target is new again");
    }

    @Test
    void dropEmptyTargetsGrowsPastManyTargets() {
        int n = 12;
        RoutePlan plan = plan(n);
        for (int i = 0; i < n; i++) {
            send(plan, i, plan.target(LEAF, 100 + i));
        }
        for (int i = 1; i < n; i += 2) {
            plan.moveTo(i, i - 1, false); // every odd broker's partition joins the even one before it
        }
        plan.dropEmptyTargets(n);
        assertEquals(n / 2, plan.targetCount());
        for (int t = 0; t < n / 2; t++) {
            assertEquals(100 + 2 * t, plan.targetBroker(t));
        }
        int[] expected = new int[n];
        Arrays.setAll(expected, i -> i / 2);
        assertArrayEquals(expected, targetOf(plan, n));
    }

    @Test
    void aPlanWithNoEmptyTargetIsKeptAsItIs() {
        RoutePlan plan = plan(3);
        int a = plan.target(LEAF, 1);
        int b = plan.target(LEAF, 2);
        send(plan, 0, a);
        send(plan, 1, b);
        send(plan, 2, b);
        plan.moveTo(2, a, true);
        plan.dropEmptyTargets(3);
        assertEquals(List.of(LEAF + "/1", LEAF + "/2"), targets(plan));
        assertArrayEquals(new int[] {a, b, a}, targetOf(plan, 3));
    }

    @Test
    void everyPartitionAnsweredEmptyLeavesNoTarget() {
        RoutePlan plan = plan(2);
        plan.send(0, 2, plan.target(LEAF, 1));
        plan.answerEmpty(0);
        plan.answerEmpty(1);
        plan.dropEmptyTargets(2);
        assertEquals(0, plan.targetCount());
        assertArrayEquals(new int[] {RoutePlan.ANSWERED_EMPTY, RoutePlan.ANSWERED_EMPTY}, targetOf(plan, 2));
    }

    @Test
    void answeredEmptyIsTheMergersMarkerAndNoOtherTarget() {
        assertEquals(FetchResponseMerger.ANSWERED_EMPTY, RoutePlan.ANSWERED_EMPTY, "the merger reads targetOf as routeOf");
        assertTrue(RoutePlan.ANSWERED_EMPTY < 0, "not a target index");
        assertNotEquals(RoutePlan.REFUSED, RoutePlan.ANSWERED_EMPTY);
        assertNotEquals(RoutePlan.OWN_BROKER, RoutePlan.ANSWERED_EMPTY);
        RoutePlan plan = plan(2);
        plan.send(0, 2, plan.target(LEAF, 1));
        plan.answerEmpty(1);
        assertArrayEquals(new int[] {0, RoutePlan.ANSWERED_EMPTY}, targetOf(plan, 2));
    }

    @Test
    void aMovedPlanIsSplitNotForwarded() {
        RoutePlan plan = plan(2);
        plan.send(0, 2, plan.target(LEAF, RoutePlan.OWN_BROKER));
        assertEquals(RoutePlan.Kind.FORWARD, plan.kind(2));
        int follower = plan.target(LEAF, 1);
        plan.moveTo(0, follower, true);
        plan.moveTo(1, follower, true);
        plan.dropEmptyTargets(2);
        assertEquals(List.of(LEAF + "/1"), targets(plan));
        assertFalse(plan.passThrough(2), "the client's frame cannot go as it is to another broker");
        assertEquals(RoutePlan.Kind.SPLIT, plan.kind(2));
    }

    @Test
    void aPooledPlanForgetsTheReplicaReadsOfItsLastRequest() {
        RoutePlanPool pool = new RoutePlanPool(new TopicNameCache());
        RoutePlan first = resetFor(pool.acquire(), 4);
        first.send(0, 4, first.target(LEAF, RoutePlan.OWN_BROKER));
        first.moveTo(1, first.target(LEAF, 1), true);
        first.moveTo(3, first.target(LEAF, 1), true);
        pool.release(first);

        RoutePlan second = resetFor(pool.acquire(), 4);
        assertSame(first, second, "the pool hands the plan out again");
        assertEquals(0, second.replicaReads());
        assertEquals(0, second.targetCount());
        second.send(0, 4, second.target(LEAF, RoutePlan.OWN_BROKER));
        second.moveTo(0, second.target(LEAF, 1), true);
        assertEquals(List.of(true, false, false, false), replicaReads(second, 4),
                "partitions 1 and 3 were replica reads of the last request, not of this one");

        resetFor(second, 40); // a larger request: the flags grow
        second.send(0, 40, second.target(LEAF, RoutePlan.OWN_BROKER));
        second.moveTo(39, second.target(LEAF, 1), true);
        assertTrue(second.isReplicaRead(39));
        resetFor(second, 40);
        assertEquals(0, second.replicaReads());
        second.send(0, 40, second.target(LEAF, RoutePlan.OWN_BROKER));
        second.moveTo(0, second.target(LEAF, 1), true);
        assertFalse(second.isReplicaRead(39), "reset clears flags past the first request's size too");
    }
}
