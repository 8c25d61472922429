package dev.weft.routing;

import dev.weft.protocol.skim.UpstreamKeyHash;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * The segments of one partition-woven topic, in virtual-partition order, with what the hot path needs
 * precomputed: the starts for a binary search, and each segment's real name and id as raw bytes (the
 * upstream keys a renumbered Produce or Fetch partition is sent under). Immutable; lookups allocate
 * nothing.
 */
public final class TopicSegments {

    private final List<TopicSegment> segments;
    private final int[] firstVirtual;
    private final byte[][] nameKeys;
    private final byte[][] idKeys;
    private final int[] nameKeyHashes;
    private final int[] idKeyHashes;
    private final int partitionCount;

    /** @param segments contiguous runs from virtual partition 0, in order */
    public TopicSegments(List<TopicSegment> segments) {
        this.segments = List.copyOf(segments);
        if (this.segments.isEmpty()) {
            throw new IllegalArgumentException("a woven topic has at least one segment");
        }
        int n = this.segments.size();
        firstVirtual = new int[n];
        nameKeys = new byte[n][];
        idKeys = new byte[n][];
        nameKeyHashes = new int[n];
        idKeyHashes = new int[n];
        int next = 0;
        for (int s = 0; s < n; s++) {
            TopicSegment seg = this.segments.get(s);
            if (seg.firstVirtual() != next) {
                throw new IllegalArgumentException("segment " + s + " starts at virtual partition " + seg.firstVirtual()
                        + ", not " + next);
            }
            firstVirtual[s] = next;
            next = Math.addExact(next, seg.count());
            nameKeys[s] = seg.realName().getBytes(StandardCharsets.UTF_8);
            idKeys[s] = ByteBuffer.allocate(16).putLong(seg.realId().getMostSignificantBits())
                    .putLong(seg.realId().getLeastSignificantBits()).array();
            nameKeyHashes[s] = UpstreamKeyHash.of(nameKeys[s]);
            idKeyHashes[s] = UpstreamKeyHash.of(idKeys[s]);
        }
        partitionCount = next;
    }

    public List<TopicSegment> list() {
        return segments;
    }

    public int size() {
        return segments.size();
    }

    public TopicSegment get(int s) {
        return segments.get(s);
    }

    /** The number of virtual partitions. */
    public int partitionCount() {
        return partitionCount;
    }

    /** The index of the segment holding virtual partition {@code virtualPartition}, or -1 when the topic has no such partition. */
    public int indexOf(int virtualPartition) {
        if (virtualPartition < 0 || virtualPartition >= partitionCount) {
            return -1;
        }
        int found = Arrays.binarySearch(firstVirtual, virtualPartition);
        return found >= 0 ? found : -found - 2;
    }

    /** The segment holding virtual partition {@code virtualPartition}, or null. */
    public TopicSegment of(int virtualPartition) {
        int s = indexOf(virtualPartition);
        return s < 0 ? null : segments.get(s);
    }

    /** Segment {@code s}'s upstream key: its real name (UTF-8) or its 16 real id bytes. */
    public byte[] upstreamKey(int s, boolean topicIds) {
        return topicIds ? idKeys[s] : nameKeys[s];
    }

    /** {@link UpstreamKeyHash#of} segment {@code s}'s {@link #upstreamKey}, precomputed. */
    public int upstreamKeyHash(int s, boolean topicIds) {
        return topicIds ? idKeyHashes[s] : nameKeyHashes[s];
    }

    /** The virtual partition of real partition {@code realPartition} of real topic {@code realName} behind {@code route}, or -1. */
    public int toVirtual(int route, String realName, int realPartition) {
        for (TopicSegment seg : segments) {
            if (seg.route() == route && seg.realName().equals(realName)) {
                int v = seg.toVirtual(realPartition);
                if (v >= 0) {
                    return v;
                }
            }
        }
        return -1;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TopicSegments other && segments.equals(other.segments);
    }

    @Override
    public int hashCode() {
        return segments.hashCode();
    }

    @Override
    public String toString() {
        return segments.toString();
    }
}
