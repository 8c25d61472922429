package dev.weft.protocol.fetch;

import dev.weft.protocol.header.ResponseHeaderView;
import dev.weft.protocol.skim.NodeEndpointList;
import dev.weft.protocol.skim.NodeEndpointRewrite;
import dev.weft.protocol.skim.NodeEndpointRewriter;
import dev.weft.protocol.skim.SkimReads;
import dev.weft.protocol.skim.TopicTable;
import dev.weft.protocol.wire.MalformedFrameException;
import dev.weft.protocol.wire.WireCursor;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.Arrays;
import org.apache.kafka.common.Uuid;

/**
 * Skim of a Fetch response (v4–18): the top-level fields, every partition's result read in place, the
 * byte range of each partition's records (carried as a retained slice, never decoded) and the
 * positions of the node ids the proxy rewrites.
 *
 * <pre>
 *  throttle_time_ms            int32
 *  error_code                  int16 (v7+)
 *  session_id                  int32 (v7+)
 *  responses                   ARRAY (COMPACT_ from v12) of
 *    topic                     STRING (v4–12)  |  topic_id UUID (v13+)
 *    partitions                ARRAY of
 *      partition_index         int32  ─┐
 *      error_code              int16   │ fixed: read in place at entry offset
 *      high_watermark          int64   │ + 0 / 4 / 6 / 14 / 22
 *      last_stable_offset      int64   │
 *      log_start_offset        int64 (v5+) ─┘
 *      aborted_transactions    NULLABLE ARRAY of { producer_id int64, first_offset int64, tagged (v12+) }
 *      preferred_read_replica  int32 (v11+)
 *      records                 NULLABLE_RECORDS: int32 length (v4–11) or uvarint length+1 (v12+), bytes
 *      tagged fields           (v12+): 0 diverging_epoch { epoch int32, end_offset int64 },
 *                              1 current_leader { leader_id int32, leader_epoch int32 },
 *                              2 snapshot_id { end_offset int64, epoch int32 }
 *    tagged fields             (v12+)
 *  tagged fields               (v12+): 0 node_endpoints (v16+), see {@link NodeEndpointList}
 * </pre>
 *
 * <p>Ownership: {@link #wrap} <em>borrows</em> the frame; {@link #records(int)} returns a
 * <em>retained</em> slice the caller owns. Reused per frame without allocation; not thread-safe.
 */
public final class FetchResponseSkim {

    public static final int PARTITION_INDEX_OFFSET = 0;
    public static final int ERROR_CODE_OFFSET = PARTITION_INDEX_OFFSET + 4;
    public static final int HIGH_WATERMARK_OFFSET = ERROR_CODE_OFFSET + 2;
    public static final int LAST_STABLE_OFFSET_OFFSET = HIGH_WATERMARK_OFFSET + 8;
    public static final int LOG_START_OFFSET_OFFSET = LAST_STABLE_OFFSET_OFFSET + 8;
    static final int FIXED_BYTES_V4 = LOG_START_OFFSET_OFFSET;
    static final int FIXED_BYTES_V5 = LOG_START_OFFSET_OFFSET + 8;

    public static final short FIRST_PREFERRED_READ_REPLICA_VERSION = 11;
    public static final short FIRST_NODE_ENDPOINTS_VERSION = 16;

    public static final int DIVERGING_EPOCH_TAG = 0;
    public static final int CURRENT_LEADER_TAG = 1;
    public static final int SNAPSHOT_ID_TAG = 2;
    private static final int DIVERGING_EPOCH_MIN_BYTES = 4 + 8 + 1;
    private static final int CURRENT_LEADER_MIN_BYTES = 4 + 4 + 1;
    private static final int SNAPSHOT_ID_MIN_BYTES = 8 + 4 + 1;

    private static final int MIN_TOPIC_BYTES = 3;

    private final ResponseHeaderView header = new ResponseHeaderView();
    private final WireCursor cursor = new WireCursor();
    private final TopicTable topics = new TopicTable();
    private final NodeEndpointList endpoints = new NodeEndpointList();
    private NodeEndpointRewrite endpointRewrite;

