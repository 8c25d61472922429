package dev.weft.proxy.exchange;

import dev.weft.protocol.fetch.FetchRequestBuilder;
import dev.weft.protocol.fetch.FetchRequestSkim;
import dev.weft.protocol.fetch.FetchResponseMerger;
import dev.weft.protocol.fetch.FetchResponseSkim;
import dev.weft.protocol.frame.KafkaFrameDecoder;
import dev.weft.proxy.upstream.UpstreamLink;
import dev.weft.proxy.upstream.UpstreamLinks;
import dev.weft.routing.api.RoutePlan;
import dev.weft.routing.api.RoutePlanPool;
import dev.weft.protocol.wire.TrailingRequestBytes;
import io.netty.buffer.ByteBuf;
import org.apache.kafka.common.protocol.Errors;

/**
 * Fetch (hot path). The router plans every partition ({@link RoutePlan}). A plan that sends
 * everything to the connection's own broker under the client's keys forwards the client's frame: as it
 * is when the router keeps fetch sessions (a single cluster), else made sessionless by a 4-byte patch.
 * Otherwise one <em>sessionless</em> full fetch (session 0, epoch -1) per target is built around the
 * client's partition entries ({@link FetchRequestBuilder}) and the answers merged back under the
 * client's names with session id 0: fetch sessions (KIP-227) are declined towards the client, which
 * then keeps sending full fetches — what real clients do with a broker that has no session slots.
 * That keeps renamed topics right in every request (an incremental request would name only changed
 * partitions, by names the broker does not know). Records travel as retained slices either way.
 */
public final class HotFetch {

    private static final int PREFIX = KafkaFrameDecoder.SIZE_PREFIX_BYTES;
    private static final int NO_SESSION = 0;
    private static final int SESSIONLESS_EPOCH = -1;

    private final ExchangeHost host;
    private final TargetEndpoints endpoints;
    private final RoutePlanPool plans;
    private final PlanSender parts;
    private final FetchRequestSkim skim = new FetchRequestSkim();
    private final FetchRequestBuilder builder = new FetchRequestBuilder();
    private final FetchResponseMerger merger = new FetchResponseMerger();
    private final AnswerSkims<FetchResponseSkim> answers;
    /** Reads how many record bytes a part's answer carries (never used across a merge). */
    private final FetchResponseSkim probe = new FetchResponseSkim();

    public HotFetch(ExchangeHost host) {
        this.host = host;
        this.endpoints = new TargetEndpoints(host);
        this.plans = new RoutePlanPool(host.topicNames());
        this.answers = new AnswerSkims<>(host, FetchResponseSkim::new, FetchResponseSkim[]::new,
                FetchResponseSkim::wrap, FetchResponseSkim::errorCode);
        this.parts = new PlanSender(host, plans, "Fetch", (plan, t) -> {
            // A broker serves a connection's requests one at a time: a part queued behind one still out
            // (left by an early answer) must not long-poll too, or parts pile up behind each other.
            UpstreamLink link = PlanSender.linkFor(host.links(), plan.targetLeaf(t), plan.targetBroker(t));
            builder.maxWaitMs(link.fetchPartsOut() > 0 ? 0 : skim.maxWaitMs());
            ByteBuf part = builder.build(skim, plan.targetOf(), t, 0, host.alloc());
            link.fetchPartSent();
            return part;
        });
        builder.session(NO_SESSION, SESSIONLESS_EPOCH).keepForgottenTopics(false);
    }

