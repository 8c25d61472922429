package dev.weft.routing.plan;

import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ElectLeadersRequestData;
import org.apache.kafka.common.message.ElectLeadersRequestData.TopicPartitions;
import org.apache.kafka.common.message.ElectLeadersResponseData;
import org.apache.kafka.common.message.ElectLeadersResponseData.ReplicaElectionResult;
import org.apache.kafka.common.protocol.Errors;

/**
 * ElectLeaders, on the route owning each topic (any broker). Null {@code topicPartitions} (every
 * partition) goes to every route and the answer keeps the visible topics, renamed. Version 0 has no
 * top-level error code.
 *
 * <p>A partition-woven topic named with its partitions is split by segment ({@link #partitionLists}):
 * each route elects its real partitions, answered under the client's virtual ones. An all-partitions
 * request (null {@code topicPartitions}) leaves woven topics out of the answer: the routes answer their
 * real topics, which {@code virtualNameOf} never names as a woven topic (their partitions would need
 * renumbering, and partitions outside the segments are not the client's), so they are not renamed either;
 * the routes still elect them, since the request asks every partition.
 */
final class ElectLeadersPlanner extends TopicListPlanner<ElectLeadersRequestData, TopicPartitions,
        ElectLeadersResponseData, ReplicaElectionResult> {

    ElectLeadersPlanner() {
        super(Addressing.OWNING_ROUTE);
    }

    @Override
    List<TopicPartitions> entries(ElectLeadersRequestData request, short version) {
        return request.topicPartitions() == null ? null : List.copyOf(request.topicPartitions());
    }

    @Override
    void setEntries(ElectLeadersRequestData request, List<TopicPartitions> entries, short version) {
        ElectLeadersRequestData.TopicPartitionsCollection topics = new ElectLeadersRequestData.TopicPartitionsCollection();
        topics.addAll(entries);
        request.setTopicPartitions(topics);
    }

    @Override
    String name(TopicPartitions entry) {
        return entry.topic();
    }

    @Override
    void toReal(TopicPartitions entry, Located.Owner owner, PlanContext ctx) {
        entry.setTopic(owner.realName());
    }

    @Override
    List<ReplicaElectionResult> results(ElectLeadersResponseData response) {
        return response.replicaElectionResults();
    }

    @Override
    String resultName(ReplicaElectionResult result) {
        return result.topic();
    }

    @Override
    Errors topLevelError(ElectLeadersResponseData answer) {
        return Errors.forCode(answer.errorCode());
    }

    @Override
    void toVirtual(ReplicaElectionResult result, int route, String virtualName, Uuid virtualId, PlanContext ctx) {
        result.setTopic(virtualName);
    }

    @Override
    ElectLeadersResponseData merged(List<ReplicaElectionResult> results, List<ElectLeadersResponseData> answers,
            short version) {
        ElectLeadersResponseData out = new ElectLeadersResponseData().setReplicaElectionResults(results)
                .setThrottleTimeMs(maxThrottle(answers, ElectLeadersResponseData::throttleTimeMs));
        if (version >= 1) {
            answers.stream().filter(a -> a.errorCode() != Errors.NONE.code()).findFirst()
                    .ifPresent(a -> out.setErrorCode(a.errorCode()));
        }
        return out;
    }

    static final PartitionLists<TopicPartitions, ReplicaElectionResult> PARTITIONS = PartitionLists.ofIndexes(
            TopicPartitions::partitions, TopicPartitions::setPartitions,
            ReplicaElectionResult::partitionResult, ReplicaElectionResult::setPartitionResult,
            ElectLeadersResponseData.PartitionResult::partitionId, ElectLeadersResponseData.PartitionResult::setPartitionId);

    @Override
    PartitionLists<TopicPartitions, ReplicaElectionResult> partitionLists() {
        return PARTITIONS;
    }
}
