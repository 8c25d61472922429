package dev.weft.routing.compose;

import dev.weft.routing.Placement;
import dev.weft.routing.TopicCollision;
import dev.weft.routing.TopicRouting;
import dev.weft.routing.VisibleTopic;
import dev.weft.routing.compose.LeafRouter.Level;
import dev.weft.routing.dag.RouteSpec;
import dev.weft.routing.topicweave.VisibleTopicIndex;
import java.util.ArrayList;
import java.util.List;

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
    private final VisibleTopicIndex index;
    private final List<TopicCollision> collisions = new ArrayList<>();

    LeafTopicRouting(Level root, List<RouteSpec> leaves) {
        this.root = root;
        this.leaves = leaves;
        List<VisibleTopic> visible = new ArrayList<>();
        for (VisibleTopic top : root.catalog().visibleTopics()) {
            VisibleTopic leaf = down(root, top);
            if (leaf != null) {
                visible.add(leaf);
            }
        }
        this.index = new VisibleTopicIndex(visible, leaves.size());
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
        return index.visibleTopics();
    }

    @Override
    public VisibleTopic resolve(String virtualName) {
        return index.resolve(virtualName);
    }

    @Override
    public String virtualNameOf(int leaf, String realName) {
        return index.virtualNameOf(leaf, realName);
    }

    @Override
    public VisibleTopic byVirtualId(long mostSignificantBits, long leastSignificantBits) {
        return index.byVirtualId(mostSignificantBits, leastSignificantBits);
    }

    @Override
    public VisibleTopic byRealId(int leaf, long mostSignificantBits, long leastSignificantBits) {
        return index.byRealId(leaf, mostSignificantBits, leastSignificantBits);
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
        return "LeafTopicRouting{visible=" + index.visibleTopics().stream().map(VisibleTopic::virtualName).toList() + ", collisions=" + collisions.size() + "}";
    }
}