    private ByteBuf buf;
    private short version;
    private boolean flexible;
    private int frameOffset;
    private int bodyOffset;
    private int trailerOffset;
    private int endOffset;
    private long recordsBytes;

    private int partitionCount;
    private int[] partitionTopic = new int[16];
    private int[] partitionOffset = new int[16];
    private int[] abortedOffset = new int[16];
    private int[] abortedCount = new int[16];
    private int[] preferredReadReplicaOffset = new int[16];
    private int[] recordsOffset = new int[16];
    private int[] recordsLength = new int[16];
    private int[] divergingEpochOffset = new int[16];
    private int[] currentLeaderOffset = new int[16];
    private int[] snapshotIdOffset = new int[16];
    private int[] partitionEnd = new int[16];

    /** Skims the readable bytes of {@code frame} (size prefix removed) as a Fetch response of {@code version}. Borrows. */
    public FetchResponseSkim wrap(ByteBuf frame, short version) {
        return wrap(frame, frame.readerIndex(), frame.writerIndex(), version);
    }

    /**
     * Skims the response whose header starts at {@code offset}; the caller passes the version of the
     * request it answers. Borrows {@code frame}.
     *
     * @throws MalformedFrameException when the bytes are not a well-formed Fetch response
     */
    public FetchResponseSkim wrap(ByteBuf frame, int offset, int limit, short version) {
        this.buf = null;
        if (version < FetchRequestSkim.OLDEST_VERSION || version > FetchRequestSkim.LATEST_VERSION) {
            throw new MalformedFrameException("Fetch v" + version + " responses cannot be skimmed");
        }
        this.version = version;
        this.flexible = version >= FetchRequestSkim.FIRST_FLEXIBLE_VERSION;
        this.frameOffset = offset;
        header.wrap(frame, offset);
        bodyOffset = offset + header.headerLength(FetchRequestSkim.API_KEY, version);
        if (bodyOffset > limit) {
            throw new MalformedFrameException("Fetch response header runs past the end of the frame");
        }
        cursor.wrap(frame, bodyOffset, limit);
        endpoints.clear();
        parseBody(frame);
        this.buf = frame;
        return this;
    }

    private void parseBody(ByteBuf frame) {
        cursor.readInt32(); // throttle_time_ms
        if (version >= FetchRequestSkim.FIRST_SESSION_VERSION) {
            cursor.readInt16();
            cursor.readInt32();
        }
        boolean topicIds = version >= FetchRequestSkim.FIRST_TOPIC_ID_VERSION;
        int fixed = version >= FetchRequestSkim.FIRST_LOG_START_OFFSET_VERSION ? FIXED_BYTES_V5 : FIXED_BYTES_V4;
        int topicCount = SkimReads.nonNullArrayLength(cursor, flexible, MIN_TOPIC_BYTES, "responses");
        topics.clear();
        partitionCount = 0;
        recordsBytes = 0;
        for (int i = 0; i < topicCount; i++) {
            int t = topics.readKey(cursor, flexible, topicIds, "responses.topic");
            int n = SkimReads.nonNullArrayLength(cursor, flexible, fixed, "partitions");
            topics.partitions(t, partitionCount, n);
            for (int j = 0; j < n; j++) {
                parsePartition(t, fixed);
            }
            int tagged = cursor.position();
            if (flexible) {
                cursor.skipTaggedFields();
            }
            topics.end(t, tagged, cursor.position());
        }
        trailerOffset = cursor.position();
        if (flexible) {
            int fields = SkimReads.taggedFieldCount(cursor);
            for (int k = 0; k < fields; k++) {
                int tag = cursor.readUnsignedVarint();
                int size = SkimReads.taggedFieldSize(cursor, tag);
                int data = cursor.position();
                cursor.skip(size, "tagged field");
                if (tag == NodeEndpointRewrite.NODE_ENDPOINTS_TAG && version >= FIRST_NODE_ENDPOINTS_VERSION) {
                    endpoints.parse(frame, data, size);
                }
            }
        }
        endOffset = cursor.position();
    }

