package dev.weft.iocore.metrics;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;

/**
 * One core's counters: plain {@code long}s written only by the owning loop and published with release
 * stores, so an exporter on another thread reads whole, recent values without the owner ever paying for
 * a lock, a CAS or a full fence.
 *
 * <p>The values sit in one array padded on both sides by two cache lines, so two cores' counters never
 * share a cache line (no false sharing between cores), whatever the allocator places next to them.
 */
public final class CoreCounters {

    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(long[].class);
    /** 16 longs = 128 bytes: two cache lines, which also defeats the adjacent-line prefetcher. */
    private static final int PAD = 16;

    private final long[] slots;
    private final int count;

    CoreCounters(int count) {
        this.count = count;
        this.slots = new long[PAD + count + PAD];
    }

    /** Adds one. Owner loop only. */
    public void increment(int index) {
        add(index, 1);
    }

    /** Adds {@code delta} (may be negative for gauges, but counters should only grow). Owner loop only. */
    public void add(int index, long delta) {
        int slot = slot(index);
        // Single writer: a plain read of our own last write, then a release store that publishes it.
        SLOT.setRelease(slots, slot, (long) SLOT.get(slots, slot) + delta);
    }

    /** The current value. Any thread. */
    public long get(int index) {
        return (long) SLOT.getAcquire(slots, slot(index));
    }

    /** Number of counters. */
    public int size() {
        return count;
    }

    private int slot(int index) {
        return PAD + Objects.checkIndex(index, count);
    }
}
