package dev.weft.proxy.branch;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The transactional batches a writer holds ({@code transactional: hold}) until the primary answers their
 * transaction's EndTxn: written on commit, dropped on abort. Kept per producer id and per lane, because a
 * lane's {@link TransactionEnd} decides exactly the batches queued ahead of it in that lane (see
 * {@link BranchLane}); the other lanes' shares are decided by the copies of the end queued to them.
 *
 * <p>Bounded: past {@code maxBytes} of held records, the transaction that would grow it is dropped whole
 * (what it held, and what its lanes bring until their end) and counted; a transaction held longer than
 * {@code timeoutNanos} is dropped and counted, since its end never came through this proxy (the
 * coordinator aborted it on its timeout, or the client ended it through another replica). Writer thread only.
 */
final class TransactionHold {

    private record Held(BranchBatch batch, long sinceNanos) {
    }

    private final long maxBytes;
    private final long timeoutNanos;
    private final BranchWriterCounters counters;
    /** Per producer id: per lane, its held batches in order. */
    private final Map<Long, Map<BranchLane, ArrayDeque<Held>>> byProducer = new HashMap<>();
    /** Dropped transactions: per producer id, the lanes whose end has passed since (their later batches are a new transaction's). */
    private final Map<Long, Set<BranchLane>> dropped = new HashMap<>();
    private long heldBytes;
    private long heldRecords;

    TransactionHold(long maxBytes, long timeoutNanos, BranchWriterCounters counters) {
        this.maxBytes = maxBytes;
        this.timeoutNanos = timeoutNanos;
        this.counters = counters;
    }

    /** Holds {@code batch} (taken from {@code lane}) until its transaction's end reaches that lane; takes ownership. */
    void hold(BranchLane lane, BranchBatch batch, long nowNanos) {
        long producer = batch.heldFor();
        int records = batch.context().recordCount();
        Set<BranchLane> passed = dropped.get(producer);
        if (passed != null && !passed.contains(lane)) {
            batch.records().release();                 // the rest of a transaction already dropped
            counters.droppedHoldFull(records);
            return;
        }
        long bytes = batch.records().readableBytes();
        if (heldBytes + bytes > maxBytes) {
            dropTransaction(producer, batch);
            return;
        }
        byProducer.computeIfAbsent(producer, p -> new IdentityHashMap<>())
                .computeIfAbsent(lane, l -> new ArrayDeque<>()).add(new Held(batch, nowNanos));
        heldBytes += bytes;
        heldRecords += records;
        counters.held(records);
    }

    /** The transaction of {@code end} ended: {@code lane}'s share is written (commit) or dropped (abort). */
    void end(BranchLane lane, TransactionEnd end, int laneCount, Consumer<BranchBatch> write) {
        Set<BranchLane> passed = dropped.get(end.producerId());
        if (passed != null) {
            passed.add(lane);
            if (passed.size() >= laneCount) {
                dropped.remove(end.producerId());
            }
        }
        Map<BranchLane, ArrayDeque<Held>> lanes = byProducer.get(end.producerId());
        ArrayDeque<Held> share = lanes == null ? null : lanes.remove(lane);
        if (lanes != null && lanes.isEmpty()) {
            byProducer.remove(end.producerId());
        }
        if (share == null) {
            return;
        }
        for (Held h : share) {
            forget(h);
            if (end.committed()) {
                write.accept(h.batch());
            } else {
                counters.droppedAborted(h.batch().context().recordCount());
                h.batch().records().release();
            }
        }
    }

    /** Drops every transaction held for longer than the timeout: its end did not come through this proxy. */
    void expire(long nowNanos) {
        for (Iterator<Map.Entry<Long, Map<BranchLane, ArrayDeque<Held>>>> it = byProducer.entrySet().iterator(); it.hasNext(); ) {
            Map<BranchLane, ArrayDeque<Held>> lanes = it.next().getValue();
            boolean old = false;
            for (ArrayDeque<Held> share : lanes.values()) {
                old |= !share.isEmpty() && nowNanos - share.peekFirst().sinceNanos() > timeoutNanos;
            }
            if (old) {
                release(lanes, counters::droppedHoldExpired);
                it.remove();
            }
        }
    }

    long heldBytes() {
        return heldBytes;
    }

    long heldRecords() {
        return heldRecords;
    }

    /** Releases everything held (the writer is closing). */
    void releaseAll() {
        for (Map<BranchLane, ArrayDeque<Held>> lanes : byProducer.values()) {
            release(lanes, records -> { });
        }
        byProducer.clear();
    }

    private void dropTransaction(long producer, BranchBatch batch) {
        Map<BranchLane, ArrayDeque<Held>> lanes = byProducer.remove(producer);
        if (lanes != null) {
            release(lanes, counters::droppedHoldFull);
        }
        counters.droppedHoldFull(batch.context().recordCount());
        batch.records().release();
        dropped.put(producer, new HashSet<>());
    }

    /** Releases every batch of one producer's lanes, each counted by {@code dropped} (its record count). */
    private void release(Map<BranchLane, ArrayDeque<Held>> lanes, java.util.function.IntConsumer dropped) {
        for (ArrayDeque<Held> share : lanes.values()) {
            for (Held h : share) {
                forget(h);
                dropped.accept(h.batch().context().recordCount());
                h.batch().records().release();
            }
        }
    }

    private void forget(Held h) {
        heldBytes -= h.batch().records().readableBytes();
        heldRecords -= h.batch().context().recordCount();
    }
}
