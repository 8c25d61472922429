package dev.weft.routing.plan;

import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.DescribeProducersRequestData;
import org.apache.kafka.common.message.DescribeProducersRequestData.TopicRequest;
import org.apache.kafka.common.message.DescribeProducersResponseData;
import org.apache.kafka.common.message.DescribeProducersResponseData.TopicResponse;

/**
 * DescribeProducers, addressed to the partition leaders (see {@link TopicListPlanner.Addressing#LEADER}).
 * Producer ids in the answer are the route's own (broker-allocated) ids, not the proxy's virtual ones:
 * translating them needs the proxy's producer-id table, which planners do not see. A partition-woven
 * topic is split by segment ({@link #PARTITIONS}), renumbered there and back.
 */
final class DescribeProducersPlanner extends TopicListPlanner<DescribeProducersRequestData, TopicRequest,
        DescribeProducersResponseData, TopicResponse> {

    DescribeProducersPlanner() {
        super(Addressing.LEADER);
    }

    @Override
    List<TopicRequest> entries(DescribeProducersRequestData request, short version) {
        return List.copyOf(request.topics());
    }

    @Override
    void setEntries(DescribeProducersRequestData request, List<TopicRequest> entries, short version) {
        DescribeProducersRequestData.TopicRequestCollection topics = new DescribeProducersRequestData.TopicRequestCollection();
        topics.addAll(entries);
        request.setTopics(topics);
    }

    @Override
    String name(TopicRequest entry) {
        return entry.name();
    }

    @Override
    void toReal(TopicRequest entry, Located.Owner owner, PlanContext ctx) {
        entry.setName(owner.realName());
    }

    @Override
    List<TopicResponse> results(DescribeProducersResponseData response) {
        return response.topics();
    }

    @Override
    String resultName(TopicResponse result) {
        return result.name();
    }

    @Override
    void toVirtual(TopicResponse result, int route, String virtualName, Uuid virtualId, PlanContext ctx) {
        result.setName(virtualName);
    }

    @Override
    DescribeProducersResponseData merged(List<TopicResponse> results, List<DescribeProducersResponseData> answers,
            short version) {
        return new DescribeProducersResponseData().setTopics(results)
                .setThrottleTimeMs(maxThrottle(answers, DescribeProducersResponseData::throttleTimeMs));
    }

    @Override
    List<Integer> partitionsOf(TopicRequest entry) {
        return entry.partitionIndexes();
    }

    @Override
    void keepPartitions(TopicRequest entry, java.util.Set<Integer> keep) {
        entry.setPartitionIndexes(new ArrayList<>(entry.partitionIndexes().stream().filter(keep::contains).toList()));
    }

    static final PartitionLists<TopicRequest, TopicResponse> PARTITIONS = PartitionLists.ofIndexes(
            TopicRequest::partitionIndexes, TopicRequest::setPartitionIndexes, TopicResponse::partitions, TopicResponse::setPartitions,
            DescribeProducersResponseData.PartitionResponse::partitionIndex,
            DescribeProducersResponseData.PartitionResponse::setPartitionIndex);

    @Override
    PartitionLists<TopicRequest, TopicResponse> partitionLists() {
        return PARTITIONS;
    }
}
