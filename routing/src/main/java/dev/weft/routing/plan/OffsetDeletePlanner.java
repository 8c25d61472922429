package dev.weft.routing.plan;

import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.message.OffsetDeleteRequestData;
import org.apache.kafka.common.message.OffsetDeleteRequestData.OffsetDeleteRequestTopic;
import org.apache.kafka.common.message.OffsetDeleteRequestData.OffsetDeleteRequestTopicCollection;
import org.apache.kafka.common.message.OffsetDeleteResponseData;
import org.apache.kafka.common.message.OffsetDeleteResponseData.OffsetDeleteResponsePartition;
import org.apache.kafka.common.message.OffsetDeleteResponseData.OffsetDeleteResponsePartitionCollection;
import org.apache.kafka.common.message.OffsetDeleteResponseData.OffsetDeleteResponseTopic;
import org.apache.kafka.common.message.OffsetDeleteResponseData.OffsetDeleteResponseTopicCollection;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * OffsetDelete: offsets live on the route owning each partition, so the request is split by route and
 * sent to the group's coordinator on each. The group-level error is the home route's (whether the
 * group is still subscribed, or authorized, is decided there); another route's group-level error or
 * failure is put on its own partitions.
 */
final class OffsetDeletePlanner implements ColdPlanner {

    private static final TopicKey<OffsetDeleteRequestTopic> REQUEST_TOPIC = TopicKey.named(OffsetDeleteRequestTopic::name,
            OffsetDeleteRequestTopic::setName);
    private static final TopicKey<OffsetDeleteResponseTopic> RESPONSE_TOPIC = TopicKey.named(
            OffsetDeleteResponseTopic::name, OffsetDeleteResponseTopic::setName);

    static final PartitionLists<OffsetDeleteRequestTopic, OffsetDeleteResponseTopic> PARTITIONS = new PartitionLists<>(
            t -> t.partitions().stream().map(p -> p.partitionIndex()).toList(),
            (t, f) -> t.setPartitions(PartitionLists.renumbered(t.partitions(),
                    org.apache.kafka.common.message.OffsetDeleteRequestData.OffsetDeleteRequestPartition::partitionIndex,
                    org.apache.kafka.common.message.OffsetDeleteRequestData.OffsetDeleteRequestPartition::setPartitionIndex, f)),
            PartitionLists.renumberCollection(OffsetDeleteResponseTopic::partitions, OffsetDeleteResponseTopic::setPartitions,
                    OffsetDeleteResponsePartitionCollection::new, OffsetDeleteResponsePartition::partitionIndex,
                    OffsetDeleteResponsePartition::setPartitionIndex),
            PartitionLists.appendCollection(OffsetDeleteResponseTopic::partitions));

    @Override
    public Step plan(ApiMessage request, short version, PlanContext ctx) {
        OffsetDeleteRequestData req = (OffsetDeleteRequestData) request;
        int home = ctx.groups().homeRoute(req.groupId());
        TopicsByRoute<OffsetDeleteRequestTopic> split = new TopicsByRoute<>(new ArrayList<>(req.topics()),
                REQUEST_TOPIC, false, ctx.topics(), PARTITIONS);
        List<Integer> routes = List.copyOf(split.routes());
        List<Part> parts = new ArrayList<>();
        for (int route : routes) {
            OffsetDeleteRequestData body = new OffsetDeleteRequestData().setGroupId(req.groupId())
                    .setTopics(new OffsetDeleteRequestTopicCollection(split.toReal(route).iterator()));
            parts.add(new Part(route, new Destination.GroupCoordinator(req.groupId()), version, body));
        }
        if (parts.isEmpty()) {
            return Step.respond(merge(split, routes, List.of(), home));
        }
        return new Step.Send(parts, answers -> Step.respond(merge(split, routes, answers, home)));
    }

    private static OffsetDeleteResponseData merge(TopicsByRoute<OffsetDeleteRequestTopic> split, List<Integer> routes,
            List<Answer> answers, int home) {
        int throttle = 0;
        Errors groupError = Errors.NONE;
        for (int i = 0; i < answers.size(); i++) {
            Answer a = answers.get(i);
            if (!a.failed()) {
                OffsetDeleteResponseData body = (OffsetDeleteResponseData) a.body();
                throttle = Math.max(throttle, body.throttleTimeMs());
                if (routes.get(i) == home) {
                    groupError = Errors.forCode(body.errorCode());
                }
            } else if (routes.get(i) == home) {
                groupError = CoordinatorFailures.retriable(a);
            }
        }
        List<OffsetDeleteResponseTopic> topics = split.merge(RESPONSE_TOPIC, route -> {
            Answer a = answers.get(routes.indexOf(route));
            return a.failed() ? null : new ArrayList<>(((OffsetDeleteResponseData) a.body()).topics());
        }, route -> {
            Answer a = answers.get(routes.indexOf(route));
            if (a.failed()) {
                return CoordinatorFailures.retriable(a);
            }
            short code = ((OffsetDeleteResponseData) a.body()).errorCode();
            return code == Errors.NONE.code() ? null : Errors.forCode(code);
        }, (clientTopic, error) -> {
            OffsetDeleteResponsePartitionCollection partitions = new OffsetDeleteResponsePartitionCollection();
            clientTopic.partitions().forEach(p -> partitions.add(new OffsetDeleteResponsePartition()
                    .setPartitionIndex(p.partitionIndex()).setErrorCode(error.code())));
            return new OffsetDeleteResponseTopic().setPartitions(partitions);
        });
        return new OffsetDeleteResponseData().setErrorCode(groupError.code()).setThrottleTimeMs(throttle)
                .setTopics(new OffsetDeleteResponseTopicCollection(topics.iterator()));
    }
}
