package dev.weft.routing.plan;

import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.DeleteRecordsRequestData;
import org.apache.kafka.common.message.DeleteRecordsRequestData.DeleteRecordsTopic;
import org.apache.kafka.common.message.DeleteRecordsResponseData;
import org.apache.kafka.common.message.DeleteRecordsResponseData.DeleteRecordsTopicResult;

/**
 * DeleteRecords, addressed to the partition leaders (see {@link TopicListPlanner.Addressing#LEADER}). A
 * partition-woven topic is split by segment ({@link #PARTITIONS}): each route deletes in its real
 * partitions, answered under the client's virtual ones.
 */
final class DeleteRecordsPlanner extends TopicListPlanner<DeleteRecordsRequestData, DeleteRecordsTopic,
        DeleteRecordsResponseData, DeleteRecordsTopicResult> {

    DeleteRecordsPlanner() {
        super(Addressing.LEADER);
    }

    @Override
    List<DeleteRecordsTopic> entries(DeleteRecordsRequestData request, short version) {
        return request.topics();
    }

    @Override
    void setEntries(DeleteRecordsRequestData request, List<DeleteRecordsTopic> entries, short version) {
        request.setTopics(List.copyOf(entries));
    }

    @Override
    String name(DeleteRecordsTopic entry) {
        return entry.name();
    }

    @Override
    void toReal(DeleteRecordsTopic entry, Located.Owner owner, PlanContext ctx) {
        entry.setName(owner.realName());
    }

    @Override
    List<DeleteRecordsTopicResult> results(DeleteRecordsResponseData response) {
        return List.copyOf(response.topics());
    }

    @Override
    String resultName(DeleteRecordsTopicResult result) {
        return result.name();
    }

    @Override
    void toVirtual(DeleteRecordsTopicResult result, int route, String virtualName, Uuid virtualId, PlanContext ctx) {
        result.setName(virtualName);
    }

    @Override
    DeleteRecordsResponseData merged(List<DeleteRecordsTopicResult> results, List<DeleteRecordsResponseData> answers,
            short version) {
        DeleteRecordsResponseData.DeleteRecordsTopicResultCollection topics = new DeleteRecordsResponseData.DeleteRecordsTopicResultCollection();
        topics.addAll(results);
        return new DeleteRecordsResponseData().setTopics(topics)
                .setThrottleTimeMs(maxThrottle(answers, DeleteRecordsResponseData::throttleTimeMs));
    }

    @Override
    List<Integer> partitionsOf(DeleteRecordsTopic entry) {
        return entry.partitions().stream().map(p -> p.partitionIndex()).toList();
    }

    @Override
    void keepPartitions(DeleteRecordsTopic entry, java.util.Set<Integer> keep) {
        entry.setPartitions(new ArrayList<>(entry.partitions().stream().filter(p -> keep.contains(p.partitionIndex())).toList()));
    }

    /**
     * The response's partitions are an ImplicitLinkedHashCollection keyed by index: renumbered into a new
     * collection, each element duplicated (an element belongs to one collection, and its key changes).
     */
    static final PartitionLists<DeleteRecordsTopic, DeleteRecordsTopicResult> PARTITIONS = new PartitionLists<>(
            t -> t.partitions().stream().map(DeleteRecordsRequestData.DeleteRecordsPartition::partitionIndex).toList(),
            (t, f) -> t.setPartitions(PartitionLists.renumbered(t.partitions(),
                    DeleteRecordsRequestData.DeleteRecordsPartition::partitionIndex,
                    DeleteRecordsRequestData.DeleteRecordsPartition::setPartitionIndex, f)),
            PartitionLists.renumberCollection(DeleteRecordsTopicResult::partitions, DeleteRecordsTopicResult::setPartitions,
                    DeleteRecordsResponseData.DeleteRecordsPartitionResultCollection::new,
                    DeleteRecordsResponseData.DeleteRecordsPartitionResult::partitionIndex,
                    DeleteRecordsResponseData.DeleteRecordsPartitionResult::setPartitionIndex),
            PartitionLists.appendCollection(DeleteRecordsTopicResult::partitions));

    @Override
    PartitionLists<DeleteRecordsTopic, DeleteRecordsTopicResult> partitionLists() {
        return PARTITIONS;
    }
}
