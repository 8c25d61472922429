package dev.weft.routing.plan;

import dev.weft.routing.Placement;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopic;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.CreateTopicsResponseData.CreatableTopicResult;
import org.apache.kafka.common.protocol.Errors;

/**
 * CreateTopics: each topic is placed by the router's placement rules and created on that route under its
 * real name (any broker: KRaft brokers forward to the controller). Result topic ids (v7+) are the real
 * ids: a new topic's virtual id equals its real id unless it collides with another visible topic's id
 * (two routes onto one cluster), which the next catalog snapshot resolves.
 */
final class CreateTopicsPlanner
        extends TopicListPlanner<CreateTopicsRequestData, CreatableTopic, CreateTopicsResponseData, CreatableTopicResult> {

    CreateTopicsPlanner() {
        super(Addressing.OWNING_ROUTE);
    }

    @Override
    Located locate(CreatableTopic entry, PlanContext ctx) {
        return switch (ctx.topics().place(entry.name())) {
            case Placement.Placed p -> new Located.Owner(p.route(), Destination.ANY, p.realName(), Uuid.ZERO_UUID,
                    entry.name(), Uuid.ZERO_UUID);
            case Placement.Refused r -> new Located.Refused(errorOf(r.reason()), r.message(), true);
        };
    }

    static Errors errorOf(Placement.Reason reason) {
        return switch (reason) {
            case ALREADY_EXISTS -> Errors.TOPIC_ALREADY_EXISTS;
            case CANNOT_MAP -> Errors.INVALID_TOPIC_EXCEPTION;
            case WOULD_BE_HIDDEN -> Errors.POLICY_VIOLATION;
            case NOT_AUTHORIZED -> Errors.TOPIC_AUTHORIZATION_FAILED;
        };
    }

    @Override
    List<CreatableTopic> entries(CreateTopicsRequestData request, short version) {
        return new ArrayList<>(request.topics());
    }

    @Override
    void setEntries(CreateTopicsRequestData request, List<CreatableTopic> entries, short version) {
        CreateTopicsRequestData.CreatableTopicCollection topics = new CreateTopicsRequestData.CreatableTopicCollection();
        topics.addAll(entries);
        request.setTopics(topics);
    }

    @Override
    String name(CreatableTopic entry) {
        return entry.name();
    }

    @Override
    void toReal(CreatableTopic entry, Located.Owner owner, PlanContext ctx) {
        entry.setName(owner.realName());
        for (CreateTopicsRequestData.CreatableReplicaAssignment a : entry.assignments()) {
            a.setBrokerIds(BrokerIds.toReal(a.brokerIds(), owner.route(), ctx));
        }
    }

    @Override
    List<CreatableTopicResult> results(CreateTopicsResponseData response) {
        return new ArrayList<>(response.topics());
    }

    @Override
    String resultName(CreatableTopicResult result) {
        return result.name();
    }

    @Override
    void toVirtual(CreatableTopicResult result, int route, String virtualName, Uuid virtualId, PlanContext ctx) {
        result.setName(virtualName);
    }

    @Override
    CreateTopicsResponseData merged(List<CreatableTopicResult> results, List<CreateTopicsResponseData> answers,
            short version) {
        CreateTopicsResponseData.CreatableTopicResultCollection topics = new CreateTopicsResponseData.CreatableTopicResultCollection();
        topics.addAll(results);
        return new CreateTopicsResponseData().setTopics(topics)
                .setThrottleTimeMs(maxThrottle(answers, CreateTopicsResponseData::throttleTimeMs));
    }
}
