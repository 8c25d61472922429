package dev.weft.protocol.produce;

import dev.weft.protocol.header.RequestHeaderView;
import dev.weft.protocol.skim.SkimReads;
import dev.weft.protocol.skim.TopicTable;
import dev.weft.protocol.wire.MalformedFrameException;
import dev.weft.protocol.wire.WireCursor;
import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.kafka.common.Uuid;

/**
 * Skim of a Produce request (v3–13): the top-level fields, every topic and partition, and the byte
 * range of each partition's {@code records}, without decoding a single record batch.
 *
 * <pre>
 *  transactional_id   NULLABLE_STRING (COMPACT_ from v9)
 *  acks               int16
 *  timeout_ms         int32
 *  topic_data         ARRAY (COMPACT_ from v9) of
 *    name             STRING (v3–12)  |  topic_id UUID (v13+)
 *    partition_data   ARRAY of
 *      index          int32
 *      records        NULLABLE_RECORDS: int32 length (v3–8) or uvarint length+1 (v9+), then the bytes
 *      tagged fields  (v9+)
 *    tagged fields    (v9+)
 *  tagged fields      (v9+)
 * </pre>
 *
 * <p>Partitions are numbered 0..{@link #partitionCount()}-1 across all topics in wire order; that
 * index is what {@link ProduceRequestBuilder} selects on and what the merger orders responses by.
 * Per-partition results live in primitive arrays owned by the skim, so re-wrapping frame after frame
 * allocates nothing once the arrays have grown to the largest request seen.
 *
 * <p>Ownership: {@link #wrap} <em>borrows</em> the frame; the skim never retains or releases it and is
 * valid only while the caller holds the frame. {@link #records(int)} returns a <em>retained</em> slice
 * the caller owns. One instance per connection or core; not thread-safe.
 */
public final class ProduceRequestSkim {

    public static final short API_KEY = 0;
    public static final short OLDEST_VERSION = 3;
    public static final short LATEST_VERSION = 13;
    public static final short FIRST_FLEXIBLE_VERSION = 9;
    public static final short FIRST_TOPIC_ID_VERSION = 13;

    private static final int MIN_TOPIC_BYTES = 3;
    private static final int MIN_PARTITION_BYTES = 5;

    private final RequestHeaderView header = new RequestHeaderView();
    private final WireCursor cursor = new WireCursor();
    private final TopicTable topics = new TopicTable();

    private ByteBuf buf;
    private short version;
    private boolean flexible;
    private int bodyOffset;
    private int endOffset;
    private int transactionalIdOffset;
    private int transactionalIdLength;
    private int acksOffset;
    private int topicsOffset;
    private int trailerOffset;
    private long recordsBytes;

    private int partitionCount;
    private int[] partitionTopic = new int[16];
    private int[] partitionOffset = new int[16];
    private int[] recordsOffset = new int[16];
    private int[] recordsLength = new int[16];
    private int[] partitionEnd = new int[16];

    /** Skims the readable bytes of {@code frame} (a frame body, size prefix removed). Borrows. */
    public ProduceRequestSkim wrap(ByteBuf frame) {
        return wrap(frame, frame.readerIndex(), frame.writerIndex());
    }

    /**
     * Skims the Produce request whose header starts at {@code offset} and whose frame ends at
     * {@code limit}. Borrows {@code frame}.
     *
     * @throws MalformedFrameException when the frame is not a well-formed Produce request of a
     *     supported version (truncated, lying lengths or counts)
     * @throws IllegalArgumentException when the frame is not a Produce request at all
     */
    public ProduceRequestSkim wrap(ByteBuf frame, int offset, int limit) {
        this.buf = null;
        header.wrap(frame, offset);
        if (header.apiKey() != API_KEY) {
            throw new IllegalArgumentException("not a Produce request: api key " + header.apiKey());
        }
        short v = header.apiVersion();
        if (v < OLDEST_VERSION || v > LATEST_VERSION) {
            throw new MalformedFrameException("Produce v" + v + " cannot be skimmed: Weft implements v"
                    + OLDEST_VERSION + "–" + LATEST_VERSION);
        }
        version = v;
        flexible = v >= FIRST_FLEXIBLE_VERSION;
        bodyOffset = header.bodyOffset();
        if (bodyOffset > limit) {
            throw new MalformedFrameException("Produce request header runs past the end of the frame");
        }
        cursor.wrap(frame, bodyOffset, limit);
        parseBody(frame);
        this.buf = frame;
        return this;
    }

