package dev.weft.routing.api;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.weft.protocol.fetch.FetchRequestSkim;
import dev.weft.protocol.skim.UpstreamKeyHash;
import io.netty.buffer.ByteBuf;
import java.util.Arrays;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

/**
 * The planning aids a plan gives the splitters when partitions are renumbered (partition weaving): per
 * stretch of wire-adjacent partitions of one topic under one key array, the index after it at its first
 * partition ({@link RoutePlan#keyStretchEnd}), and the indexes as one array
 * ({@link RoutePlan#upstreamPartitions()}); a reused plan starts without them.
 */
class RoutePlanKeyStretchTest {

    private static final byte[] US = "orders-us".getBytes();
    private static final byte[] EU = "orders-eu".getBytes();

    /** {@code orders} 0..5 and {@code payments} 0..2 in one Fetch: flat indexes 0..5 and 6..8. */
    private static RoutePlan reset(RoutePlan plan) {
        ByteBuf frame = HotFrames.fetch((short) 12, HotFrames.topic("orders", new Uuid(1, 1), 0, 1, 2, 3, 4, 5),
                HotFrames.topic("payments", new Uuid(2, 2), 0, 1, 2));
        try {
            return plan.reset(new FetchRequestSkim().wrap(frame));
        } finally {
            frame.release();
        }
    }

    private static int[] stretchEnds(RoutePlan plan) {
        int[] out = new int[9];
        for (int i = 0; i < out.length; i++) {
            out[i] = plan.keyStretchEnd(i);
        }
        return out;
    }

    @Test
    void eachSegmentIsOneStretchAndATopicBoundaryEndsOne() {
        RoutePlan plan = reset(new RoutePlan(new TopicNameCache()));
        // orders: 0..2 in orders-us, 3 refused (not renumbered), 4..5 in orders-eu; payments 0..2 in orders-eu
        for (int i = 0; i < 3; i++) {
            plan.renumber(0, i, 10 + i, US, UpstreamKeyHash.of(US));
        }
        plan.renumber(0, 4, 0, EU, UpstreamKeyHash.of(EU));
        plan.renumber(0, 5, 1, EU, UpstreamKeyHash.of(EU));
        for (int i = 6; i < 9; i++) {
            plan.renumber(1, i, i, EU, UpstreamKeyHash.of(EU));
        }
        // a stretch needs adjacency: 4..5 does not continue 0..2, and payments starts its own under the same key
        assertArrayEquals(new int[] {3, 0, 0, 0, 6, 0, 9, 0, 0}, stretchEnds(plan));
        assertArrayEquals(new int[] {10, 11, 12, -1, 0, 1, 6, 7, 8}, Arrays.copyOf(plan.upstreamPartitions(), 9));
        assertEquals(UpstreamKeyHash.of(US), plan.keyStretchHash(0, 0), "the planner's precomputed hash, kept per stretch");
        assertEquals(UpstreamKeyHash.of(EU), plan.keyStretchHash(0, 4));
        assertSame(US, plan.upstreamKey(0, 2));
        assertSame(EU, plan.upstreamKey(1, 8));
    }

    @Test
    void aKeyChangeWithinATopicStartsAStretchEvenWhenTheOldKeyReturns() {
        RoutePlan plan = reset(new RoutePlan(new TopicNameCache()));
        byte[] usCopy = US.clone();                   // equal bytes, another array: its own stretch
        byte[][] keys = {US, US, EU, US, usCopy, usCopy};
        for (int i = 0; i < keys.length; i++) {
            plan.renumber(0, i, i, keys[i], UpstreamKeyHash.of(keys[i]));
        }
        assertArrayEquals(new int[] {2, 0, 3, 4, 6, 0, 0, 0, 0}, stretchEnds(plan));
    }

    @Test
    void aReusedPlanForgetsTheLastRequestsStretches() {
        RoutePlan plan = reset(new RoutePlan(new TopicNameCache()));
        for (int i = 0; i < 6; i++) {
            plan.renumber(0, i, i, US, UpstreamKeyHash.of(US));
        }
        assertEquals(6, plan.keyStretchEnd(0));
        reset(plan);
        assertArrayEquals(new int[9], stretchEnds(plan));
        plan.renumber(0, 1, 0, EU, UpstreamKeyHash.of(EU));  // the first call after a reset never extends an old stretch
        plan.renumber(0, 2, 1, EU, UpstreamKeyHash.of(EU));
        assertArrayEquals(new int[] {0, 3, 0, 0, 0, 0, 0, 0, 0}, stretchEnds(plan));
    }
}
