package dev.weft.routing.topicweave;

import dev.weft.protocol.skim.PartitionSkim;
import dev.weft.routing.TopicSegment;
import dev.weft.routing.TopicSegments;
import dev.weft.routing.VisibleTopic;
import dev.weft.routing.api.HotCatalog;
import dev.weft.routing.api.HotContext;
import dev.weft.routing.api.HotPlanner;
import dev.weft.routing.api.RoutePlan;
import dev.weft.routing.topology.PartitionLeadership;
import dev.weft.routing.topology.TopicLeaders;
import org.apache.kafka.common.Uuid;

/**
 * The hot planner of routers that decide by topic (topic weaving, nested DAGs flattened to their
 * leaves): each topic the client names is looked up in the catalog (by virtual id, or by name through
 * the connection's {@link dev.weft.routing.api.TopicNameCache}); its partitions go to the connection's
 * own broker under the topic's real name or id when it lives on the connection's route, and are
 * refused otherwise (unknown or hidden: UNKNOWN_TOPIC_*; on another cluster: the client's metadata is
 * stale). Fetch sessions are declined: an incremental Fetch would name topics the broker does not know.
 *
 * <p>In the collapsed topology no connection is bound to a broker: each partition goes to its real
 * leader as the topology cache knows it (one target per (route, leader)); a partition whose leader is
 * not known is refused NOT_LEADER_OR_FOLLOWER, and the client's next Metadata — which passes through
 * the proxy — teaches the cache.
 *
 * <p>A partition-woven topic ({@link VisibleTopic#woven()}) is planned partition by partition: each is
 * renumbered to its segment's real partition under the segment's real name or id ({@link RoutePlan#renumber}).
 */
public final class CatalogHotPlanner implements HotPlanner {

    public static final CatalogHotPlanner INSTANCE = new CatalogHotPlanner();

    private CatalogHotPlanner() {
    }

    @Override
    public void plan(PartitionSkim skim, HotContext ctx, RoutePlan out) {
        HotCatalog catalog = ctx.catalog();
        int ownRoute = ctx.ownRoute();
        boolean ids = skim.usesTopicIds();
        boolean bound = ctx.boundToBroker();
        int own = -1;
        for (int t = 0; t < skim.topicCount(); t++) {
            VisibleTopic v = visibleTopic(skim, t, catalog, out);
            int first = skim.topicFirstPartition(t);
            int end = first + skim.topicPartitionCount(t);
            if (v != null && v.woven()) {
                own = woven(skim, ctx, v, ids, t, first, end, own, out);
                continue;
            }
            if (v == null || bound && v.route() != ownRoute) {
                out.refuse(first, end, v == null);
                continue;
            }
            if (!bound) {
                out.upstreamKey(t, catalog.upstreamKey(v, ids));
                byLeader(skim, ctx.leaders(v.route()), v, ids, first, end, out);
                continue;
            }
            if (own < 0) {
                own = out.target(ownRoute, RoutePlan.OWN_BROKER);
            }
            out.upstreamKey(t, catalog.upstreamKey(v, ids));
            out.send(first, end, own);
        }
    }

    /**
     * A partition-woven topic, partition by partition: each goes to its segment's route under the
     * segment's real topic and partition number; on a bound connection only the segments behind the
     * connection's route are sent (the client addressed the leader it saw in Metadata), the others are
     * refused NOT_LEADER_OR_FOLLOWER; a partition the topic does not have is refused unknown.
     *
     * @return the own-broker target, made when first needed (-1 until then)
     */
    private static int woven(PartitionSkim skim, HotContext ctx, VisibleTopic v, boolean ids, int t, int first, int end, int own,
            RoutePlan out) {
        TopicSegments segments = v.segments();
        boolean bound = ctx.boundToBroker();
        int lastSegment = -1;
        TopicLeaders leaders = null;
        for (int i = first; i < end; i++) {
            int vp = skim.partitionIndex(i);
            int s = segments.indexOf(vp);
            TopicSegment seg = s < 0 ? null : segments.get(s);
            if (seg == null || ids && seg.realId().equals(Uuid.ZERO_UUID)) {
                out.refuse(i, i + 1, true);
                continue;
            }
            int real = seg.toReal(vp);
            int target;
            if (bound) {
                if (seg.route() != ctx.ownRoute()) {
                    out.refuse(i, i + 1, false);
                    continue;
                }
                if (own < 0) {
                    own = out.target(seg.route(), RoutePlan.OWN_BROKER);
                }
                target = own;
            } else {
                if (s != lastSegment) {
                    lastSegment = s;
                    PartitionLeadership leadership = ctx.leaders(seg.route());
                    leaders = ids ? leadership.topic(seg.realId().getMostSignificantBits(), seg.realId().getLeastSignificantBits())
                            : leadership.topic(seg.realName());
                }
                int leader = leaders == null ? TopicLeaders.UNKNOWN : leaders.leader(real);
                if (leader < 0) {
                    out.refuse(i, i + 1, false);
                    continue;
                }
                target = out.target(seg.route(), leader);
            }
            out.renumber(t, i, real, segments.upstreamKey(s, ids), segments.upstreamKeyHash(s, ids));
            out.send(i, i + 1, target);
        }
        return own;
    }

    /** The visible topic that topic {@code t} of the request names (by id or name), or null. */
    public static VisibleTopic visibleTopic(PartitionSkim skim, int t, HotCatalog catalog, RoutePlan out) {
        if (skim.usesTopicIds()) {
            int at = skim.topicNameOffset(t);
            return catalog.topics().byVirtualId(skim.buffer().getLong(at), skim.buffer().getLong(at + 8));
        }
        return out.names().resolve(catalog, skim.buffer(), skim.topicNameOffset(t), skim.topicNameLength(t));
    }

    private static void byLeader(PartitionSkim skim, PartitionLeadership leadership, VisibleTopic v, boolean ids,
            int first, int end, RoutePlan out) {
        TopicLeaders leaders = ids ? leadership.topic(v.realId().getMostSignificantBits(), v.realId().getLeastSignificantBits())
                : leadership.topic(v.realName());
        for (int i = first; i < end; i++) {
            int leader = leaders == null ? TopicLeaders.UNKNOWN : leaders.leader(skim.partitionIndex(i));
            if (leader < 0) {
                out.refuse(i, i + 1, false);
            } else {
                out.send(i, i + 1, out.target(v.route(), leader));
            }
        }
    }
}
