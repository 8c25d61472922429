package dev.weft.proxy.branch;

import java.util.concurrent.atomic.AtomicLong;
import org.jctools.queues.MpscArrayQueue;

/**
 * One event loop's way into a branch writer: a bounded queue of batches plus a bound on the record bytes
 * they hold. The loop only offers (never waits); when either bound is reached the batch is dropped,
 * released and counted, so a slow or dead branch costs the primary nothing but the offer. The writer
 * thread is the only consumer.
 *
 * <p>Batches come from the lane's own event loop only. A {@link TransactionEnd} may come from any loop
 * (the one whose client ended the transaction), hence a multi-producer queue: the end is queued behind
 * every batch of that transaction this lane was given (they were offered before the primary answered
 * them, and the client ends its transaction only after that), and ahead of any batch of the producer's
 * next transaction, so the writer knows exactly which held batches it decides.
 */
public final class BranchLane {

    /** Room kept beyond the batch bound for transaction ends, which are never refused for a full lane of batches. */
    private static final int END_ROOM = 1024;

    private final MpscArrayQueue<Object> queue;
    /** The bound of batches (the queue's own capacity is rounded up to a power of two). */
    private final int maxBatches;
    private final long maxBytes;
    /** Record bytes offered and not yet taken by the writer: written by both sides, hence atomic. */
    private final AtomicLong queuedBytes = new AtomicLong();
    private final BranchWriterCounters counters;

    BranchLane(int maxBatches, long maxBytes, BranchWriterCounters counters) {
        this.maxBatches = Math.max(1, maxBatches);
        this.queue = new MpscArrayQueue<>(Math.max(4, this.maxBatches + END_ROOM));
        this.maxBytes = maxBytes;
        this.counters = counters;
    }

    /**
     * Hands {@code batch} to the writer, or drops it (released, counted as {@code queue_full}) when the
     * lane is full. Takes ownership of the batch's records either way. The lane's own event loop only.
     *
     * @return whether the writer will see it
     */
    public boolean offer(BranchBatch batch) {
        long bytes = batch.records().readableBytes();
        // size() only overcounts here (the writer may be taking one): a full lane never grows past its bound
        if (queue.size() >= maxBatches || queuedBytes.get() + bytes > maxBytes || !queue.offer(batch)) {
            batch.records().release();
            counters.droppedQueueFull(batch.context().recordCount(), bytes);
            return false;
        }
        queuedBytes.addAndGet(bytes);
        counters.queued(batch.context().recordCount(), bytes);
        return true;
    }

    /** Queues a transaction's end behind what this lane holds; any thread. False only when the lane is full beyond its room for ends. */
    boolean offer(TransactionEnd end) {
        return queue.offer(end);
    }

    /** The next batch or transaction end, or null; writer thread only. */
    Object poll() {
        Object item = queue.poll();
        if (item instanceof BranchBatch b) {
            queuedBytes.addAndGet(-b.records().readableBytes());
        }
        return item;
    }

    /** Batches and ends waiting (approximate when read off the writer thread). */
    int depth() {
        return queue.size();
    }

    long queuedBytes() {
        return queuedBytes.get();
    }
}
