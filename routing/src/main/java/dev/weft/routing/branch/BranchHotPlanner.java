package dev.weft.routing.branch;

import dev.weft.protocol.produce.ProduceRequestSkim;
import dev.weft.protocol.skim.PartitionSkim;
import dev.weft.routing.VisibleTopic;
import dev.weft.routing.api.HotContext;
import dev.weft.routing.api.HotPlanner;
import dev.weft.routing.api.RoutePlan;
import dev.weft.routing.topicweave.CatalogHotPlanner;
import dev.weft.routing.topology.TopicLeaders;

/**
 * The primary plans every partition; then each partition of a Produce that the primary sends is copied
 * to every branch that takes its topic: the same partition number of the branch topic, on that
 * partition's leader on the branch cluster (the topology cache; not known yet: the copy is unplaced,
 * counted, and the branch's leaders are read again). A transforming branch's copies are keyed by the branch
 * topic's name and go to no broker in particular: its writer produces them. Fetch plans are the primary's alone.
 */
final class BranchHotPlanner implements HotPlanner {

    /** The side broker of copies a transforming branch writes: no broker of its own (its producer picks). */
    static final int ANY_BROKER = -1;

    private final HotPlanner primary;

    BranchHotPlanner(HotPlanner primary) {
        this.primary = primary;
    }

    @Override
    public void plan(PartitionSkim skim, HotContext ctx, RoutePlan out) {
        primary.plan(skim, ctx, out);
        if (!(skim instanceof ProduceRequestSkim) || !(ctx.catalog().topics() instanceof BranchCatalog catalog)) {
            return;
        }
        int[] targetOf = out.targetOf();
        boolean ids = skim.usesTopicIds();
        for (int t = 0; t < skim.topicCount(); t++) {
            VisibleTopic v = CatalogHotPlanner.visibleTopic(skim, t, ctx.catalog(), out);
            if (v == null) {
                continue;
            }
            int first = skim.topicFirstPartition(t);
            int end = first + skim.topicPartitionCount(t);
            for (BranchTopic b : catalog.branchesOf(v)) {
                if (b.transformed()) {
                    // written off the loops by a producer that finds its own leaders: any broker, keyed by name
                    int side = out.sideTarget(b.route(), ANY_BROKER);
                    for (int i = first; i < end; i++) {
                        if (targetOf[i] >= 0) {
                            out.copy(i, side, b.nameKey(), skim.partitionIndex(i));
                        }
                    }
                    continue;
                }
                byte[] key = ids ? b.idKey() : b.nameKey();
                TopicLeaders leaders = key == null ? null : ctx.leaders(b.route()).topic(b.name());
                for (int i = first; i < end; i++) {
                    if (targetOf[i] < 0) {
                        continue;
                    }
                    int partition = skim.partitionIndex(i);
                    int leader = leaders == null ? TopicLeaders.UNKNOWN : leaders.leader(partition);
                    if (leader < 0) {
                        out.copyUnplaced(b.route());
                    } else {
                        out.copy(i, out.sideTarget(b.route(), leader), key, partition);
                    }
                }
            }
        }
    }
}
