package dev.weft.routing.merge;

import dev.weft.routing.TopicRouting;
import dev.weft.routing.TopicSegment;
import dev.weft.routing.VisibleTopic;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.IntBinaryOperator;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseBroker;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponsePartition;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic;
import org.apache.kafka.common.protocol.Errors;

/**
 * One Metadata answer for a virtual cluster made of several routes (DESIGN §5): the client's request
 * is split into one request per route (virtual topic names become each route's real names), and the
 * routes' answers are merged into one, with virtual node ids, virtual topic names and ids, the virtual
 * cluster id, and every topic the client asked for accounted for.
 *
 * <p>Cold path (Metadata is not per-record traffic): works on kafka-clients' message classes. Broker
 * hosts and ports are left as the upstream's; the gateway's address rewrite sets them from the
 * virtual node ids afterwards.
 */
public final class MetadataWeave {

    private MetadataWeave() {
    }

    /**
     * The request for one route: null topics (all topics) stays null; named topics become that route's
     * real names, topics asked by id (v12+) that route's real ids, and a route none of the requested
     * topics lives on gets an empty list (brokers only). A topic is asked the way the client asked it:
     * a real id is never added to a by-name entry (brokers refuse ids below v12 and look up by id
     * whenever one is set).
     */
    public static MetadataRequestData requestFor(MetadataRequestData request, TopicRouting topics, int route) {
        MetadataRequestData out = request.duplicate();
        if (request.topics() == null) {
            return out;
        }
        List<MetadataRequestData.MetadataRequestTopic> mine = new ArrayList<>();
        for (MetadataRequestData.MetadataRequestTopic t : request.topics()) {
            VisibleTopic v = resolve(t, topics);
            if (v != null && v.woven()) {
                for (TopicSegment seg : v.segments().list()) {
                    if (seg.route() == route && mine.stream().noneMatch(m -> seg.realName().equals(m.name())
                            || !Uuid.ZERO_UUID.equals(seg.realId()) && seg.realId().equals(m.topicId()))) {
                        // by name: a segment's id may not be known yet, and brokers answer either form with both
                        mine.add(new MetadataRequestData.MetadataRequestTopic().setName(seg.realName()).setTopicId(Uuid.ZERO_UUID));
                    }
                }
                continue;
            }
            if (v != null && v.route() == route) {
                mine.add(askedById(t)
                        ? new MetadataRequestData.MetadataRequestTopic().setName(null).setTopicId(v.realId())
                        : new MetadataRequestData.MetadataRequestTopic().setName(v.realName()).setTopicId(Uuid.ZERO_UUID));
            }
        }
        out.setTopics(mine);
        // Topics are created by CreateTopics through the placement rule, never by a Metadata side effect
        // on whichever cluster happens to be asked.
        out.setAllowAutoTopicCreation(false);
        return out;
    }

    /**
     * Merges the routes' answers.
     *
     * @param request what the client asked
     * @param answers one answer per route, in route order; null where the route failed
     * @param topics the virtual topic view
     * @param toVirtualNodeId (route, real node id) → virtual node id (negative ids pass through)
     * @param virtualClusterId the cluster id clients see
     */
    public static MetadataResponseData merge(MetadataRequestData request, List<MetadataResponseData> answers,
            TopicRouting topics, IntBinaryOperator toVirtualNodeId, String virtualClusterId) {
        MetadataResponseData out = new MetadataResponseData()
                .setClusterId(virtualClusterId)
                .setControllerId(-1)
                .setClusterAuthorizedOperations(Integer.MIN_VALUE);
        MetadataResponseData.MetadataResponseBrokerCollection brokers = new MetadataResponseData.MetadataResponseBrokerCollection();
        MetadataResponseData.MetadataResponseTopicCollection merged = new MetadataResponseData.MetadataResponseTopicCollection();
        Set<String> answered = new HashSet<>();
        boolean controllerSet = false;
        for (int route = 0; route < answers.size(); route++) {
            MetadataResponseData a = answers.get(route);
            if (a == null) {
                continue;
            }
            out.setThrottleTimeMs(Math.max(out.throttleTimeMs(), a.throttleTimeMs()));
            if (!controllerSet && a.controllerId() >= 0) {
                out.setControllerId(toVirtualNodeId.applyAsInt(route, a.controllerId()));
                controllerSet = true;
            }
            for (MetadataResponseBroker b : a.brokers()) {
                brokers.add(new MetadataResponseBroker().setNodeId(toVirtualNodeId.applyAsInt(route, b.nodeId()))
                        .setHost(b.host()).setPort(b.port()).setRack(b.rack()));
            }
            for (MetadataResponseTopic t : a.topics()) {
                String virtualName = t.name() == null ? null : topics.virtualNameOf(route, t.name());
                VisibleTopic v = virtualName == null ? byRealId(topics, route, t.topicId()) : topics.resolve(virtualName);
                if (v == null || v.route() != route || !answered.add(v.virtualName())) {
                    continue; // hidden here, or the same virtual topic already answered
                }
                merged.add(virtualTopic(t, v, route, toVirtualNodeId));
            }
        }
        wovenTopics(request, answers, topics, toVirtualNodeId, merged, answered);
        accountForRequestedTopics(request, answers, topics, merged, answered);
        out.setBrokers(brokers);
        out.setTopics(merged);
        return out;
    }

