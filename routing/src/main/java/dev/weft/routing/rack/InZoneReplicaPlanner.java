package dev.weft.routing.rack;

import dev.weft.protocol.skim.PartitionSkim;
import dev.weft.protocol.skim.UpstreamPartitions;
import dev.weft.routing.api.HotContext;
import dev.weft.routing.api.HotPlanner;
import dev.weft.routing.api.RoutePlan;
import dev.weft.routing.topology.ClusterTopology;
import dev.weft.routing.topology.PartitionLeadership;
import dev.weft.routing.topology.TopicLeaders;

/**
 * Plans a Fetch with the router's own planner, then moves every partition whose chosen broker is out of
 * the proxy's zone to a broker in it that holds the partition in sync: the leader when it is in the
 * zone (a client that picked a follower elsewhere), else the first in-sync follower in the zone. A
 * partition stays where the router sent it when the topology cache does not know its topic, leader or
 * brokers, when the chosen broker is neither its leader nor in its ISR (the client follows a hint the
 * cache has not seen: the broker answers), or when no in-sync replica is in the zone. Fetch before v11
 * cannot be served by a follower, so it is never moved; a partition whose follower said "nothing more"
 * is read from its leader once ({@link dev.weft.routing.api.FollowerEndChecks}). Produce is the router's alone.
 *
 * <p>Hot path: reads immutable snapshots; topic names resolve through the connection's cache; nothing
 * allocated once warm.
 */
final class InZoneReplicaPlanner implements HotPlanner {

    private static final short FETCH = 1;
    /** Fetch v11 carries rack_id: from it on, a broker serves consumers as a follower (KIP-392). */
    static final short FIRST_FOLLOWER_FETCH_VERSION = 11;

    private final HotPlanner router;
    private final String zone;

    InZoneReplicaPlanner(HotPlanner router, String zone) {
        this.router = router;
        this.zone = zone;
    }

    @Override
    public void plan(PartitionSkim skim, HotContext ctx, RoutePlan out) {
        router.plan(skim, ctx, out);
        if (skim.apiKey() != FETCH || skim.version() < FIRST_FOLLOWER_FETCH_VERSION || out.routed() == 0) {
            return;
        }
        boolean moved = false;
        int[] targetOf = out.targetOf();
        // Within a leaf the brokers' snapshot is one: most partitions share the chosen broker and the
        // replica they move to, so the last answers are kept instead of asked again.
        int leaf = -1;
        ClusterTopology brokers = null;
        int lastChosen = Integer.MIN_VALUE;
        boolean lastChosenInZone = false;
        int lastMovedTo = Integer.MIN_VALUE;
        int lastMovedTarget = -1;
        for (int t = 0; t < skim.topicCount(); t++) {
            int first = skim.topicFirstPartition(t);
            int end = first + skim.topicPartitionCount(t);
            TopicLeaders leaders = null;
            boolean resolved = false;
            for (int i = first; i < end; i++) {
                int target = targetOf[i];
                if (target < 0) {
                    continue;
                }
                int targetLeaf = out.targetLeaf(target);
                if (targetLeaf != leaf) {
                    leaf = targetLeaf;
                    brokers = ctx.brokers(leaf);
                    lastChosen = Integer.MIN_VALUE;
                    lastMovedTo = Integer.MIN_VALUE;
                    resolved = false;
                }
                if (!resolved || out.keysPerPartition()) {
                    leaders = topic(skim, t, i, ctx.leaders(leaf), out);
                    resolved = true;
                }
                if (leaders == null) {
                    continue;
                }
                int broker = out.targetBroker(target);
                int chosen = broker == RoutePlan.OWN_BROKER ? ctx.ownBroker() : broker;
                if (chosen != lastChosen) {
                    lastChosen = chosen;
                    lastChosenInZone = chosen >= 0 && brokers.inRack(chosen, zone);
                }
                if (chosen < 0 || lastChosenInZone) {
                    continue;
                }
                int upstream = out.upstreamPartition(i);
                int p = upstream == UpstreamPartitions.CLIENT_INDEX ? skim.partitionIndex(i) : upstream;
                int leader = leaders.leader(p);
                if (leader < 0 || chosen != leader && !leaders.isInSync(p, chosen)) {
                    continue;
                }
                if (!ctx.endChecks().isEmpty() && ctx.endChecks().takePending(leaf, leaders.name(), p)) {
                    // a follower here said "nothing more": the leader says whether that is the end
                    if (chosen != leader) {
                        out.moveTo(i, out.target(leaf, leader), false);
                        moved = true;
                    }
                    out.checkWithLeader(i);
                    continue;
                }
                int replica = inZone(leaders, p, leader, brokers);
                if (replica >= 0) {
                    if (replica != lastMovedTo) {
                        lastMovedTo = replica;
                        lastMovedTarget = out.target(leaf, replica);
                    }
                    out.moveTo(i, lastMovedTarget, replica != leader);
                    moved = true;
                }
            }
        }
        if (moved) {
            out.dropEmptyTargets(skim.partitionCount());
        }
    }

    /** The leader when it is in the zone, else the first in-sync follower in it, else -1. */
    private int inZone(TopicLeaders leaders, int p, int leader, ClusterTopology brokers) {
        if (brokers.inRack(leader, zone)) {
            return leader;
        }
        for (int k = 0; k < leaders.isrCount(p); k++) {
            int replica = leaders.isr(p, k);
            if (replica != leader && brokers.inRack(replica, zone)) {
                return replica;
            }
        }
        return -1;
    }

    /** The upstream topic partition {@code i} of topic {@code t} is read from, as the cache knows it, or null. */
    private static TopicLeaders topic(PartitionSkim skim, int t, int i, PartitionLeadership leadership, RoutePlan out) {
        byte[] key = out.upstreamKey(t, i);
        if (skim.usesTopicIds()) {
            if (key != null) {
                return leadership.topic(longAt(key, 0), longAt(key, 8));
            }
            int at = skim.topicNameOffset(t);
            return leadership.topic(skim.buffer().getLong(at), skim.buffer().getLong(at + 8));
        }
        return key != null ? out.names().leaders(leadership, key)
                : out.names().leaders(leadership, skim.buffer(), skim.topicNameOffset(t), skim.topicNameLength(t));
    }

    private static long longAt(byte[] b, int at) {
        long v = 0;
        for (int k = 0; k < 8; k++) {
            v = v << 8 | (b[at + k] & 0xFF);
        }
        return v;
    }
}
