package dev.weft.routing.plan;

import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData.ReassignableTopic;
import org.apache.kafka.common.message.AlterPartitionReassignmentsResponseData;
import org.apache.kafka.common.message.AlterPartitionReassignmentsResponseData.ReassignableTopicResponse;
import org.apache.kafka.common.protocol.Errors;

/**
 * AlterPartitionReassignments, on the route owning each topic (any broker). Target replicas are virtual
 * broker ids; they must all be brokers of that route (a topic cannot move between clusters). A
 * partition-woven topic is split by segment: each segment's partitions are reassigned on its route,
 * among that route's brokers.
 */
final class AlterPartitionReassignmentsPlanner extends TopicListPlanner<AlterPartitionReassignmentsRequestData,
        ReassignableTopic, AlterPartitionReassignmentsResponseData, ReassignableTopicResponse> {

    AlterPartitionReassignmentsPlanner() {
        super(Addressing.OWNING_ROUTE);
    }

    @Override
    List<ReassignableTopic> entries(AlterPartitionReassignmentsRequestData request, short version) {
        return request.topics();
    }

    @Override
    void setEntries(AlterPartitionReassignmentsRequestData request, List<ReassignableTopic> entries, short version) {
        request.setTopics(List.copyOf(entries));
    }

    @Override
    String name(ReassignableTopic entry) {
        return entry.name();
    }

    @Override
    void toReal(ReassignableTopic entry, Located.Owner owner, PlanContext ctx) {
        entry.setName(owner.realName());
        for (AlterPartitionReassignmentsRequestData.ReassignablePartition p : entry.partitions()) {
            p.setReplicas(BrokerIds.toReal(p.replicas(), owner.route(), ctx));
        }
    }

    @Override
    List<ReassignableTopicResponse> results(AlterPartitionReassignmentsResponseData response) {
        return response.responses();
    }

    @Override
    String resultName(ReassignableTopicResponse result) {
        return result.name();
    }

    @Override
    Errors topLevelError(AlterPartitionReassignmentsResponseData answer) {
        return Errors.forCode(answer.errorCode());
    }

    @Override
    void toVirtual(ReassignableTopicResponse result, int route, String virtualName, Uuid virtualId, PlanContext ctx) {
        result.setName(virtualName);
    }

    @Override
    AlterPartitionReassignmentsResponseData merged(List<ReassignableTopicResponse> results,
            List<AlterPartitionReassignmentsResponseData> answers, short version) {
        AlterPartitionReassignmentsResponseData out = new AlterPartitionReassignmentsResponseData().setResponses(results)
                .setThrottleTimeMs(maxThrottle(answers, AlterPartitionReassignmentsResponseData::throttleTimeMs));
        if (!answers.isEmpty()) {
            out.setAllowReplicationFactorChange(answers.getFirst().allowReplicationFactorChange());
        }
        answers.stream().filter(a -> a.errorCode() != Errors.NONE.code()).findFirst()
                .ifPresent(a -> out.setErrorCode(a.errorCode()).setErrorMessage(a.errorMessage()));
        return out;
    }

    static final PartitionLists<ReassignableTopic, ReassignableTopicResponse> PARTITIONS = PartitionLists.of(
            ReassignableTopic::partitions, ReassignableTopic::setPartitions,
            AlterPartitionReassignmentsRequestData.ReassignablePartition::partitionIndex,
            AlterPartitionReassignmentsRequestData.ReassignablePartition::setPartitionIndex,
            ReassignableTopicResponse::partitions, ReassignableTopicResponse::setPartitions,
            AlterPartitionReassignmentsResponseData.ReassignablePartitionResponse::partitionIndex,
            AlterPartitionReassignmentsResponseData.ReassignablePartitionResponse::setPartitionIndex);

    @Override
    PartitionLists<ReassignableTopic, ReassignableTopicResponse> partitionLists() {
        return PARTITIONS;
    }
}