    private void parseBody(ByteBuf frame) {
        transactionalIdLength = SkimReads.stringLength(cursor, flexible, "transactional_id");
        transactionalIdOffset = cursor.position();
        cursor.skip(Math.max(0, transactionalIdLength), "transactional_id");
        acksOffset = cursor.position();
        cursor.readInt16();
        cursor.readInt32(); // timeout_ms
        topicsOffset = cursor.position();
        boolean topicIds = version >= FIRST_TOPIC_ID_VERSION;
        int topicCount = SkimReads.nonNullArrayLength(cursor, flexible, MIN_TOPIC_BYTES, "topic_data");
        topics.clear();
        partitionCount = 0;
        recordsBytes = 0;
        for (int i = 0; i < topicCount; i++) {
            int t = topics.readKey(cursor, flexible, topicIds, "topic_data.name");
            int n = SkimReads.nonNullArrayLength(cursor, flexible, MIN_PARTITION_BYTES, "partition_data");
            topics.partitions(t, partitionCount, n);
            for (int j = 0; j < n; j++) {
                parsePartition(t);
            }
            int tagged = cursor.position();
            if (flexible) {
                cursor.skipTaggedFields();
            }
            topics.end(t, tagged, cursor.position());
        }
        trailerOffset = cursor.position();
        if (flexible) {
            cursor.skipTaggedFields();
        }
        endOffset = cursor.position();
    }

    private void parsePartition(int topic) {
        if (partitionCount == partitionTopic.length) {
            grow();
        }
        int p = partitionCount;
        partitionTopic[p] = topic;
        partitionOffset[p] = cursor.position();
        cursor.readInt32(); // index
        int len = SkimReads.bytesLength(cursor, flexible, "records");
        recordsOffset[p] = cursor.position();
        recordsLength[p] = len;
        if (len > 0) {
            cursor.skip(len, "records");
            recordsBytes += len;
        }
        if (flexible) {
            cursor.skipTaggedFields();
        }
        partitionEnd[p] = cursor.position();
        partitionCount = p + 1;
    }

    /**
     * The {@code acks} of a Produce request without skimming it: walks past the transactional id only.
     * For the acks=0 check before anything else. Borrows; allocates nothing.
     *
     * @param bodyOffset where the request body starts ({@link RequestHeaderView#bodyOffset()})
     */
    public static short acks(ByteBuf frame, int bodyOffset, short apiVersion) {
        int limit = frame.writerIndex();
        int p = bodyOffset;
        long idLength;
        if (apiVersion >= FIRST_FLEXIBLE_VERSION) {
            int value = 0;
            int shift = 0;
            while (true) {
                if (p >= limit || shift > 28) {
                    throw new MalformedFrameException("Produce request truncated in transactional_id length");
                }
                byte b = frame.getByte(p++);
                value |= (b & 0x7f) << shift;
                if ((b & 0x80) == 0) {
                    break;
                }
                shift += 7;
            }
            idLength = (value & 0xFFFFFFFFL) - 1;
        } else {
            if (limit - p < 2) {
                throw new MalformedFrameException("Produce request truncated in transactional_id length");
            }
            idLength = frame.getShort(p);
            p += 2;
        }
        if (idLength < -1 || idLength > limit - p) {
            throw new MalformedFrameException("Produce request transactional_id length " + idLength + " is invalid");
        }
        p += (int) Math.max(0, idLength);
        if (limit - p < 2) {
            throw new MalformedFrameException("Produce request truncated before acks");
        }
        return frame.getShort(p);
    }