    private void parsePartition(int topic, int fixed) {
        if (partitionCount == partitionTopic.length) {
            grow();
        }
        int p = partitionCount;
        partitionTopic[p] = topic;
        partitionOffset[p] = cursor.position();
        cursor.skip(fixed, "partitions");
        int aborted = SkimReads.arrayLength(cursor, flexible, 16, "aborted_transactions");
        abortedCount[p] = aborted;
        abortedOffset[p] = cursor.position();
        for (int k = 0; k < aborted; k++) {
            cursor.skip(16, "aborted_transactions");
            if (flexible) {
                cursor.skipTaggedFields();
            }
        }
        preferredReadReplicaOffset[p] = -1;
        if (version >= FIRST_PREFERRED_READ_REPLICA_VERSION) {
            preferredReadReplicaOffset[p] = cursor.position();
            cursor.readInt32();
        }
        int len = SkimReads.bytesLength(cursor, flexible, "records");
        recordsOffset[p] = cursor.position();
        recordsLength[p] = len;
        if (len > 0) {
            cursor.skip(len, "records");
            recordsBytes += len;
        }
        divergingEpochOffset[p] = -1;
        currentLeaderOffset[p] = -1;
        snapshotIdOffset[p] = -1;
        if (flexible) {
            int fields = SkimReads.taggedFieldCount(cursor);
            for (int k = 0; k < fields; k++) {
                int tag = cursor.readUnsignedVarint();
                int size = SkimReads.taggedFieldSize(cursor, tag);
                int data = cursor.position();
                switch (tag) {
                    case DIVERGING_EPOCH_TAG -> {
                        SkimReads.requireTagSize(size, DIVERGING_EPOCH_MIN_BYTES, tag, "diverging_epoch", data);
                        divergingEpochOffset[p] = data;
                    }
                    case CURRENT_LEADER_TAG -> {
                        SkimReads.requireTagSize(size, CURRENT_LEADER_MIN_BYTES, tag, "current_leader", data);
                        currentLeaderOffset[p] = data;
                    }
                    case SNAPSHOT_ID_TAG -> {
                        SkimReads.requireTagSize(size, SNAPSHOT_ID_MIN_BYTES, tag, "snapshot_id", data);
                        snapshotIdOffset[p] = data;
                    }
                    default -> {
                        // unknown tag: carried as is
                    }
                }
                cursor.skip(size, "tagged field");
            }
        }
        partitionEnd[p] = cursor.position();
        partitionCount = p + 1;
    }

    public ByteBuf buffer() {
        return buf;
    }

    public short version() {
        return version;
    }

    public boolean flexible() {
        return flexible;
    }

    public boolean usesTopicIds() {
        return version >= FetchRequestSkim.FIRST_TOPIC_ID_VERSION;
    }

    public int correlationId() {
        return buf.getInt(frameOffset + ResponseHeaderView.CORRELATION_ID_OFFSET);
    }

    public int throttleTimeMs() {
        return buf.getInt(bodyOffset);
    }

    /** Top-level error code (v7+), or 0. */
    public short errorCode() {
        return version < FetchRequestSkim.FIRST_SESSION_VERSION ? 0 : buf.getShort(bodyOffset + 4);
    }

    /** Fetch session id (v7+), or 0. */
    public int sessionId() {
        return version < FetchRequestSkim.FIRST_SESSION_VERSION ? 0 : buf.getInt(bodyOffset + 6);
    }

    public int topicCount() {
        return topics.count();
    }

    public int topicNameOffset(int t) {
        return topics.keyOffset(t);
    }

    public int topicNameLength(int t) {
        return topics.keyLength(t);
    }

    /** Topic name (v4–12; allocates). */
    public String topicName(int t) {
        return topics.name(buf, t);
    }

    /** Topic id (v13+; allocates). */
    public Uuid topicId(int t) {
        return topics.topicId(buf, t);
    }

