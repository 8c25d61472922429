package dev.weft.proxy.weave;

import dev.weft.protocol.skim.PartitionSkim;
import dev.weft.protocol.skim.UpstreamTopicKeys;
import dev.weft.routing.TopicRouting;
import dev.weft.routing.VisibleTopic;
import java.util.Arrays;

/**
 * Where each partition of a skimmed Produce or Fetch goes on a connection bound to one route: to the
 * connection's broker ({@link #OWN}) under the upstream key (real name or id), or nowhere — the topic
 * is unknown or hidden, or lives on another cluster (the client's metadata is stale) — in which case
 * the partition gets an error in the answer. Arrays are reused: sessions keep a small free list of
 * these, so placing a request allocates nothing once warm (names through the session's
 * {@link TopicNameCache}, ids through the catalog's id index).
 */
final class TopicPlacement implements UpstreamTopicKeys {

    /** Route index in the split: the partition goes to the connection's broker. */
    static final int OWN = 0;
    /** Not sent: answered with an error. */
    static final int REFUSED = -1;

    private final TopicNameCache names;
    int[] routeOf = new int[16];
    byte[][] keys = new byte[8][];
    int routed;
    boolean keysChange;
    boolean unknownTopics;
    boolean foreignTopics;

    TopicPlacement(TopicNameCache names) {
        this.names = names;
    }

    /** Places every partition of {@code skim} for a connection bound to {@code ownRoute}. */
    TopicPlacement place(PartitionSkim skim, WeaveCatalog catalog, int ownRoute) {
        TopicRouting topics = catalog.topics();
        int partitions = skim.partitionCount();
        if (routeOf.length < partitions) {
            routeOf = new int[Math.max(partitions, routeOf.length * 2)];
        }
        int topicCount = skim.topicCount();
        if (keys.length < topicCount) {
            keys = new byte[Math.max(topicCount, keys.length * 2)][];
        }
        Arrays.fill(keys, 0, topicCount, null);
        routed = 0;
        keysChange = false;
        unknownTopics = false;
        foreignTopics = false;
        boolean ids = skim.usesTopicIds();
        for (int t = 0; t < topicCount; t++) {
            VisibleTopic v;
            if (ids) {
                int at = skim.topicNameOffset(t);
                v = topics.byVirtualId(skim.buffer().getLong(at), skim.buffer().getLong(at + 8));
            } else {
                v = names.resolve(catalog, skim.buffer(), skim.topicNameOffset(t), skim.topicNameLength(t));
            }
            int route;
            if (v == null) {
                unknownTopics = true;
                route = REFUSED;
            } else if (v.route() != ownRoute) {
                foreignTopics = true;
                route = REFUSED;
            } else {
                route = OWN;
                byte[] key = catalog.upstreamKey(v, ids);
                keys[t] = key;
                keysChange |= key != null;
            }
            int first = skim.topicFirstPartition(t);
            int end = first + skim.topicPartitionCount(t);
            for (int i = first; i < end; i++) {
                routeOf[i] = route;
            }
            if (route == OWN) {
                routed += end - first;
            }
        }
        return this;
    }

    /** Every partition goes to the connection's broker under the client's own keys: the frame can go as it is. */
    boolean passThrough(int partitions) {
        return routed == partitions && !keysChange;
    }

    /** The upstream key of topic {@code t}, or null for the client's. */
    @Override
    public byte[] upstreamKey(int t) {
        return keys[t];
    }
}
