package dev.weft.routing.plan;

import dev.weft.routing.VisibleTopic;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreatePartitionsRequestData.CreatePartitionsTopic;
import org.apache.kafka.common.message.CreatePartitionsResponseData;
import org.apache.kafka.common.message.CreatePartitionsResponseData.CreatePartitionsTopicResult;

/**
 * CreatePartitions, on the route owning each topic (any broker); manual assignments name that route's
 * brokers. A partition-woven topic is refused POLICY_VIOLATION naming the router config that defines
 * its partitions ({@link DeleteTopicsPlanner#wovenRefusal}).
 */
final class CreatePartitionsPlanner extends TopicListPlanner<CreatePartitionsRequestData, CreatePartitionsTopic,
        CreatePartitionsResponseData, CreatePartitionsTopicResult> {

    CreatePartitionsPlanner() {
        super(Addressing.OWNING_ROUTE);
    }

    @Override
    List<CreatePartitionsTopic> entries(CreatePartitionsRequestData request, short version) {
        return List.copyOf(request.topics());
    }

    @Override
    void setEntries(CreatePartitionsRequestData request, List<CreatePartitionsTopic> entries, short version) {
        CreatePartitionsRequestData.CreatePartitionsTopicCollection topics = new CreatePartitionsRequestData.CreatePartitionsTopicCollection();
        topics.addAll(entries);
        request.setTopics(topics);
    }

    @Override
    Located locateWoven(CreatePartitionsTopic entry, VisibleTopic topic, PlanContext ctx) {
        return DeleteTopicsPlanner.wovenRefusal(topic, ctx);
    }

    @Override
    String name(CreatePartitionsTopic entry) {
        return entry.name();
    }

    @Override
    void toReal(CreatePartitionsTopic entry, Located.Owner owner, PlanContext ctx) {
        entry.setName(owner.realName());
        if (entry.assignments() != null) {
            for (CreatePartitionsRequestData.CreatePartitionsAssignment a : entry.assignments()) {
                a.setBrokerIds(BrokerIds.toReal(a.brokerIds(), owner.route(), ctx));
            }
        }
    }

    @Override
    List<CreatePartitionsTopicResult> results(CreatePartitionsResponseData response) {
        return response.results();
    }

    @Override
    String resultName(CreatePartitionsTopicResult result) {
        return result.name();
    }

    @Override
    void toVirtual(CreatePartitionsTopicResult result, int route, String virtualName, Uuid virtualId, PlanContext ctx) {
        result.setName(virtualName);
    }

    @Override
    CreatePartitionsResponseData merged(List<CreatePartitionsTopicResult> results,
            List<CreatePartitionsResponseData> answers, short version) {
        return new CreatePartitionsResponseData().setResults(results)
                .setThrottleTimeMs(maxThrottle(answers, CreatePartitionsResponseData::throttleTimeMs));
    }
}
