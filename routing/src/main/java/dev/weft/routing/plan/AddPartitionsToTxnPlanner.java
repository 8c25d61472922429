package dev.weft.routing.plan;

import dev.weft.routing.VisibleTopic;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData.AddPartitionsToTxnTopic;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData.AddPartitionsToTxnTopicCollection;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData.AddPartitionsToTxnPartitionResult;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData.AddPartitionsToTxnPartitionResultCollection;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData.AddPartitionsToTxnTopicResult;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData.AddPartitionsToTxnTopicResultCollection;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * AddPartitionsToTxn v0–3 (the producer's form): a transaction may only add partitions of its home
 * route T. A partition elsewhere refuses the request before anything is sent — those partitions get
 * TRANSACTION_ABORTABLE and the others OPERATION_NOT_ATTEMPTED, like a broker that rejects part of a
 * request — so the transaction never spans two clusters. v4+ is the brokers' own batched form.
 */
final class AddPartitionsToTxnPlanner implements ColdPlanner {

    /** v4 is sent by brokers (verification), not clients. */
    private static final short FIRST_BROKER_FORM = 4;

    private static final TopicKey<AddPartitionsToTxnTopic> REQUEST_TOPIC = TopicKey.named(AddPartitionsToTxnTopic::name,
            AddPartitionsToTxnTopic::setName);
    private static final TopicKey<AddPartitionsToTxnTopicResult> RESPONSE_TOPIC = TopicKey.named(
            AddPartitionsToTxnTopicResult::name, AddPartitionsToTxnTopicResult::setName);

    static final PartitionLists<AddPartitionsToTxnTopic, AddPartitionsToTxnTopicResult> PARTITIONS = new PartitionLists<>(
            AddPartitionsToTxnTopic::partitions,
            (t, f) -> t.setPartitions(PartitionLists.renumbered(t.partitions(), f)),
            PartitionLists.renumberCollection(AddPartitionsToTxnTopicResult::resultsByPartition,
                    AddPartitionsToTxnTopicResult::setResultsByPartition, AddPartitionsToTxnPartitionResultCollection::new,
                    AddPartitionsToTxnPartitionResult::partitionIndex, AddPartitionsToTxnPartitionResult::setPartitionIndex),
            PartitionLists.appendCollection(AddPartitionsToTxnTopicResult::resultsByPartition));

    @Override
    public Step plan(ApiMessage request, short version, PlanContext ctx) {
        AddPartitionsToTxnRequestData req = (AddPartitionsToTxnRequestData) request;
        if (version >= FIRST_BROKER_FORM) {
            return Refusals.refuse(req, version, ctx, Errors.INVALID_REQUEST,
                    "AddPartitionsToTxn v" + version + " is the brokers' batched form, not a client request");
        }
        String txnId = req.v3AndBelowTransactionalId();
        int home = ctx.transactions().homeRoute(txnId);
        TopicsByRoute<AddPartitionsToTxnTopic> split = new TopicsByRoute<>(new ArrayList<>(req.v3AndBelowTopics()),
                REQUEST_TOPIC, false, ctx.topics(), PARTITIONS);
        TransactionConfinement.Elsewhere elsewhere = TransactionConfinement.firstElsewhere(split, home);
        if (elsewhere != null) {
            ctx.logRefusal(TransactionConfinement.topicElsewhere(ctx, txnId, home, elsewhere));
            return Step.respond(respond(split, i -> split.resolved(i) == null ? Errors.UNKNOWN_TOPIC_OR_PARTITION
                    : !java.util.Set.of(home).containsAll(split.routesOf(i)) ? Errors.TRANSACTION_ABORTABLE
                    : Errors.OPERATION_NOT_ATTEMPTED));
        }
        if (split.hasUnknown()) {
            // unknown topics: the broker would refuse them and not attempt the others; so do we
            return Step.respond(respond(split, i -> split.resolved(i) == null ? Errors.UNKNOWN_TOPIC_OR_PARTITION
                    : Errors.OPERATION_NOT_ATTEMPTED));
        }
        if (!HomeCoordinators.serves(ctx, home)) {
            return Step.respond(Refusals.errorResponse(req, version, Errors.NOT_COORDINATOR, null));
        }
        AddPartitionsToTxnRequestData body = req.duplicate()
                .setV3AndBelowTopics(new AddPartitionsToTxnTopicCollection(split.toReal(home).iterator()));
        return Step.send(new Part(home, HomeCoordinators.transaction(ctx, txnId), version, body), answer -> {
            if (answer.failed()) {
                return Step.respond(respond(split, i -> CoordinatorFailures.retriable(answer)));
            }
            AddPartitionsToTxnResponseData resp = (AddPartitionsToTxnResponseData) answer.body();
            List<AddPartitionsToTxnTopicResult> merged = split.merge(RESPONSE_TOPIC,
                    route -> new ArrayList<>(resp.resultsByTopicV3AndBelow()), route -> null, AddPartitionsToTxnPlanner::result);
            return Step.respond(resp.setResultsByTopicV3AndBelow(new AddPartitionsToTxnTopicResultCollection(
                    merged.iterator())));
        });
    }

    private static AddPartitionsToTxnResponseData respond(TopicsByRoute<AddPartitionsToTxnTopic> split,
            IntFunction<Errors> errorOf) {
        AddPartitionsToTxnTopicResultCollection results = new AddPartitionsToTxnTopicResultCollection();
        for (int i = 0; i < split.size(); i++) {
            AddPartitionsToTxnTopic t = split.clientTopic(i);
            results.add(result(t, errorOf.apply(i)).setName(t.name()));
        }
        return new AddPartitionsToTxnResponseData().setResultsByTopicV3AndBelow(results);
    }

    private static AddPartitionsToTxnTopicResult result(AddPartitionsToTxnTopic topic, Errors error) {
        AddPartitionsToTxnPartitionResultCollection partitions = new AddPartitionsToTxnPartitionResultCollection();
        for (int p : topic.partitions()) {
            partitions.add(new AddPartitionsToTxnPartitionResult().setPartitionIndex(p).setPartitionErrorCode(error.code()));
        }
        return new AddPartitionsToTxnTopicResult().setResultsByPartition(partitions);
    }
}
