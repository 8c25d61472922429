package dev.weft.proxy.branch;

import dev.weft.routing.branch.transform.BatchContext;
import io.netty.buffer.ByteBuf;

/**
 * One partition's records of a Produce the primary acknowledged, handed from an event loop to a branch
 * writer: the record batches as the client sent them (a retained slice of its request, owned by whoever
 * holds this batch: the lane releases it when refused, the writer once decoded), what the primary said
 * of them, and where the copy goes on the branch.
 *
 * @param records the partition's record batches, exactly the client's bytes (one reference, owned)
 * @param context the primary's answer and the producing client, for the transforms
 * @param targetTopic the topic on the branch cluster
 * @param targetPartition the partition on the branch cluster for copies (the client's partition number,
 *     so per-partition order is kept); derived records are partitioned by their key instead
 * @param heldFor the producer id of a transactional batch the writer holds until its transaction ends,
 *     or {@link #NOT_HELD}
 */
public record BranchBatch(ByteBuf records, BatchContext context, String targetTopic, int targetPartition, long heldFor) {

    /** {@link #heldFor} of a batch written as soon as the writer takes it. */
    public static final long NOT_HELD = -1;

    /** A batch written as soon as the writer takes it. */
    public BranchBatch(ByteBuf records, BatchContext context, String targetTopic, int targetPartition) {
        this(records, context, targetTopic, targetPartition, NOT_HELD);
    }
}
