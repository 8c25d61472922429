package dev.weft.proxy.exchange;

import dev.weft.protocol.fetch.FetchRequestBuilder;
import dev.weft.protocol.fetch.FetchRequestSkim;
import dev.weft.protocol.fetch.FetchResponseMerger;
import dev.weft.protocol.fetch.FetchResponseSkim;
import dev.weft.protocol.frame.KafkaFrameDecoder;
import dev.weft.protocol.header.RequestHeaderView;
import dev.weft.proxy.upstream.UpstreamLink;
import dev.weft.proxy.upstream.UpstreamLinks;
import dev.weft.routing.api.RoutePlan;
import dev.weft.routing.api.RoutePlanPool;
import dev.weft.protocol.wire.TrailingRequestBytes;
import dev.weft.protocol.cold.ColdCodec;
import io.netty.buffer.ByteBuf;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.Errors;

/**
 * Fetch (hot path). The router plans every partition ({@link RoutePlan}). A plan that sends
 * everything to the connection's own broker under the client's keys forwards the client's frame as it
 * is, fetch session (KIP-227) and all, for every kind of router: a broker-side session is only ever made
 * or grown by such requests, so every partition in it lives on that broker under the client's keys, and
 * an incremental request (which names only what changed, maybe nothing) can go as it is too. A consumer
 * of 1,000 partitions then sends a few bytes per Fetch instead of all 1,000 entries.
 *
 * <p>Otherwise one <em>sessionless</em> full fetch (session 0, epoch -1) per target is built around the
 * client's partition entries ({@link FetchRequestBuilder}) and the answers merged back under the
 * client's names with session id 0: the session is declined, and the client keeps sending full fetches,
 * as real clients do with a broker that has no session slots. That keeps renamed topics right in every
 * request (an incremental request would name only changed partitions, by names the broker does not
 * know). A request of a live session that can no longer go as it is (it names a partition of another
 * broker, or a renamed topic) is answered {@code FETCH_SESSION_ID_NOT_FOUND}: the client drops the
 * session and sends a full fetch, which is split. Records travel as retained slices either way.
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
    private final FollowerAnswers followers;

    public HotFetch(ExchangeHost host) {
        this.host = host;
        this.endpoints = new TargetEndpoints(host);
        this.followers = new FollowerAnswers(host);
        // its own name cache: with per-principal authorization, Fetch is planned through another catalog
        // (the topics the principal may read) than Produce (those it may write), and one cache would thrash
        this.plans = new RoutePlanPool(new dev.weft.routing.api.TopicNameCache());
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
        String rack = host.router().fetchRackId();
        builder.rackId(rack == null ? null : rack.getBytes(java.nio.charset.StandardCharsets.UTF_8));
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
        dev.weft.routing.access.ConnectionAccess access = host.access();
        if (access != null) {
            dev.weft.routing.access.HotAccess.denyRefused(skim, plan, access, access.lastViews(),
                    dev.weft.routing.access.TopicOperation.READ);
        }
        short refusal = plan.unknownTopics()
                ? (skim.usesTopicIds() ? Errors.UNKNOWN_TOPIC_ID.code() : Errors.UNKNOWN_TOPIC_OR_PARTITION.code())
                : Errors.NOT_LEADER_OR_FOLLOWER.code();
        boolean inSession = skim.sessionId() != NO_SESSION;
        if (plan.passThrough(skim.partitionCount()) || inSession && skim.partitionCount() == 0) {
            plans.release(plan);
            host.forwardHot(frame, slot, true);
            return;
        }
        if (inSession) {
            ByteBuf reset = sessionReset(RequestHeaderView.correlationId(frame, frame.readerIndex() + PREFIX), skim.version());
            plans.release(plan);
            frame.release();
            host.complete(slot, reset);
            return;
        }
        if (plan.routed() == 0) {
            ByteBuf answer = merge(plan, refusal, null);
            plans.release(plan);
            frame.release();
            host.complete(slot, answer);
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

    /**
     * A top-level {@code FETCH_SESSION_ID_NOT_FOUND}: the client forgets its session and sends a full fetch
     * next (kafka-clients' FetchSessionHandler, librdkafka and kafkajs all do). Rare (a session's request
     * that must now be split), so written through the generated message classes.
     */
    private ByteBuf sessionReset(int correlationId, short version) {
        FetchResponseData reset = new FetchResponseData().setErrorCode(Errors.FETCH_SESSION_ID_NOT_FOUND.code())
                .setSessionId(NO_SESSION);
        return ColdCodec.writeResponse(host.alloc(), correlationId, version, reset);
    }

    /** The client's answer from the targets' answers (null: none, every partition refused). */
    private ByteBuf merge(RoutePlan plan, short refusal, ByteBuf[] responses) {
        return merge(plan, refusal, refusal, responses, null);
    }

    /**
     * @param refusal for partitions not sent
     * @param missing for partitions whose target has no answer (failed: retriable; not waited for: 0)
     * @param failed per target, whether its part failed (null: nothing was sent)
     */
    private ByteBuf merge(RoutePlan plan, short refusal, short missing, ByteBuf[] responses, boolean[] failed) {
        FetchResponseSkim[] in = answers.skim(plan, responses, skim.version());
        try {
            if ((plan.replicaReads() > 0 || plan.leaderChecks() > 0) && failed != null) {
                followers.review(skim, plan, in, failed);
            }
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
        private final boolean[] failed;
        private long recordBytes;

        FetchMerge(int slot, ByteBuf request, RoutePlan plan, short refusal, int minBytes) {
            super(host, slot, request, plan, refusal);
            this.minBytes = Math.max(1, minBytes);
            int n = plan.targetCount();
            this.links = new UpstreamLink[n];
            this.expectData = new boolean[n];
            this.done = new boolean[n];
            this.failed = new boolean[n];
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
            for (int t = 0; t < failed.length; t++) {
                failed[t] = done[t] && responses[t] == null;
            }
            return HotFetch.this.merge(plan, refusal, missing, responses, failed);
        }

        @Override
        void releasePlan(RoutePlan plan) {
            plans.release(plan);
        }
    }
}
