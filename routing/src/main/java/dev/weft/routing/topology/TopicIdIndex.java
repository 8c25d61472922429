package dev.weft.routing.topology;

/**
 * An open-addressing map from a 128-bit topic id (two longs) to a slot number, built once per
 * {@link PartitionLeadership} snapshot and read-only afterwards (safe for any number of readers once
 * published). A lookup allocates nothing. The zero id is never a key.
 */
final class TopicIdIndex {

    static final TopicIdIndex EMPTY = new TopicIdIndex(0);

    private final long[] msb;
    private final long[] lsb;
    /** slot + 1; 0 marks an empty cell. */
    private final int[] values;
    private final int mask;

    TopicIdIndex(int expected) {
        int capacity = Integer.highestOneBit(Math.max(4, expected * 2 + 1) - 1) << 1;
        msb = new long[capacity];
        lsb = new long[capacity];
        values = new int[capacity];
        mask = capacity - 1;
    }

    private int cell(long hi, long lo) {
        long h = hi * 0x9E3779B97F4A7C15L ^ lo;
        h ^= h >>> 29;
        h *= 0xBF58476D1CE4E5B9L;
        return (int) (h ^ (h >>> 32)) & mask;
    }

    /** Maps the id to {@code slot}, replacing an earlier mapping; ignores the zero id. At most {@code expected} keys. */
    void put(long hi, long lo, int slot) {
        if (hi == 0 && lo == 0) {
            return;
        }
        int i = cell(hi, lo);
        while (values[i] != 0 && (msb[i] != hi || lsb[i] != lo)) {
            i = (i + 1) & mask;
        }
        msb[i] = hi;
        lsb[i] = lo;
        values[i] = slot + 1;
    }

    /** The slot for the id, or -1. */
    int get(long hi, long lo) {
        int i = cell(hi, lo);
        while (values[i] != 0) {
            if (msb[i] == hi && lsb[i] == lo) {
                return values[i] - 1;
            }
            i = (i + 1) & mask;
        }
        return -1;
    }
}
