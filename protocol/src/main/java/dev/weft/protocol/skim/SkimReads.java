package dev.weft.protocol.skim;

import dev.weft.protocol.wire.MalformedFrameException;
import dev.weft.protocol.wire.WireCursor;

/**
 * Length reads shared by the skim parsers, on top of {@link WireCursor}: array counts, string and
 * bytes lengths in both the classic (int16/int32 prefix) and the compact (unsigned varint, length + 1)
 * encodings. Every length is checked against what is left of the frame <em>before</em> anything is
 * sized from it, so a lying count becomes a {@link MalformedFrameException}, never a huge array or an
 * {@code IndexOutOfBoundsException}.
 */
public final class SkimReads {

    private SkimReads() {
    }

    /**
     * Reads an ARRAY (int32 count, -1 = null) or COMPACT_ARRAY (unsigned varint count + 1, 0 = null)
     * count. Each element takes at least {@code minElementBytes}, so a count that cannot fit in what
     * remains of the frame is refused here.
     *
     * @return the element count, or -1 for a null array
     */
    public static int arrayLength(WireCursor cursor, boolean compact, int minElementBytes, String what) {
        int start = cursor.position();
        long count = compact ? (cursor.readUnsignedVarint() & 0xFFFFFFFFL) - 1 : cursor.readInt32();
        if (count < -1) {
            throw new MalformedFrameException("invalid count " + count + " for " + what + " at offset " + start);
        }
        if (count > 0 && count * Math.max(1, minElementBytes) > cursor.remaining()) {
            throw new MalformedFrameException(what + " claims " + count + " entries at offset " + start
                    + " but only " + cursor.remaining() + " bytes remain");
        }
        return (int) count;
    }

    /** Like {@link #arrayLength} for an array that may not be null. */
    public static int nonNullArrayLength(WireCursor cursor, boolean compact, int minElementBytes, String what) {
        int start = cursor.position();
        int count = arrayLength(cursor, compact, minElementBytes, what);
        if (count < 0) {
            throw new MalformedFrameException(what + " is null at offset " + start + " but may not be");
        }
        return count;
    }

    /**
     * Reads a STRING/NULLABLE_STRING (int16 length) or COMPACT_(NULLABLE_)STRING length and leaves the
     * cursor at the first byte of the string, which is checked to be there.
     *
     * @return the length in bytes, or -1 for null
     */
    public static int stringLength(WireCursor cursor, boolean compact, String what) {
        int start = cursor.position();
        long len = compact ? (cursor.readUnsignedVarint() & 0xFFFFFFFFL) - 1 : cursor.readInt16();
        return checkedLength(cursor, start, len, what);
    }

    /**
     * Reads a BYTES/NULLABLE_BYTES/RECORDS (int32 length) or COMPACT_ form (unsigned varint length + 1)
     * and leaves the cursor at the first byte, which is checked to be there with all the others.
     *
     * @return the length in bytes, or -1 for null
     */
    public static int bytesLength(WireCursor cursor, boolean compact, String what) {
        int start = cursor.position();
        long len = compact ? (cursor.readUnsignedVarint() & 0xFFFFFFFFL) - 1 : cursor.readInt32();
        return checkedLength(cursor, start, len, what);
    }

    private static int checkedLength(WireCursor cursor, int start, long len, String what) {
        if (len < -1) {
            throw new MalformedFrameException("invalid length " + len + " for " + what + " at offset " + start);
        }
        if (len > cursor.remaining()) {
            throw new MalformedFrameException(what + " of " + len + " bytes at offset " + start
                    + " runs past the end of the frame (" + cursor.remaining() + " bytes remain)");
        }
        return (int) len;
    }

    /** Reads a non-null string's length (see {@link #stringLength}) and refuses null. */
    public static int nonNullStringLength(WireCursor cursor, boolean compact, String what) {
        int start = cursor.position();
        int len = stringLength(cursor, compact, what);
        if (len < 0) {
            throw new MalformedFrameException(what + " is null at offset " + start + " but may not be");
        }
        return len;
    }

    /** Reads the number of fields in a tagged-field section. */
    public static int taggedFieldCount(WireCursor cursor) {
        int start = cursor.position();
        int count = cursor.readUnsignedVarint();
        // each field is at least a tag byte and a size byte
        if (count < 0 || (long) count * 2 > cursor.remaining()) {
            throw new MalformedFrameException("tagged-field section at offset " + start + " claims "
                    + Integer.toUnsignedString(count) + " fields but only " + cursor.remaining() + " bytes remain");
        }
        return count;
    }

    /** Reads a tagged field's size and checks its data is all there (the cursor stays at the data). */
    public static int taggedFieldSize(WireCursor cursor, int tag) {
        int start = cursor.position();
        int size = cursor.readUnsignedVarint();
        if (size < 0 || size > cursor.remaining()) {
            throw new MalformedFrameException("tagged field " + tag + " of " + Integer.toUnsignedString(size)
                    + " bytes at offset " + start + " runs past the end of the frame");
        }
        return size;
    }

    /** Refuses a known tagged field whose data is shorter than its fixed part. */
    public static void requireTagSize(int size, int minimum, int tag, String what, int offset) {
        if (size < minimum) {
            throw new MalformedFrameException("tagged field " + tag + " (" + what + ") at offset " + offset
                    + " has " + size + " bytes, needs at least " + minimum);
        }
    }
}
