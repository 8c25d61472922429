package dev.weft.protocol.produce;

import dev.weft.protocol.skim.NodeEndpointList;
import dev.weft.protocol.skim.NodeEndpointRewriter;
import dev.weft.protocol.skim.ResponseSkim;
import dev.weft.protocol.skim.SkimReads;
import dev.weft.protocol.wire.MalformedFrameException;
import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Skim of a Produce response (v3–13): every topic and partition result, and the positions of the
 * node ids and addresses the proxy must rewrite (v10+).
 *
 * <pre>
 *  responses              ARRAY (COMPACT_ from v9) of
 *    name                 STRING (v3–12)  |  topic_id UUID (v13+)
 *    partition_responses  ARRAY of
 *      index              int32         ─┐
 *      error_code         int16          │ fixed: read in place at
 *      base_offset        int64          │ entry offset + 0 / 4 / 6 / 14 / 22
 *      log_append_time_ms int64          │
 *      log_start_offset   int64 (v5+)   ─┘
 *      record_errors      ARRAY (v8+) of { batch_index int32, batch_index_error_message NULLABLE_STRING }
 *      error_message      NULLABLE_STRING (v8+)
 *      tagged fields      (v9+): tag 0 current_leader { leader_id int32, leader_epoch int32 } (v10+)
 *    tagged fields        (v9+)
 *  throttle_time_ms       int32
 *  tagged fields          (v9+): tag 0 node_endpoints (v10+), see {@link NodeEndpointList}
 * </pre>
 *
 * <p>Node ids and addresses: {@link #currentLeaderOffset(int)} is the absolute offset of a partition's
 * {@code current_leader.leader_id} (an int32 that can be patched in place, outside any CRC), and
 * {@link #nodeEndpoints()} the skimmed endpoints. {@link #rewriteLeaderIdsInPlace} and
 * {@link #rewriteNodeEndpoints} do both for a response that is otherwise forwarded as is;
 * {@link ProduceResponseMerger} does it while merging.
 *
 * <p>Ownership: {@link #wrap} <em>borrows</em> the frame; the skim is valid while the caller holds it.
 * Reused per frame without allocation; not thread-safe.
 */
public final class ProduceResponseSkim extends ResponseSkim {

    /** Partition entry layout: the fixed fields every version has, at these offsets from the entry. */
    public static final int INDEX_OFFSET = 0;
    public static final int ERROR_CODE_OFFSET = INDEX_OFFSET + 4;
    public static final int BASE_OFFSET_OFFSET = ERROR_CODE_OFFSET + 2;
    public static final int LOG_APPEND_TIME_OFFSET = BASE_OFFSET_OFFSET + 8;
    public static final int LOG_START_OFFSET_OFFSET = LOG_APPEND_TIME_OFFSET + 8;
    /** Fixed part of a partition entry, v3–4 (no log_start_offset). */
    static final int FIXED_BYTES_V3 = LOG_START_OFFSET_OFFSET;
    /** Fixed part of a partition entry, v5+. */
    static final int FIXED_BYTES_V5 = LOG_START_OFFSET_OFFSET + 8;

    public static final short FIRST_LOG_START_OFFSET_VERSION = 5;
    public static final short FIRST_RECORD_ERRORS_VERSION = 8;
    public static final short FIRST_NODE_ENDPOINTS_VERSION = 10;
    /** Tag of current_leader in a partition's tagged fields (v10+). */
    public static final int CURRENT_LEADER_TAG = 0;

    private static final int CURRENT_LEADER_MIN_BYTES = 4 + 4 + 1;

    private int partitionFixedBytes;

    private int[] recordErrorsOffset = new int[16];
    private int[] recordErrorCount = new int[16];
    private int[] errorMessageOffset = new int[16];
    private int[] errorMessageLength = new int[16];

    public ProduceResponseSkim() {
        super("Produce", ProduceRequestSkim.API_KEY, ProduceRequestSkim.OLDEST_VERSION, ProduceRequestSkim.LATEST_VERSION,
                ProduceRequestSkim.FIRST_FLEXIBLE_VERSION, ProduceRequestSkim.FIRST_TOPIC_ID_VERSION,
                FIRST_NODE_ENDPOINTS_VERSION);
    }

    /** Skims the readable bytes of {@code frame} (size prefix removed) as a Produce response of {@code version}. Borrows. */
    public ProduceResponseSkim wrap(ByteBuf frame, short version) {
        return wrap(frame, frame.readerIndex(), frame.writerIndex(), version);
    }

    /**
     * Skims the response whose header starts at {@code offset}. A response does not name its API: the
     * caller passes the version of the request it answers. Borrows {@code frame}.
     *
     * @throws MalformedFrameException when the bytes are not a well-formed Produce response
     */
    public ProduceResponseSkim wrap(ByteBuf frame, int offset, int limit, short version) {
        skim(frame, offset, limit, version);
        return this;
    }

    @Override
    protected void parseBody(ByteBuf frame) {
        partitionFixedBytes = version >= FIRST_LOG_START_OFFSET_VERSION ? FIXED_BYTES_V5 : FIXED_BYTES_V3;
        walkTopics(partitionFixedBytes, "responses", "responses.name", "partition_responses");
        throttleOffset = cursor.position();
        cursor.readInt32();
        parseTrailer(frame);
    }

    @Override
    protected void parsePartition(int p) {
        cursor.skip(partitionFixedBytes, "partition_responses");
        recordErrorsOffset[p] = -1;
        recordErrorCount[p] = 0;
        errorMessageOffset[p] = -1;
        errorMessageLength[p] = -1;
        currentLeaderOffset[p] = -1;
        if (version >= FIRST_RECORD_ERRORS_VERSION) {
            recordErrorsOffset[p] = cursor.position();
            int errors = SkimReads.nonNullArrayLength(cursor, flexible, 5, "record_errors");
            recordErrorCount[p] = errors;
            for (int e = 0; e < errors; e++) {
                cursor.readInt32(); // batch_index
                int len = SkimReads.stringLength(cursor, flexible, "batch_index_error_message");
                cursor.skip(Math.max(0, len), "batch_index_error_message");
                if (flexible) {
                    cursor.skipTaggedFields();
                }
            }
            int len = SkimReads.stringLength(cursor, flexible, "error_message");
            errorMessageOffset[p] = cursor.position();
            errorMessageLength[p] = len;
            cursor.skip(Math.max(0, len), "error_message");
        }
        if (flexible) {
            int fields = SkimReads.taggedFieldCount(cursor);
            for (int k = 0; k < fields; k++) {
                int tag = cursor.readUnsignedVarint();
                int size = SkimReads.taggedFieldSize(cursor, tag);
                int data = cursor.position();
                if (tag == CURRENT_LEADER_TAG && version >= FIRST_NODE_ENDPOINTS_VERSION) {
                    SkimReads.requireTagSize(size, CURRENT_LEADER_MIN_BYTES, tag, "current_leader", data);
                    currentLeaderOffset[p] = data;
                }
                cursor.skip(size, "tagged field");
            }
        }
    }

    @Override
    protected void growPartitions(int length) {
        super.growPartitions(length);
        recordErrorsOffset = Arrays.copyOf(recordErrorsOffset, length);
        recordErrorCount = Arrays.copyOf(recordErrorCount, length);
        errorMessageOffset = Arrays.copyOf(errorMessageOffset, length);
        errorMessageLength = Arrays.copyOf(errorMessageLength, length);
    }

    public short errorCode(int i) {
        return buf.getShort(partitionOffset(i) + ERROR_CODE_OFFSET);
    }

    public long baseOffset(int i) {
        return buf.getLong(partitionOffset(i) + BASE_OFFSET_OFFSET);
    }

    public long logAppendTimeMs(int i) {
        return buf.getLong(partitionOffset(i) + LOG_APPEND_TIME_OFFSET);
    }

    /** The log start offset (v5+), or -1 for older versions. */
    public long logStartOffset(int i) {
        return version >= FIRST_LOG_START_OFFSET_VERSION ? buf.getLong(partitionOffset(i) + LOG_START_OFFSET_OFFSET) : -1L;
    }

    /** Entries in record_errors (v8+; 0 before). */
    public int recordErrorCount(int i) {
        return recordErrorCount[i];
    }

    /** Offset of the record_errors array (v8+), or -1. */
    public int recordErrorsOffset(int i) {
        return recordErrorsOffset[i];
    }

    /** Length of error_message in bytes, or -1 when null or before v8. */
    public int errorMessageLength(int i) {
        return errorMessageLength[i];
    }

    /** The error message, or null (allocates). */
    public String errorMessage(int i) {
        int len = errorMessageLength[i];
        return len < 0 ? null : buf.toString(errorMessageOffset[i], len, StandardCharsets.UTF_8);
    }

    public boolean hasCurrentLeader(int i) {
        return currentLeaderOffset[i] >= 0;
    }

    /**
     * Replaces every {@code current_leader.leader_id} with {@code rewriter.nodeId(source, id)}, in
     * place in the borrowed frame (the field is outside any CRC).
     */
    public void rewriteLeaderIdsInPlace(NodeEndpointRewriter rewriter, int source) {
        for (int i = 0; i < partitionCount(); i++) {
            int at = currentLeaderOffset[i];
            if (at >= 0) {
                buf.setInt(at, rewriter.nodeId(source, buf.getInt(at)));
            }
        }
    }
}
