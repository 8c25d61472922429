package dev.weft.protocol.fetch;

import dev.weft.protocol.skim.RequestSkim;
import dev.weft.protocol.skim.SkimReads;
import dev.weft.protocol.skim.TopicTable;
import dev.weft.protocol.wire.MalformedFrameException;
import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.Uuid;

/**
 * Skim of a Fetch request (v4–18): the top-level fetch parameters, every topic and partition to fetch
 * (fixed fields read in place), the forgotten topics of an incremental session and the rack id.
 *
 * <pre>
 *  replica_id            int32 (v4–14; from v15 in the replica_state tagged field)
 *  max_wait_ms           int32
 *  min_bytes             int32
 *  max_bytes             int32
 *  isolation_level       int8
 *  session_id            int32 (v7+)
 *  session_epoch         int32 (v7+)
 *  topics                ARRAY (COMPACT_ from v12) of
 *    topic               STRING (v4–12)  |  topic_id UUID (v13+)
 *    partitions          ARRAY of
 *      partition             int32
 *      current_leader_epoch  int32 (v9+)
 *      fetch_offset          int64
 *      last_fetched_epoch    int32 (v12+)
 *      log_start_offset      int64 (v5+)
 *      partition_max_bytes   int32
 *      tagged fields         (v12+): 0 replica_directory_id (v17+), 1 high_watermark (v18+)
 *    tagged fields       (v12+)
 *  forgotten_topics_data ARRAY (v7+) of { topic | topic_id, partitions ARRAY of int32, tagged fields }
 *  rack_id               STRING (v11+)
 *  tagged fields         (v12+): 0 cluster_id, 1 replica_state { replica_id int32, replica_epoch int64 } (v15+)
 * </pre>
 *
 * <p>Partitions are numbered 0..{@link #partitionCount()}-1 across topics in wire order: the index
 * {@link FetchRequestBuilder} selects on and {@link FetchResponseMerger} orders by. Per-partition
 * state is a few primitive arrays owned by the skim; re-wrapping allocates nothing.
 *
 * <p>Ownership: {@link #wrap} <em>borrows</em> the frame; the skim is valid while the caller holds it.
 * Not thread-safe.
 */
public final class FetchRequestSkim extends RequestSkim {

    public static final short API_KEY = 1;
    public static final short OLDEST_VERSION = 4;
    public static final short LATEST_VERSION = 18;
    public static final short FIRST_LOG_START_OFFSET_VERSION = 5;
    public static final short FIRST_SESSION_VERSION = 7;
    public static final short FIRST_CURRENT_LEADER_EPOCH_VERSION = 9;
    public static final short FIRST_RACK_ID_VERSION = 11;
    public static final short FIRST_FLEXIBLE_VERSION = 12;
    public static final short FIRST_TOPIC_ID_VERSION = 13;
    public static final short FIRST_REPLICA_STATE_VERSION = 15;

    public static final int CLUSTER_ID_TAG = 0;
    public static final int REPLICA_STATE_TAG = 1;
    private static final int REPLICA_STATE_MIN_BYTES = 4 + 8 + 1;

    private static final int MIN_TOPIC_BYTES = 3;

    /** Forgotten topics; firstPartition(t) holds the offset of the topic's int32 partition list. */
    private final TopicTable forgotten = new TopicTable();
    private final FetchLayout layout = new FetchLayout();

    private int topicsOffset;
    private int forgottenOffset;
    private int afterForgottenOffset;
    private int rackOffset;
    private int rackLength;
    private int trailerOffset;
    private int clusterIdOffset;
    private int clusterIdLength;
    private int replicaStateOffset;

    public FetchRequestSkim() {
        super("Fetch", API_KEY, OLDEST_VERSION, LATEST_VERSION, FIRST_FLEXIBLE_VERSION, FIRST_TOPIC_ID_VERSION);
    }

    /** Skims the readable bytes of {@code frame} (a frame body, size prefix removed). Borrows. */
    public FetchRequestSkim wrap(ByteBuf frame) {
        return wrap(frame, frame.readerIndex(), frame.writerIndex());
    }

