package dev.weft.protocol.skim;

import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.Uuid;

/**
 * The topic keys to send upstream in place of the client's, per topic of a skimmed Produce or Fetch
 * request (topic weaving renames: DESIGN §5 "Topic ids", issue #4). {@link RequestSplitter} writes the
 * replacement key of each topic it sends; the response mergers match upstream answers by that same
 * <em>sent</em> key and write the <em>client's</em> key into the client's response.
 *
 * <p>A key is raw bytes, without any length prefix:
 * <ul>
 *   <li>versions with topic names (Produce v3–12, Fetch v4–12): the UTF-8 bytes of the upstream name;
 *       the writer adds the STRING (int16) or COMPACT_STRING (uvarint) length;</li>
 *   <li>versions with topic ids (Produce v13+, Fetch v13+): the 16 bytes of the upstream topic id
 *       (most significant long first, big-endian, as on the wire).</li>
 * </ul>
 * {@code null} means "send the client's key unchanged". The caller precomputes the byte arrays
 * (per virtual topic, when the topology snapshot is built: {@link #nameKey}, {@link #topicIdKey}) and
 * hands out the same arrays for every request, so nothing is allocated per request or partition. The
 * arrays are read, never written or kept, by the builders and mergers.
 *
 * <p><b>Per partition</b> (partition weaving, DESIGN §1): the partitions of one client topic may live in
 * different upstream topics — {@code orders} 0..2 in {@code orders-us}, 3..5 in {@code orders-eu} —
 * and two of them can go to the same upstream. An implementation then answers
 * {@link #keysPerPartition()} true and {@link #upstreamKey(int, int)} per partition; the builders write
 * one upstream topic entry per distinct key (by content) in each sub-request, its partitions in the
 * client's order, and the mergers match each partition by the key asked for it. Otherwise
 * {@link #upstreamKey(int, int)} is the topic's key and the builders write one topic entry per client
 * topic, as before. Usually combined with {@link UpstreamPartitions} (the partition index sent).
 *
 * <p>Implementations are asked on the event loop, once per chosen topic (or, per partition, once per
 * chosen partition) per split and once or a few times per partition per merge: keep
 * {@link #upstreamKey(int)} and {@link #upstreamKey(int, int)} array lookups. A key of the wrong kind
 * (not 16 bytes where topic ids are used, or a name longer than 32767 bytes) is refused with an
 * {@link IllegalArgumentException} when the request is built.
 */
@FunctionalInterface
public interface UpstreamTopicKeys {

    /**
     * The key to send upstream for topic {@code t} of the request (0..{@code topicCount()-1}, the skim's
     * topic order), or null to send the client's own key.
     */
    byte[] upstreamKey(int t);

    /**
     * The key to send upstream for partition {@code i} (flat index, 0..{@code partitionCount()-1}, wire
     * order) of topic {@code t} (its topic, {@code partitionTopic(i)}), or null to send the client's own
     * key of {@code t}. Asked by the builders and mergers only when {@link #keysPerPartition()} (else
     * they ask {@link #upstreamKey(int)}). By default the topic's key.
     */
    default byte[] upstreamKey(int t, int i) {
        return upstreamKey(t);
    }

    /**
     * When {@link #keysPerPartition()}: if partition {@code i} starts a stretch of wire-adjacent partitions
     * of its topic that all go under {@link #upstreamKey(int, int) its key} (a woven topic's segment), the
     * flat index after that stretch; else any value not above {@code i}. The builders then take the
     * stretch's partitions, as far as they send them, as one block without asking each its key. A
     * planning aid only: an implementation that does not know answers 0 (the default) and each
     * partition is asked.
     */
    default int keyStretchEnd(int i) {
        return 0;
    }

    /**
     * With {@link #keyStretchEnd}: the {@link UpstreamKeyHash#of} of the key of the stretch starting at
     * partition {@code i} of topic {@code t}, precomputed with the key (asked only where
     * {@code keyStretchEnd(i) > i}). By default computed.
     */
    default int keyStretchHash(int t, int i) {
        return UpstreamKeyHash.of(upstreamKey(t, i));
    }

    /**
     * True when {@link #upstreamKey(int, int)} may differ between partitions of one topic (the builders
     * then group each sub-request's partitions by key). Asked once per split; may change between
     * requests (e.g. true only for plans that renumber a woven topic), but must answer the same for a
     * request's split and its merge. False by default.
     */
    default boolean keysPerPartition() {
        return false;
    }

    /**
     * Keys by topic index from an array the caller owns and may refill between requests (kept by
     * reference): {@code keys[t]}, or null past its end.
     */
    static UpstreamTopicKeys of(byte[][] keys) {
        return t -> t < keys.length ? keys[t] : null;
    }

    /**
     * Keys by flat partition index from an array the caller owns and may refill between requests (kept
     * by reference): partition {@code i} goes out under {@code keys[i]} (null, or past its end: the
     * client's key of its topic). {@link #keysPerPartition()} is true.
     */
    static UpstreamTopicKeys perPartition(byte[][] keys) {
        return new UpstreamTopicKeys() {
            @Override
            public byte[] upstreamKey(int t) {
                return null;
            }

            @Override
            public byte[] upstreamKey(int t, int i) {
                return i < keys.length ? keys[i] : null;
            }

            @Override
            public boolean keysPerPartition() {
                return true;
            }
        };
    }

    /** The key for an upstream topic name: its UTF-8 bytes (allocates: precompute it). */
    static byte[] nameKey(String name) {
        return name.getBytes(StandardCharsets.UTF_8);
    }

    /** The key for an upstream topic id: its 16 wire bytes (allocates: precompute it). */
    static byte[] topicIdKey(Uuid id) {
        return topicIdKey(id.getMostSignificantBits(), id.getLeastSignificantBits());
    }

    /** The key for an upstream topic id given as two longs (allocates: precompute it). */
    static byte[] topicIdKey(long mostSignificantBits, long leastSignificantBits) {
        byte[] key = new byte[TopicTable.TOPIC_ID_BYTES];
        for (int b = 0; b < 8; b++) {
            key[b] = (byte) (mostSignificantBits >>> (56 - 8 * b));
            key[8 + b] = (byte) (leastSignificantBits >>> (56 - 8 * b));
        }
        return key;
    }
}