    public int topicFirstPartition(int t) {
        return topics.firstPartition(t);
    }

    public int topicPartitionCount(int t) {
        return topics.partitionCount(t);
    }

    public int partitionCount() {
        return partitionCount;
    }

    public int partitionTopic(int i) {
        return partitionTopic[i];
    }

    /** Absolute offset of partition {@code i}'s entry (its partition_index). */
    public int partitionOffset(int i) {
        return partitionOffset[i];
    }

    public int partitionIndex(int i) {
        return buf.getInt(partitionOffset[i] + PARTITION_INDEX_OFFSET);
    }

    public short errorCode(int i) {
        return buf.getShort(partitionOffset[i] + ERROR_CODE_OFFSET);
    }

    public long highWatermark(int i) {
        return buf.getLong(partitionOffset[i] + HIGH_WATERMARK_OFFSET);
    }

    public long lastStableOffset(int i) {
        return buf.getLong(partitionOffset[i] + LAST_STABLE_OFFSET_OFFSET);
    }

    /** log_start_offset (v5+), or -1. */
    public long logStartOffset(int i) {
        return version >= FetchRequestSkim.FIRST_LOG_START_OFFSET_VERSION
                ? buf.getLong(partitionOffset[i] + LOG_START_OFFSET_OFFSET) : -1L;
    }

    /** Entries in aborted_transactions, or -1 when the array is null. */
    public int abortedTransactionCount(int i) {
        return abortedCount[i];
    }

    /** Offset of the first aborted transaction entry. */
    public int abortedTransactionsOffset(int i) {
        return abortedOffset[i];
    }

    /** producer_id of aborted transaction {@code k} of partition {@code i} (walks the entries: cold path). */
    public long abortedProducerId(int i, int k) {
        return buf.getLong(abortedEntry(i, k));
    }

    /** first_offset of aborted transaction {@code k} of partition {@code i} (walks the entries: cold path). */
    public long abortedFirstOffset(int i, int k) {
        return buf.getLong(abortedEntry(i, k) + 8);
    }

    private int abortedEntry(int i, int k) {
        if (k < 0 || k >= abortedCount[i]) {
            throw new IndexOutOfBoundsException("aborted transaction " + k + " of " + abortedCount[i]);
        }
        if (!flexible) {
            return abortedOffset[i] + 16 * k;
        }
        cursor.wrap(buf, abortedOffset[i], recordsOffset[i]);
        for (int e = 0; e < k; e++) {
            cursor.skip(16, "aborted_transactions");
            cursor.skipTaggedFields();
        }
        return cursor.position();
    }

    /** preferred_read_replica (v11+), or -1. */
    public int preferredReadReplica(int i) {
        int at = preferredReadReplicaOffset(i);
        return at < 0 ? -1 : buf.getInt(at);
    }

    /** Absolute offset of preferred_read_replica (v11+; an int32 patchable in place), or -1. */
    public int preferredReadReplicaOffset(int i) {
        return preferredReadReplicaOffset[i];
    }

    public int recordsOffset(int i) {
        return recordsOffset[i];
    }

    /** Length of partition {@code i}'s records, or -1 when null. */
    public int recordsLength(int i) {
        return recordsLength[i];
    }

    /**
     * Partition {@code i}'s records as a <em>retained slice</em> of the frame (no copy); the caller
     * owns it. Null when the records field is null.
     */
    public ByteBuf records(int i) {
        int len = recordsLength[i];
        return len < 0 ? null : buf.retainedSlice(recordsOffset[i], len);
    }

    public long recordsBytes() {
        return recordsBytes;
    }

    /** diverging_epoch.epoch, or -1 when absent. */
    public int divergingEpoch(int i) {
        return divergingEpochOffset[i] < 0 ? -1 : buf.getInt(divergingEpochOffset[i]);
    }

    /** diverging_epoch.end_offset, or -1 when absent. */
    public long divergingEpochEndOffset(int i) {
        return divergingEpochOffset[i] < 0 ? -1L : buf.getLong(divergingEpochOffset[i] + 4);
    }

