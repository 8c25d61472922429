package dev.weft.routing.plan;

import dev.weft.routing.Placement;
import dev.weft.routing.VisibleTopic;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.DeleteTopicsRequestData.DeleteTopicState;
import org.apache.kafka.common.message.DeleteTopicsResponseData;
import org.apache.kafka.common.message.DeleteTopicsResponseData.DeletableTopicResult;
import org.apache.kafka.common.protocol.Errors;

/**
 * DeleteTopics, on the route owning each topic (any broker). Versions 0–5 list names in
 * {@code topicNames}; 6+ list {@code topics} by name or id. The old form is read and written as the new
 * one so both share the split. A partition-woven topic is refused POLICY_VIOLATION, naming the router
 * config that defines it ({@link #wovenRefusal}): it is made of parts of real topics and deleted there.
 */
final class DeleteTopicsPlanner
        extends TopicListPlanner<DeleteTopicsRequestData, DeleteTopicState, DeleteTopicsResponseData, DeletableTopicResult> {

    private static final short FIRST_VERSION_WITH_IDS = 6;

    DeleteTopicsPlanner() {
        super(Addressing.OWNING_ROUTE);
    }

    @Override
    List<DeleteTopicState> entries(DeleteTopicsRequestData request, short version) {
        if (version >= FIRST_VERSION_WITH_IDS) {
            return request.topics();
        }
        return request.topicNames().stream().map(n -> new DeleteTopicState().setName(n)).toList();
    }

    @Override
    void setEntries(DeleteTopicsRequestData request, List<DeleteTopicState> entries, short version) {
        if (version >= FIRST_VERSION_WITH_IDS) {
            request.setTopics(new ArrayList<>(entries));
        } else {
            request.setTopicNames(entries.stream().map(DeleteTopicState::name).toList());
        }
    }

    @Override
    Located locateWoven(DeleteTopicState entry, VisibleTopic topic, PlanContext ctx) {
        return wovenRefusal(topic, ctx);
    }

    /**
     * The refusal of a topic-lifecycle request (DeleteTopics, CreatePartitions) naming partition-woven
     * {@code topic}: POLICY_VIOLATION with the catalog's placement message, which names the router
     * config ({@code routers.<name>.topics.<topic>}) that defines the topic.
     */
    static Located wovenRefusal(VisibleTopic topic, PlanContext ctx) {
        String message = ctx.topics().place(topic.virtualName()) instanceof Placement.Refused r && r.message() != null
                ? r.message()
                : "topic '" + topic.virtualName() + "' is partition-woven over several clusters; it is changed in"
                        + " its router's config, not by this request";
        return new Located.Refused(Errors.POLICY_VIOLATION, message, true);
    }

    /** getErrorResponse leaves the message out; versions 5+ carry it (older ones drop the ignorable field). */
    @Override
    void setErrorMessage(DeletableTopicResult result, String message) {
        result.setErrorMessage(message);
    }

    @Override
    String name(DeleteTopicState entry) {
        return entry.name();
    }

    @Override
    Uuid id(DeleteTopicState entry) {
        return entry.topicId();
    }

    @Override
    void toReal(DeleteTopicState entry, Located.Owner owner, PlanContext ctx) {
        if (entry.name() != null) {
            entry.setName(owner.realName());
        } else {
            entry.setTopicId(owner.realId());
        }
    }

    @Override
    List<DeletableTopicResult> results(DeleteTopicsResponseData response) {
        return new ArrayList<>(response.responses());
    }

    @Override
    String resultName(DeletableTopicResult result) {
        return result.name();
    }

    @Override
    List<Object> resultKeys(DeletableTopicResult result) {
        return Arrays.asList(result.name(), Uuid.ZERO_UUID.equals(result.topicId()) ? null : result.topicId());
    }

    @Override
    void toVirtual(DeletableTopicResult result, int route, String virtualName, Uuid virtualId, PlanContext ctx) {
        result.setName(virtualName);
        if (!Uuid.ZERO_UUID.equals(result.topicId()) && !Uuid.ZERO_UUID.equals(virtualId)) {
            result.setTopicId(virtualId);
        }
    }

    @Override
    DeleteTopicsResponseData merged(List<DeletableTopicResult> results, List<DeleteTopicsResponseData> answers,
            short version) {
        DeleteTopicsResponseData.DeletableTopicResultCollection out = new DeleteTopicsResponseData.DeletableTopicResultCollection();
        out.addAll(results);
        return new DeleteTopicsResponseData().setResponses(out)
                .setThrottleTimeMs(maxThrottle(answers, DeleteTopicsResponseData::throttleTimeMs));
    }
}
