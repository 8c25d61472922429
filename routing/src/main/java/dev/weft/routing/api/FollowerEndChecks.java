package dev.weft.routing.api;

/**
 * Per connection: which partitions a follower chosen for the proxy's zone answered with "nothing more"
 * (empty at its high watermark), and what their leader said to that. A follower's high watermark can lag
 * the leader's by a replication round, so its "nothing more" is either the end of the partition or a
 * follower behind: the next Fetch of that partition goes to the leader once ({@link #takePending}); when
 * the leader agrees it is the end at that offset, the follower's "nothing more" at the same offset is
 * believed from then on (a consumer idling at the end is not sent to the leader on every poll), and once
 * the client's offset moves on, the next "nothing more" is checked again.
 *
 * <p>Small and bounded (a connection has few partitions at their end at once; when full, the oldest entry
 * goes, and that partition is at worst checked with its leader again). One per session, event loop only.
 */
public final class FollowerEndChecks {

    private static final int SIZE = 32;
    private static final byte FREE = 0;
    private static final byte PENDING = 1;
    private static final byte ASKED = 2;
    private static final byte CONFIRMED = 3;

    private final int[] leaf = new int[SIZE];
    private final String[] topic = new String[SIZE];
    private final int[] partition = new int[SIZE];
    private final long[] offset = new long[SIZE];
    private final byte[] state = new byte[SIZE];
    /** Slots not FREE. */
    private int used;
    /** When each slot was taken, by a counter of takings (longs: it never wraps). */
    private final long[] taken = new long[SIZE];
    private long clock;

    /** A follower answered the partition empty at its high watermark, the client fetching from {@code fetchOffset}. */
    public void followerAtEnd(int leaf, String topic, int partition, long fetchOffset) {
        int i = find(leaf, topic, partition);
        if (i >= 0) {
            if (state[i] == CONFIRMED && offset[i] == fetchOffset) {
                return; // the leader said so already at this offset
            }
            // else pending again; also when asked but never answered (the leader's part failed or was not waited for)
        } else {
            i = slot();
            this.leaf[i] = leaf;
            this.topic[i] = topic;
            this.partition[i] = partition;
        }
        offset[i] = fetchOffset;
        state[i] = PENDING;
    }

    /** Whether this Fetch of the partition is to go to its leader (once per "nothing more"). Allocation-free. */
    public boolean takePending(int leaf, String topic, int partition) {
        if (used == 0) {
            return false;
        }
        int i = find(leaf, topic, partition);
        if (i < 0 || state[i] != PENDING) {
            return false;
        }
        state[i] = ASKED;
        return true;
    }

    /** The leader answered the check: {@code atEnd} when it too had nothing past {@code fetchOffset}. */
    public void leaderAnswered(int leaf, String topic, int partition, long fetchOffset, boolean atEnd) {
        int i = find(leaf, topic, partition);
        if (i < 0) {
            return;
        }
        if (atEnd) {
            offset[i] = fetchOffset;
            state[i] = CONFIRMED;
        } else {
            remove(i);
        }
    }

    public boolean isEmpty() {
        return used == 0;
    }

    /** A free slot, else the one taken longest ago (the oldest entry goes). */
    private int slot() {
        int oldest = 0;
        for (int i = 0; i < SIZE; i++) {
            if (state[i] == FREE) {
                used++;
                taken[i] = ++clock;
                return i;
            }
            if (taken[i] < taken[oldest]) {
                oldest = i;
            }
        }
        taken[oldest] = ++clock;
        return oldest;
    }

    private void remove(int i) {
        state[i] = FREE;
        topic[i] = null;
        used--;
    }

    private int find(int leaf, String topic, int partition) {
        for (int i = 0; i < SIZE; i++) {
            if (state[i] != FREE && this.partition[i] == partition && this.leaf[i] == leaf && this.topic[i].equals(topic)) {
                return i;
            }
        }
        return -1;
    }
}
