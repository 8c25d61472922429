package dev.weft.routing.plan;

import dev.weft.routing.TopicRouting;
import dev.weft.routing.VisibleTopic;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponsePartition;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic;
import org.apache.kafka.common.protocol.Errors;

/**
 * The partitions each route's Metadata answers last showed, per real topic, so that while a route's
 * cluster cannot be reached its topics still show every partition, each with LEADER_NOT_AVAILABLE and
 * no leader — what a real cluster shows for partitions whose replicas are all offline (DESIGN §5: a
 * whole upstream failing maps to per-partition retriable errors). Clients keep the partition count:
 * a producer queues and retries those partitions' records instead of blocking {@code send()} on a topic
 * that vanished from metadata (which also stalls its other topics), and a consumer group does not
 * rebalance the dead cluster's partitions away. A topic with no known partitions still gets the
 * topic-level LEADER_NOT_AVAILABLE. Shared by every core; stored entries are read-only copies.
 */
public final class KnownPartitions {

    private final Map<Integer, Map<String, MetadataResponseTopic>> byRoute = new ConcurrentHashMap<>();

    /** Remembers what {@code route} answered to {@code asked} (an all-topics answer also forgets deleted topics). */
    void learn(int route, MetadataRequestData asked, MetadataResponseData answer) {
        Map<String, MetadataResponseTopic> known = byRoute.computeIfAbsent(route, r -> new ConcurrentHashMap<>());
        Set<String> listed = asked.topics() == null ? new HashSet<>() : null;
        for (MetadataResponseTopic t : answer.topics()) {
            if (t.name() == null) {
                continue;
            }
            if (listed != null) {
                listed.add(t.name());
            }
            if (t.errorCode() == Errors.NONE.code()) {
                known.put(t.name(), t.duplicate());
            } else if (t.errorCode() == Errors.UNKNOWN_TOPIC_OR_PARTITION.code()) {
                known.remove(t.name());
            }
        }
        if (listed != null) {
            known.keySet().retainAll(listed);
        }
    }

    /**
     * The answer to show for {@code route}, which did not answer {@code asked}: its requested (or, for an
     * all-topics request, visible) topics with their last known partitions offline; null when nothing
     * is known of the route (the merge then reports its topics with a topic-level error).
     */
    MetadataResponseData offline(int route, MetadataRequestData asked, TopicRouting topics) {
        Map<String, MetadataResponseTopic> known = byRoute.get(route);
        if (known == null || known.isEmpty()) {
            return null;
        }
        MetadataResponseData.MetadataResponseTopicCollection out = new MetadataResponseData.MetadataResponseTopicCollection();
        if (asked.topics() == null) {
            for (VisibleTopic v : topics.visibleTopics()) {
                if (v.route() == route) {
                    add(out, known, v.realName(), v.realId());
                }
            }
        } else {
            for (MetadataRequestData.MetadataRequestTopic t : asked.topics()) {
                String name = t.name();
                if (name == null || name.isEmpty()) {
                    VisibleTopic v = t.topicId() == null || Uuid.ZERO_UUID.equals(t.topicId()) ? null
                            : topics.byRealId(route, t.topicId());
                    name = v == null ? null : v.realName();
                }
                add(out, known, name, t.topicId() == null ? Uuid.ZERO_UUID : t.topicId());
            }
        }
        return new MetadataResponseData().setControllerId(-1).setClusterAuthorizedOperations(Integer.MIN_VALUE)
                .setBrokers(new MetadataResponseData.MetadataResponseBrokerCollection()).setTopics(out);
    }

    private static void add(MetadataResponseData.MetadataResponseTopicCollection out, Map<String, MetadataResponseTopic> known,
            String name, Uuid id) {
        MetadataResponseTopic last = name == null ? null : known.get(name);
        if (last == null) {
            out.add(new MetadataResponseTopic().setName(name).setTopicId(id).setErrorCode(Errors.LEADER_NOT_AVAILABLE.code())
                    .setPartitions(List.of()));
            return;
        }
        if (out.find(name) != null) {
            return;
        }
        MetadataResponseTopic t = new MetadataResponseTopic().setName(last.name()).setTopicId(last.topicId())
                .setIsInternal(last.isInternal()).setTopicAuthorizedOperations(last.topicAuthorizedOperations());
        for (MetadataResponsePartition p : last.partitions()) {
            t.partitions().add(new MetadataResponsePartition().setPartitionIndex(p.partitionIndex())
                    .setErrorCode(Errors.LEADER_NOT_AVAILABLE.code()).setLeaderId(-1).setLeaderEpoch(p.leaderEpoch())
                    .setReplicaNodes(List.copyOf(p.replicaNodes())).setIsrNodes(List.of())
                    .setOfflineReplicas(List.copyOf(p.replicaNodes())));
        }
        out.add(t);
    }
}
