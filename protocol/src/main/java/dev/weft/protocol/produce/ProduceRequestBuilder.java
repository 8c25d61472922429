package dev.weft.protocol.produce;

import dev.weft.protocol.skim.RequestSplitter;
import dev.weft.protocol.skim.UpstreamPartitions;
import dev.weft.protocol.skim.UpstreamTopicKeys;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.BitSet;

/**
 * Splits a Produce request: builds a new request, same API version, holding a chosen subset of a
 * {@link ProduceRequestSkim}'s partitions, in their original order.
 *
 * <p>The output is a whole frame, <b>4-byte size prefix included</b>, ready for the socket: a
 * {@link io.netty.buffer.CompositeByteBuf} of small newly written metadata (header, counts, topic keys,
 * partition indexes and tagged fields copied from the client's request) and <em>retained slices</em>
 * of the client's records fields. Record bytes are never copied, so the bytes allocated per split do
 * not grow with the size of the batches. Topics none of whose partitions are chosen are left out.
 *
 * <p>The header is the client's (client id and header tagged fields copied) with the given correlation
 * id, unless {@link #clientId(CharSequence)} sets another client id. Topic keys are the client's unless
 * {@link #topicKeys(UpstreamTopicKeys)} replaces some (topic weaving renames; per partition for partition
 * weaving, one topic entry per distinct key), and partition indexes are the client's unless
 * {@link #partitions(UpstreamPartitions)} renumbers some (partition weaving). Settings stay until changed;
 * {@link #reset()} restores the defaults.
 *
 * <p>One instance per core, reused; not thread-safe.
 */
public final class ProduceRequestBuilder extends RequestSplitter<ProduceRequestSkim> {

    public ProduceRequestBuilder() {
        super(false); // a Produce partition entry holds records, sent as a slice: entries are written one by one
    }

    /** Back to copying the client id, every topic key and every partition index from the client's request. */
    public ProduceRequestBuilder reset() {
        clientId = null;
        topicKeys = null;
        partitions = null;
        return this;
    }

    /**
     * Sets the client id written into every request built from now on; null (the default) copies the
     * client's. Kept by reference.
     */
    public ProduceRequestBuilder clientId(CharSequence clientId) {
        this.clientId = clientId;
        return this;
    }

    /**
     * Sets the topic keys written into every request built from now on: topic {@code t} of the skim goes
     * out under {@code keys.upstreamKey(t)} (an upstream name's UTF-8 bytes before v13, a 16-byte topic
     * id from v13) when that is not null, else under the client's key. Null (the default) writes every
     * key as the client sent it. When {@code keys} answers {@link UpstreamTopicKeys#keysPerPartition()},
     * the key is asked per partition and each sub-request holds one topic entry per distinct key. Kept by
     * reference; stays until changed or {@link #reset()}.
     */
    public ProduceRequestBuilder topicKeys(UpstreamTopicKeys keys) {
        this.topicKeys = keys;
        return this;
    }

    /**
     * Sets the partition indexes written into every request built from now on: partition {@code i} of
     * the skim goes out as {@code partitions.upstreamPartition(i)} when that is not negative, else as the
     * client's index (4 bytes of new metadata; records still a retained slice). Null (the default) writes
     * every index as the client sent it. Kept by reference; stays until changed or {@link #reset()}.
     */
    public ProduceRequestBuilder partitions(UpstreamPartitions partitions) {
        this.partitions = partitions;
        return this;
    }

    /**
     * Builds the sub-request for one route of a split: the partitions {@code i} with
     * {@code routeOf[i] == route}.
     *
     * @param skim the client's request; its frame is borrowed, the result holds retained slices of it
     * @param routeOf per partition of the skim (0..partitionCount()-1), the route it goes to
     * @return the whole frame, size prefix included; the caller takes ownership
     * @throws IllegalArgumentException when a {@linkplain #topicKeys topic key} does not fit the version
     */
    public ByteBuf build(ProduceRequestSkim skim, int[] routeOf, int route, int correlationId, ByteBufAllocator alloc) {
        return split(skim, null, routeOf, route, correlationId, alloc);
    }

    /**
     * Builds a request holding the partitions {@code i} of the skim whose bit is set in {@code partitions}.
     *
     * @param skim the client's request; its frame is borrowed, the result holds retained slices of it
     * @return the whole frame, size prefix included; the caller takes ownership
     */
    public ByteBuf build(ProduceRequestSkim skim, BitSet partitions, int correlationId, ByteBufAllocator alloc) {
        return split(skim, partitions, null, 0, correlationId, alloc);
    }

    @Override
    protected int metadataBytesOutsideTopics(ProduceRequestSkim skim, int headerBytes) {
        return 4 + headerBytes + (skim.topicsOffset() - skim.bodyOffset()) + MAX_ARRAY_LENGTH_BYTES
                + (skim.endOffset() - skim.trailerOffset());
    }

    @Override
    protected int partitionMetadataBytes(ProduceRequestSkim skim, int i) {
        return skim.partitionEnd(i) - skim.partitionOffset(i) - Math.max(0, skim.recordsLength(i));
    }

    @Override
    protected void writeBeforeTopics(ProduceRequestSkim skim) {
        out.copy(skim.buffer(), skim.bodyOffset(), skim.topicsOffset()); // transactional_id, acks, timeout_ms
    }

    @Override
    protected void writePartition(ProduceRequestSkim skim, int i) {
        ByteBuf src = skim.buffer();
        int records = skim.recordsOffset(i);
        int recordsEnd = records + Math.max(0, skim.recordsLength(i));
        copyPartitionHead(skim, i, records);                       // index (maybe renumbered), records length
        out.appendSlice(src, records, recordsEnd - records);       // the batches: a retained slice
        out.copy(src, recordsEnd, skim.partitionEnd(i));           // partition tagged fields
    }

    @Override
    protected void writeAfterTopics(ProduceRequestSkim skim) {
        out.copy(skim.buffer(), skim.trailerOffset(), skim.endOffset()); // top-level tagged fields
    }
}
