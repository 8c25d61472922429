package dev.weft.protocol.fetch;

import dev.weft.protocol.skim.RequestSplitter;
import dev.weft.protocol.skim.UpstreamPartitions;
import dev.weft.protocol.skim.UpstreamTopicKeys;
import dev.weft.protocol.skim.WireWrite;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.BitSet;

/**
 * Splits a Fetch request: builds a new request, same API version, asking for a chosen subset of a
 * {@link FetchRequestSkim}'s partitions, in their original order (rack-aware routing, DESIGN §1;
 * collapsed topologies, §4).
 *
 * <p>Everything else is the client's, copied as it was — replica id, isolation level, rack id,
 * top-level, topic and partition tagged fields — except what the builder is told to change:
 * <ul>
 *   <li>{@link #session(int, int)}: the fetch session id and epoch (v7+). A split cannot reuse the
 *       client's session with several brokers; the usual choice is {@code session(0, -1)}, a full fetch
 *       outside any session (FetchRequest.FINAL_EPOCH);</li>
 *   <li>{@link #maxWaitMs(int)}, {@link #minBytes(int)}, {@link #maxBytes(int)}: so the proxy can
 *       stop waiting for a slow upstream once it has enough (DESIGN §5 "Fetch semantics");</li>
 *   <li>{@link #keepForgottenTopics(boolean)}: forgotten_topics_data (v7+) is left empty unless kept,
 *       in which case it is copied whole: the skim cannot tell which upstream a forgotten partition
 *       belongs to, so only keep it when all of it goes to one upstream;</li>
 *   <li>{@link #topicKeys(UpstreamTopicKeys)}: the topic names (v4–12) or ids (v13+) sent upstream in
 *       place of the client's (topic weaving renames). Only the topics array is renamed: kept forgotten
 *       topics are still the client's bytes, so a proxy that renames declines fetch sessions — it builds
 *       with {@code session(0, -1)} and leaves forgotten topics out (the default);</li>
 *   <li>{@link #partitions(UpstreamPartitions)}: the partition indexes sent upstream in place of the
 *       client's (partition weaving), usually with per-partition {@linkplain #topicKeys topic keys}
 *       (one topic entry per distinct key). As with renames, forgotten topics are not renumbered;</li>
 *   <li>{@link #clientId(CharSequence)}.</li>
 * </ul>
 * Settings stay until changed; {@link #reset()} restores the defaults (copy everything, no forgotten
 * topics, no renames, no renumbering).
 *
 * <p>The output is a whole frame, <b>4-byte size prefix included</b>, of newly written metadata only
 * (a Fetch request has no records): normally one pooled direct buffer, ready for the socket.
 * Topics none of whose partitions are chosen are left out. One instance per core; not thread-safe.
 */
public final class FetchRequestBuilder extends RequestSplitter<FetchRequestSkim> {

    /** An empty array's length: int32 0, or compact varint 1. */
    private static final int EMPTY_ARRAY_BYTES = 4;

    private boolean overrideSession;
    private int sessionId;
    private int sessionEpoch;
    private boolean overrideMaxWait;
    private int maxWaitMs;
    private boolean overrideMinBytes;
    private int minBytes;
    private boolean overrideMaxBytes;
    private int maxBytes;
    private boolean keepForgotten;
    private byte[] rackId;

    public FetchRequestBuilder() {
        super(true); // a Fetch partition entry is metadata: adjacent ones are copied as one range
    }

    /** Back to copying every top-level field and topic key from the client's request, with no forgotten topics. */
    public FetchRequestBuilder reset() {
        clientId = null;
        topicKeys = null;
        partitions = null;
        overrideSession = false;
        overrideMaxWait = false;
        overrideMinBytes = false;
        overrideMaxBytes = false;
        keepForgotten = false;
        rackId = null;
        return this;
    }

    /**
     * The rack_id (v11+) to write instead of the client's, as UTF-8 bytes, or null to copy the client's:
     * a part the proxy sends to a broker it chose carries none, so the broker's replica selector
     * (KIP-392) does not answer "read it from a replica in the client's rack" without data. Kept by
     * reference.
     */
    public FetchRequestBuilder rackId(byte[] utf8) {
        this.rackId = utf8;
        return this;
    }

    /** The client id to write, or null to copy the client's. Kept by reference. */
    public FetchRequestBuilder clientId(CharSequence clientId) {
        this.clientId = clientId;
        return this;
    }

    /** Writes this session id and epoch instead of the client's (v7+; ignored before). */
    public FetchRequestBuilder session(int sessionId, int sessionEpoch) {
        this.overrideSession = true;
        this.sessionId = sessionId;
        this.sessionEpoch = sessionEpoch;
        return this;
    }

    public FetchRequestBuilder maxWaitMs(int maxWaitMs) {
        this.overrideMaxWait = true;
        this.maxWaitMs = maxWaitMs;
        return this;
    }

    public FetchRequestBuilder minBytes(int minBytes) {
        this.overrideMinBytes = true;
        this.minBytes = minBytes;
        return this;
    }

    public FetchRequestBuilder maxBytes(int maxBytes) {
        this.overrideMaxBytes = true;
        this.maxBytes = maxBytes;
        return this;
    }

    /**
     * Sets the topic keys written into every request built from now on: topic {@code t} of the skim goes
     * out under {@code keys.upstreamKey(t)} (an upstream name's UTF-8 bytes before v13, a 16-byte topic
     * id from v13) when that is not null, else under the client's key. Null (the default) writes every
     * key as the client sent it. When {@code keys} answers {@link UpstreamTopicKeys#keysPerPartition()},
     * the key is asked per partition and each sub-request holds one topic entry per distinct key. Kept by
     * reference; stays until changed or {@link #reset()}.
     *
     * <p>forgotten_topics_data is not renamed: with renames, do not {@linkplain #keepForgottenTopics keep
     * forgotten topics}; build sessionless full fetches ({@code session(0, -1)}) instead.
     */
    public FetchRequestBuilder topicKeys(UpstreamTopicKeys keys) {
        this.topicKeys = keys;
        return this;
    }

