package dev.weft.protocol.skim;

import dev.weft.protocol.wire.WireCursor;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.kafka.common.Uuid;

/**
 * The topic level of a skimmed Produce or Fetch message: where each topic entry starts, its key (a name
 * before topic ids, a 16-byte topic id after), which partitions belong to it, and where its tagged
 * fields and its entry end. Plain growable {@code int} arrays owned by the skim, reused frame after
 * frame: no object per topic.
 *
 * <pre>
 *  entry ─▶ [name length|name bytes]  or  [topic id: 16 bytes]   ◀─ key (keyOffset, keyLength)
 *           [partition count][partition entries...]               ◀─ firstPartition, partitionCount
 *  tagged ▶ [tagged fields]  (flexible versions only)
 *  end ───▶
 * </pre>
 */
public final class TopicTable {

    /** Bytes of a topic id (UUID) on the wire. */
    public static final int TOPIC_ID_BYTES = 16;

    /** Big-endian longs out of a byte[] (as ByteBuf.getLong reads them), for comparing keys without a wrapper. */
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    private int count;
    private int[] entryOffset = new int[8];
    private int[] keyOffset = new int[8];
    private int[] keyLength = new int[8];
    private int[] firstPartition = new int[8];
    private int[] partitionCount = new int[8];
    private int[] taggedOffset = new int[8];
    private int[] endOffset = new int[8];

    public void clear() {
        count = 0;
    }

    public int count() {
        return count;
    }

    /**
     * Reads a topic key at the cursor (a (compact) string name, or a topic id when {@code topicIds}) and
     * starts a new entry for it.
     *
     * @return the new topic's index
     */
    public int readKey(WireCursor cursor, boolean compact, boolean topicIds, String what) {
        if (count == entryOffset.length) {
            grow();
        }
        int t = count++;
        int start = cursor.position();
        entryOffset[t] = start;
        if (topicIds) {
            cursor.skip(TOPIC_ID_BYTES, what);
            keyOffset[t] = start;
            keyLength[t] = TOPIC_ID_BYTES;
        } else {
            int len = SkimReads.nonNullStringLength(cursor, compact, what);
            keyOffset[t] = cursor.position();
            keyLength[t] = len;
            cursor.skip(len, what);
        }
        return t;
    }

    /** Records the partition range of topic {@code t}. */
    public void partitions(int t, int first, int partitions) {
        firstPartition[t] = first;
        partitionCount[t] = partitions;
    }

    /** Records where topic {@code t}'s tagged fields start (its end for non-flexible versions) and its end. */
    public void end(int t, int tagged, int end) {
        taggedOffset[t] = tagged;
        endOffset[t] = end;
    }

    public int entryOffset(int t) {
        return entryOffset[t];
    }

    /** First byte of the name, or of the topic id. */
    public int keyOffset(int t) {
        return keyOffset[t];
    }

    /** Length of the name in bytes, or {@link #TOPIC_ID_BYTES}. */
    public int keyLength(int t) {
        return keyLength[t];
    }

    /** Offset just past the key: [entryOffset, keyEnd) is the key as encoded, length prefix included. */
    public int keyEnd(int t) {
        return keyOffset[t] + keyLength[t];
    }

    public int firstPartition(int t) {
        return firstPartition[t];
    }

    public int partitionCount(int t) {
        return partitionCount[t];
    }

    public int taggedOffset(int t) {
        return taggedOffset[t];
    }

    public int endOffset(int t) {
        return endOffset[t];
    }

    /** The topic name (allocates: cold path, logs, tests). */
    public String name(ByteBuf buf, int t) {
        return buf.toString(keyOffset[t], keyLength[t], StandardCharsets.UTF_8);
    }

    public long topicIdMostSignificantBits(ByteBuf buf, int t) {
        return buf.getLong(keyOffset[t]);
    }

    public long topicIdLeastSignificantBits(ByteBuf buf, int t) {
        return buf.getLong(keyOffset[t] + 8);
    }

    /** The topic id (allocates). */
    public Uuid topicId(ByteBuf buf, int t) {
        return new Uuid(topicIdMostSignificantBits(buf, t), topicIdLeastSignificantBits(buf, t));
    }

    /** True when topic {@code i} of {@code a} and topic {@code j} of {@code b} have the same key bytes. */
    public static boolean sameKey(ByteBuf a, TopicTable ta, int i, ByteBuf b, TopicTable tb, int j) {
        int len = ta.keyLength[i];
        return len == tb.keyLength[j] && ByteBufUtil.equals(a, ta.keyOffset[i], b, tb.keyOffset[j], len);
    }

    /**
     * True when topic {@code j} of {@code b} has exactly the raw key bytes {@code key} (a name's UTF-8
     * bytes or a 16-byte topic id, no length prefix: see {@link UpstreamTopicKeys}). Compares eight bytes
     * at a time; allocates nothing.
     */
    public static boolean sameKey(ByteBuf b, TopicTable tb, int j, byte[] key) {
        int len = key.length;
        if (len != tb.keyLength[j]) {
            return false;
        }
        int at = tb.keyOffset[j];
        int k = 0;
        for (; k + Long.BYTES <= len; k += Long.BYTES) {
            if (b.getLong(at + k) != (long) LONGS.get(key, k)) {
                return false;
            }
        }
        for (; k < len; k++) {
            if (b.getByte(at + k) != key[k]) {
                return false;
            }
        }
        return true;
    }

    /**
     * A hash of the raw key bytes {@code key} (no length prefix), equal to {@link #keyHash(ByteBuf,
     * TopicTable, int)} of a topic with the same key bytes. Allocates nothing.
     */
    public static int keyHash(byte[] key) {
        int len = key.length;
        long h = len;
        int k = 0;
        for (; k + Long.BYTES <= len; k += Long.BYTES) {
            h = h * 0x9E3779B97F4A7C15L + (long) LONGS.get(key, k);
        }
        for (; k < len; k++) {
            h = h * 31 + key[k];
        }
        return mix(h);
    }

    /** A hash of topic {@code t}'s key bytes in {@code b}: see {@link #keyHash(byte[])}. */
    public static int keyHash(ByteBuf b, TopicTable tb, int t) {
        int len = tb.keyLength[t];
        int at = tb.keyOffset[t];
        long h = len;
        int k = 0;
        for (; k + Long.BYTES <= len; k += Long.BYTES) {
            h = h * 0x9E3779B97F4A7C15L + b.getLong(at + k);
        }
        for (; k < len; k++) {
            h = h * 31 + b.getByte(at + k);
        }
        return mix(h);
    }

    private static int mix(long h) {
        h ^= h >>> 33;
        h *= 0xFF51AFD7ED558CCDL;
        h ^= h >>> 33;
        return (int) h;
    }

    private void grow() {
        int n = entryOffset.length * 2;
        entryOffset = Arrays.copyOf(entryOffset, n);
        keyOffset = Arrays.copyOf(keyOffset, n);
        keyLength = Arrays.copyOf(keyLength, n);
        firstPartition = Arrays.copyOf(firstPartition, n);
        partitionCount = Arrays.copyOf(partitionCount, n);
        taggedOffset = Arrays.copyOf(taggedOffset, n);
        endOffset = Arrays.copyOf(endOffset, n);
    }
}
