package dev.weft.routing.plan;

import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsTopic;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.ListOffsetsResponseData.ListOffsetsTopicResponse;

/**
 * ListOffsets, addressed to the partition leaders (see {@link TopicListPlanner.Addressing#LEADER}).
 * Versions 1+ only exist in current clients (v0's {@code oldStyleOffsets} is gone), so every version
 * shares one shape; a replica id or isolation level passes through.
 */
final class ListOffsetsPlanner extends TopicListPlanner<ListOffsetsRequestData, ListOffsetsTopic,
        ListOffsetsResponseData, ListOffsetsTopicResponse> {

    ListOffsetsPlanner() {
        super(Addressing.LEADER);
    }

    @Override
    List<ListOffsetsTopic> entries(ListOffsetsRequestData request, short version) {
        return request.topics();
    }

    @Override
    void setEntries(ListOffsetsRequestData request, List<ListOffsetsTopic> entries, short version) {
        request.setTopics(List.copyOf(entries));
    }

    @Override
    String name(ListOffsetsTopic entry) {
        return entry.name();
    }

    @Override
    void toReal(ListOffsetsTopic entry, Located.Owner owner, PlanContext ctx) {
        entry.setName(owner.realName());
    }

    @Override
    List<ListOffsetsTopicResponse> results(ListOffsetsResponseData response) {
        return response.topics();
    }

    @Override
    String resultName(ListOffsetsTopicResponse result) {
        return result.name();
    }

    @Override
    void toVirtual(ListOffsetsTopicResponse result, int route, String virtualName, Uuid virtualId, PlanContext ctx) {
        result.setName(virtualName);
    }

    @Override
    ListOffsetsResponseData merged(List<ListOffsetsTopicResponse> results, List<ListOffsetsResponseData> answers,
            short version) {
        return new ListOffsetsResponseData().setTopics(results)
                .setThrottleTimeMs(maxThrottle(answers, ListOffsetsResponseData::throttleTimeMs));
    }

    @Override
    List<Integer> partitionsOf(ListOffsetsTopic entry) {
        return entry.partitions().stream().map(p -> p.partitionIndex()).toList();
    }

    @Override
    void keepPartitions(ListOffsetsTopic entry, java.util.Set<Integer> keep) {
        entry.setPartitions(new ArrayList<>(entry.partitions().stream().filter(p -> keep.contains(p.partitionIndex())).toList()));
    }

    private static final PartitionLists<ListOffsetsTopic, ListOffsetsTopicResponse> PARTITIONS = PartitionLists.of(
            ListOffsetsTopic::partitions, ListOffsetsTopic::setPartitions,
            ListOffsetsRequestData.ListOffsetsPartition::partitionIndex, ListOffsetsRequestData.ListOffsetsPartition::setPartitionIndex,
            ListOffsetsTopicResponse::partitions, ListOffsetsTopicResponse::setPartitions,
            ListOffsetsResponseData.ListOffsetsPartitionResponse::partitionIndex,
            ListOffsetsResponseData.ListOffsetsPartitionResponse::setPartitionIndex);

    @Override
    PartitionLists<ListOffsetsTopic, ListOffsetsTopicResponse> partitionLists() {
        return PARTITIONS;
    }
}
