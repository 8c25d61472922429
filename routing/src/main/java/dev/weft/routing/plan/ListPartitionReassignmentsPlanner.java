package dev.weft.routing.plan;

import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ListPartitionReassignmentsRequestData;
import org.apache.kafka.common.message.ListPartitionReassignmentsRequestData.ListPartitionReassignmentsTopics;
import org.apache.kafka.common.message.ListPartitionReassignmentsResponseData;
import org.apache.kafka.common.message.ListPartitionReassignmentsResponseData.OngoingPartitionReassignment;
import org.apache.kafka.common.message.ListPartitionReassignmentsResponseData.OngoingTopicReassignment;
import org.apache.kafka.common.protocol.Errors;

/**
 * ListPartitionReassignments, on the route owning each topic (any broker); null topics (all ongoing
 * reassignments) go to every route, visible topics kept and renamed. Replica ids come back virtual.
 * A partition-woven topic named with its partitions is split by segment and answered under its virtual
 * partitions; the all-reassignments form leaves woven topics out (their real topics are not renamed:
 * {@code virtualNameOf} never names a woven topic).
 */
final class ListPartitionReassignmentsPlanner extends TopicListPlanner<ListPartitionReassignmentsRequestData,
        ListPartitionReassignmentsTopics, ListPartitionReassignmentsResponseData, OngoingTopicReassignment> {

    ListPartitionReassignmentsPlanner() {
        super(Addressing.OWNING_ROUTE);
    }

    @Override
    List<ListPartitionReassignmentsTopics> entries(ListPartitionReassignmentsRequestData request, short version) {
        return request.topics();
    }

    @Override
    void setEntries(ListPartitionReassignmentsRequestData request, List<ListPartitionReassignmentsTopics> entries,
            short version) {
        request.setTopics(List.copyOf(entries));
    }

    @Override
    String name(ListPartitionReassignmentsTopics entry) {
        return entry.name();
    }

    @Override
    void toReal(ListPartitionReassignmentsTopics entry, Located.Owner owner, PlanContext ctx) {
        entry.setName(owner.realName());
    }

    @Override
    boolean hasEntryErrors() {
        return false;
    }

    @Override
    boolean omitsQuietEntries() {
        return true;
    }

    @Override
    List<OngoingTopicReassignment> results(ListPartitionReassignmentsResponseData response) {
        return response.topics();
    }

    @Override
    String resultName(OngoingTopicReassignment result) {
        return result.name();
    }

    @Override
    Errors topLevelError(ListPartitionReassignmentsResponseData answer) {
        return Errors.forCode(answer.errorCode());
    }

    @Override
    void toVirtual(OngoingTopicReassignment result, int route, String virtualName, Uuid virtualId, PlanContext ctx) {
        result.setName(virtualName);
        for (OngoingPartitionReassignment p : result.partitions()) {
            p.setReplicas(BrokerIds.toVirtual(p.replicas(), route, ctx))
                    .setAddingReplicas(BrokerIds.toVirtual(p.addingReplicas(), route, ctx))
                    .setRemovingReplicas(BrokerIds.toVirtual(p.removingReplicas(), route, ctx));
        }
    }

    @Override
    ListPartitionReassignmentsResponseData merged(List<OngoingTopicReassignment> results,
            List<ListPartitionReassignmentsResponseData> answers, short version) {
        ListPartitionReassignmentsResponseData out = new ListPartitionReassignmentsResponseData().setTopics(results)
                .setThrottleTimeMs(maxThrottle(answers, ListPartitionReassignmentsResponseData::throttleTimeMs));
        answers.stream().filter(a -> a.errorCode() != Errors.NONE.code()).findFirst()
                .ifPresent(a -> out.setErrorCode(a.errorCode()).setErrorMessage(a.errorMessage()));
        return out;
    }

    static final PartitionLists<ListPartitionReassignmentsTopics, OngoingTopicReassignment> PARTITIONS = PartitionLists.ofIndexes(
            ListPartitionReassignmentsTopics::partitionIndexes, ListPartitionReassignmentsTopics::setPartitionIndexes,
            OngoingTopicReassignment::partitions, OngoingTopicReassignment::setPartitions,
            OngoingPartitionReassignment::partitionIndex, OngoingPartitionReassignment::setPartitionIndex);

    @Override
    PartitionLists<ListPartitionReassignmentsTopics, OngoingTopicReassignment> partitionLists() {
        return PARTITIONS;
    }
}
