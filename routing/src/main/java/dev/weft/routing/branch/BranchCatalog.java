package dev.weft.routing.branch;

import dev.weft.routing.Placement;
import dev.weft.routing.RealTopic;
import dev.weft.routing.TopicCollision;
import dev.weft.routing.TopicRouting;
import dev.weft.routing.VisibleTopic;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.Uuid;

/**
 * The primary's topic view (what clients see), plus for each visible topic where its copies go: one
 * {@link BranchTopic} per branch that takes it, keys precomputed so planning allocates nothing.
 * Immutable; rebuilt with every catalog snapshot.
 */
final class BranchCatalog implements TopicRouting {

    private static final BranchTopic[] NONE = new BranchTopic[0];

    private final TopicRouting primary;
    private final Map<VisibleTopic, BranchTopic[]> copies = new IdentityHashMap<>();

    BranchCatalog(TopicRouting primary, List<BranchRoute> branches, List<List<RealTopic>> topicsByRoute) {
        this.primary = primary;
        List<Map<String, Uuid>> idsByRoute = new ArrayList<>();
        for (List<RealTopic> topics : topicsByRoute) {
            Map<String, Uuid> ids = new HashMap<>();
            topics.forEach(t -> ids.put(t.name(), t.id()));
            idsByRoute.add(ids);
        }
        for (VisibleTopic v : primary.visibleTopics()) {
            List<BranchTopic> out = new ArrayList<>();
            for (BranchRoute b : branches) {
                if (!b.naming().visible(v.realName())) {
                    continue;
                }
                String name = b.naming().virtualName(v.realName());
                Uuid id = idsByRoute.get(b.route()).get(name);
                byte[] idKey = id == null || id.equals(Uuid.ZERO_UUID) ? null
                        : ByteBuffer.allocate(16).putLong(id.getMostSignificantBits()).putLong(id.getLeastSignificantBits()).array();
                out.add(new BranchTopic(b.route(), name, name.getBytes(StandardCharsets.UTF_8), idKey, b.transforms() != null));
            }
            if (!out.isEmpty()) {
                copies.put(v, out.toArray(BranchTopic[]::new));
            }
        }
    }

    /** Where copies of {@code topic} (one of {@link #visibleTopics()}) go; empty when no branch takes it. */
    BranchTopic[] branchesOf(VisibleTopic topic) {
        BranchTopic[] b = copies.get(topic);
        return b == null ? NONE : b;
    }

    @Override
    public List<VisibleTopic> visibleTopics() {
        return primary.visibleTopics();
    }

    @Override
    public VisibleTopic resolve(String virtualName) {
        return primary.resolve(virtualName);
    }

    @Override
    public String virtualNameOf(int route, String realName) {
        return primary.virtualNameOf(route, realName);
    }

    @Override
    public VisibleTopic byVirtualId(long mostSignificantBits, long leastSignificantBits) {
        return primary.byVirtualId(mostSignificantBits, leastSignificantBits);
    }

    @Override
    public VisibleTopic byRealId(int route, long mostSignificantBits, long leastSignificantBits) {
        return primary.byRealId(route, mostSignificantBits, leastSignificantBits);
    }

    @Override
    public List<TopicCollision> collisions() {
        return primary.collisions();
    }

    @Override
    public Placement place(String virtualName) {
        return primary.place(virtualName);
    }
}
