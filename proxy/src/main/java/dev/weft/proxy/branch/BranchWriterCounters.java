package dev.weft.proxy.branch;

import java.util.concurrent.atomic.LongAdder;

/**
 * What one branch writer did, for {@code /metrics}: records and bytes handed over by the event loops,
 * dropped (by reason), sent and acknowledged by the branch, failed, and the send latency sum. Written
 * by event loops (queueing) and by the writer and its producer's callback thread; each count is one
 * {@link LongAdder} increment.
 */
public final class BranchWriterCounters {

    private final LongAdder recordsIn = new LongAdder();
    private final LongAdder bytesIn = new LongAdder();
    private final LongAdder droppedQueueFullRecords = new LongAdder();
    private final LongAdder droppedQueueFullBytes = new LongAdder();
    private final LongAdder undecodable = new LongAdder();
    private final LongAdder recordsSent = new LongAdder();
    private final LongAdder bytesSent = new LongAdder();
    private final LongAdder recordsAcked = new LongAdder();
    private final LongAdder recordsFailed = new LongAdder();
    private final LongAdder sendLatencyMicros = new LongAdder();
    private final LongAdder held = new LongAdder();
    private final LongAdder droppedAborted = new LongAdder();
    private final LongAdder droppedHoldFull = new LongAdder();
    private final LongAdder droppedHoldExpired = new LongAdder();

    void queued(int records, long bytes) {
        recordsIn.add(records);
        bytesIn.add(bytes);
    }

    void droppedQueueFull(int records, long bytes) {
        recordsIn.add(records);
        bytesIn.add(bytes);
        droppedQueueFullRecords.add(records);
        droppedQueueFullBytes.add(bytes);
    }

    void undecodable(int records) {
        undecodable.add(records);
    }

    void sent(long bytes) {
        recordsSent.increment();
        bytesSent.add(bytes);
    }

    void acked(long latencyMicros) {
        recordsAcked.increment();
        sendLatencyMicros.add(latencyMicros);
    }

    void failed() {
        recordsFailed.increment();
    }

    void held(int records) {
        held.add(records);
    }

    void droppedAborted(int records) {
        droppedAborted.add(records);
    }

    void droppedHoldFull(int records) {
        droppedHoldFull.add(records);
    }

    void droppedHoldExpired(int records) {
        droppedHoldExpired.add(records);
    }

    /** Transactional records held until their transaction ended ({@code transactional: hold}). */
    public long held() {
        return held.sum();
    }

    /** Held records of transactions that aborted: never written. */
    public long droppedAborted() {
        return droppedAborted.sum();
    }

    /** Records of transactions dropped whole because the held records would have passed the writer's bound. */
    public long droppedHoldFull() {
        return droppedHoldFull.sum();
    }

    /** Held records of transactions whose end never came through this proxy within the hold timeout. */
    public long droppedHoldExpired() {
        return droppedHoldExpired.sum();
    }

    /** Records the event loops handed over or tried to (dropped ones included). */
    public long recordsIn() {
        return recordsIn.sum();
    }

    public long bytesIn() {
        return bytesIn.sum();
    }

    /** Records dropped because the writer's lane was full (the branch slow or down). */
    public long droppedQueueFull() {
        return droppedQueueFullRecords.sum();
    }

    public long droppedQueueFullBytes() {
        return droppedQueueFullBytes.sum();
    }

    /** Records of batches kafka-clients could not decode (corrupt or unsupported): dropped. */
    public long undecodable() {
        return undecodable.sum();
    }

    /** Records given to the branch's producer (after the transforms). */
    public long recordsSent() {
        return recordsSent.sum();
    }

    /** Key and value bytes of the records given to the branch's producer. */
    public long bytesSent() {
        return bytesSent.sum();
    }

    /** Records the branch cluster acknowledged. */
    public long recordsAcked() {
        return recordsAcked.sum();
    }

    /** Records the branch's producer gave up on (the branch down past its delivery timeout, or refusing them). */
    public long recordsFailed() {
        return recordsFailed.sum();
    }

    /** Sum of send-to-acknowledgement times of acknowledged records, in microseconds. */
    public long sendLatencyMicros() {
        return sendLatencyMicros.sum();
    }
}
