package dev.weft.proxy.branch;

import java.util.concurrent.atomic.AtomicLong;
import org.jctools.queues.SpscArrayQueue;

/**
 * One event loop's way into a branch writer: a bounded single-producer queue of batches plus a bound on
 * the record bytes they hold. The event loop only offers (never waits); when either bound is reached
 * the batch is dropped, released and counted, so a slow or dead branch costs the primary nothing but
 * the offer. The writer thread is the only consumer. Sharing one lane between event loops is a bug.
 */
public final class BranchLane {

    private final SpscArrayQueue<BranchBatch> queue;
    /** The bound of batches (the queue's own capacity is rounded up to a power of two). */
    private final int maxBatches;
    private final long maxBytes;
    /** Record bytes offered and not yet taken by the writer: written by both sides, hence atomic. */
    private final AtomicLong queuedBytes = new AtomicLong();
    private final BranchWriterCounters counters;

    BranchLane(int maxBatches, long maxBytes, BranchWriterCounters counters) {
        this.maxBatches = Math.max(1, maxBatches);
        this.queue = new SpscArrayQueue<>(Math.max(4, this.maxBatches));
        this.maxBytes = maxBytes;
        this.counters = counters;
    }

    /**
     * Hands {@code batch} to the writer, or drops it (released, counted as {@code queue_full}) when the
     * lane is full. Takes ownership of the batch's records either way.
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

    /** The next batch, or null; writer thread only. */
    BranchBatch poll() {
        BranchBatch b = queue.poll();
        if (b != null) {
            queuedBytes.addAndGet(-b.records().readableBytes());
        }
        return b;
    }

    /** Batches waiting (approximate when read off the writer thread). */
    int depth() {
        return queue.size();
    }

    long queuedBytes() {
        return queuedBytes.get();
    }
}