    private static MetadataResponseTopic virtualTopic(MetadataResponseTopic t, VisibleTopic v, int route,
            IntBinaryOperator toVirtual) {
        MetadataResponseTopic out = new MetadataResponseTopic()
                .setErrorCode(t.errorCode())
                .setName(v.virtualName())
                .setTopicId(v.virtualId())
                .setIsInternal(t.isInternal())
                .setTopicAuthorizedOperations(t.topicAuthorizedOperations());
        List<MetadataResponsePartition> partitions = new ArrayList<>(t.partitions().size());
        for (MetadataResponsePartition p : t.partitions()) {
            partitions.add(virtualPartition(p, route, toVirtual));
        }
        return out.setPartitions(partitions);
    }

    /** A route's partition with the virtual node ids of its leader and replicas (same index). */
    private static MetadataResponsePartition virtualPartition(MetadataResponsePartition p, int route, IntBinaryOperator toVirtual) {
        return new MetadataResponsePartition()
                .setErrorCode(p.errorCode())
                .setPartitionIndex(p.partitionIndex())
                .setLeaderId(toVirtual.applyAsInt(route, p.leaderId()))
                .setLeaderEpoch(p.leaderEpoch())
                .setReplicaNodes(mapIds(p.replicaNodes(), route, toVirtual))
                .setIsrNodes(mapIds(p.isrNodes(), route, toVirtual))
                .setOfflineReplicas(mapIds(p.offlineReplicas(), route, toVirtual));
    }

    /**
     * The partition-woven topics the client asked for (all of them, for an all-topics request): each
     * virtual partition from its segment's route's answer, renumbered, with that route's virtual node ids.
     * Every virtual partition is listed, always: one whose route did not answer, whose real topic the
     * answer lacks, or whose real partition the topic no longer has shows LEADER_NOT_AVAILABLE without a
     * leader — producers and groups keep the partition count (a woven topic never shrinks under them).
     */
    private static void wovenTopics(MetadataRequestData request, List<MetadataResponseData> answers, TopicRouting topics,
            IntBinaryOperator toVirtualNodeId, MetadataResponseData.MetadataResponseTopicCollection merged, Set<String> answered) {
        List<VisibleTopic> asked = new ArrayList<>();
        if (request.topics() == null) {
            topics.visibleTopics().stream().filter(VisibleTopic::woven).forEach(asked::add);
        } else {
            for (MetadataRequestData.MetadataRequestTopic t : request.topics()) {
                VisibleTopic v = resolve(t, topics);
                if (v != null && v.woven()) {
                    asked.add(v);
                }
            }
        }
        for (VisibleTopic v : asked) {
            if (!answered.add(v.virtualName())) {
                continue;
            }
            MetadataResponseTopic out = new MetadataResponseTopic().setName(v.virtualName()).setTopicId(v.virtualId())
                    .setIsInternal(false).setTopicAuthorizedOperations(Integer.MIN_VALUE);
            List<MetadataResponsePartition> partitions = new ArrayList<>(v.segments().partitionCount());
            for (TopicSegment seg : v.segments().list()) {
                MetadataResponseData a = answers.get(seg.route());
                MetadataResponseTopic real = a == null ? null : realTopic(a, seg);
                if (real != null && out.topicAuthorizedOperations() == Integer.MIN_VALUE) {
                    out.setTopicAuthorizedOperations(real.topicAuthorizedOperations());
                }
                MetadataResponsePartition[] byReal = new MetadataResponsePartition[seg.count()];
                if (real != null && real.errorCode() == Errors.NONE.code()) {
                    for (MetadataResponsePartition p : real.partitions()) {
                        int offset = p.partitionIndex() - seg.firstReal();
                        if (offset >= 0 && offset < seg.count()) {
                            byReal[offset] = p;
                        }
                    }
                }
                for (int k = 0; k < seg.count(); k++) {
                    MetadataResponsePartition p = byReal[k];
                    partitions.add(p == null ? leaderless(seg.firstVirtual() + k)
                            : virtualPartition(p, seg.route(), toVirtualNodeId).setPartitionIndex(seg.firstVirtual() + k));
                }
            }
            merged.add(out.setPartitions(partitions));
        }
    }

