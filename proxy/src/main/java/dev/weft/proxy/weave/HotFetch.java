package dev.weft.proxy.weave;

import dev.weft.protocol.fetch.FetchRequestBuilder;
import dev.weft.protocol.fetch.FetchRequestSkim;
import dev.weft.protocol.fetch.FetchResponseMerger;
import dev.weft.protocol.fetch.FetchResponseSkim;
import dev.weft.protocol.frame.KafkaFrameDecoder;
import dev.weft.proxy.weave.ResponseSlots.Slot;
import io.netty.buffer.ByteBuf;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * Fetch on a woven connection (hot path): partitions of topics on the connection's cluster go to its
 * broker under their real names or ids; others are answered with an error (unknown topic; another
 * cluster's topic: NOT_LEADER_OR_FOLLOWER). Every upstream Fetch is a <em>sessionless</em> full fetch
 * (session 0, epoch -1) and the client is answered with session id 0: fetch sessions (KIP-227) are
 * declined towards the client, which then keeps sending full fetches — what real clients do with a
 * broker that has no session slots. That keeps renamed topics right in every request (an incremental
 * request would name only changed partitions, by names the broker does not know). A request that
 * needs no rename goes as the client's own frame with its session epoch patched; otherwise it is
 * rebuilt around the client's partition entries ({@link FetchRequestBuilder}) and the answer merged
 * back. Records travel as retained slices either way.
 */
final class HotFetch {

    private static final int PREFIX = KafkaFrameDecoder.SIZE_PREFIX_BYTES;
    private static final int NO_SESSION = 0;
    private static final int SESSIONLESS_EPOCH = -1;

    private final WovenSession session;
    private final PlacementPool placements;
    private final FetchRequestSkim skim = new FetchRequestSkim();
    private final FetchResponseSkim responseSkim = new FetchResponseSkim();
    private final FetchRequestBuilder builder = new FetchRequestBuilder();
    private final FetchResponseMerger merger = new FetchResponseMerger();
    private final FetchResponseSkim[] one = new FetchResponseSkim[1];

    HotFetch(WovenSession session) {
        this.session = session;
        this.placements = new PlacementPool(session.topicNames);
        builder.session(NO_SESSION, SESSIONLESS_EPOCH).keepForgottenTopics(false);
    }

    /** Takes ownership of {@code frame}. */
    void handle(ByteBuf frame, Slot slot, short version) {
        skim.wrap(frame, frame.readerIndex() + PREFIX, frame.writerIndex());
        TopicPlacement placement = placements.acquire().place(skim, session.runtime.catalog(), session.ownRoute);
        short refusal = placement.unknownTopics
                ? (skim.usesTopicIds() ? Errors.UNKNOWN_TOPIC_ID.code() : Errors.UNKNOWN_TOPIC_OR_PARTITION.code())
                : Errors.NOT_LEADER_OR_FOLLOWER.code();
        if (placement.routed == 0) {
            ByteBuf answer = merge(placement, null, refusal);
            placements.release(placement);
            frame.release();
            session.complete(slot, answer);
            return;
        }
        if (placement.passThrough(skim.partitionCount()) && skim.sessionId() == NO_SESSION && skim.forgottenTopicCount() == 0) {
            // Nothing to rename and no session in use: the client's frame goes as it is, made sessionless
            // by a 4-byte patch (the broker then answers session id 0, and the client stays sessionless).
            skim.sessionEpochInPlace(SESSIONLESS_EPOCH);
            int clientCorrelationId = skim.correlationId();
            placements.release(placement);
            session.links.own().send(frame, new PassThroughAnswer(session, slot, ApiKeys.FETCH.id, version, clientCorrelationId));
            return;
        }
        ByteBuf out = builder.topicKeys(placement).build(skim, placement.routeOf, TopicPlacement.OWN, 0, session.client.alloc());
        session.links.own().send(out, new MergedAnswer(session, placements, slot, frame, placement, refusal) {
            @Override
            ByteBuf merge(ByteBuf request, ByteBuf response) {
                skim.wrap(request, request.readerIndex() + PREFIX, request.writerIndex());
                return HotFetch.this.merge(placement, responseSkim.wrap(response, response.readerIndex() + PREFIX,
                        response.writerIndex(), skim.version()), refusal);
            }
        });
    }

    private ByteBuf merge(TopicPlacement placement, FetchResponseSkim response, short refusal) {
        one[0] = response;
        try {
            return merger.merge(skim, placement.routeOf, one, placement, refusal, NO_SESSION,
                    session.runtime.endpoints(session.addresses, session.ownRoute), session.client.alloc());
        } finally {
            one[0] = null;
        }
    }



    void release() {
        placements.clear();
    }
}