    /** Absolute offset of current_leader.leader_id (int32, leader_epoch follows), or -1 when absent. */
    public int currentLeaderOffset(int i) {
        return currentLeaderOffset[i];
    }

    public int currentLeaderId(int i) {
        return currentLeaderOffset[i] < 0 ? -1 : buf.getInt(currentLeaderOffset[i]);
    }

    public int currentLeaderEpoch(int i) {
        return currentLeaderOffset[i] < 0 ? -1 : buf.getInt(currentLeaderOffset[i] + 4);
    }

    /** snapshot_id.end_offset, or -1 when absent. */
    public long snapshotIdEndOffset(int i) {
        return snapshotIdOffset[i] < 0 ? -1L : buf.getLong(snapshotIdOffset[i]);
    }

    /** snapshot_id.epoch, or -1 when absent. */
    public int snapshotIdEpoch(int i) {
        return snapshotIdOffset[i] < 0 ? -1 : buf.getInt(snapshotIdOffset[i] + 8);
    }

    /** node_endpoints (v16+; empty when absent). Borrowed view, valid with the skim. */
    public NodeEndpointList nodeEndpoints() {
        return endpoints;
    }

    /** Offset of the top-level tagged fields (v12+), where node_endpoints lives. */
    public int trailerOffset() {
        return trailerOffset;
    }

    public int endOffset() {
        return endOffset;
    }

    /**
     * Replaces every current_leader.leader_id and non-negative preferred_read_replica with
     * {@code rewriter.nodeId(source, id)}, in place in the borrowed frame (outside any CRC).
     */
    public void rewriteNodeIdsInPlace(NodeEndpointRewriter rewriter, int source) {
        for (int i = 0; i < partitionCount; i++) {
            int at = currentLeaderOffset[i];
            if (at >= 0) {
                buf.setInt(at, rewriter.nodeId(source, buf.getInt(at)));
            }
            at = preferredReadReplicaOffset(i);
            if (at >= 0) {
                buf.setInt(at, rewriter.nodeId(source, buf.getInt(at)));
            }
        }
    }

    /**
     * This response with its node_endpoints passed through the rewriter (see {@link NodeEndpointRewrite});
     * for versions without node_endpoints, the response unchanged. Node ids in partitions are not
     * touched: see {@link #rewriteNodeIdsInPlace}.
     *
     * @return a whole frame, size prefix included: one retained slice of this frame (records and all)
     *     and a small new trailer; the caller takes ownership. This frame stays borrowed.
     */
    public ByteBuf rewriteNodeEndpoints(NodeEndpointRewriter rewriter, int source, ByteBufAllocator alloc) {
        if (endpointRewrite == null) {
            endpointRewrite = new NodeEndpointRewrite();
        }
        return endpointRewrite.rewrite(buf, frameOffset, trailerOffset, endOffset, flexible, endpoints, source,
                rewriter, alloc);
    }

    // ---- layout, for the merger

    TopicTable topics() {
        return topics;
    }

    int partitionEnd(int i) {
        return partitionEnd[i];
    }

    private void grow() {
        int n = partitionTopic.length * 2;
        partitionTopic = Arrays.copyOf(partitionTopic, n);
        partitionOffset = Arrays.copyOf(partitionOffset, n);
        abortedOffset = Arrays.copyOf(abortedOffset, n);
        abortedCount = Arrays.copyOf(abortedCount, n);
        preferredReadReplicaOffset = Arrays.copyOf(preferredReadReplicaOffset, n);
        recordsOffset = Arrays.copyOf(recordsOffset, n);
        recordsLength = Arrays.copyOf(recordsLength, n);
        divergingEpochOffset = Arrays.copyOf(divergingEpochOffset, n);
        currentLeaderOffset = Arrays.copyOf(currentLeaderOffset, n);
        snapshotIdOffset = Arrays.copyOf(snapshotIdOffset, n);
        partitionEnd = Arrays.copyOf(partitionEnd, n);
    }
}
