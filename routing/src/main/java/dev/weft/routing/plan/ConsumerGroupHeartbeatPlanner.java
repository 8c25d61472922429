package dev.weft.routing.plan;

import dev.weft.routing.VisibleTopic;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * ConsumerGroupHeartbeat (KIP-848): the group's coordinator on its home route H computes the
 * assignment itself, from H's topics only, so a KIP-848 group works when it subscribes to topics of
 * H and is refused when it names a topic of another cluster. Groups spanning clusters use the classic
 * protocol, whose assignment runs in the client over the merged metadata.
 *
 * <p>The refusal is INVALID_REQUEST with the explanation as the error message: kafka-clients 4.x
 * treats it as fatal (AbstractHeartbeatRequestManager: INVALID_REQUEST, GROUP_MAX_SIZE_REACHED,
 * UNSUPPORTED_ASSIGNOR and UNSUPPORTED_VERSION fail the member with {@code error.exception(message)}),
 * so poll() throws an InvalidRequestException carrying the message; UNSUPPORTED_ASSIGNOR would point at
 * the assignor and authorization errors at ACLs, both misleading, and retriable errors would loop.
 *
 * <p>Subscribed names that resolve to no visible topic pass through unchanged (the broker treats them
 * as topics that do not exist yet). {@code subscribedTopicRegex} passes through unchanged: H evaluates
 * it over its real topic names, so with prefixed or renamed topics it must be written for the real
 * names. Topic ids in the owned partitions (request) and in the assignment (response) are mapped
 * virtual ↔ real; assigned partitions of topics the catalog hides are left out.
 */
final class ConsumerGroupHeartbeatPlanner implements ColdPlanner {

    @Override
    public Step plan(ApiMessage request, short version, PlanContext ctx) {
        ConsumerGroupHeartbeatRequestData req = (ConsumerGroupHeartbeatRequestData) request;
        int home = ctx.groups().homeRoute(req.groupId());
        if (!HomeCoordinators.serves(ctx, home)) {
            return Step.respond(Refusals.errorResponse(req, version, Errors.NOT_COORDINATOR, null));
        }
        ConsumerGroupHeartbeatRequestData body = req.duplicate();
        if (req.subscribedTopicNames() != null) {
            List<String> real = new ArrayList<>();
            for (String name : req.subscribedTopicNames()) {
                VisibleTopic v = ctx.topics().resolve(name);
                if (v != null && v.woven()) {
                    // the home coordinator assigns real partitions of real topics: it cannot be given a
                    // topic made of partitions of several topics (possibly on several clusters)
                    return refuse(req, version, ctx, "consumer group '" + req.groupId()
                            + "' (KIP-848 protocol) subscribes to topic '" + name + "', which is partition-woven"
                            + " (its partitions are partitions of several physical topics); the home cluster's"
                            + " assignor cannot assign it: use group.protocol=classic for groups reading woven topics");
                }
                if (v != null && v.route() != home) {
                    return refuse(req, version, ctx, "consumer group '" + req.groupId()
                            + "' (KIP-848 protocol) subscribes to topic '" + name + "' on cluster '"
                            + ctx.routeName(v.route()) + "' but is coordinated by cluster '" + ctx.routeName(home)
                            + "'; a KIP-848 group can only subscribe to topics of its home cluster: use"
                            + " group.protocol=classic for groups spanning clusters");
                }
                real.add(v == null ? name : v.realName());
            }
            body.setSubscribedTopicNames(real);
        }
        if (req.topicPartitions() != null) {
            List<ConsumerGroupHeartbeatRequestData.TopicPartitions> owned = new ArrayList<>();
            for (ConsumerGroupHeartbeatRequestData.TopicPartitions tp : req.topicPartitions()) {
                VisibleTopic v = ctx.topics().byVirtualId(tp.topicId());
                if (v != null && !v.woven() && v.route() == home) {
                    owned.add(tp.duplicate().setTopicId(v.realId()));
                }
            }
            body.setTopicPartitions(owned);
        }
        return Step.send(new Part(home, HomeCoordinators.group(ctx, req.groupId()), version, body), answer -> {
            if (answer.failed()) {
                return Step.respond(Refusals.errorResponse(req, version, CoordinatorFailures.retriable(answer),
                        answer.reason()));
            }
            ConsumerGroupHeartbeatResponseData resp = (ConsumerGroupHeartbeatResponseData) answer.body();
            if (resp.assignment() != null) {
                List<ConsumerGroupHeartbeatResponseData.TopicPartitions> assigned = new ArrayList<>();
                for (ConsumerGroupHeartbeatResponseData.TopicPartitions tp : resp.assignment().topicPartitions()) {
                    VisibleTopic v = ctx.topics().byRealId(home, tp.topicId());
                    if (v != null) {
                        assigned.add(tp.setTopicId(v.virtualId()));
                    }
                }
                resp.assignment().setTopicPartitions(assigned);
            }
            return Step.respond(resp);
        });
    }

    /**
     * INVALID_REQUEST with the reason as the response's error message (kafka-clients' own error response
     * for this API leaves the message out, and the consumer shows exactly this message).
     */
    private static Step refuse(ConsumerGroupHeartbeatRequestData req, short version, PlanContext ctx, String message) {
        ctx.logRefusal(message);
        ConsumerGroupHeartbeatResponseData resp = (ConsumerGroupHeartbeatResponseData) Refusals.errorResponse(req,
                version, Errors.INVALID_REQUEST, message);
        return Step.respond(resp.setErrorMessage(message));
    }
}
