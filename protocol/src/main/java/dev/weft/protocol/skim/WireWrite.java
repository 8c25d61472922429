package dev.weft.protocol.skim;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;

/**
 * Writers for the Kafka primitives the builders emit: unsigned varints, array counts and string or
 * bytes lengths in the classic or compact encoding, and strings. Each has a {@code sizeOf} twin so a
 * builder can reserve room before it writes. All of them <em>borrow</em> the target buffer and write at
 * its writer index.
 */
public final class WireWrite {

    private WireWrite() {
    }

    /** Bytes Kafka's UNSIGNED_VARINT encoding of {@code value} takes (1 to 5). */
    public static int sizeOfUnsignedVarint(int value) {
        // 1 byte per started group of 7 bits; 0 still takes one byte
        int bits = 32 - Integer.numberOfLeadingZeros(value | 1);
        return (bits + 6) / 7;
    }

    public static void writeUnsignedVarint(ByteBuf out, int value) {
        while ((value & 0xFFFFFF80) != 0) {
            out.writeByte((value & 0x7F) | 0x80);
            value >>>= 7;
        }
        out.writeByte(value);
    }

    /** ARRAY (int32) or COMPACT_ARRAY (uvarint count + 1) count; -1 writes null. */
    public static void writeArrayLength(ByteBuf out, boolean compact, int count) {
        if (compact) {
            writeUnsignedVarint(out, count + 1);
        } else {
            out.writeInt(count);
        }
    }

    public static int sizeOfArrayLength(boolean compact, int count) {
        return compact ? sizeOfUnsignedVarint(count + 1) : 4;
    }

    /** BYTES/RECORDS (int32) or COMPACT_ (uvarint length + 1) length; -1 writes null. */
    public static void writeBytesLength(ByteBuf out, boolean compact, int length) {
        writeArrayLength(out, compact, length);
    }

    public static int sizeOfBytesLength(boolean compact, int length) {
        return sizeOfArrayLength(compact, length);
    }

    /** STRING (int16) or COMPACT_STRING (uvarint length + 1) length; -1 writes null. */
    public static void writeStringLength(ByteBuf out, boolean compact, int length) {
        if (compact) {
            writeUnsignedVarint(out, length + 1);
        } else {
            out.writeShort(length);
        }
    }

    public static int sizeOfStringLength(boolean compact, int length) {
        return compact ? sizeOfUnsignedVarint(length + 1) : 2;
    }

    /** Writes {@code value} (null allowed) as a (compact) nullable string in UTF-8, without allocating. */
    public static void writeString(ByteBuf out, boolean compact, CharSequence value) {
        if (value == null) {
            writeStringLength(out, compact, -1);
            return;
        }
        int utf8 = ByteBufUtil.utf8Bytes(value);
        writeStringLength(out, compact, utf8);
        ByteBufUtil.reserveAndWriteUtf8(out, value, utf8);
    }

    public static int sizeOfString(boolean compact, CharSequence value) {
        if (value == null) {
            return sizeOfStringLength(compact, -1);
        }
        int utf8 = ByteBufUtil.utf8Bytes(value);
        return sizeOfStringLength(compact, utf8) + utf8;
    }

    /** An empty tagged-field section (count 0). */
    public static void writeEmptyTaggedFields(ByteBuf out) {
        out.writeByte(0);
    }
}
