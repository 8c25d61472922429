package dev.weft.proxy.exchange;

import dev.weft.protocol.frame.KafkaFrameDecoder;
import dev.weft.protocol.produce.ProduceRequestBuilder;
import dev.weft.protocol.produce.ProduceRequestSkim;
import dev.weft.protocol.produce.ProduceResponseMerger;
import dev.weft.protocol.produce.ProduceResponseSkim;
import dev.weft.protocol.record.RecordBatchView;
import dev.weft.routing.api.RoutePlan;
import dev.weft.routing.plan.IdempotentProducerIds;
import dev.weft.routing.api.RoutePlanPool;
import dev.weft.protocol.wire.TrailingRequestBytes;
import io.netty.buffer.ByteBuf;
import org.apache.kafka.common.protocol.Errors;

/**
 * Produce (hot path). The router plans every partition ({@link RoutePlan}): a plan that sends
 * everything to the connection's own broker under the client's keys forwards the client's frame as
 * it is; otherwise one sub-request per target is built around retained slices of the client's record
 * batches ({@link ProduceRequestBuilder}), and the answers are merged back under the client's names
 * ({@link ProduceResponseMerger}, {@link SplitAnswer}). Records are never copied. Producer ids are
 * rewritten in place for targets on another cluster than the producer-id home (8+2 bytes and the CRC
 * per batch). A transactional Produce touching another cluster than its transaction's home is refused
 * whole with TRANSACTION_ABORTABLE: nothing of it is written, the producer aborts. acks=0: no answer,
 * also when split. A plan with copies (BRANCH) sends them once the answer is merged ({@link BranchCopies}).
 */
public final class HotProduce {

    private static final int PREFIX = KafkaFrameDecoder.SIZE_PREFIX_BYTES;

    private final ExchangeHost host;
    private final TargetEndpoints endpoints;
    private final BranchCopies copies;
    private final RoutePlanPool plans;
    private final PlanSender parts;
    private final ProduceRequestSkim skim = new ProduceRequestSkim();
    private final ProduceRequestBuilder builder = new ProduceRequestBuilder();
    private final ProduceResponseMerger merger = new ProduceResponseMerger();
    private final RecordBatchView batch = new RecordBatchView();
    private final AnswerSkims<ProduceResponseSkim> answers;
    private long lastVirtualPid = -1;
    private int lastPidRoute = -1;
    private long lastUpstreamPid = -1;

    public HotProduce(ExchangeHost host) {
        this.host = host;
        this.endpoints = new TargetEndpoints(host);
        this.copies = new BranchCopies(host);
        this.plans = new RoutePlanPool(host.topicNames());
        this.answers = new AnswerSkims<>(host, ProduceResponseSkim::new, ProduceResponseSkim[]::new,
                ProduceResponseSkim::wrap, ProduceResponseSkim::errorCode);
        this.parts = new PlanSender(host, plans, "Produce",
                (plan, t) -> builder.build(skim, plan.targetOf(), t, 0, host.alloc()));
    }

    /** Takes ownership of {@code frame}. Returns false when the request waits for a producer-id claim. */
    public boolean handle(ByteBuf frame, int slot, short version) {
        try {
            skim.wrap(frame, frame.readerIndex() + PREFIX, frame.writerIndex());
        } catch (RuntimeException e) {
            frame.release(); // ours from the start: a request that cannot be read is released here
            throw e;
        }
        if (skim.trailingBytes() > 0) {
            TrailingRequestBytes.record(org.apache.kafka.common.protocol.ApiKeys.PRODUCE.id, skim.trailingBytes()); // ignored, as the broker ignores them
        }
        RoutePlan plan = plans.acquire().reset(skim);
        host.router().hotPlanner().plan(skim, host.hotContext(), plan);
        refuseFencedRoutes(plan);
        dev.weft.routing.access.ConnectionAccess access = host.access();
        if (access != null) {
            dev.weft.routing.access.HotAccess.denyRefused(skim, plan, access, access.lastViews(),
                    dev.weft.routing.access.TopicOperation.WRITE);
        }
        boolean expectsResponse = skim.acks() != 0;
        short refusal = plan.unknownTopics() ? Errors.UNKNOWN_TOPIC_OR_PARTITION.code() : Errors.NOT_LEADER_OR_FOLLOWER.code();
        if (skim.transactionalIdLength() >= 0) {
            String txn = skim.transactionalId();
            int home = host.router().transactions().homeRoute(txn);
            int elsewhere = targetOffHome(plan, home);
            if (access != null && !access.rules().allowsTransactionalId(txn)) {
                host.logRefusal("principal '" + access.rules().name() + "' may not use transactional id '" + txn
                        + "'; every partition of the request is refused with TRANSACTIONAL_ID_AUTHORIZATION_FAILED");
                plan.refuseAll(skim.partitionCount());
                refusal = Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code();
            } else if (plan.foreignTopics() || elsewhere >= 0) {
                host.logRefusal("transaction '" + txn + "' is confined to cluster '" + host.routeName(home)
                        + "' (its home) but produces to " + (elsewhere >= 0 ? "cluster '" + host.routeName(elsewhere) + "'"
                        : "a topic on another cluster")
                        + "; every partition of the request is refused with TRANSACTION_ABORTABLE and nothing is written");
                plan.refuseAll(skim.partitionCount());
                refusal = Errors.TRANSACTION_ABORTABLE.code();
            }
        } else if (plan.routed() > 0 && !translateProducerIds(frame, slot, version, plan)) {
            plans.release(plan);
            return false;
        }
        if (plan.copyCount() > 0 || plan.unplacedCopies() > 0) {
            copies.planned(plan, !expectsResponse);
        }
        if (plan.routed() == 0) {
            ByteBuf answer = expectsResponse ? merge(plan, refusal, null) : null;
            plans.release(plan);
            frame.release();
            host.complete(slot, answer);
            return true;
        }
        if (plan.passThrough(skim.partitionCount())) {
            plans.release(plan);
            host.forwardHot(frame, slot, expectsResponse);
            return true;
        }
        SplitAnswer answer = expectsResponse ? new ProduceMerge(slot, frame, plan, refusal) : null;
        builder.topicKeys(plan).partitions(plan);
        if (!parts.send(plan, answer, frame)) {
            return true;
        }
        if (!expectsResponse) {
            plans.release(plan);
            frame.release();
            host.complete(slot, null);
        }
        return true;
    }