    /**
     * Sets the partition indexes written into every request built from now on: partition {@code i} of
     * the skim goes out as {@code partitions.upstreamPartition(i)} when that is not negative, else as the
     * client's index (4 bytes written, the rest of the entry copied). Null (the default) writes every
     * index as the client sent it. Kept by reference; stays until changed or {@link #reset()}.
     *
     * <p>forgotten_topics_data is not renumbered: as with {@link #topicKeys}, do not keep forgotten topics.
     */
    public FetchRequestBuilder partitions(UpstreamPartitions partitions) {
        this.partitions = partitions;
        return this;
    }

    /**
     * Copies forgotten_topics_data whole (true) or writes it empty (false, the default). Copied whole means
     * with the client's topic names or ids, also when {@link #topicKeys} renames the topics array.
     */
    public FetchRequestBuilder keepForgottenTopics(boolean keep) {
        this.keepForgotten = keep;
        return this;
    }

    /**
     * Builds the sub-request for one route of a split: the partitions {@code i} with
     * {@code routeOf[i] == route}.
     *
     * @param skim the client's request (borrowed; nothing of it is retained)
     * @param routeOf per partition of the skim (0..partitionCount()-1), the route it goes to
     * @return the whole frame, size prefix included; the caller takes ownership
     */
    public ByteBuf build(FetchRequestSkim skim, int[] routeOf, int route, int correlationId, ByteBufAllocator alloc) {
        return split(skim, null, routeOf, route, correlationId, alloc);
    }

    /**
     * Builds a request for the partitions {@code i} of the skim whose bit is set.
     *
     * @return the whole frame, size prefix included; the caller takes ownership
     */
    public ByteBuf build(FetchRequestSkim skim, BitSet partitions, int correlationId, ByteBufAllocator alloc) {
        return split(skim, partitions, null, 0, correlationId, alloc);
    }

    @Override
    protected int metadataBytesOutsideTopics(FetchRequestSkim skim, int headerBytes) {
        int forgotten = skim.version() < FetchRequestSkim.FIRST_SESSION_VERSION ? 0
                : keepForgotten ? skim.afterForgottenOffset() - skim.forgottenOffset() : EMPTY_ARRAY_BYTES;
        int rackAndTrailer = overridesRack(skim)
                ? WireWrite.sizeOfStringLength(skim.flexible(), rackId.length) + rackId.length + skim.endOffset() - skim.trailerOffset()
                : skim.endOffset() - skim.afterForgottenOffset();
        return 4 + headerBytes + (skim.topicsOffset() - skim.bodyOffset()) + MAX_ARRAY_LENGTH_BYTES + forgotten + rackAndTrailer;
    }

    private boolean overridesRack(FetchRequestSkim skim) {
        return rackId != null && skim.version() >= FetchRequestSkim.FIRST_RACK_ID_VERSION;
    }

    @Override
    protected int partitionMetadataBytes(FetchRequestSkim skim, int i) {
        return skim.partitionEnd(i) - skim.partitionOffset(i);
    }

    @Override
    protected void writePartition(FetchRequestSkim skim, int i) {
        copyPartitionHead(skim, i, skim.partitionEnd(i)); // index (maybe renumbered), the rest as sent
    }

    @Override
    protected void writeAfterTopics(FetchRequestSkim skim) {
        ByteBuf src = skim.buffer();
        if (skim.version() >= FetchRequestSkim.FIRST_SESSION_VERSION) {
            if (keepForgotten) {
                out.copy(src, skim.forgottenOffset(), skim.afterForgottenOffset());
            } else {
                WireWrite.writeArrayLength(out.meta(EMPTY_ARRAY_BYTES), skim.flexible(), 0);
            }
        }
        if (overridesRack(skim)) {
            ByteBuf meta = out.meta(WireWrite.sizeOfStringLength(skim.flexible(), rackId.length) + rackId.length);
            WireWrite.writeStringLength(meta, skim.flexible(), rackId.length);
            meta.writeBytes(rackId);
            out.copy(src, skim.trailerOffset(), skim.endOffset()); // tagged fields
            return;
        }
        out.copy(src, skim.afterForgottenOffset(), skim.endOffset()); // rack_id, tagged fields
    }

    /** The client's fixed fields before the topics, with the overridden ones replaced. */
    @Override
    protected void writeBeforeTopics(FetchRequestSkim skim) {
        FetchLayout layout = skim.layout();
        int from = skim.bodyOffset();
        int length = skim.topicsOffset() - from;
        ByteBuf meta = out.meta(length);
        int at = meta.writerIndex();
        meta.writeBytes(skim.buffer(), from, length);
        int maxWait = at + layout.maxWaitOffset;
        if (overrideMaxWait) {
            meta.setInt(maxWait, maxWaitMs);
        }
        if (overrideMinBytes) {
            meta.setInt(maxWait + 4, minBytes);
        }
        if (overrideMaxBytes) {
            meta.setInt(maxWait + 8, maxBytes);
        }
        if (overrideSession && skim.version() >= FetchRequestSkim.FIRST_SESSION_VERSION) {
            meta.setInt(maxWait + 13, sessionId);
            meta.setInt(maxWait + 17, sessionEpoch);
        }
    }
}