    /** Takes ownership of {@code frame}. */
    public void handle(ByteBuf frame, int slot, short version) {
        try {
            skim.wrap(frame, frame.readerIndex() + PREFIX, frame.writerIndex());
        } catch (RuntimeException e) {
            frame.release(); // ours from the start: a request that cannot be read is released here
            throw e;
        }
        if (skim.trailingBytes() > 0) {
            TrailingRequestBytes.record(org.apache.kafka.common.protocol.ApiKeys.FETCH.id, skim.trailingBytes()); // ignored, as the broker ignores them
        }
        RoutePlan plan = plans.acquire().reset(skim);
        host.router().hotPlanner().plan(skim, host.hotContext(), plan);
        short refusal = plan.unknownTopics()
                ? (skim.usesTopicIds() ? Errors.UNKNOWN_TOPIC_ID.code() : Errors.UNKNOWN_TOPIC_OR_PARTITION.code())
                : Errors.NOT_LEADER_OR_FOLLOWER.code();
        if (plan.passThrough(skim.partitionCount()) && plan.keepsFetchSessions()) {
            plans.release(plan);
            host.forwardHot(frame, slot, true);
            return;
        }
        if (plan.routed() == 0) {
            ByteBuf answer = merge(plan, refusal, null);
            plans.release(plan);
            frame.release();
            host.complete(slot, answer);
            return;
        }
        if (plan.passThrough(skim.partitionCount()) && skim.sessionId() == NO_SESSION && skim.forgottenTopicCount() == 0) {
            // Nothing to rename and no session in use: the client's frame goes as it is, made sessionless
            // by a 4-byte patch (the broker then answers session id 0, and the client stays sessionless).
            skim.sessionEpochInPlace(SESSIONLESS_EPOCH);
            plans.release(plan);
            host.forwardHot(frame, slot, true);
            return;
        }
        SplitAnswer answer = new FetchMerge(slot, frame, plan, refusal, skim.minBytes());
        int targets = plan.targetCount();
        // The client's max_bytes bounds the merged answer: each part gets its share (a broker still
        // returns at least one batch, as it does for the client).
        builder.maxBytes(targets > 1 ? Math.max(1, (int) Math.ceil(skim.maxBytes() / (double) targets)) : skim.maxBytes());
        builder.topicKeys(plan).partitions(plan);
        parts.send(plan, answer, frame);
    }

    /** The client's answer from the targets' answers (null: none, every partition refused). */
    private ByteBuf merge(RoutePlan plan, short refusal, ByteBuf[] responses) {
        return merge(plan, refusal, refusal, responses);
    }

    /**
     * @param refusal for partitions not sent
     * @param missing for partitions whose target has no answer (failed: retriable; not waited for: 0)
     */
    private ByteBuf merge(RoutePlan plan, short refusal, short missing, ByteBuf[] responses) {
        FetchResponseSkim[] in = answers.skim(plan, responses, skim.version());
        try {
            return merger.merge(skim, plan.targetOf(), in, plan, plan, refusal, missing, NO_SESSION,
                    endpoints.of(plan), host.alloc());
        } finally {
            answers.clear();
        }
    }

    /** The connection closed: its pooled plans go. */
    public void release() {
        plans.clear();
    }

    /**
     * A split Fetch's answers. Answered early — before every part is back — only once the parts that
     * answered carry {@code min_bytes} and every part whose broker had data last time has answered too:
     * a broker with data answers at once, so waiting for it costs nothing and throws nothing away, while a
     * broker that had none is long-polling and is not waited for.
     */
    private final class FetchMerge extends SplitAnswer {
        private final int minBytes;
        private final UpstreamLink[] links;
        private final boolean[] expectData;
        private final boolean[] done;
        private long recordBytes;

        FetchMerge(int slot, ByteBuf request, RoutePlan plan, short refusal, int minBytes) {
            super(host, slot, request, plan, refusal);
            this.minBytes = Math.max(1, minBytes);
            int n = plan.targetCount();
            this.links = new UpstreamLink[n];
            this.expectData = new boolean[n];
            this.done = new boolean[n];
            UpstreamLinks all = host.links();
            for (int t = 0; t < n; t++) {
                links[t] = PlanSender.linkFor(all, plan.targetLeaf(t), plan.targetBroker(t));
                expectData[t] = links[t].lastFetchHadData();
            }
        }

        @Override
        void partDone(int target, ByteBuf response) {
            UpstreamLink link = links[target];
            link.fetchPartDone();
            if (response != null) {
                link.lastFetchHadData(recordBytesOf(response) > 0);
            }
            done[target] = true;
        }

        @Override
        boolean enough(int target, ByteBuf response) {
            recordBytes += recordBytesOf(response);
            if (recordBytes < minBytes) {
                return false;
            }
            for (int t = 0; t < done.length; t++) {
                if (!done[t] && expectData[t]) {
                    return false;
                }
            }
            return true;
        }

        @Override
        void discarded(ByteBuf response) {
            host.upstreamRequests().fetchBytesDiscarded(recordBytesOf(response));
        }

        private long recordBytesOf(ByteBuf response) {
            return probe.wrap(response, response.readerIndex() + PREFIX, response.writerIndex(), skim.version()).recordsBytes();
        }

        @Override
        ByteBuf merge(ByteBuf request, ByteBuf[] responses) {
            skim.wrap(request, request.readerIndex() + PREFIX, request.writerIndex());
            // parts still out when answering early: their partitions answered empty, without an error
            short missing = early() && !anyFailed() ? Errors.NONE.code() : refusal;
            return HotFetch.this.merge(plan, refusal, missing, responses);
        }

        @Override
        void releasePlan(RoutePlan plan) {
            plans.release(plan);
        }
    }
}
