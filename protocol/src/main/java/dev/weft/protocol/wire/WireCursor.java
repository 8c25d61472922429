package dev.weft.protocol.wire;

import io.netty.buffer.ByteBuf;

/**
 * A read position over a {@link ByteBuf} that walks Kafka's primitive types without touching the
 * buffer's own reader index and without allocating: one instance is reused per connection.
 *
 * <p>It <em>borrows</em> the buffer: it never retains or releases it. Reads past {@link #limit()}
 * throw {@link MalformedFrameException} naming what was being read and where, so a truncated or
 * lying frame becomes a clear error instead of an {@code IndexOutOfBoundsException}.
 */
public final class WireCursor {

    private ByteBuf buf;
    private int position;
    private int limit;

    /** Starts reading {@code buf} at {@code offset}, up to {@code limit} (exclusive). Borrows. */
    public WireCursor wrap(ByteBuf buf, int offset, int limit) {
        this.buf = buf;
        this.position = offset;
        this.limit = limit;
        return this;
    }

    /** Starts reading the readable bytes of {@code buf}. Borrows. */
    public WireCursor wrap(ByteBuf buf) {
        return wrap(buf, buf.readerIndex(), buf.writerIndex());
    }

    public ByteBuf buffer() {
        return buf;
    }

    public int position() {
        return position;
    }

    public WireCursor position(int position) {
        this.position = position;
        return this;
    }

    public int limit() {
        return limit;
    }

    public int remaining() {
        return limit - position;
    }

    private void need(int bytes, String what) {
        if (bytes < 0 || limit - position < bytes) {
            throw new MalformedFrameException("truncated frame: " + what + " needs " + bytes
                    + " bytes at offset " + position + " but only " + (limit - position) + " remain");
        }
    }

    public byte readInt8() {
        need(1, "int8");
        return buf.getByte(position++);
    }

    public short readInt16() {
        need(2, "int16");
        short v = buf.getShort(position);
        position += 2;
        return v;
    }

    public int readInt32() {
        need(4, "int32");
        int v = buf.getInt(position);
        position += 4;
        return v;
    }

    public long readInt64() {
        need(8, "int64");
        long v = buf.getLong(position);
        position += 8;
        return v;
    }

    /** Reads Kafka's UNSIGNED_VARINT (at most 5 bytes). */
    public int readUnsignedVarint() {
        int value = 0;
        for (int shift = 0; shift <= 28; shift += 7) {
            need(1, "unsigned varint");
            byte b = buf.getByte(position++);
            value |= (b & 0x7f) << shift;
            if ((b & 0x80) == 0) {
                return value;
            }
        }
        throw new MalformedFrameException("unsigned varint longer than 5 bytes at offset " + (position - 5));
    }

    /** Reads Kafka's VARINT (zig-zag encoded). */
    public int readVarint() {
        int raw = readUnsignedVarint();
        return (raw >>> 1) ^ -(raw & 1);
    }

    /** Moves past {@code bytes} bytes, checking they are there. */
    public WireCursor skip(int bytes, String what) {
        need(bytes, what);
        position += bytes;
        return this;
    }

    /** Skips a STRING or NULLABLE_STRING (int16 length, -1 = null); returns the length or -1. */
    public int skipString(String what) {
        short len = readInt16();
        if (len < -1) {
            throw new MalformedFrameException("invalid length " + len + " for " + what + " at offset " + (position - 2));
        }
        if (len > 0) {
            skip(len, what);
        }
        return len;
    }

    /** Skips a COMPACT_STRING or COMPACT_NULLABLE_STRING (unsigned varint length + 1); returns length or -1. */
    public int skipCompactString(String what) {
        int lenPlusOne = readUnsignedVarint();
        int len = lenPlusOne - 1;
        if (len < -1) { // the varint was over Integer.MAX_VALUE: no real frame has such a string
            throw new MalformedFrameException("invalid compact length " + Integer.toUnsignedString(lenPlusOne)
                    + " for " + what + " at offset " + position);
        }
        if (len > 0) {
            skip(len, what);
        }
        return len;
    }

    /** Skips a BYTES/NULLABLE_BYTES (int32 length); returns the length or -1. */
    public int skipBytes(String what) {
        int len = readInt32();
        if (len < -1) {
            throw new MalformedFrameException("invalid length " + len + " for " + what + " at offset " + (position - 4));
        }
        if (len > 0) {
            skip(len, what);
        }
        return len;
    }

    /** Skips a tagged-field section: a count, then (tag, size, bytes) per field. */
    public void skipTaggedFields() {
        int count = readUnsignedVarint();
        for (int i = 0; i < count; i++) {
            readUnsignedVarint(); // tag
            int size = readUnsignedVarint();
            skip(size, "tagged field");
        }
    }
}
