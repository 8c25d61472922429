package dev.weft.protocol.skim;

import dev.weft.protocol.wire.WireCursor;
import io.netty.buffer.ByteBuf;
import java.util.Arrays;

/**
 * Where each partition's {@code records} field lies in a skimmed frame (Produce requests, Fetch
 * responses): the offset of its first byte (just past the length prefix) and its length, -1 for null.
 * Primitive arrays owned by the skim, grown with its other per-partition arrays; record batches are
 * never decoded.
 */
public final class RecordsRanges {

    private int[] offset = new int[16];
    private int[] length = new int[16];
    private long bytes;

    /** Forgets the previous frame's total. */
    public void clear() {
        bytes = 0;
    }

    /** Reads partition {@code p}'s NULLABLE_RECORDS (COMPACT_ when {@code compact}) at the cursor and skips its bytes. */
    public void read(WireCursor cursor, boolean compact, int p) {
        int len = SkimReads.bytesLength(cursor, compact, "records");
        offset[p] = cursor.position();
        length[p] = len;
        if (len > 0) {
            cursor.skip(len, "records");
            bytes += len;
        }
    }

    public int offset(int p) {
        return offset[p];
    }

    public int length(int p) {
        return length[p];
    }

    /** A retained slice of {@code buf} over partition {@code p}'s records (the caller owns it), or null. */
    public ByteBuf retainedSlice(ByteBuf buf, int p) {
        int len = length[p];
        return len < 0 ? null : buf.retainedSlice(offset[p], len);
    }

    /** Total bytes of all records fields of the frame. */
    public long bytes() {
        return bytes;
    }

    public void grow(int n) {
        offset = Arrays.copyOf(offset, n);
        length = Arrays.copyOf(length, n);
    }
}
