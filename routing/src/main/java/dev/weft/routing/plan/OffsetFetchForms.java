package dev.weft.routing.plan;

import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestGroup;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestTopic;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestTopics;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseGroup;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponsePartition;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponsePartitions;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseTopic;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseTopics;

/**
 * OffsetFetch v1–7 asks for one group with top-level fields; v8+ batches groups. The planner works on
 * the batched form only; these conversions translate the single-group versions both ways, field by
 * field, so parts still go out in the client's version.
 */
final class OffsetFetchForms {

    /** v8 batches groups. */
    static final short FIRST_BATCHED = 8;

    private OffsetFetchForms() {
    }

    /** The groups the client asks about, in its order. */
    static List<OffsetFetchRequestGroup> groups(OffsetFetchRequestData req, short version) {
        if (version >= FIRST_BATCHED) {
            return req.groups();
        }
        List<OffsetFetchRequestTopics> topics = null;
        if (req.topics() != null) {
            topics = new ArrayList<>();
            for (OffsetFetchRequestTopic t : req.topics()) {
                topics.add(new OffsetFetchRequestTopics().setName(t.name()).setPartitionIndexes(t.partitionIndexes()));
            }
        }
        return List.of(new OffsetFetchRequestGroup().setGroupId(req.groupId()).setTopics(topics));
    }

    /** A request for one group in {@code version}'s form. */
    static OffsetFetchRequestData request(OffsetFetchRequestGroup group, boolean requireStable, short version) {
        OffsetFetchRequestData out = new OffsetFetchRequestData().setRequireStable(requireStable);
        if (version >= FIRST_BATCHED) {
            return out.setGroups(List.of(group));
        }
        List<OffsetFetchRequestTopic> topics = null;
        if (group.topics() != null) {
            topics = new ArrayList<>();
            for (OffsetFetchRequestTopics t : group.topics()) {
                topics.add(new OffsetFetchRequestTopic().setName(t.name()).setPartitionIndexes(t.partitionIndexes()));
            }
        }
        return out.setGroupId(group.groupId()).setTopics(topics);
    }

    /** The answer about {@code groupId} in the batched form (null when a batched answer left it out). */
    static OffsetFetchResponseGroup group(OffsetFetchResponseData resp, String groupId, short version) {
        if (version >= FIRST_BATCHED) {
            return resp.groups().stream().filter(g -> groupId.equals(g.groupId())).findFirst().orElse(null);
        }
        List<OffsetFetchResponseTopics> topics = new ArrayList<>();
        for (OffsetFetchResponseTopic t : resp.topics()) {
            List<OffsetFetchResponsePartitions> partitions = new ArrayList<>();
            for (OffsetFetchResponsePartition p : t.partitions()) {
                partitions.add(new OffsetFetchResponsePartitions().setPartitionIndex(p.partitionIndex())
                        .setCommittedOffset(p.committedOffset()).setCommittedLeaderEpoch(p.committedLeaderEpoch())
                        .setMetadata(p.metadata()).setErrorCode(p.errorCode()));
            }
            topics.add(new OffsetFetchResponseTopics().setName(t.name()).setPartitions(partitions));
        }
        return new OffsetFetchResponseGroup().setGroupId(groupId).setErrorCode(resp.errorCode()).setTopics(topics);
    }

    /** The response to the client in its version's form. */
    static OffsetFetchResponseData response(List<OffsetFetchResponseGroup> groups, int throttleTimeMs, short version) {
        OffsetFetchResponseData out = new OffsetFetchResponseData().setThrottleTimeMs(throttleTimeMs);
        if (version >= FIRST_BATCHED) {
            return out.setGroups(groups);
        }
        OffsetFetchResponseGroup group = groups.getFirst();
        List<OffsetFetchResponseTopic> topics = new ArrayList<>();
        for (OffsetFetchResponseTopics t : group.topics()) {
            List<OffsetFetchResponsePartition> partitions = new ArrayList<>();
            for (OffsetFetchResponsePartitions p : t.partitions()) {
                partitions.add(new OffsetFetchResponsePartition().setPartitionIndex(p.partitionIndex())
                        .setCommittedOffset(p.committedOffset()).setCommittedLeaderEpoch(p.committedLeaderEpoch())
                        .setMetadata(p.metadata()).setErrorCode(p.errorCode()));
            }
            topics.add(new OffsetFetchResponseTopic().setName(t.name()).setPartitions(partitions));
        }
        out.setTopics(topics);
        if (version >= 2) {
            out.setErrorCode(group.errorCode()); // v1 has no group-level error: its partitions carry it
        }
        return out;
    }
}
