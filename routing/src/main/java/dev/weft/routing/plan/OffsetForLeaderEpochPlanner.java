package dev.weft.routing.plan;

import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData.OffsetForLeaderTopic;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResult;

/** OffsetForLeaderEpoch, addressed to the partition leaders (see {@link TopicListPlanner.Addressing#LEADER}). */
final class OffsetForLeaderEpochPlanner extends TopicListPlanner<OffsetForLeaderEpochRequestData, OffsetForLeaderTopic,
        OffsetForLeaderEpochResponseData, OffsetForLeaderTopicResult> {

    OffsetForLeaderEpochPlanner() {
        super(Addressing.LEADER);
    }

    @Override
    List<OffsetForLeaderTopic> entries(OffsetForLeaderEpochRequestData request, short version) {
        return List.copyOf(request.topics());
    }

    @Override
    void setEntries(OffsetForLeaderEpochRequestData request, List<OffsetForLeaderTopic> entries, short version) {
        OffsetForLeaderEpochRequestData.OffsetForLeaderTopicCollection topics = new OffsetForLeaderEpochRequestData.OffsetForLeaderTopicCollection();
        topics.addAll(entries);
        request.setTopics(topics);
    }

    @Override
    String name(OffsetForLeaderTopic entry) {
        return entry.topic();
    }

    @Override
    void toReal(OffsetForLeaderTopic entry, Located.Owner owner, PlanContext ctx) {
        entry.setTopic(owner.realName());
    }

    @Override
    List<OffsetForLeaderTopicResult> results(OffsetForLeaderEpochResponseData response) {
        return List.copyOf(response.topics());
    }

    @Override
    String resultName(OffsetForLeaderTopicResult result) {
        return result.topic();
    }

    @Override
    void toVirtual(OffsetForLeaderTopicResult result, int route, String virtualName, Uuid virtualId, PlanContext ctx) {
        result.setTopic(virtualName);
    }

    @Override
    OffsetForLeaderEpochResponseData merged(List<OffsetForLeaderTopicResult> results,
            List<OffsetForLeaderEpochResponseData> answers, short version) {
        OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResultCollection topics = new OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResultCollection();
        topics.addAll(results);
        return new OffsetForLeaderEpochResponseData().setTopics(topics)
                .setThrottleTimeMs(maxThrottle(answers, OffsetForLeaderEpochResponseData::throttleTimeMs));
    }

    @Override
    List<Integer> partitionsOf(OffsetForLeaderTopic entry) {
        return entry.partitions().stream().map(p -> p.partition()).toList();
    }

    @Override
    void keepPartitions(OffsetForLeaderTopic entry, java.util.Set<Integer> keep) {
        entry.setPartitions(new ArrayList<>(entry.partitions().stream().filter(p -> keep.contains(p.partition())).toList()));
    }

    private static final PartitionLists<OffsetForLeaderTopic, OffsetForLeaderTopicResult> PARTITIONS = PartitionLists.of(
            OffsetForLeaderTopic::partitions, OffsetForLeaderTopic::setPartitions,
            OffsetForLeaderEpochRequestData.OffsetForLeaderPartition::partition,
            OffsetForLeaderEpochRequestData.OffsetForLeaderPartition::setPartition,
            OffsetForLeaderTopicResult::partitions, OffsetForLeaderTopicResult::setPartitions,
            OffsetForLeaderEpochResponseData.EpochEndOffset::partition, OffsetForLeaderEpochResponseData.EpochEndOffset::setPartition);

    @Override
    PartitionLists<OffsetForLeaderTopic, OffsetForLeaderTopicResult> partitionLists() {
        return PARTITIONS;
    }
}