    /**
     * Skims the Fetch request whose header starts at {@code offset}. Borrows {@code frame}.
     *
     * @throws MalformedFrameException when the frame is not a well-formed Fetch request of a supported version
     * @throws IllegalArgumentException when it is not a Fetch request at all
     */
    public FetchRequestSkim wrap(ByteBuf frame, int offset, int limit) {
        skim(frame, offset, limit);
        return this;
    }

    @Override
    protected void parseBody(ByteBuf frame) {
        layout.request(version);
        cursor.skip(layout.requestFixedBytes, "Fetch request fields");
        topicsOffset = cursor.position();
        boolean topicIds = usesTopicIds();
        walkTopics(layout.fetchPartitionFixedBytes, "topics", "topics.topic", "partitions");
        forgottenOffset = cursor.position();
        forgotten.clear();
        if (version >= FIRST_SESSION_VERSION) {
            int n = SkimReads.nonNullArrayLength(cursor, flexible, MIN_TOPIC_BYTES, "forgotten_topics_data");
            for (int i = 0; i < n; i++) {
                int t = forgotten.readKey(cursor, flexible, topicIds, "forgotten_topics_data.topic");
                int count = SkimReads.nonNullArrayLength(cursor, flexible, 4, "forgotten_topics_data.partitions");
                forgotten.partitions(t, cursor.position(), count);
                cursor.skip(4 * count, "forgotten_topics_data.partitions");
                endTopic(forgotten, t);
            }
        }
        afterForgottenOffset = cursor.position();
        rackOffset = cursor.position();
        rackLength = -1;
        if (version >= FIRST_RACK_ID_VERSION) {
            rackLength = SkimReads.nonNullStringLength(cursor, flexible, "rack_id");
            rackOffset = cursor.position();
            cursor.skip(rackLength, "rack_id");
        }
        trailerOffset = cursor.position();
        clusterIdOffset = -1;
        clusterIdLength = -1;
        replicaStateOffset = -1;
        if (flexible) {
            int fields = SkimReads.taggedFieldCount(cursor);
            for (int k = 0; k < fields; k++) {
                int tag = cursor.readUnsignedVarint();
                int size = SkimReads.taggedFieldSize(cursor, tag);
                int data = cursor.position();
                if (tag == CLUSTER_ID_TAG) {
                    clusterIdLength = SkimReads.stringLength(cursor, true, "cluster_id");
                    clusterIdOffset = cursor.position();
                    if (clusterIdOffset + Math.max(0, clusterIdLength) > data + size) {
                        throw new MalformedFrameException("cluster_id at offset " + data + " runs past its tagged field");
                    }
                    cursor.position(data);
                } else if (tag == REPLICA_STATE_TAG && version >= FIRST_REPLICA_STATE_VERSION) {
                    SkimReads.requireTagSize(size, REPLICA_STATE_MIN_BYTES, tag, "replica_state", data);
                    replicaStateOffset = data;
                }
                cursor.skip(size, "tagged field");
            }
        }
        endOffset = cursor.position();
    }

    /** The replica id: the field before v15, replica_state's after (-1, a consumer, when absent). */
    public int replicaId() {
        if (version < FIRST_REPLICA_STATE_VERSION) {
            return buf.getInt(bodyOffset);
        }
        return replicaStateOffset < 0 ? -1 : buf.getInt(replicaStateOffset);
    }

    /** replica_state.replica_epoch (v15+), or -1. */
    public long replicaEpoch() {
        return replicaStateOffset < 0 ? -1L : buf.getLong(replicaStateOffset + 4);
    }

    public int maxWaitMs() {
        return buf.getInt(bodyOffset + layout.maxWaitOffset);
    }

    public int minBytes() {
        return buf.getInt(bodyOffset + layout.maxWaitOffset + 4);
    }

    public int maxBytes() {
        return buf.getInt(bodyOffset + layout.maxWaitOffset + 8);
    }

    /** 0 READ_UNCOMMITTED, 1 READ_COMMITTED. */
    public byte isolationLevel() {
        return buf.getByte(bodyOffset + layout.maxWaitOffset + 12);
    }

