package dev.weft.protocol.produce;

import dev.weft.protocol.header.RequestHeaderView;
import dev.weft.protocol.skim.RecordsRanges;
import dev.weft.protocol.skim.RequestSkim;
import dev.weft.protocol.skim.SkimReads;
import dev.weft.protocol.skim.TopicTable;
import dev.weft.protocol.wire.MalformedFrameException;
import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
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
public final class ProduceRequestSkim extends RequestSkim {

    public static final short API_KEY = 0;
    public static final short OLDEST_VERSION = 3;
    public static final short LATEST_VERSION = 13;
    public static final short FIRST_FLEXIBLE_VERSION = 9;
    public static final short FIRST_TOPIC_ID_VERSION = 13;

    private static final int MIN_PARTITION_BYTES = 5;

    private final RecordsRanges records = new RecordsRanges();

    private int transactionalIdOffset;
    private int transactionalIdLength;
    private int acksOffset;
    private int topicsOffset;
    private int trailerOffset;

    public ProduceRequestSkim() {
        super("Produce", API_KEY, OLDEST_VERSION, LATEST_VERSION, FIRST_FLEXIBLE_VERSION, FIRST_TOPIC_ID_VERSION);
    }

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
        skim(frame, offset, limit);
        return this;
    }

    @Override
    protected void parseBody(ByteBuf frame) {
        transactionalIdLength = SkimReads.stringLength(cursor, flexible, "transactional_id");
        transactionalIdOffset = cursor.position();
        cursor.skip(Math.max(0, transactionalIdLength), "transactional_id");
        acksOffset = cursor.position();
        cursor.readInt16();
        cursor.readInt32(); // timeout_ms
        topicsOffset = cursor.position();
        records.clear();
        walkTopics(MIN_PARTITION_BYTES, "topic_data", "topic_data.name", "partition_data");
        trailerOffset = cursor.position();
        if (flexible) {
            cursor.skipTaggedFields();
        }
        endOffset = cursor.position();
    }

    @Override
    protected void parsePartition(int p) {
        cursor.readInt32(); // index
        records.read(cursor, flexible, p);
        if (flexible) {
            cursor.skipTaggedFields();
        }
    }

    @Override
    protected void growPartitions(int length) {
        records.grow(length);
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

    /** Topic name (v3–12; allocates). */
    @Override
    public String topicName(int t) {
        requireNames();
        return super.topicName(t);
    }

    /** Topic id (v13+; allocates). */
    @Override
    public Uuid topicId(int t) {
        requireIds();
        return super.topicId(t);
    }

    public long topicIdMostSignificantBits(int t) {
        requireIds();
        return topics.topicIdMostSignificantBits(buf, t);
    }

    public long topicIdLeastSignificantBits(int t) {
        requireIds();
        return topics.topicIdLeastSignificantBits(buf, t);
    }

    /** Offset of partition {@code i}'s first record byte (just past the length prefix). */
    public int recordsOffset(int i) {
        return records.offset(i);
    }

    /** Length of partition {@code i}'s records field, or -1 when it is null. */
    public int recordsLength(int i) {
        return records.length(i);
    }

    /**
     * Partition {@code i}'s records as a <em>retained slice</em> of the frame (no copy): the caller
     * owns it and must release it. Null when the records field is null.
     */
    public ByteBuf records(int i) {
        return records.retainedSlice(buf, i);
    }

    /** Total bytes of all records fields: what a split must never copy. */
    public long recordsBytes() {
        return records.bytes();
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
}
