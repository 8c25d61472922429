package dev.weft.protocol.record;

import dev.weft.protocol.wire.MalformedFrameException;
import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * Flyweight over a Kafka v2 record batch (magic 2), the unit inside every Produce and Fetch
 * {@code records} field, and an iterator over the batches of such a field, reading the header in place.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +---------------------------------------------------------------+
 * |                    base_offset (int64)                        |  0
 * |                                                               |
 * +---------------------------------------------------------------+
 * |                 batch_length (int32): bytes after this field  |  8
 * +---------------------------------------------------------------+
 * |             partition_leader_epoch (int32)                    | 12
 * +---------------+-----------------------------------------------+
 * | magic (int8)  |               crc (uint32, CRC-32C) ...        | 16
 * +---------------+---------------+-------------------------------+
 * |  ... crc      |    attributes (int16)         | last_offset_  | 20   ◀── CRC covers from
 * +---------------+-------------------------------+   delta ...   |           attributes (21)
 * |          ... last_offset_delta (int32)        |  base_        | 24        to the end of
 * +-----------------------------------------------+  timestamp    |           the batch
 * |                    ... base_timestamp (int64) ...             | 28
 * +---------------------------------------------------------------+
 * |                    max_timestamp (int64) at 35                |
 * +---------------------------------------------------------------+
 * |                    producer_id (int64) at 43                  |
 * +-------------------------------+-------------------------------+
 * | producer_epoch (int16) at 51  |  base_sequence (int32) at 53  |
 * +-------------------------------+-------------------------------+
 * |  records_count (int32) at 57  |  records ... at 61            |
 * +-------------------------------+-------------------------------+
 *
 * attributes: bits 0-2 compression (0 none, 1 gzip, 2 snappy, 3 lz4, 4 zstd), bit 3 timestamp type
 *             (1 = LogAppendTime), bit 4 transactional, bit 5 control, bit 6 delete horizon set
 * </pre>
 *
 * <p>Iteration: {@link #wrap(ByteBuf, int, int)} positions the view on the first batch of a records
 * range, {@link #hasBatch()} says whether a whole batch is there, {@link #next()} moves to the
 * following one. A trailing partial batch (which a Fetch response may legally end with) is not a
 * batch: {@link #hasBatch()} is false and {@link #partialTrailingBytes()} says how much is left.
 *
 * <p>Rewrites: {@link #producerIdAndEpoch(long, short)} (and the single-field forms) write in place and
 * recompute the CRC-32C over the CRC-covered bytes in place (through the buffer's NIO view, no copy);
 * compressed payloads are never touched. DESIGN §5: producer-id translation.
 *
 * <p>Field getters assume magic 2 (what Produce v3+ carries); {@link #magic()} and {@link #hasBatch()}
 * work for any magic, since the length field is where every format has it. Borrows the buffer;
 * reusable, allocates nothing (the CRC32C instance is the view's own); not thread-safe.
 */
public final class RecordBatchView {

    public static final int BASE_OFFSET_OFFSET = 0;
    public static final int BASE_OFFSET_LENGTH = 8;
    public static final int LENGTH_OFFSET = BASE_OFFSET_OFFSET + BASE_OFFSET_LENGTH;
    public static final int LENGTH_LENGTH = 4;
    public static final int PARTITION_LEADER_EPOCH_OFFSET = LENGTH_OFFSET + LENGTH_LENGTH;
    public static final int PARTITION_LEADER_EPOCH_LENGTH = 4;
    public static final int MAGIC_OFFSET = PARTITION_LEADER_EPOCH_OFFSET + PARTITION_LEADER_EPOCH_LENGTH;
    public static final int MAGIC_LENGTH = 1;
    public static final int CRC_OFFSET = MAGIC_OFFSET + MAGIC_LENGTH;
    public static final int CRC_LENGTH = 4;
    public static final int ATTRIBUTES_OFFSET = CRC_OFFSET + CRC_LENGTH;
    public static final int ATTRIBUTES_LENGTH = 2;
    public static final int LAST_OFFSET_DELTA_OFFSET = ATTRIBUTES_OFFSET + ATTRIBUTES_LENGTH;
    public static final int LAST_OFFSET_DELTA_LENGTH = 4;
    public static final int BASE_TIMESTAMP_OFFSET = LAST_OFFSET_DELTA_OFFSET + LAST_OFFSET_DELTA_LENGTH;
    public static final int BASE_TIMESTAMP_LENGTH = 8;
    public static final int MAX_TIMESTAMP_OFFSET = BASE_TIMESTAMP_OFFSET + BASE_TIMESTAMP_LENGTH;
    public static final int MAX_TIMESTAMP_LENGTH = 8;
    public static final int PRODUCER_ID_OFFSET = MAX_TIMESTAMP_OFFSET + MAX_TIMESTAMP_LENGTH;
    public static final int PRODUCER_ID_LENGTH = 8;
    public static final int PRODUCER_EPOCH_OFFSET = PRODUCER_ID_OFFSET + PRODUCER_ID_LENGTH;
    public static final int PRODUCER_EPOCH_LENGTH = 2;
    public static final int BASE_SEQUENCE_OFFSET = PRODUCER_EPOCH_OFFSET + PRODUCER_EPOCH_LENGTH;
    public static final int BASE_SEQUENCE_LENGTH = 4;
    public static final int RECORDS_COUNT_OFFSET = BASE_SEQUENCE_OFFSET + BASE_SEQUENCE_LENGTH;
    public static final int RECORDS_COUNT_LENGTH = 4;
    public static final int RECORDS_OFFSET = RECORDS_COUNT_OFFSET + RECORDS_COUNT_LENGTH;
    /** Header bytes of a v2 batch (61). */
    public static final int RECORD_BATCH_OVERHEAD = RECORDS_OFFSET;
    /** base_offset + batch_length: bytes not counted by batch_length (12). */
    public static final int LOG_OVERHEAD = LENGTH_OFFSET + LENGTH_LENGTH;

    public static final byte MAGIC_V2 = 2;

    public static final int COMPRESSION_CODEC_MASK = 0x07;
    public static final int TIMESTAMP_TYPE_MASK = 0x08;
    public static final int TRANSACTIONAL_FLAG_MASK = 0x10;
    public static final int CONTROL_FLAG_MASK = 0x20;
    public static final int DELETE_HORIZON_FLAG_MASK = 0x40;

    public static final long NO_PRODUCER_ID = -1L;
    public static final short NO_PRODUCER_EPOCH = -1;
    /** base_sequence of a batch without a producer. */
    public static final int NO_SEQUENCE = -1;

    private final CRC32C crc = new CRC32C();
    private ByteBuf buf;
    private int offset;
    private int limit;

    /**
     * Positions the view on the batch at {@code offset} of a records range ending at {@code limit}
     * (exclusive). Borrows {@code buf}.
     */
    public RecordBatchView wrap(ByteBuf buf, int offset, int limit) {
        if (offset < 0 || limit > buf.capacity() || offset > limit) {
            throw new IllegalArgumentException("records range [" + offset + ", " + limit + ") is outside the buffer");
        }
        this.buf = buf;
        this.offset = offset;
        this.limit = limit;
        return this;
    }

    /** Positions the view on the first batch of {@code buf}'s readable bytes. Borrows. */
    public RecordBatchView wrap(ByteBuf buf) {
        return wrap(buf, buf.readerIndex(), buf.writerIndex());
    }

    /**
     * True when a whole batch starts at the current position: its length field is there, says at
     * least a whole header (61 bytes for magic 2) and all its bytes are before the limit.
     */
    public boolean hasBatch() {
        int remaining = limit - offset;
        if (remaining < LOG_OVERHEAD) {
            return false;
        }
        int length = buf.getInt(offset + LENGTH_OFFSET);
        if (length < MAGIC_OFFSET + MAGIC_LENGTH - LOG_OVERHEAD || length > remaining - LOG_OVERHEAD) {
            return false;
        }
        return magic() != MAGIC_V2 || length >= RECORD_BATCH_OVERHEAD - LOG_OVERHEAD;
    }

    /**
     * Bytes after the last whole batch (a truncated trailing batch), 0 when the range ends on a batch
     * boundary. Only meaningful once {@link #hasBatch()} is false.
     */
    public int partialTrailingBytes() {
        return limit - offset;
    }

    /**
     * Moves to the next batch.
     *
     * @throws MalformedFrameException when there is no whole batch at the current position
     */
    public RecordBatchView next() {
        if (!hasBatch()) {
            throw new MalformedFrameException("no whole record batch at offset " + offset + " (" + (limit - offset)
                    + " bytes before the end of the records)");
        }
        offset += sizeInBytes();
        return this;
    }

    /** Absolute offset of the current batch in the buffer. */
    public int offset() {
        return offset;
    }

    public ByteBuf buffer() {
        return buf;
    }

    // ---- static forms: read a field of the batch at `at` without a view

    public static long baseOffset(ByteBuf buf, int at) {
        return buf.getLong(at + BASE_OFFSET_OFFSET);
    }

    public static int batchLength(ByteBuf buf, int at) {
        return buf.getInt(at + LENGTH_OFFSET);
    }

    public static byte magic(ByteBuf buf, int at) {
        return buf.getByte(at + MAGIC_OFFSET);
    }

    public static long producerId(ByteBuf buf, int at) {
        return buf.getLong(at + PRODUCER_ID_OFFSET);
    }

    public static short producerEpoch(ByteBuf buf, int at) {
        return buf.getShort(at + PRODUCER_EPOCH_OFFSET);
    }

    public static short attributes(ByteBuf buf, int at) {
        return buf.getShort(at + ATTRIBUTES_OFFSET);
    }

    // ---- fields of the current batch

    public long baseOffset() {
        return baseOffset(buf, offset);
    }

    /** batch_length: bytes after the length field. */
    public int batchLength() {
        return batchLength(buf, offset);
    }

    /** Whole batch size, {@link #LOG_OVERHEAD} included. */
    public int sizeInBytes() {
        return LOG_OVERHEAD + batchLength();
    }

    public int partitionLeaderEpoch() {
        return buf.getInt(offset + PARTITION_LEADER_EPOCH_OFFSET);
    }

    public byte magic() {
        return magic(buf, offset);
    }

    /** The stored CRC-32C, unsigned. */
    public long crc() {
        return buf.getUnsignedInt(offset + CRC_OFFSET);
    }

    public short attributes() {
        return attributes(buf, offset);
    }

    /** Compression codec id: 0 none, 1 gzip, 2 snappy, 3 lz4, 4 zstd. */
    public int compressionType() {
        return attributes() & COMPRESSION_CODEC_MASK;
    }

    /** True when the timestamps are LogAppendTime, false for CreateTime. */
    public boolean isLogAppendTime() {
        return (attributes() & TIMESTAMP_TYPE_MASK) != 0;
    }

    public boolean isTransactional() {
        return (attributes() & TRANSACTIONAL_FLAG_MASK) != 0;
    }

    public boolean isControlBatch() {
        return (attributes() & CONTROL_FLAG_MASK) != 0;
    }

    public boolean hasDeleteHorizon() {
        return (attributes() & DELETE_HORIZON_FLAG_MASK) != 0;
    }

    public int lastOffsetDelta() {
        return buf.getInt(offset + LAST_OFFSET_DELTA_OFFSET);
    }

    public long lastOffset() {
        return baseOffset() + lastOffsetDelta();
    }

    public long baseTimestamp() {
        return buf.getLong(offset + BASE_TIMESTAMP_OFFSET);
    }

    public long maxTimestamp() {
        return buf.getLong(offset + MAX_TIMESTAMP_OFFSET);
    }

    public long producerId() {
        return producerId(buf, offset);
    }

    public short producerEpoch() {
        return producerEpoch(buf, offset);
    }

    public int baseSequence() {
        return buf.getInt(offset + BASE_SEQUENCE_OFFSET);
    }

    public int recordCount() {
        return buf.getInt(offset + RECORDS_COUNT_OFFSET);
    }

    // ---- CRC and in-place rewrites

    /** CRC-32C of the CRC-covered bytes (attributes to the end of the batch), computed in place. */
    public long computeCrc() {
        int from = offset + ATTRIBUTES_OFFSET;
        int length = sizeInBytes() - ATTRIBUTES_OFFSET;
        crc.reset();
        if (buf.nioBufferCount() == 1) {
            ByteBuffer view = buf.internalNioBuffer(from, length);
            crc.update(view);
        } else {
            for (ByteBuffer part : buf.nioBuffers(from, length)) {
                crc.update(part);
            }
        }
        return crc.getValue();
    }

    /** True when the stored CRC matches the batch's bytes. */
    public boolean crcValid() {
        return hasBatch() && crc() == computeCrc();
    }

    /** Rewrites producer_id in place and recomputes the CRC. */
    public RecordBatchView producerId(long producerId) {
        buf.setLong(offset + PRODUCER_ID_OFFSET, producerId);
        return updateCrc();
    }

    /** Rewrites producer_epoch in place and recomputes the CRC. */
    public RecordBatchView producerEpoch(short producerEpoch) {
        buf.setShort(offset + PRODUCER_EPOCH_OFFSET, producerEpoch);
        return updateCrc();
    }

    /**
     * Rewrites producer_id and producer_epoch in place and recomputes the CRC once: what producer-id
     * translation does to each batch bound for a cluster (8 + 2 bytes, then CRC-32C over the batch).
     */
    public RecordBatchView producerIdAndEpoch(long producerId, short producerEpoch) {
        buf.setLong(offset + PRODUCER_ID_OFFSET, producerId);
        buf.setShort(offset + PRODUCER_EPOCH_OFFSET, producerEpoch);
        return updateCrc();
    }

    /**
     * Producer-id translation of a whole records field: rewrites producer_id and producer_epoch of
     * every batch in [{@code offset}, {@code limit}) that has a producer id (idempotent or
     * transactional; batches with {@link #NO_PRODUCER_ID} are left alone), recomputing each CRC in
     * place. Leaves the view on the end of the range. Borrows {@code buf}.
     *
     * @return the number of batches rewritten
     * @throws MalformedFrameException when the range holds a batch that is not magic 2 or ends in a
     *     partial batch (a Produce request carries whole v2 batches only)
     */
    public int rewriteProducer(ByteBuf buf, int offset, int limit, long producerId, short producerEpoch) {
        int rewritten = 0;
        for (wrap(buf, offset, limit); hasBatch(); next()) {
            if (magic() != MAGIC_V2) {
                throw new MalformedFrameException("record batch at offset " + this.offset + " has magic " + magic()
                        + "; producer ids can only be rewritten in magic 2 batches");
            }
            if (producerId() != NO_PRODUCER_ID) {
                producerIdAndEpoch(producerId, producerEpoch);
                rewritten++;
            }
        }
        if (partialTrailingBytes() != 0) {
            throw new MalformedFrameException(partialTrailingBytes() + " bytes at offset " + this.offset
                    + " are not a whole record batch");
        }
        return rewritten;
    }

    /**
     * Makes every batch in [{@code offset}, {@code limit}) a plain (non-idempotent) one: producer_id,
     * producer_epoch and base_sequence set to "none" and each CRC recomputed, in place. What a branch
     * copy needs: the producer's id and sequence numbers mean nothing on the branch's cluster, which
     * would refuse them as out of order. Leaves the view on the end of the range. Borrows {@code buf}.
     *
     * @return the number of batches changed (those that had a producer id)
     * @throws MalformedFrameException as {@link #rewriteProducer}
     */
    public int detachProducer(ByteBuf buf, int offset, int limit) {
        int detached = 0;
        for (wrap(buf, offset, limit); hasBatch(); next()) {
            if (magic() != MAGIC_V2) {
                throw new MalformedFrameException("record batch at offset " + this.offset + " has magic " + magic()
                        + "; only magic 2 batches can be detached from their producer");
            }
            if (producerId() != NO_PRODUCER_ID) {
                buf.setLong(this.offset + PRODUCER_ID_OFFSET, NO_PRODUCER_ID);
                buf.setShort(this.offset + PRODUCER_EPOCH_OFFSET, NO_PRODUCER_EPOCH);
                buf.setInt(this.offset + BASE_SEQUENCE_OFFSET, NO_SEQUENCE);
                updateCrc();
                detached++;
            }
        }
        if (partialTrailingBytes() != 0) {
            throw new MalformedFrameException(partialTrailingBytes() + " bytes at offset " + this.offset
                    + " are not a whole record batch");
        }
        return detached;
    }

    /** Whether some batch in [{@code offset}, {@code limit}) is transactional. Borrows {@code buf}. */
    public boolean anyTransactional(ByteBuf buf, int offset, int limit) {
        for (wrap(buf, offset, limit); hasBatch(); next()) {
            if (isTransactional()) {
                return true;
            }
        }
        return false;
    }

    /** Recomputes and stores the CRC (after any in-place change of CRC-covered bytes). */
    public RecordBatchView updateCrc() {
        if (!hasBatch()) {
            throw new MalformedFrameException("no whole record batch at offset " + offset + " to rewrite");
        }
        buf.setInt(offset + CRC_OFFSET, (int) computeCrc());
        return this;
    }
}