    /** Partitions bound for a route whose Produce is fenced (a switch's cutover) are refused retriably. */
    private void refuseFencedRoutes(RoutePlan plan) {
        dev.weft.routing.api.HotCatalog catalog = host.hotContext().catalog();
        if (catalog == null) {
            return; // a router that does not decide by topic fences nothing
        }
        for (int t = 0; t < plan.targetCount(); ) {
            int leaf = plan.targetLeaf(t);
            if (catalog.topics().produceFenced(leaf)) {
                plan.refuseLeaf(leaf, skim.partitionCount()); // its targets are gone: t is the next one now
            } else {
                t++;
            }
        }
    }

    /** A route other than {@code home} that the plan sends to, or -1. */
    private static int targetOffHome(RoutePlan plan, int home) {
        for (int t = 0; t < plan.targetCount(); t++) {
            if (plan.targetLeaf(t) != home) {
                return plan.targetLeaf(t);
            }
        }
        return -1;
    }

    /**
     * Gives each batch the producer id its cluster knows for the client's (virtual) one: batches for the
     * producer-id home cluster keep it. False when an id is not agreed yet: a claim is started and the
     * session resumes this request when it is done.
     */
    private boolean translateProducerIds(ByteBuf frame, int slot, short version, RoutePlan plan) {
        long virtualPid = -1;
        short epoch = -1;
        int[] targetOf = plan.targetOf();
        for (int i = 0; i < skim.partitionCount() && virtualPid < 0; i++) {
            if (targetOf[i] >= 0 && skim.recordsLength(i) > 0) {
                batch.wrap(skim.buffer(), skim.recordsOffset(i), skim.recordsOffset(i) + skim.recordsLength(i));
                if (batch.hasBatch()) {
                    virtualPid = batch.producerId();
                    epoch = batch.producerEpoch();
                }
            }
        }
        if (virtualPid < 0) {
            return true; // not an idempotent producer
        }
        for (int t = 0; t < plan.targetCount(); t++) {
            int route = plan.targetLeaf(t);
            if (!IdempotentProducerIds.translates(virtualPid, route)) {
                continue;
            }
            long upstreamPid = virtualPid == lastVirtualPid && route == lastPidRoute ? lastUpstreamPid
                    : host.cachedProducerId(virtualPid, route);
            if (upstreamPid < 0) {
                host.parkForProducerId(frame, slot, version, virtualPid, route);
                return false;
            }
            lastVirtualPid = virtualPid; // a connection carries one producer's batches: skip the shared map next time
            lastPidRoute = route;
            lastUpstreamPid = upstreamPid;
            for (int i = 0; i < skim.partitionCount(); i++) {
                if (targetOf[i] == t && skim.recordsLength(i) > 0) {
                    batch.rewriteProducer(skim.buffer(), skim.recordsOffset(i), skim.recordsOffset(i) + skim.recordsLength(i),
                            upstreamPid, epoch);
                }
            }
        }
        return true;
    }

    /** The client's answer from the targets' answers (null: none, every partition refused). */
    private ByteBuf merge(RoutePlan plan, short refusal, ByteBuf[] responses) {
        ProduceResponseSkim[] in = answers.skim(plan, responses, skim.version());
        try {
            return merger.merge(skim, plan.targetOf(), in, plan, plan, refusal, endpoints.of(plan), host.alloc());
        } finally {
            answers.clear();
        }
    }

    /** The connection closed: its pooled plans go. */
    public void release() {
        plans.clear();
    }

    private final class ProduceMerge extends SplitAnswer {
        ProduceMerge(int slot, ByteBuf request, RoutePlan plan, short refusal) {
            super(host, slot, request, plan, refusal);
        }

        @Override
        ByteBuf merge(ByteBuf request, ByteBuf[] responses) {
            skim.wrap(request, request.readerIndex() + PREFIX, request.writerIndex());
            ByteBuf out = HotProduce.this.merge(plan, refusal, responses);
            if (plan.copyCount() > 0) {
                copies.send(plan, skim, out); // BRANCH: what the primary acknowledged, on the side
            }
            return out;
        }

        @Override
        void releasePlan(RoutePlan plan) {
            plans.release(plan);
        }
    }
}
