package dev.weft.routing.branch.transform;

import java.util.List;

/**
 * A step that replaces the stream with records of its own (audit, count): it sees each batch's
 * surviving records at once and appends what it derives, now or when time moves on.
 */
interface DeriveStep {

    /**
     * Takes one batch.
     *
     * @param reached the batch's records that got through the steps before this one (may be empty)
     * @param derived where to append the derived records, in emit order
     */
    void onBatch(BatchContext batch, List<BranchRecord> reached, List<BranchRecord> derived);

    /** Appends what is due at {@code nowMs} (same clock as {@link BatchContext#timeMs()}). */
    void tick(long nowMs, List<BranchRecord> derived);
}
