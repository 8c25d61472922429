package dev.weft.protocol.fetch;

import dev.weft.protocol.skim.NodeEndpointList;
import dev.weft.protocol.skim.NodeEndpointRewriter;
import dev.weft.protocol.skim.RecordsRanges;
import dev.weft.protocol.skim.ResponseSkim;
import dev.weft.protocol.skim.SkimReads;
import dev.weft.protocol.wire.MalformedFrameException;
import io.netty.buffer.ByteBuf;
import java.util.Arrays;

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
public final class FetchResponseSkim extends ResponseSkim {

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

    private final RecordsRanges records = new RecordsRanges();
    private int partitionFixedBytes;

    private int[] abortedOffset = new int[16];
    private int[] abortedCount = new int[16];
    private int[] preferredReadReplicaOffset = new int[16];
    private int[] divergingEpochOffset = new int[16];
    private int[] snapshotIdOffset = new int[16];

    public FetchResponseSkim() {
        super("Fetch", FetchRequestSkim.API_KEY, FetchRequestSkim.OLDEST_VERSION, FetchRequestSkim.LATEST_VERSION,
                FetchRequestSkim.FIRST_FLEXIBLE_VERSION, FetchRequestSkim.FIRST_TOPIC_ID_VERSION,
                FIRST_NODE_ENDPOINTS_VERSION);
    }

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
        skim(frame, offset, limit, version);
        return this;
    }

    @Override
    protected void parseBody(ByteBuf frame) {
        throttleOffset = cursor.position();
        cursor.readInt32(); // throttle_time_ms
        if (version >= FetchRequestSkim.FIRST_SESSION_VERSION) {
            cursor.readInt16();
            cursor.readInt32();
        }
        partitionFixedBytes = version >= FetchRequestSkim.FIRST_LOG_START_OFFSET_VERSION ? FIXED_BYTES_V5 : FIXED_BYTES_V4;
        records.clear();
        walkTopics(partitionFixedBytes, "responses", "responses.topic", "partitions");
        parseTrailer(frame);
    }

    @Override
    protected void parsePartition(int p) {
        cursor.skip(partitionFixedBytes, "partitions");
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
        records.read(cursor, flexible, p);
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
    }

    @Override
    protected void growPartitions(int length) {
        super.growPartitions(length);
        records.grow(length);
        abortedOffset = Arrays.copyOf(abortedOffset, length);
        abortedCount = Arrays.copyOf(abortedCount, length);
        preferredReadReplicaOffset = Arrays.copyOf(preferredReadReplicaOffset, length);
        divergingEpochOffset = Arrays.copyOf(divergingEpochOffset, length);
        snapshotIdOffset = Arrays.copyOf(snapshotIdOffset, length);
    }

    /** Top-level error code (v7+), or 0. */
    public short errorCode() {
        return version < FetchRequestSkim.FIRST_SESSION_VERSION ? 0 : buf.getShort(bodyOffset + 4);
    }

    /** Fetch session id (v7+), or 0. */
    public int sessionId() {
        return version < FetchRequestSkim.FIRST_SESSION_VERSION ? 0 : buf.getInt(bodyOffset + 6);
    }

    public short errorCode(int i) {
        return buf.getShort(partitionOffset(i) + ERROR_CODE_OFFSET);
    }

    public long highWatermark(int i) {
        return buf.getLong(partitionOffset(i) + HIGH_WATERMARK_OFFSET);
    }

    public long lastStableOffset(int i) {
        return buf.getLong(partitionOffset(i) + LAST_STABLE_OFFSET_OFFSET);
    }

    /** log_start_offset (v5+), or -1. */
    public long logStartOffset(int i) {
        return version >= FetchRequestSkim.FIRST_LOG_START_OFFSET_VERSION
                ? buf.getLong(partitionOffset(i) + LOG_START_OFFSET_OFFSET) : -1L;
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
        cursor.wrap(buf, abortedOffset[i], records.offset(i));
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
        return records.offset(i);
    }

    /** Length of partition {@code i}'s records, or -1 when null. */
    public int recordsLength(int i) {
        return records.length(i);
    }

    /**
     * Partition {@code i}'s records as a <em>retained slice</em> of the frame (no copy); the caller
     * owns it. Null when the records field is null.
     */
    public ByteBuf records(int i) {
        return records.retainedSlice(buf, i);
    }

    public long recordsBytes() {
        return records.bytes();
    }

    /** diverging_epoch.epoch, or -1 when absent. */
    public int divergingEpoch(int i) {
        return divergingEpochOffset[i] < 0 ? -1 : buf.getInt(divergingEpochOffset[i]);
    }

    /** diverging_epoch.end_offset, or -1 when absent. */
    public long divergingEpochEndOffset(int i) {
        return divergingEpochOffset[i] < 0 ? -1L : buf.getLong(divergingEpochOffset[i] + 4);
    }

    /** snapshot_id.end_offset, or -1 when absent. */
    public long snapshotIdEndOffset(int i) {
        return snapshotIdOffset[i] < 0 ? -1L : buf.getLong(snapshotIdOffset[i]);
    }

    /** snapshot_id.epoch, or -1 when absent. */
    public int snapshotIdEpoch(int i) {
        return snapshotIdOffset[i] < 0 ? -1 : buf.getInt(snapshotIdOffset[i] + 8);
    }

    /**
     * Replaces every current_leader.leader_id and non-negative preferred_read_replica with
     * {@code rewriter.nodeId(source, id)}, in place in the borrowed frame (outside any CRC).
     */
    public void rewriteNodeIdsInPlace(NodeEndpointRewriter rewriter, int source) {
        for (int i = 0; i < partitionCount(); i++) {
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
}
