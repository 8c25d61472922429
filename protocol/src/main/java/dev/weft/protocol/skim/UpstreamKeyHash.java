package dev.weft.protocol.skim;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * The hash the request builders tell upstream keys apart by: two topic entries of one sub-request must
 * not go under keys of the same bytes, and a partition weave's sub-request has one entry per segment, so
 * each segment's key is checked once per request. Planners precompute it with the key (a catalog's
 * segment keys, {@link UpstreamTopicKeys#keyStretchHash}), so the check costs a probe, not a hash. Not the
 * hash of a key read off the wire ({@code TopicTable.keyHash}), and not stable across JVMs (it reads the
 * bytes in the machine's order).
 */
public final class UpstreamKeyHash {

    private static final long GOLDEN = 0x9E3779B97F4A7C15L;
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.nativeOrder());

    private UpstreamKeyHash() {
    }

    /**
     * The hash of raw key bytes (a name's UTF-8 or 16 topic-id bytes). The key is read as longs (the last
     * one overlapping the one before), each folded in with one multiply, then mixed: a 20-byte name costs
     * four short dependent steps where a byte-wise polynomial costs twenty.
     */
    public static int of(byte[] key) {
        int len = key.length;
        long h = len * GOLDEN;
        if (len >= Long.BYTES) {
            for (int k = 0; k + Long.BYTES < len; k += Long.BYTES) {
                h = (h ^ (long) LONGS.get(key, k)) * GOLDEN;
            }
            h = (h ^ (long) LONGS.get(key, len - Long.BYTES)) * GOLDEN;
        } else {
            for (byte b : key) {
                h = (h ^ b) * GOLDEN;
            }
        }
        h ^= h >>> 33;                  // spread the high bytes (a name's last ones) into the slot bits
        h *= 0xFF51AFD7ED558CCDL;
        h ^= h >>> 33;
        return (int) h;
    }
}
