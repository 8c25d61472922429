package dev.weft.routing.api;

import dev.weft.routing.TopicRouting;
import dev.weft.routing.VisibleTopic;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * A topic catalog snapshot plus what the hot path needs precomputed from it: for each visible topic
 * whose real name or id differs from what clients use, the raw upstream key bytes (UTF-8 name, or
 * the 16 id bytes), so renaming a Produce or Fetch allocates nothing. Immutable; shared by all cores.
 */
public record HotCatalog(TopicRouting topics, Map<VisibleTopic, byte[]> upstreamNames, Map<VisibleTopic, byte[]> upstreamIds) {

    public static HotCatalog of(TopicRouting topics) {
        Map<VisibleTopic, byte[]> names = new IdentityHashMap<>();
        Map<VisibleTopic, byte[]> ids = new IdentityHashMap<>();
        for (VisibleTopic t : topics.visibleTopics()) {
            if (t.woven()) {
                continue; // keyed per partition, by its segment (TopicSegments.upstreamKey)
            }
            if (!t.realName().equals(t.virtualName())) {
                names.put(t, t.realName().getBytes(StandardCharsets.UTF_8));
            }
            if (!t.realId().equals(t.virtualId())) {
                ids.put(t, ByteBuffer.allocate(16).putLong(t.realId().getMostSignificantBits())
                        .putLong(t.realId().getLeastSignificantBits()).array());
            }
        }
        return new HotCatalog(topics, names, ids);
    }

    /** The key to send upstream instead of the client's, or null when the client's is right. */
    public byte[] upstreamKey(VisibleTopic t, boolean topicIds) {
        return topicIds ? upstreamIds.get(t) : upstreamNames.get(t);
    }
}
