package dev.weft.routing.partitionweave;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * A topic clients see whose partitions are its segments' partitions, concatenated in order: with
 * segments {@code orders 0-15} and {@code orders-eu 0-15}, virtual partitions 0-15 are the first and
 * 16-31 the second.
 *
 * <p>The lookups run on the hot path (every Produce and Fetch partition): they read int arrays built here
 * once and allocate nothing. Every lookup is total: a number outside the topic or segment answers -1.
 */
public final class LogicalTopic {

    private final String name;
    private final List<Segment> segments;
    /** {@code firstVirtual[s]}: the virtual partition of segment s's first partition; last entry = count. */
    private final int[] firstVirtual;
    private final int[] firstPhysical;
    private final int[] lastPhysical;

    /**
     * @throws IllegalArgumentException when there are no segments, or more partitions in all than an int
     *     counts (the reader reports both as problems before building one)
     */
    public LogicalTopic(String name, List<Segment> segments) {
        this.name = Objects.requireNonNull(name, "name");
        this.segments = List.copyOf(segments);
        if (this.segments.isEmpty()) {
            throw new IllegalArgumentException("logical topic '" + name + "' has no segments");
        }
        int n = this.segments.size();
        firstVirtual = new int[n + 1];
        firstPhysical = new int[n];
        lastPhysical = new int[n];
        long next = 0;
        for (int s = 0; s < n; s++) {
            Segment segment = this.segments.get(s);
            firstVirtual[s] = (int) next;
            firstPhysical[s] = segment.firstPartition();
            lastPhysical[s] = segment.lastPartition();
            next += segment.size();
            if (next > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("logical topic '" + name + "' has more than " + Integer.MAX_VALUE + " partitions");
            }
        }
        firstVirtual[n] = (int) next;
    }

    public String name() {
        return name;
    }

    /** The segments in config order. */
    public List<Segment> segments() {
        return segments;
    }

    /** The number of virtual partitions: the sum of the segments' sizes. */
    public int partitionCount() {
        return firstVirtual[segments.size()];
    }

    /** The index of the segment holding virtual partition {@code virtualPartition}, or -1 when out of range. */
    public int segmentOf(int virtualPartition) {
        int n = segments.size();
        if (virtualPartition < 0 || virtualPartition >= firstVirtual[n]) {
            return -1;
        }
        // segments are never empty, so the starts are strictly increasing: a plain binary search finds
        // the last start at or below the partition
        int found = Arrays.binarySearch(firstVirtual, 0, n, virtualPartition);
        return found >= 0 ? found : -found - 2;
    }

    /** The physical partition behind virtual partition {@code virtualPartition} (in its segment's topic), or -1. */
    public int physicalPartition(int virtualPartition) {
        int s = segmentOf(virtualPartition);
        return s < 0 ? -1 : firstPhysical[s] + (virtualPartition - firstVirtual[s]);
    }

    /**
     * The virtual partition of physical partition {@code physicalPartition} of segment {@code segment}, or
     * -1 when the segment does not take that partition (or there is no such segment).
     */
    public int virtualPartition(int segment, int physicalPartition) {
        if (segment < 0 || segment >= segments.size()
                || physicalPartition < firstPhysical[segment] || physicalPartition > lastPhysical[segment]) {
            return -1;
        }
        return firstVirtual[segment] + (physicalPartition - firstPhysical[segment]);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof LogicalTopic other && name.equals(other.name) && segments.equals(other.segments);
    }

    @Override
    public int hashCode() {
        return 31 * name.hashCode() + segments.hashCode();
    }

    @Override
    public String toString() {
        return "LogicalTopic[" + name + ", " + segments + "]";
    }
}
