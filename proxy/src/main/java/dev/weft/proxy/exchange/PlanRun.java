package dev.weft.proxy.exchange;

import dev.weft.protocol.ApiKeyTable;
import dev.weft.protocol.cold.ColdCodec;
import dev.weft.protocol.frame.KafkaFrameDecoder;
import dev.weft.protocol.header.ResponseHeaderView;
import dev.weft.proxy.upstream.UpstreamLink;
import dev.weft.routing.plan.Answer;
import dev.weft.routing.plan.ColdPlanner;
import dev.weft.routing.plan.Destination;
import dev.weft.routing.plan.Part;
import dev.weft.routing.plan.Refusals;
import dev.weft.routing.plan.Step;
import io.netty.buffer.ByteBuf;
import java.util.Arrays;
import java.util.function.Consumer;
import org.apache.kafka.common.message.EndTxnRequestData;
import org.apache.kafka.common.message.EndTxnResponseData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;

/**
 * Carries out one client request's plan ({@link Step}s from a {@link ColdPlanner}): sends parts over
 * the session's links, collects their answers, continues, and finally answers the slot. Runs on the
 * session's event loop; holds the client's frame until the end (a {@link Step.Forward} sends it).
 */
public final class PlanRun {

    /** FindCoordinator v3: the last single-key version, enough to find one group's coordinator. */
    private static final short FIND_COORDINATOR_VERSION = 3;
    /**
     * How long a coordinator lookup keeps retrying while the cluster has no coordinator yet (a cluster
     * whose {@code __consumer_offsets} a group's first request makes it create): well below clients'
     * request timeouts, so the client gets an answer, not a timeout.
     */
    private static final long COORDINATOR_PATIENCE_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
    private static final long COORDINATOR_RETRY_MILLIS = 100;
    private static final int PREFIX = KafkaFrameDecoder.SIZE_PREFIX_BYTES;
    /** FindCoordinator key types. */
    private static final byte GROUP = 0;
    private static final byte TRANSACTION = 1;

    private final ExchangeHost host;
    private final int slot;
    private ByteBuf frame;
    private final RequestHeaderData header;
    private final short version;
    private final int correlationId;
    /** The request when it is an EndTxn, whose successful answer is told to the host first; else null. */
    private EndTxnRequestData endTxn;

    /** Takes ownership of {@code frame}, the client's request, held until the plan ends. */
    public PlanRun(ExchangeHost host, int slot, ByteBuf frame, RequestHeaderData header, short version, int correlationId) {
        this.host = host;
        this.slot = slot;
        this.frame = frame;
        this.header = header;
        this.version = version;
        this.correlationId = correlationId;
    }

    /** Plans the request with {@code planner} (null: the virtual cluster cannot answer it: refused) and carries the plan out. */
    public void start(ColdPlanner planner, ApiMessage body) {
        endTxn = body instanceof EndTxnRequestData e ? e : null;
        if (planner == null) {
            String why = ApiKeyTable.name(header.requestApiKey()) + " is not available through a virtual cluster woven"
                    + " from several clusters ('" + host.virtualClusterName() + "'): it cannot be answered correctly across clusters";
            host.logRefusal(why);
            Step refusal;
            try {
                refusal = Step.respond(Refusals.errorResponse(body, version, Errors.UNSUPPORTED_VERSION, why));
            } catch (RuntimeException e) {
                releaseFrame();
                host.failed("cannot refuse " + ApiKeyTable.name(header.requestApiKey()) + " v" + version, e);
                return;
            }
            advance(refusal);
            return;
        }
        Step first;
        try {
            first = planner.plan(body, version, host.planContext());
        } catch (RuntimeException e) {
            releaseFrame();
            host.failed("cannot plan " + ApiKeyTable.name(header.requestApiKey()) + " v" + version, e);
            return;
        }
        advance(first);
    }

    private void advance(Step step) {
        if (host.isClosed()) {
            releaseFrame();
            return;
        }
        try {
            switch (step) {
                case Step.Respond r -> {
                    releaseFrame();
                    if (changesTopics(header.requestApiKey())) {
                        // The client uses a topic it just created (or expects a deleted one gone) at once:
                        // answer after the catalog has been read again.
                        host.refreshCatalog().whenComplete((c, e) -> host.eventLoop().execute(() -> respond(r)));
                    } else {
                        respond(r);
                    }
                }
                case Step.Forward f -> forward();
                case Step.Send s -> send(s);
            }
        } catch (RuntimeException e) {
            releaseFrame();
            host.failed("cannot answer " + ApiKeyTable.name(header.requestApiKey()) + " v" + version, e);
        }
    }

