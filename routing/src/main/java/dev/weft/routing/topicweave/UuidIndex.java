package dev.weft.routing.topicweave;

/**
 * An open-addressing map from a 128-bit topic id (two longs) to an int, built once per snapshot; a
 * lookup allocates nothing (a {@code Map<Uuid, ?>} would need a key object per request).
 */
final class UuidIndex {

    private final long[] msb;
    private final long[] lsb;
    /** value + 1; 0 marks an empty slot. */
    private final int[] values;
    private final int mask;

    UuidIndex(int expected) {
        int capacity = Integer.highestOneBit(Math.max(4, expected * 2 + 1) - 1) << 1;
        msb = new long[capacity];
        lsb = new long[capacity];
        values = new int[capacity];
        mask = capacity - 1;
    }

    private int slot(long hi, long lo) {
        long h = hi * 0x9E3779B97F4A7C15L ^ lo;
        h ^= h >>> 29;
        h *= 0xBF58476D1CE4E5B9L;
        return (int) (h ^ (h >>> 32)) & mask;
    }

    /**
     * Adds a mapping unless the id is present already (then the first value stays); at most
     * {@code expected} keys are added.
     *
     * @return false when the id was present
     */
    boolean putIfAbsent(long hi, long lo, int value) {
        int i = slot(hi, lo);
        while (values[i] != 0) {
            if (msb[i] == hi && lsb[i] == lo) {
                return false;
            }
            i = (i + 1) & mask;
        }
        msb[i] = hi;
        lsb[i] = lo;
        values[i] = value + 1;
        return true;
    }

    /** The value for the id, or -1. */
    int get(long hi, long lo) {
        int i = slot(hi, lo);
        while (values[i] != 0) {
            if (msb[i] == hi && lsb[i] == lo) {
                return values[i] - 1;
            }
            i = (i + 1) & mask;
        }
        return -1;
    }
}
