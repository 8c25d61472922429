package dev.weft.proxy.branch;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.weft.routing.branch.transform.BatchContext;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What a writer holding transactional batches decides: a lane's end decides exactly the batches queued
 * ahead of it in that lane (a commit writes them in order, an abort drops them), other producers' batches
 * wait for their own end, a transaction over the bound is dropped whole until each lane has passed its
 * end, and one whose end never comes is dropped at the timeout. Every batch is released once.
 */
class TransactionHoldTest {

    private static final long TIMEOUT = TimeUnit.MINUTES.toNanos(15);

    private final BranchWriterCounters counters = new BranchWriterCounters();
    private final BranchLane a = new BranchLane(16, 1 << 20, counters);
    private final BranchLane b = new BranchLane(16, 1 << 20, counters);
    private final List<ByteBuf> made = new ArrayList<>();
    private final List<String> written = new ArrayList<>();

    @AfterEach
    void everyBatchReleasedOnce() {
        for (ByteBuf buf : made) {
            assertEquals(0, buf.refCnt(), "a held batch's records were not released (or released twice)");
        }
    }

    private BranchBatch batch(String name, long producer, int bytes) {
        ByteBuf records = Unpooled.buffer(bytes).writeZero(bytes);
        made.add(records);
        return new BranchBatch(records, new BatchContext("vc", name, 0, 0, 2, "c", null, 0), name, 0, producer);
    }

    private void write(BranchBatch batch) {
        written.add(batch.targetTopic());
        batch.records().release();
    }

    @Test
    void aCommitWritesThatLanesBatchesInOrderAndAnAbortDropsThem() {
        TransactionHold hold = new TransactionHold(1 << 20, TIMEOUT, counters);
        hold.hold(a, batch("t1-a1", 7, 100), 0);
        hold.hold(b, batch("t1-b1", 7, 100), 0);
        hold.hold(a, batch("t1-a2", 7, 100), 0);
        hold.hold(a, batch("other", 8, 100), 0);
        assertEquals(400, hold.heldBytes());

        hold.end(a, new TransactionEnd(7, true), 2, this::write);
        assertEquals(List.of("t1-a1", "t1-a2"), written, "lane a's share, in order; lane b's waits for its own copy of the end");
        hold.hold(a, batch("t2-a1", 7, 100), 0);           // the producer's next transaction, behind the end in lane a
        hold.end(b, new TransactionEnd(7, true), 2, this::write);
        assertEquals(List.of("t1-a1", "t1-a2", "t1-b1"), written);

        hold.end(a, new TransactionEnd(7, false), 2, this::write);
        hold.end(b, new TransactionEnd(7, false), 2, this::write);
        assertEquals(List.of("t1-a1", "t1-a2", "t1-b1"), written, "the aborted second transaction is not written");
        assertEquals(2, counters.droppedAborted());
        assertEquals(100, hold.heldBytes(), "producer 8's batch still waits for its end");
        hold.end(a, new TransactionEnd(8, true), 2, this::write);
        assertEquals("other", written.getLast());
        assertEquals(0, hold.heldBytes());
        assertEquals(10, counters.held());
    }

    @Test
    void aTransactionPastTheBoundIsDroppedWholeUntilEveryLanePassedItsEnd() {
        TransactionHold hold = new TransactionHold(250, TIMEOUT, counters);
        hold.hold(a, batch("big-a1", 7, 100), 0);
        hold.hold(b, batch("big-b1", 7, 100), 0);
        hold.hold(a, batch("big-a2", 7, 100), 0);           // 300 > 250: the whole transaction goes
        assertEquals(0, hold.heldBytes());
        assertEquals(6, counters.droppedHoldFull());
        hold.hold(b, batch("big-b2", 7, 10), 0);            // still that transaction on lane b: dropped too
        assertEquals(8, counters.droppedHoldFull());

        hold.end(a, new TransactionEnd(7, true), 2, this::write);
        hold.hold(a, batch("next-a1", 7, 10), 0);           // lane a passed the end: a new transaction, held
        hold.hold(b, batch("big-b3", 7, 10), 0);            // lane b has not: still the dropped one
        assertEquals(10, counters.droppedHoldFull());
        hold.end(b, new TransactionEnd(7, true), 2, this::write);
        assertEquals(List.of(), written, "nothing of the dropped transaction is written, not even on commit");
        hold.end(a, new TransactionEnd(7, true), 2, this::write);
        assertEquals(List.of("next-a1"), written);
    }

    @Test
    void aTransactionWhoseEndNeverComesIsDroppedAtTheTimeout() {
        TransactionHold hold = new TransactionHold(1 << 20, TIMEOUT, counters);
        hold.hold(a, batch("old", 7, 100), 0);
        hold.hold(b, batch("young", 8, 100), TIMEOUT / 2);
        hold.expire(TIMEOUT);
        assertEquals(200, hold.heldBytes(), "not past the timeout yet");
        hold.expire(TIMEOUT + 1);
        assertEquals(2, counters.droppedHoldExpired());
        assertEquals(100, hold.heldBytes());
        hold.releaseAll();
        assertEquals(0, hold.heldBytes());
        assertEquals(List.of(), written);
    }
}