    private void respond(Step.Respond r) {
        if (host.isClosed()) {
            return;
        }
        if (endTxn != null && r.body() instanceof EndTxnResponseData answer && answer.errorCode() == Errors.NONE.code()) {
            host.transactionEnded(endTxn.producerId(), endTxn.committed());
        }
        host.complete(slot, ColdCodec.writeResponse(host.alloc(), correlationId, version, r.body()));
        host.flushClient();
    }

    private static boolean changesTopics(short apiKey) {
        return apiKey == ApiKeys.CREATE_TOPICS.id || apiKey == ApiKeys.DELETE_TOPICS.id;
    }

    private void forward() {
        UpstreamLink own = host.links().own();
        if (own == null) {
            throw new IllegalStateException("plan forwards to the connection's own broker, but it is a bootstrap connection");
        }
        ByteBuf out = frame;
        frame = null;
        own.send(out, new UpstreamLink.Exchange() {
            @Override
            public void onResponse(ByteBuf response, int tag) {
                ResponseHeaderView.correlationId(response, response.readerIndex() + PREFIX, correlationId);
                tellTransactionEnded(response);
                host.complete(slot, response);
            }

            @Override
            public void onFailure(Errors error, String reason, int tag) {
                host.complete(slot, null); // the own link is gone: the session is closing
            }
        });
        own.flush();
    }

    /** A forwarded EndTxn's answer (borrowed): when it says NONE, the host hears of the transaction's end first. */
    private void tellTransactionEnded(ByteBuf response) {
        if (endTxn == null) {
            return;
        }
        try {
            if (ColdExchange.parse(response, ApiKeys.END_TXN.id, version).errorCounts().keySet().equals(java.util.Set.of(Errors.NONE))) {
                host.transactionEnded(endTxn.producerId(), endTxn.committed());
            }
        } catch (RuntimeException e) {
            // the client gets the broker's answer as it is; only what waits on the outcome misses it
            org.slf4j.LoggerFactory.getLogger(PlanRun.class).warn("virtual cluster '{}': cannot read an EndTxn answer: {}",
                    host.virtualClusterName(), e.toString());
        }
    }

    private void send(Step.Send s) {
        int n = s.parts().size();
        Answer[] answers = new Answer[n];
        int[] remaining = {n};
        if (n == 0) {
            advance(s.then().apply(Arrays.asList(answers)));
            return;
        }
        for (int i = 0; i < n; i++) {
            int index = i;
            sendPart(s.parts().get(i), answer -> {
                answers[index] = answer;
                if (--remaining[0] == 0) {
                    Step next;
                    try {
                        next = s.then().apply(Arrays.asList(answers));
                    } catch (RuntimeException e) {
                        releaseFrame();
                        host.failed("cannot merge the answers to " + ApiKeyTable.name(header.requestApiKey())
                                + " v" + version, e);
                        return;
                    }
                    advance(next);
                }
            });
        }
        host.links().flushAll();
    }

    private void sendPart(Part part, Consumer<Answer> done) {
        switch (part.to()) {
            case Destination.OwnBroker o -> {
                if (part.route() != host.ownRoute() || host.links().own() == null) {
                    throw new IllegalStateException("part for the own broker of route " + part.route()
                            + " on a connection bound to route " + host.ownRoute());
                }
                exchange(host.links().own(), part, done, null);
            }
            case Destination.AnyBroker a -> exchange(host.links().any(part.route()), part, done, null);
            case Destination.Broker b -> exchange(host.links().broker(part.route(), b.nodeId()), part, done, null);
            case Destination.GroupCoordinator g ->
                    toCoordinator(part, g.groupId(), GROUP, done, System.nanoTime() + COORDINATOR_PATIENCE_NANOS);
            case Destination.TransactionCoordinator t ->
                    toCoordinator(part, t.transactionalId(), TRANSACTION, done, System.nanoTime() + COORDINATOR_PATIENCE_NANOS);
        }
    }

    /**
     * Sends a part to the group's coordinator on its route, looking it up when not cached. While the
     * coordinator turns the part away (NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE,
     * COORDINATOR_LOAD_IN_PROGRESS: nothing was done), it is looked up again and the part resent, until
     * {@code deadlineNanos}. A route other than the group's home typically has no coordinator ready
     * when a group first uses it (see {@link #findCoordinator}); a broker that just became coordinator
     * answers NOT_COORDINATOR or COORDINATOR_LOAD_IN_PROGRESS while it loads the group's offsets.
     */
    private void toCoordinator(Part part, String key, byte keyType, Consumer<Answer> done, long deadlineNanos) {
        String group = cacheKey(key, keyType);
        Consumer<Answer> retrying = answer -> {
            if (!answer.failed() && System.nanoTime() < deadlineNanos && !host.isClosed()
                    && coordinatorTurnedAway(part, answer)) {
                host.cacheCoordinator(part.route(), group, null);
                host.eventLoop().schedule(() -> {
                    if (host.isClosed()) {
                        done.accept(Answer.failed(Errors.COORDINATOR_NOT_AVAILABLE, "the client connection closed"));
                    } else {
                        toCoordinator(part, key, keyType, done, deadlineNanos);
                    }
                }, COORDINATOR_RETRY_MILLIS, java.util.concurrent.TimeUnit.MILLISECONDS);
                return;
            }
            done.accept(answer);
        };
        Integer known = host.cachedCoordinator(part.route(), group);
        if (known != null) {
            UpstreamLink link = host.links().broker(part.route(), known);
            exchange(link, part, retrying, group);
            link.flush(); // a retry runs on its own, outside the flush of the plan's step
        } else {
            findCoordinator(part, key, keyType, retrying, deadlineNanos);
        }
    }

