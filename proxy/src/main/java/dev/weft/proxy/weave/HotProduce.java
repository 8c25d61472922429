package dev.weft.proxy.weave;

import dev.weft.protocol.frame.KafkaFrameDecoder;
import dev.weft.protocol.produce.ProduceRequestBuilder;
import dev.weft.protocol.produce.ProduceRequestSkim;
import dev.weft.protocol.produce.ProduceResponseMerger;
import dev.weft.protocol.produce.ProduceResponseSkim;
import dev.weft.protocol.record.RecordBatchView;
import dev.weft.proxy.weave.ResponseSlots.Slot;
import io.netty.buffer.ByteBuf;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * Produce on a woven connection (hot path): the connection is bound to one real broker, so every
 * partition the client sends either goes there — under its real topic name or id, with the producer
 * id that cluster knows — or is answered with an error (unknown topic; a topic on another cluster:
 * NOT_LEADER_OR_FOLLOWER so the client refreshes metadata). Records are never copied: a frame that
 * needs no rename goes as it is; otherwise the request is rebuilt around retained slices of the
 * client's record batches ({@link ProduceRequestBuilder}) and the answer merged back under the
 * client's names ({@link ProduceResponseMerger}). Producer ids are rewritten in place (8+2 bytes and the
 * CRC per batch). A transactional Produce touching another cluster than its transaction's home is
 * refused whole with TRANSACTION_ABORTABLE: nothing of it is written, the producer aborts.
 */
final class HotProduce {

    private static final int PREFIX = KafkaFrameDecoder.SIZE_PREFIX_BYTES;

    private final WovenSession session;
    private final PlacementPool placements;
    private final ProduceRequestSkim skim = new ProduceRequestSkim();
    private final ProduceResponseSkim responseSkim = new ProduceResponseSkim();
    private final ProduceRequestBuilder builder = new ProduceRequestBuilder();
    private final ProduceResponseMerger merger = new ProduceResponseMerger();
    private final RecordBatchView batch = new RecordBatchView();
    private final ProduceResponseSkim[] one = new ProduceResponseSkim[1];
    private long lastVirtualPid = -1;
    private long lastUpstreamPid = -1;

    HotProduce(WovenSession session) {
        this.session = session;
        this.placements = new PlacementPool(session.topicNames);
    }

    /** Takes ownership of {@code frame}. Returns false when the request waits for a producer-id claim. */
    boolean handle(ByteBuf frame, Slot slot, short version) {
        skim.wrap(frame, frame.readerIndex() + PREFIX, frame.writerIndex());
        WeaveRuntime runtime = session.runtime;
        TopicPlacement placement = placements.acquire().place(skim, runtime.catalog(), session.ownRoute);
        boolean expectsResponse = skim.acks() != 0;
        short refusal = placement.unknownTopics ? Errors.UNKNOWN_TOPIC_OR_PARTITION.code() : Errors.NOT_LEADER_OR_FOLLOWER.code();
        if (skim.transactionalIdLength() >= 0) {
            String txn = skim.transactionalId();
            int home = runtime.router().transactions().homeRoute(txn);
            if (placement.foreignTopics || home != session.ownRoute) {
                session.logRefusal("transaction '" + txn + "' is confined to cluster '" + runtime.routeName(home)
                        + "' (its home) but produces to " + (placement.foreignTopics ? "a topic on another cluster"
                        : "cluster '" + runtime.routeName(session.ownRoute) + "'")
                        + "; every partition of the request is refused with TRANSACTION_ABORTABLE and nothing is written");
                java.util.Arrays.fill(placement.routeOf, 0, skim.partitionCount(), TopicPlacement.REFUSED);
                placement.routed = 0;
                refusal = Errors.TRANSACTION_ABORTABLE.code();
            }
        } else if (placement.routed > 0 && session.ownRoute != WeaveRuntime.PRODUCER_ID_HOME_ROUTE
                && !translateProducerIds(frame, slot, version, placement)) {
            placements.release(placement);
            return false;
        }
        if (placement.routed == 0) {
            ByteBuf answer = expectsResponse ? merger.merge(skim, placement.routeOf, nullResponse(), placement,
                    refusal, runtime.endpoints(session.addresses, session.ownRoute), session.client.alloc()) : null;
            placements.release(placement);
            frame.release();
            session.complete(slot, answer);
            return true;
        }
        UpstreamLink own = session.links.own();
        int clientCorrelationId = skim.correlationId();
        if (placement.passThrough(skim.partitionCount())) {
            placements.release(placement);
            own.send(frame, expectsResponse ? new PassThroughAnswer(session, slot, ApiKeys.PRODUCE.id, version, clientCorrelationId) : null);
        } else {
            ByteBuf out = builder.topicKeys(placement).build(skim, placement.routeOf, TopicPlacement.OWN, 0, session.client.alloc());
            own.send(out, expectsResponse ? new ProduceMerge(slot, frame, placement, refusal) : null);
            if (!expectsResponse) {
                placements.release(placement);
                frame.release();
            }
        }
        if (!expectsResponse) {
            session.complete(slot, null);
        }
        return true;
    }

    /**
     * Gives each batch the producer id its cluster knows for the client's (virtual) one. False when the
     * id is not agreed yet: a claim is started and the session resumes this request when it is done.
     */
    private boolean translateProducerIds(ByteBuf frame, Slot slot, short version, TopicPlacement placement) {
        long virtualPid = -1;
        short epoch = -1;
        for (int i = 0; i < skim.partitionCount() && virtualPid < 0; i++) {
            if (placement.routeOf[i] == TopicPlacement.OWN && skim.recordsLength(i) > 0) {
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
        long upstreamPid = virtualPid == lastVirtualPid ? lastUpstreamPid
                : session.runtime.producerIds().cached(virtualPid, session.ownRoute);
        if (upstreamPid < 0) {
            session.parkForProducerId(frame, slot, version, virtualPid);
            return false;
        }
        lastVirtualPid = virtualPid; // a connection carries one producer's batches: skip the shared map next time
        lastUpstreamPid = upstreamPid;
        for (int i = 0; i < skim.partitionCount(); i++) {
            if (placement.routeOf[i] == TopicPlacement.OWN && skim.recordsLength(i) > 0) {
                batch.rewriteProducer(skim.buffer(), skim.recordsOffset(i), skim.recordsOffset(i) + skim.recordsLength(i),
                        upstreamPid, epoch);
            }
        }
        return true;
    }

    private ProduceResponseSkim[] nullResponse() {
        one[0] = null;
        return one;
    }



    void release() {
        placements.clear();
    }

    /** The broker's answer to a rebuilt Produce, merged back under the client's names. */
    private final class ProduceMerge extends MergedAnswer {
        ProduceMerge(Slot slot, ByteBuf request, TopicPlacement placement, short refusal) {
            super(session, placements, slot, request, placement, refusal);
        }

        @Override
        ByteBuf merge(ByteBuf request, ByteBuf response) {
            skim.wrap(request, request.readerIndex() + PREFIX, request.writerIndex());
            one[0] = responseSkim.wrap(response, response.readerIndex() + PREFIX, response.writerIndex(), skim.version());
            try {
                return merger.merge(skim, placement.routeOf, one, placement, refusal,
                        session.runtime.endpoints(session.addresses, session.ownRoute), session.client.alloc());
            } finally {
                one[0] = null;
            }
        }
    }
}
