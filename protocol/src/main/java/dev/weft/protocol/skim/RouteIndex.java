package dev.weft.protocol.skim;

import java.util.Arrays;
import java.util.BitSet;

/**
 * Which of a skimmed request's partitions each part of a split holds, found for every route in one
 * counting sort of {@code routeOf}. A split builds its parts one after another from the same skim and
 * {@code routeOf}; choosing each part's partitions by walking the whole request made an N-way split walk
 * it N times, with a {@code routeOf[i] == route} test per partition and part that mispredicts when
 * partitions alternate between brokers.
 *
 * <p>Per <em>slot</em> (a route; a lone selection — a {@link BitSet}, every partition on one route, or a
 * route beyond what is worth counting — is slot 0): its partitions in request order. {@link #describe}
 * then cuts one slot into <em>runs</em> of one topic (a run is one topic entry of the part) and sums the
 * metadata bytes they take, to size the part's metadata chunk: once per part, so over all parts once per
 * partition.
 *
 * <p>The slots hold flat partition indexes only (topics are read from the skim by {@link #describe}), so
 * they depend on nothing but the partition count and {@code routeOf}: they are kept across {@link #slot}
 * calls while both are what they were, which a copy of {@code routeOf} checks — a vectorized compare,
 * far cheaper than the sort it saves. Arrays only grow; no allocation once warm. Not thread-safe.
 */
final class RouteIndex {

    /** Routes counted per slot beyond the partition count: more are sparse enough to select one by one. */
    private static final int ROUTE_SLACK = 16;

    /** The routeOf sorted, or null when the slots came from a BitSet. */
    private int[] indexedRouteOf;
    private int indexedPartitions = -1;
    private int[] routeCopy = new int[16];
    /** Every route has its own slot; else {@link #loneRoute} alone is slot 0. */
    private boolean everyRoute;
    private int loneRoute;
    private int slots;

    /** Every partition is in slot 0, in order: {@link #members} is not filled. */
    private boolean identity;
    /** Per slot s, members[memberStart[s] .. memberStart[s + 1]) are its partitions. */
    private int[] memberStart = new int[17];
    private int[] members = new int[16];
    private int[] nextMember = new int[16];

    // the slot last described
    private int runCount;
    /** Per run k, its partitions are member positions runStart[k] .. runStart[k + 1] - 1. */
    private int[] runStart = new int[17];
    private int[] runTopic = new int[16];
    private long partitionBytes;
    private long runBytes;

    /**
     * The slot of the partitions {@code i} with {@code routeOf[i] == route}, sorting {@code routeOf}
     * again unless the slots still hold what it says.
     */
    int slot(PartitionSkim skim, int[] routeOf, int route) {
        int partitions = skim.partitionCount();
        if (indexedRouteOf == routeOf && indexedPartitions == partitions
                && Arrays.equals(routeOf, 0, partitions, routeCopy, 0, partitions)) {
            if (everyRoute && route >= 0 && route < slots) {
                return route;
            }
            if (!everyRoute && route == loneRoute) {
                return 0;
            }
        }
        int minRoute = Integer.MAX_VALUE;
        int maxRoute = Integer.MIN_VALUE;
        for (int i = 0; i < partitions; i++) {
            minRoute = Math.min(minRoute, routeOf[i]);
            maxRoute = Math.max(maxRoute, routeOf[i]);
        }
        everyRoute = false;
        loneRoute = route;
        if (minRoute == route && maxRoute == route) {
            lone(partitions, true, null, null, route);
        } else if (route >= 0 && route <= maxRoute && maxRoute < partitions + ROUTE_SLACK) {
            everyRoute = true;
            countingSort(routeOf, partitions, maxRoute + 1);
        } else {
            lone(partitions, false, null, routeOf, route);
        }
        if (routeCopy.length < partitions) {
            routeCopy = new int[Math.max(partitions, routeCopy.length * 2)];
        }
        System.arraycopy(routeOf, 0, routeCopy, 0, partitions);
        indexedRouteOf = routeOf;
        indexedPartitions = partitions;
        return everyRoute ? route : 0;
    }