    /** Whether a coordinator answered that it is not (or not yet) the group's coordinator. */
    private static boolean coordinatorTurnedAway(Part part, Answer answer) {
        // Cold path and rare (coordinator-bound parts only): the errors are read the way kafka-clients
        // counts them, from the answer written out again.
        java.util.Map<Errors, Integer> errors = AbstractResponse.parseResponse(ApiKeys.forId(part.apiKey()),
                org.apache.kafka.common.protocol.MessageUtil.toByteBufferAccessor(answer.body(), part.version()),
                part.version()).errorCounts();
        return errors.containsKey(Errors.NOT_COORDINATOR) || errors.containsKey(Errors.COORDINATOR_NOT_AVAILABLE)
                || errors.containsKey(Errors.COORDINATOR_LOAD_IN_PROGRESS);
    }

    /** The session's coordinator cache key of a group or transactional id (they are separate namespaces). */
    private static String cacheKey(String key, byte keyType) {
        return keyType == GROUP ? key : "transaction " + key;
    }

    /**
     * Finds the group's coordinator on the part's route and sends the part there. The client already
     * found the group's coordinator on its home cluster, but another route may have none yet: a cluster
     * that never saw a group creates {@code __consumer_offsets} on the first lookup and answers
     * COORDINATOR_NOT_AVAILABLE meanwhile. That is retried here until {@code deadlineNanos}, as a client
     * would: passed on, it reached clients as an OffsetFetch/OffsetCommit error, and librdkafka does not
     * retry a failed OffsetFetch of its assignment (its partitions were never consumed).
     */
    private void findCoordinator(Part part, String key, byte keyType, Consumer<Answer> done, long deadlineNanos) {
        String group = cacheKey(key, keyType);
        FindCoordinatorRequestData find = new FindCoordinatorRequestData().setKey(key).setKeyType(keyType);
        Part lookup = new Part(part.route(), Destination.ANY, FIND_COORDINATOR_VERSION, find);
        UpstreamLink any = host.links().any(part.route());
        exchange(any, lookup, answer -> {
            if (answer.failed()) {
                done.accept(Answer.failed(Errors.COORDINATOR_NOT_AVAILABLE, answer.reason()));
                return;
            }
            FindCoordinatorResponseData found = (FindCoordinatorResponseData) answer.body();
            Errors error = Errors.forCode(found.errorCode());
            if ((error == Errors.COORDINATOR_NOT_AVAILABLE || error == Errors.COORDINATOR_LOAD_IN_PROGRESS)
                    && System.nanoTime() < deadlineNanos && !host.isClosed()) {
                host.eventLoop().schedule(() -> {
                    if (host.isClosed()) {
                        done.accept(Answer.failed(Errors.COORDINATOR_NOT_AVAILABLE, "the client connection closed"));
                    } else {
                        findCoordinator(part, key, keyType, done, deadlineNanos);
                    }
                }, COORDINATOR_RETRY_MILLIS, java.util.concurrent.TimeUnit.MILLISECONDS);
                return;
            }
            if (found.errorCode() != 0 || found.nodeId() < 0) {
                Errors e = Errors.forCode(found.errorCode());
                done.accept(Answer.failed(e == Errors.NONE ? Errors.COORDINATOR_NOT_AVAILABLE : e,
                        "cluster '" + host.routeName(part.route()) + "' has no coordinator for group '"
                                + group + "': " + e.name()));
                return;
            }
            host.cacheCoordinator(part.route(), group, found.nodeId());
            UpstreamLink link = host.links().broker(part.route(), found.nodeId());
            exchange(link, part, done, group);
            link.flush();
        }, null);
        any.flush(); // a retry runs on its own, outside the flush of the plan's step
    }

    private void exchange(UpstreamLink link, Part part, Consumer<Answer> done, String coordinatedGroup) {
        ColdExchange.send(host, link, part, header.clientId(), done, coordinatedGroup);
    }

    private void releaseFrame() {
        if (frame != null) {
            frame.release();
            frame = null;
        }
    }
}
