package dev.weft.routing.plan;

import dev.weft.routing.VisibleTopic;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic;
import org.apache.kafka.common.message.TxnOffsetCommitResponseData;
import org.apache.kafka.common.message.TxnOffsetCommitResponseData.TxnOffsetCommitResponsePartition;
import org.apache.kafka.common.message.TxnOffsetCommitResponseData.TxnOffsetCommitResponseTopic;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * TxnOffsetCommit (sent by a transactional producer to the group's coordinator): the offsets become
 * part of the transaction, so the group and every partition must live on the transaction's home route
 * T; otherwise every partition is refused with TRANSACTION_ABORTABLE and the producer aborts. Within T
 * the topics are renamed to their real names (or ids, v6+) and the answer mapped back.
 */
final class TxnOffsetCommitPlanner implements ColdPlanner {

    /** v6 names topics by id. */
    private static final short FIRST_BY_ID = 6;

    private static final TopicKey<TxnOffsetCommitRequestTopic> REQUEST_TOPIC = new TopicKey<>(
            TxnOffsetCommitRequestTopic::name, TxnOffsetCommitRequestTopic::setName,
            TxnOffsetCommitRequestTopic::topicId, TxnOffsetCommitRequestTopic::setTopicId);
    private static final TopicKey<TxnOffsetCommitResponseTopic> RESPONSE_TOPIC = new TopicKey<>(
            TxnOffsetCommitResponseTopic::name, TxnOffsetCommitResponseTopic::setName,
            TxnOffsetCommitResponseTopic::topicId, TxnOffsetCommitResponseTopic::setTopicId);

    static final PartitionLists<TxnOffsetCommitRequestTopic, TxnOffsetCommitResponseTopic> PARTITIONS = PartitionLists.of(
            TxnOffsetCommitRequestTopic::partitions, TxnOffsetCommitRequestTopic::setPartitions,
            org.apache.kafka.common.message.TxnOffsetCommitRequestData.TxnOffsetCommitRequestPartition::partitionIndex,
            org.apache.kafka.common.message.TxnOffsetCommitRequestData.TxnOffsetCommitRequestPartition::setPartitionIndex,
            TxnOffsetCommitResponseTopic::partitions, TxnOffsetCommitResponseTopic::setPartitions,
            TxnOffsetCommitResponsePartition::partitionIndex, TxnOffsetCommitResponsePartition::setPartitionIndex);

    @Override
    public Step plan(ApiMessage request, short version, PlanContext ctx) {
        TxnOffsetCommitRequestData req = (TxnOffsetCommitRequestData) request;
        int home = ctx.transactions().homeRoute(req.transactionalId());
        int groupHome = ctx.groups().homeRoute(req.groupId());
        if (groupHome != home) {
            return Refusals.refuse(req, version, ctx, Errors.TRANSACTION_ABORTABLE, TransactionConfinement.groupElsewhere(
                    ctx, req.transactionalId(), home, req.groupId(), groupHome));
        }
        TopicsByRoute<TxnOffsetCommitRequestTopic> split = new TopicsByRoute<>(req.topics(), REQUEST_TOPIC,
                version >= FIRST_BY_ID, ctx.topics(), PARTITIONS);
        TransactionConfinement.Elsewhere elsewhere = TransactionConfinement.firstElsewhere(split, home);
        if (elsewhere != null) {
            return Refusals.refuse(req, version, ctx, Errors.TRANSACTION_ABORTABLE,
                    TransactionConfinement.topicElsewhere(ctx, req.transactionalId(), home, elsewhere));
        }
        if (!HomeCoordinators.serves(ctx, home)) {
            return Step.respond(Refusals.errorResponse(req, version, Errors.NOT_COORDINATOR, null));
        }
        if (!split.onRoute(home)) {
            return Step.respond(merge(split, null, 0));
        }
        Part part = new Part(home, HomeCoordinators.transaction(ctx, req.transactionalId()), version, req.duplicate().setTopics(split.toReal(home)));
        return Step.send(part, answer -> {
            int throttle = answer.failed() ? 0 : ((TxnOffsetCommitResponseData) answer.body()).throttleTimeMs();
            return Step.respond(merge(split, answer, throttle));
        });
    }

    private static TxnOffsetCommitResponseData merge(TopicsByRoute<TxnOffsetCommitRequestTopic> split, Answer answer,
            int throttle) {
        return new TxnOffsetCommitResponseData().setThrottleTimeMs(throttle).setTopics(split.merge(RESPONSE_TOPIC,
                route -> answer == null || answer.failed() ? null
                        : ((TxnOffsetCommitResponseData) answer.body()).topics(),
                route -> answer != null && answer.failed() ? CoordinatorFailures.retriable(answer) : null,
                (clientTopic, error) -> new TxnOffsetCommitResponseTopic().setPartitions(clientTopic.partitions().stream()
                        .map(p -> new TxnOffsetCommitResponsePartition().setPartitionIndex(p.partitionIndex())
                                .setErrorCode(error.code()))
                        .toList())));
    }
}
