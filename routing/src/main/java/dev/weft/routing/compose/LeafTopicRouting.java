package dev.weft.routing.compose;

import dev.weft.routing.Placement;
import dev.weft.routing.TopicCollision;
import dev.weft.routing.TopicRouting;
import dev.weft.routing.VisibleTopic;
import dev.weft.routing.compose.LeafRouter.Level;
import dev.weft.routing.dag.RouteSpec;
import dev.weft.routing.topicweave.UuidIndex;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.Uuid;

/**
 * The topic view of a nested routing DAG, flattened once per snapshot: each topic the top router shows
 * is followed down (its real name at one level is its virtual name at the next) to the leaf cluster
 * that holds it, and indexed by virtual name, virtual id, and (leaf, real name | real id). Lookups are
 * map gets, as in a single router's catalog. Placement asks each level in turn; collisions are every
 * level's.
 */
final class LeafTopicRouting implements TopicRouting {

    private final Level root;
    private final List<RouteSpec> leaves;
    private final List<VisibleTopic> visible = new ArrayList<>();
    private final Map<String, VisibleTopic> byName = new HashMap<>();
    private final UuidIndex byVirtualId;
    private final List<Map<String, VisibleTopic>> byRealName = new ArrayList<>();
    private final List<UuidIndex> byRealId = new ArrayList<>();
    private final List<TopicCollision> collisions = new ArrayList<>();

    LeafTopicRouting(Level root, List<RouteSpec> leaves) {
        this.root = root;
        this.leaves = leaves;
        for (int i = 0; i < leaves.size(); i++) {
            byRealName.add(new HashMap<>());
        }
        for (VisibleTopic top : root.catalog().visibleTopics()) {
            VisibleTopic leaf = down(root, top);
            if (leaf != null) {
                visible.add(leaf);
            }
        }
        byVirtualId = new UuidIndex(visible.size());
        int[] perLeaf = new int[leaves.size()];
        visible.forEach(t -> perLeaf[t.route()]++);
        for (int i = 0; i < leaves.size(); i++) {
            byRealId.add(new UuidIndex(perLeaf[i]));
        }
        for (int i = 0; i < visible.size(); i++) {
            VisibleTopic t = visible.get(i);
            byName.put(t.virtualName(), t);
            byRealName.get(t.route()).putIfAbsent(t.realName(), t);
            if (!Uuid.ZERO_UUID.equals(t.virtualId())) {
                byVirtualId.putIfAbsent(t.virtualId().getMostSignificantBits(), t.virtualId().getLeastSignificantBits(), i);
            }
            if (!Uuid.ZERO_UUID.equals(t.realId())) {
                byRealId.get(t.route()).putIfAbsent(t.realId().getMostSignificantBits(), t.realId().getLeastSignificantBits(), i);
            }
        }
        collect(root);
    }

    /** The leaf form of a topic of {@code level}: null when an inner level no longer shows it (a stale snapshot). */
    private static VisibleTopic down(Level level, VisibleTopic top) {
        Level at = level;
        VisibleTopic t = top;
        while (at.inner()[t.route()] != null) {
            Level next = at.inner()[t.route()];
            VisibleTopic inner = next.catalog().resolve(t.realName());
            if (inner == null) {
                return null;
            }
            at = next;
            t = inner;
        }
        return new VisibleTopic(top.virtualName(), at.leafOfRoute()[t.route()], t.realName(), top.virtualId(), t.realId());
    }

    private void collect(Level level) {
        collisions.addAll(level.catalog().collisions());
        for (Level inner : level.inner()) {
            if (inner != null) {
                collect(inner);
            }
        }
    }

    @Override
    public List<VisibleTopic> visibleTopics() {
        return visible;
    }

    @Override
    public VisibleTopic resolve(String virtualName) {
        return byName.get(virtualName);
    }

    @Override
    public String virtualNameOf(int leaf, String realName) {
        VisibleTopic t = byRealName.get(leaf).get(realName);
        return t == null ? null : t.virtualName();
    }

    @Override
    public VisibleTopic byVirtualId(long mostSignificantBits, long leastSignificantBits) {
        int i = byVirtualId.get(mostSignificantBits, leastSignificantBits);
        return i < 0 ? null : visible.get(i);
    }

    @Override
    public VisibleTopic byRealId(int leaf, long mostSignificantBits, long leastSignificantBits) {
        int i = byRealId.get(leaf).get(mostSignificantBits, leastSignificantBits);
        return i < 0 ? null : visible.get(i);
    }

    @Override
    public List<TopicCollision> collisions() {
        return collisions;
    }

    /** Each level places the name it is given (its virtual name) by its own rules, down to a leaf. */
    @Override
    public Placement place(String virtualName) {
        Level at = root;
        String name = virtualName;
        while (true) {
            Placement p = at.catalog().place(name);
            if (!(p instanceof Placement.Placed placed)) {
                return p;
            }
            Level next = at.inner()[placed.route()];
            if (next == null) {
                int leaf = at.leafOfRoute()[placed.route()];
                return new Placement.Placed(leaf, leaves.get(leaf).name(), placed.realName());
            }
            at = next;
            name = placed.realName();
        }
    }

    @Override
    public String toString() {
        return "LeafTopicRouting{visible=" + byName.keySet() + ", collisions=" + collisions.size() + "}";
    }
}