    /** Segment {@code seg}'s real topic in a route's answer (by name, or by id when the answer has no names). */
    private static MetadataResponseTopic realTopic(MetadataResponseData answer, TopicSegment seg) {
        for (MetadataResponseTopic t : answer.topics()) {
            if (seg.realName().equals(t.name())
                    || t.name() == null && !Uuid.ZERO_UUID.equals(seg.realId()) && seg.realId().equals(t.topicId())) {
                return t;
            }
        }
        return null;
    }

    private static MetadataResponsePartition leaderless(int virtualPartition) {
        return new MetadataResponsePartition().setPartitionIndex(virtualPartition)
                .setErrorCode(Errors.LEADER_NOT_AVAILABLE.code()).setLeaderId(-1).setLeaderEpoch(-1)
                .setReplicaNodes(List.of()).setIsrNodes(List.of()).setOfflineReplicas(List.of());
    }

    /**
     * Every topic the client named gets an entry: UNKNOWN_TOPIC_OR_PARTITION when no route shows it,
     * LEADER_NOT_AVAILABLE (retriable) when its route did not answer. An all-topics request lists the
     * known topics of failed routes with LEADER_NOT_AVAILABLE, so nothing silently disappears.
     */
    private static void accountForRequestedTopics(MetadataRequestData request, List<MetadataResponseData> answers,
            TopicRouting topics, MetadataResponseData.MetadataResponseTopicCollection merged, Set<String> answered) {
        if (request.topics() == null) {
            for (VisibleTopic v : topics.visibleTopics()) {
                if (!v.woven() && answers.get(v.route()) == null && answered.add(v.virtualName())) {
                    merged.add(errorTopic(v.virtualName(), v.virtualId(), Errors.LEADER_NOT_AVAILABLE));
                }
            }
            return;
        }
        for (MetadataRequestData.MetadataRequestTopic t : request.topics()) {
            VisibleTopic v = resolve(t, topics);
            if (v == null) {
                String name = t.name();
                if (askedById(t)) {
                    merged.add(errorTopic(null, t.topicId(), Errors.UNKNOWN_TOPIC_ID));
                } else if (name != null && answered.add(name)) {
                    merged.add(errorTopic(name, Uuid.ZERO_UUID, Errors.UNKNOWN_TOPIC_OR_PARTITION));
                }
            } else if (!v.woven() && answers.get(v.route()) == null && answered.add(v.virtualName())) {
                merged.add(errorTopic(v.virtualName(), v.virtualId(), Errors.LEADER_NOT_AVAILABLE));
            }
        }
    }

    private static MetadataResponseTopic errorTopic(String name, Uuid id, Errors error) {
        return new MetadataResponseTopic().setName(name).setTopicId(id).setErrorCode(error.code()).setPartitions(List.of());
    }

    /**
     * The virtual topic a request entry names. A non-zero id wins over the name, as on a broker:
     * kafka-clients asks by id with the name left at its default, the empty string.
     */
    private static VisibleTopic resolve(MetadataRequestData.MetadataRequestTopic t, TopicRouting topics) {
        if (askedById(t)) {
            return topics.byVirtualId(t.topicId());
        }
        return t.name() == null ? null : topics.resolve(t.name());
    }

    /** Whether a request entry asks by topic id (v12+): its id is set and not zero. */
    public static boolean askedById(MetadataRequestData.MetadataRequestTopic t) {
        return t.topicId() != null && !Uuid.ZERO_UUID.equals(t.topicId());
    }

    private static VisibleTopic byRealId(TopicRouting topics, int route, Uuid id) {
        return id == null || Uuid.ZERO_UUID.equals(id) ? null : topics.byRealId(route, id);
    }

    private static List<Integer> mapIds(List<Integer> ids, int route, IntBinaryOperator toVirtual) {
        List<Integer> out = new ArrayList<>(ids.size());
        for (Integer id : ids) {
            out.add(toVirtual.applyAsInt(route, id));
        }
        return out;
    }
}
