package dev.weft.routing.compose;

import dev.weft.routing.Placement;
import dev.weft.routing.TopicCollision;
import dev.weft.routing.TopicSegment;
import dev.weft.routing.TopicSegments;
import dev.weft.routing.VisibleTopic;
import dev.weft.routing.compose.LeafRouter.Level;
import dev.weft.routing.dag.RouteSpec;
import dev.weft.routing.topicweave.IndexedTopicRouting;
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
final class LeafTopicRouting implements IndexedTopicRouting {

    private final Level root;
    private final List<RouteSpec> leaves;
    private final VisibleTopicIndex index;
    private final List<TopicCollision> collisions = new ArrayList<>();
    private final List<String> segmentProblems = new ArrayList<>();
    /** Per leaf: every level on its path serves the route it takes (a switch above it points there). */
    private final boolean[] leafServes;
    /** Per leaf: some level on its path fences Produce on the route it takes. */
    private final boolean[] leafFenced;

    LeafTopicRouting(Level root, List<RouteSpec> leaves) {
        this.root = root;
        this.leaves = leaves;
        this.leafServes = new boolean[leaves.size()];
        this.leafFenced = new boolean[leaves.size()];
        markLeaves(root, true, false);
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

    /**
     * The leaf form of a topic of {@code level}: null when an inner level no longer shows it (a stale
     * snapshot). A partition-woven topic, or a topic that is woven at an inner level, comes out woven with
     * every segment at a leaf: a segment whose topic is an inner router's is replaced by that topic's own
     * leaf form, cut to the segment's partitions.
     */
    private static VisibleTopic down(Level level, VisibleTopic top) {
        if (top.woven()) {
            List<TopicSegment> leafSegments = new ArrayList<>();
            for (TopicSegment seg : top.segments().list()) {
                if (!flatten(level, seg, leafSegments)) {
                    return null;
                }
            }
            return VisibleTopic.woven(top.virtualName(), top.virtualId(), new TopicSegments(leafSegments));
        }
        Level next = level.inner()[top.route()];
        if (next == null) {
            return new VisibleTopic(top.virtualName(), level.leafOfRoute()[top.route()], top.realName(), top.virtualId(),
                    top.realId());
        }
        VisibleTopic inner = next.catalog().resolve(top.realName());
        VisibleTopic leaf = inner == null ? null : down(next, inner);
        if (leaf == null) {
            return null;
        }
        return leaf.woven() ? VisibleTopic.woven(top.virtualName(), top.virtualId(), leaf.segments())
                : new VisibleTopic(top.virtualName(), leaf.route(), leaf.realName(), top.virtualId(), leaf.realId());
    }

    /** Adds {@code seg} (of a topic of {@code level}) at the leaves; false when an inner level does not show its topic. */
    private static boolean flatten(Level level, TopicSegment seg, List<TopicSegment> out) {
        Level next = level.inner()[seg.route()];
        if (next == null) {
            out.add(seg.at(level.leafOfRoute()[seg.route()], seg.realName(), seg.realId()));
            return true;
        }
        VisibleTopic inner = next.catalog().resolve(seg.realName());
        VisibleTopic leaf = inner == null ? null : down(next, inner);
        if (leaf == null) {
            return false;
        }
        if (!leaf.woven()) {
            out.add(seg.at(leaf.route(), leaf.realName(), leaf.realId()));
            return true;
        }
        // the segment takes partitions firstReal.. of an inner woven topic: cut them out of its segments
        int lo = seg.firstReal();
        int hi = seg.firstReal() + seg.count();
        for (TopicSegment s : leaf.segments().list()) {
            int from = Math.max(lo, s.firstVirtual());
            int to = Math.min(hi, s.firstVirtual() + s.count());
            if (from < to) {
                out.add(new TopicSegment(s.route(), s.realName(), s.realId(), seg.firstVirtual() + (from - lo),
                        s.toReal(from), to - from));
            }
        }
        return true;
    }

    private void markLeaves(Level level, boolean serves, boolean fenced) {
        for (int k = 0; k < level.leafOfRoute().length; k++) {
            boolean s = serves && level.catalog().routeServes(k);
            boolean f = fenced || level.catalog().produceFenced(k);
            if (level.inner()[k] != null) {
                markLeaves(level.inner()[k], s, f);
            } else {
                leafServes[level.leafOfRoute()[k]] = s;
                leafFenced[level.leafOfRoute()[k]] = f;
            }
        }
    }

    @Override
    public boolean routeServes(int route) {
        return leafServes[route];
    }

    @Override
    public boolean produceFenced(int route) {
        return leafFenced[route];
    }

    private void collect(Level level) {
        collisions.addAll(level.catalog().collisions());
        segmentProblems.addAll(level.catalog().segmentProblems());
        for (Level inner : level.inner()) {
            if (inner != null) {
                collect(inner);
            }
        }
    }

    @Override
    public VisibleTopicIndex index() {
        return index;
    }

    @Override
    public List<String> segmentProblems() {
        return segmentProblems;
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
