package dev.weft.routing.partitionweave;

import dev.weft.routing.Placement;
import dev.weft.routing.RealTopic;
import dev.weft.routing.TopicCollision;
import dev.weft.routing.TopicSegment;
import dev.weft.routing.TopicSegments;
import dev.weft.routing.VisibleTopic;
import dev.weft.routing.topicweave.IndexedTopicRouting;
import dev.weft.routing.topicweave.VisibleTopicIndex;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.Uuid;

/**
 * A partition-weave router's topic view in one snapshot: exactly its logical topics, each a woven
 * {@link VisibleTopic} over the real topics its segments name, with a synthetic topic id. Segments are
 * checked against what the routes show: a physical topic that is missing or has fewer partitions than a
 * segment takes is a {@linkplain #segmentProblems problem} (refuses startup; later, logged and counted),
 * and the logical topic keeps its partitions — the broken segment's partitions then fail at the broker,
 * the others keep flowing. A physical topic that grows changes nothing: the segments say what is woven.
 */
final class WovenCatalog implements IndexedTopicRouting {

    private final String routerPath;
    private final VisibleTopicIndex index;
    private final List<String> problems = new ArrayList<>();

    WovenCatalog(String routerName, String routerPath, PartitionWeaveSettings settings, List<List<RealTopic>> topicsByRoute) {
        this.routerPath = routerPath;
        List<Map<String, RealTopic>> byName = new ArrayList<>();
        for (List<RealTopic> route : topicsByRoute) {
            Map<String, RealTopic> m = new HashMap<>();
            route.forEach(t -> m.putIfAbsent(t.name(), t));
            byName.add(m);
        }
        List<VisibleTopic> visible = new ArrayList<>();
        for (LogicalTopic logical : settings.topics().values()) {
            List<TopicSegment> segments = new ArrayList<>();
            int next = 0;
            for (int s = 0; s < logical.segments().size(); s++) {
                Segment seg = logical.segments().get(s);
                RealTopic real = byName.get(seg.route()).get(seg.topic());
                String where = "topics." + logical.name() + "[" + s + "]: route " + seg.routeName() + ", topic '"
                        + seg.topic() + "', partitions " + seg.range();
                if (real == null) {
                    problems.add(where + ": route " + seg.routeName() + " has no topic '" + seg.topic() + "'");
                } else if (real.partitionCount() >= 0 && seg.lastPartition() >= real.partitionCount()) {
                    problems.add(where + ": topic '" + seg.topic() + "' on route " + seg.routeName() + " has "
                            + real.partitionCount() + " partition(s) (0-" + (real.partitionCount() - 1)
                            + "); a segment takes only partitions the topic has");
                }
                Uuid realId = real == null ? Uuid.ZERO_UUID : real.id();
                segments.add(new TopicSegment(seg.route(), seg.topic(), realId, next, seg.firstPartition(), seg.size()));
                next += seg.size();
            }
            visible.add(VisibleTopic.woven(logical.name(), syntheticId(routerName, logical.name()), new TopicSegments(segments)));
        }
        visible.sort(Comparator.comparing(VisibleTopic::virtualName));
        this.index = new VisibleTopicIndex(visible, topicsByRoute.size());
    }

    /**
     * The logical topic's id: the same on every proxy replica and across restarts, derived from the router
     * and topic names (a name-based UUID); never zero, never the metadata topic's id, and never starting
     * with '-' in its base64 form (as Kafka's own random ids).
     */
    static Uuid syntheticId(String routerName, String topic) {
        try {
            byte[] h = MessageDigest.getInstance("SHA-256")
                    .digest(("weft partition-weave\0" + routerName + "\0" + topic).getBytes(StandardCharsets.UTF_8));
            long msb = 0;
            long lsb = 0;
            for (int i = 0; i < 8; i++) {
                msb = msb << 8 | (h[i] & 0xff);
                lsb = lsb << 8 | (h[8 + i] & 0xff);
            }
            msb &= Long.MAX_VALUE;         // first base64 character below 'g': never '-'
            msb |= 1L << 40;               // never zero, never Uuid.ONE_UUID (msb 0)
            return new Uuid(msb, lsb);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JDK", e);
        }
    }

    @Override
    public VisibleTopicIndex index() {
        return index;
    }

    @Override
    public List<TopicCollision> collisions() {
        return List.of();
    }

    @Override
    public List<String> segmentProblems() {
        return problems;
    }

    /** A partition-weave router shows its logical topics only: topics are made in its config, not by clients. */
    @Override
    public Placement place(String virtualName) {
        if (index.resolve(virtualName) != null) {
            return new Placement.Refused(Placement.Reason.WOULD_BE_HIDDEN, "topic '" + virtualName
                    + "' is a partition-woven topic defined by " + routerPath + ".topics." + virtualName
                    + "; its partitions are changed there, not by CreateTopics/CreatePartitions/DeleteTopics");
        }
        return new Placement.Refused(Placement.Reason.WOULD_BE_HIDDEN, "a partition-weave router (" + routerPath
                + ") shows only the logical topics of its config; create '" + virtualName + "' on a cluster and add"
                + " it as a segment there");
    }

    @Override
    public String toString() {
        return "WovenCatalog" + index.visibleTopics().stream().map(v -> v.virtualName() + v.segments()).toList();
    }
}