    /** The header of the skimmed request (borrowed view over the same frame). */
    public RequestHeaderView header() {
        return header;
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

    /** True from v13: topics are identified by topic id, not name. */
    public boolean usesTopicIds() {
        return version >= FIRST_TOPIC_ID_VERSION;
    }

    public int correlationId() {
        return header.correlationId();
    }

    public short acks() {
        return buf.getShort(acksOffset);
    }

    public int timeoutMs() {
        return buf.getInt(acksOffset + 2);
    }

    /** Length of the transactional id in bytes, or -1 when it is null (not transactional). */
    public int transactionalIdLength() {
        return transactionalIdLength;
    }

    public int transactionalIdOffset() {
        return transactionalIdOffset;
    }

    /** The transactional id, or null (allocates: cold path). */
    public String transactionalId() {
        return transactionalIdLength < 0 ? null
                : buf.toString(transactionalIdOffset, transactionalIdLength, StandardCharsets.UTF_8);
    }

    public int topicCount() {
        return topics.count();
    }

    /** Offset of topic {@code t}'s name bytes (v3–12) or of its 16-byte topic id (v13+). */
    public int topicNameOffset(int t) {
        return topics.keyOffset(t);
    }

    /** Length of topic {@code t}'s name in bytes (v3–12); 16 for a topic id (v13+). */
    public int topicNameLength(int t) {
        return topics.keyLength(t);
    }

    /** Topic name (v3–12; allocates). */
    public String topicName(int t) {
        requireNames();
        return topics.name(buf, t);
    }

    /** Topic id (v13+; allocates). */
    public Uuid topicId(int t) {
        requireIds();
        return topics.topicId(buf, t);
    }

    public long topicIdMostSignificantBits(int t) {
        requireIds();
        return topics.topicIdMostSignificantBits(buf, t);
    }

    public long topicIdLeastSignificantBits(int t) {
        requireIds();
        return topics.topicIdLeastSignificantBits(buf, t);
    }

    /** Index (in 0..partitionCount()-1) of topic {@code t}'s first partition. */
    public int topicFirstPartition(int t) {
        return topics.firstPartition(t);
    }

    public int topicPartitionCount(int t) {
        return topics.partitionCount(t);
    }

    /** Partitions across all topics. */
    public int partitionCount() {
        return partitionCount;
    }

    /** The topic (0..topicCount()-1) partition {@code i} belongs to. */
    public int partitionTopic(int i) {
        return partitionTopic[i];
    }

    /** The partition index on the wire ({@code index}) of partition {@code i}. */
    public int partitionIndex(int i) {
        return buf.getInt(partitionOffset[i]);
    }

    /** Offset of partition {@code i}'s first record byte (just past the length prefix). */
    public int recordsOffset(int i) {
        return recordsOffset[i];
    }

    /** Length of partition {@code i}'s records field, or -1 when it is null. */
    public int recordsLength(int i) {
        return recordsLength[i];
    }

    /**
     * Partition {@code i}'s records as a <em>retained slice</em> of the frame (no copy): the caller
     * owns it and must release it. Null when the records field is null.
     */
    public ByteBuf records(int i) {
        int len = recordsLength[i];
        return len < 0 ? null : buf.retainedSlice(recordsOffset[i], len);
    }

    /** Total bytes of all records fields: what a split must never copy. */
    public long recordsBytes() {
        return recordsBytes;
    }

    /** Offset of the first byte after the request (trailing bytes of the frame, if any, are ignored). */
    public int endOffset() {
        return endOffset;
    }

    // ---- layout, for the builder and merger in this package

    TopicTable topics() {
        return topics;
    }

    int bodyOffset() {
        return bodyOffset;
    }

    /** Offset of the topic_data count. */
    int topicsOffset() {
        return topicsOffset;
    }

    /** Offset of the top-level tagged fields (== endOffset before v9). */
    int trailerOffset() {
        return trailerOffset;
    }

    int partitionOffset(int i) {
        return partitionOffset[i];
    }

    int partitionEnd(int i) {
        return partitionEnd[i];
    }

    private void requireNames() {
        if (usesTopicIds()) {
            throw new IllegalStateException("Produce v" + version + " identifies topics by id, not name");
        }
    }

    private void requireIds() {
        if (!usesTopicIds()) {
            throw new IllegalStateException("Produce v" + version + " identifies topics by name, not id");
        }
    }

    private void grow() {
        int n = partitionTopic.length * 2;
        partitionTopic = Arrays.copyOf(partitionTopic, n);
        partitionOffset = Arrays.copyOf(partitionOffset, n);
        recordsOffset = Arrays.copyOf(recordsOffset, n);
        recordsLength = Arrays.copyOf(recordsLength, n);
        partitionEnd = Arrays.copyOf(partitionEnd, n);
    }
}