    /** The fetch session id (v7+), or 0. */
    public int sessionId() {
        return version < FIRST_SESSION_VERSION ? 0 : buf.getInt(bodyOffset + layout.maxWaitOffset + 13);
    }

    /** The fetch session epoch (v7+), or -1 (FINAL_EPOCH: no session). */
    public int sessionEpoch() {
        return version < FIRST_SESSION_VERSION ? -1 : buf.getInt(bodyOffset + layout.maxWaitOffset + 17);
    }

    @Override
    protected void parsePartition(int p) {
        int fixed = layout.fetchPartitionFixedBytes;
        if (flexible) {
            // A consumer's partition has no tagged fields, so its entry ends in a 0 count byte: one bounds
            // check and one read for the whole entry, not a skip plus the varint loop of skipTaggedFields.
            int countAt = cursor.position() + fixed;
            if (countAt < cursor.limit() && cursor.buffer().getByte(countAt) == 0) {
                cursor.position(countAt + 1);
                return;
            }
        }
        cursor.skip(fixed, "partitions");
        if (flexible) {
            cursor.skipTaggedFields();
        }
    }

    /** current_leader_epoch (v9+), or -1. */
    public int currentLeaderEpoch(int i) {
        return layout.currentLeaderEpochOffset < 0 ? -1 : buf.getInt(partitionOffset(i) + layout.currentLeaderEpochOffset);
    }

    public long fetchOffset(int i) {
        return buf.getLong(partitionOffset(i) + layout.fetchOffsetOffset);
    }

    /** last_fetched_epoch (v12+), or -1. */
    public int lastFetchedEpoch(int i) {
        return layout.lastFetchedEpochOffset < 0 ? -1 : buf.getInt(partitionOffset(i) + layout.lastFetchedEpochOffset);
    }

    /** log_start_offset (v5+), or -1. */
    public long logStartOffset(int i) {
        return layout.logStartOffsetOffset < 0 ? -1L : buf.getLong(partitionOffset(i) + layout.logStartOffsetOffset);
    }

    public int partitionMaxBytes(int i) {
        return buf.getInt(partitionOffset(i) + layout.partitionMaxBytesOffset);
    }

    /** Forgotten topics (v7+; 0 before). */
    public int forgottenTopicCount() {
        return forgotten.count();
    }

    /** Forgotten topic name (v7–12; allocates). */
    public String forgottenTopicName(int t) {
        return forgotten.name(buf, t);
    }

    /** Forgotten topic id (v13+; allocates). */
    public Uuid forgottenTopicId(int t) {
        return forgotten.topicId(buf, t);
    }

    public int forgottenPartitionCount(int t) {
        return forgotten.partitionCount(t);
    }

    public int forgottenPartition(int t, int j) {
        return buf.getInt(forgotten.firstPartition(t) + 4 * j);
    }

    /** Length of rack_id in bytes (v11+), or -1 before v11. */
    public int rackIdLength() {
        return rackLength;
    }

    /** The rack id (v11+; allocates), or null before v11. */
    public String rackId() {
        return rackLength < 0 ? null : buf.toString(rackOffset, rackLength, StandardCharsets.UTF_8);
    }

    /** The cluster_id tagged field (v12+; allocates), or null when absent or null. */
    public String clusterId() {
        return clusterIdLength < 0 ? null : buf.toString(clusterIdOffset, clusterIdLength, StandardCharsets.UTF_8);
    }

    // ---- layout, for the builder and merger in this package

    TopicTable topics() {
        return topics;
    }

    FetchLayout layout() {
        return layout;
    }

    int bodyOffset() {
        return bodyOffset;
    }

    int topicsOffset() {
        return topicsOffset;
    }

    /** Start of forgotten_topics_data (v7+); where the rack id or tagged fields start before v7. */
    int forgottenOffset() {
        return forgottenOffset;
    }

    /** Start of what follows forgotten_topics_data: the rack_id field (length included) and the tagged fields. */
    /** Where the top-level tagged fields start (v12+), right after rack_id. */
    int trailerOffset() {
        return trailerOffset;
    }

    int afterForgottenOffset() {
        return afterForgottenOffset;
    }
}
