package dev.weft.routing.topology;

/**
 * An open-addressing map from a 128-bit topic id (two longs) to a non-negative int, built once per
 * snapshot (a {@link PartitionLeadership}, a topic catalog) and read-only afterwards (safe for any
 * number of readers once published). A lookup allocates nothing: a {@code Map<Uuid, ?>} would need a key
 * object per request.
 */
public final class TopicIdIndex {

    public static final TopicIdIndex EMPTY = new TopicIdIndex(0);

    private final long[] msb;
    private final long[] lsb;
    /** slot + 1; 0 marks an empty cell. */
    private final int[] values;
    private final int mask;

    /** Room for {@code expected} keys (more are not supported). */
    public TopicIdIndex(int expected) {
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

    /** Maps the id to {@code value}, replacing an earlier mapping; ignores the zero id. */
    public void put(long hi, long lo, int value) {
        if (hi == 0 && lo == 0) {
            return;
        }
        values[find(hi, lo)] = value + 1;
    }

    /**
     * Maps the id to {@code value} unless it is mapped already (then the first value stays).
     *
     * @return false when the id was present
     */
    public boolean putIfAbsent(long hi, long lo, int value) {
        int i = find(hi, lo);
        if (values[i] != 0) {
            return false;
        }
        values[i] = value + 1;
        return true;
    }

    /** The cell holding the id, or the empty cell where it goes (its key written). */
    private int find(long hi, long lo) {
        int i = cell(hi, lo);
        while (values[i] != 0 && (msb[i] != hi || lsb[i] != lo)) {
            i = (i + 1) & mask;
        }
        msb[i] = hi;
        lsb[i] = lo;
        return i;
    }

    /** The value for the id, or -1. */
    public int get(long hi, long lo) {
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
