package dev.weft.protocol.skim;

/**
 * The partition index to send upstream in place of the client's, per partition of a skimmed Produce or
 * Fetch request (partition weaving, DESIGN §1: virtual partition 17 of {@code orders} may be partition 1
 * of {@code orders-eu} on another cluster). {@link RequestSplitter} writes it as the leading int32 of
 * each partition entry it sends (4 bytes of new metadata; the rest of the entry is the client's, records
 * carried as retained slices); the response mergers match upstream answers by that same <em>sent</em>
 * index, under the key sent for the partition ({@link UpstreamTopicKeys#upstreamKey(int, int)}), and
 * write the <em>client's</em> index into the client's response.
 *
 * <p>Indexes are asked by the skim's flat partition index {@code i}
 * (0..{@code partitionCount()-1}, wire order across all topics). A negative answer —
 * conventionally {@link #CLIENT_INDEX} — means "send the client's index unchanged" (Kafka partition
 * indexes are never negative). Implementations are asked on the event loop, once per chosen partition
 * per split and once per partition per merge: keep {@link #upstreamPartition(int)} an array lookup,
 * with no allocation or boxing. The (key sent, index sent) pairs must be distinct within a request (as
 * they are in a weave, where each virtual partition is one physical partition): a merger gives each
 * upstream answer to the partition it was sent for by that pair alone.
 */
@FunctionalInterface
public interface UpstreamPartitions {

    /** Answer of {@link #upstreamPartition(int)} for "the client's own partition index". */
    int CLIENT_INDEX = -1;

    /**
     * The partition index to send upstream for partition {@code i} of the request, or a negative value
     * (conventionally {@link #CLIENT_INDEX}) to send the client's.
     */
    int upstreamPartition(int i);

    /**
     * The answers of {@link #upstreamPartition(int)} as the array the implementation keeps them in (entry
     * {@code i} for partition {@code i}, long enough for every partition of the request), or null when it
     * keeps none. The splitters read it to patch a stretch of partition entries in one tight loop; they
     * never write it.
     */
    default int[] upstreamPartitions() {
        return null;
    }

    /**
     * Whether partition {@code i}'s answer comes from a replica whose end offsets may lag the leader's
     * (a follower chosen by rack-aware fetch): the merged Fetch answer then reports its high watermark
     * and last stable offset as unknown (-1), so no client concludes from it that it reached the end.
     */
    default boolean withholdsEndOffsets(int i) {
        return false;
    }

    /**
     * Indexes by flat partition index from an array the caller owns and may refill between requests
     * (kept by reference): {@code indexes[i]}, or {@link #CLIENT_INDEX} past its end.
     */
    static UpstreamPartitions of(int[] indexes) {
        return i -> i < indexes.length ? indexes[i] : CLIENT_INDEX;
    }

    /**
     * The index sent upstream for partition {@code i} of {@code skim}: {@code partitions}' answer, or the
     * client's own when {@code partitions} is null or answers a negative value.
     */
    static int sent(UpstreamPartitions partitions, PartitionSkim skim, int i) {
        if (partitions != null) {
            int upstream = partitions.upstreamPartition(i);
            if (upstream >= 0) {
                return upstream;
            }
        }
        return skim.partitionIndex(i);
    }
}