    /** Indexes the partitions {@code i} with {@code bits.get(i)} alone, as slot 0. */
    int select(PartitionSkim skim, BitSet bits) {
        lone(skim.partitionCount(), false, bits, null, 0);
        indexedRouteOf = null; // a BitSet can change unseen: never reused
        return 0;
    }

    /**
     * Cuts slot {@code slot} into runs of one topic and sums their sizes ({@link #partitionBytes()},
     * {@link #runBytes()}), for {@link #runCount()} and the run accessors until the next call.
     */
    <S extends RequestSkim> void describe(int slot, S skim, RequestSplitter<S> sizes) {
        TopicTable topics = skim.topics;
        int from = memberStart[slot];
        int to = memberStart[slot + 1];
        if (runTopic.length < to - from) {
            int n = Math.max(to - from, runTopic.length * 2);
            runTopic = new int[n];
            runStart = new int[n + 1];
        }
        int runs = 0;
        int topic = -1;
        long entries = 0;
        long topicEntries = 0;
        for (int m = from; m < to; m++) {
            int i = member(m);
            int t = skim.partitionTopic(i);
            if (t != topic) {
                topic = t;
                runTopic[runs] = t;
                runStart[runs++] = m;
                topicEntries += topics.keyEnd(t) - topics.entryOffset(t) + RequestSplitter.MAX_ARRAY_LENGTH_BYTES
                        + topics.endOffset(t) - topics.taggedOffset(t);
            }
            entries += sizes.partitionMetadataBytes(skim, i);
        }
        runStart[runs] = to;
        runCount = runs;
        partitionBytes = entries;
        runBytes = topicEntries;
    }

    int runCount() {
        return runCount;
    }

    int runTopic(int run) {
        return runTopic[run];
    }

    /** Member position of the run's first partition; the run ends where run {@code run + 1} starts. */
    int runStart(int run) {
        return runStart[run];
    }

    /** The partition at member position {@code m}. */
    int member(int m) {
        return identity ? m : members[m];
    }

    /** Metadata bytes of the described slot's partition entries (records excluded). */
    long partitionBytes() {
        return partitionBytes;
    }

    /** Bytes of the described slot's topic entries around their partitions, as the client encoded them, counts at their widest. */
    long runBytes() {
        return runBytes;
    }

    /** Slot 0: every partition ({@code all}), or those whose bit is set, or those on {@code route}. */
    private void lone(int partitions, boolean all, BitSet bits, int[] routeOf, int route) {
        slots = 1;
        identity = all;
        memberStart[0] = 0;
        if (all) {
            memberStart[1] = partitions;
            return;
        }
        ensureMembers(partitions);
        int n = 0;
        for (int i = 0; i < partitions; i++) {
            if (bits != null ? bits.get(i) : routeOf[i] == route) {
                members[n++] = i;
            }
        }
        memberStart[1] = n;
    }

    /** One slot per route 0..slotCount-1, in two passes over routeOf; negative routes are left out. */
    private void countingSort(int[] routeOf, int partitions, int slotCount) {
        slots = slotCount;
        identity = false;
        ensureMembers(partitions);
        if (nextMember.length < slotCount) {
            int n = Math.max(slotCount, nextMember.length * 2);
            nextMember = new int[n];
            memberStart = new int[n + 1];
        }
        Arrays.fill(memberStart, 0, slotCount + 1, 0);
        for (int i = 0; i < partitions; i++) {
            int s = routeOf[i];
            if (s >= 0) {
                memberStart[s + 1]++;
            }
        }
        for (int s = 0; s < slotCount; s++) {
            memberStart[s + 1] += memberStart[s];
            nextMember[s] = memberStart[s];
        }
        for (int i = 0; i < partitions; i++) {
            int s = routeOf[i];
            if (s >= 0) {
                members[nextMember[s]++] = i;
            }
        }
    }

    private void ensureMembers(int partitions) {
        if (members.length < partitions) {
            members = new int[Math.max(partitions, members.length * 2)];
        }
    }
}
