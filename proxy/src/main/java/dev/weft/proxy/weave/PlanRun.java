package dev.weft.proxy.weave;

import dev.weft.protocol.ApiKeyTable;
import dev.weft.protocol.cold.ColdCodec;
import dev.weft.protocol.frame.KafkaFrameDecoder;
import dev.weft.protocol.header.ResponseHeaderView;
import dev.weft.proxy.weave.ResponseSlots.Slot;
import dev.weft.routing.plan.Answer;
import dev.weft.routing.plan.ColdPlanner;
import dev.weft.routing.plan.Destination;
import dev.weft.routing.plan.Part;
import dev.weft.routing.plan.Refusals;
import dev.weft.routing.plan.Step;
import io.netty.buffer.ByteBuf;
import java.util.Arrays;
import java.util.function.Consumer;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;

/**
 * Carries out one client request's plan ({@link Step}s from a {@link ColdPlanner}): sends parts over
 * the session's links, collects their answers, continues, and finally answers the slot. Runs on the
 * session's event loop; holds the client's frame until the end (a {@link Step.Forward} sends it).
 */
final class PlanRun {

    /** FindCoordinator v3: the last single-key version, enough to find one group's coordinator. */
    private static final short FIND_COORDINATOR_VERSION = 3;
    private static final int PREFIX = KafkaFrameDecoder.SIZE_PREFIX_BYTES;

    private final WovenSession session;
    private final Slot slot;
    private ByteBuf frame;
    private final RequestHeaderData header;
    private final short version;
    private final int correlationId;
    private ApiMessage request;

    PlanRun(WovenSession session, Slot slot, ByteBuf frame, RequestHeaderData header, short version, int correlationId) {
        this.session = session;
        this.slot = slot;
        this.frame = frame;
        this.header = header;
        this.version = version;
        this.correlationId = correlationId;
    }

    void start(ColdPlanner planner, ApiMessage body) {
        this.request = body;
        if (planner == null) {
            String why = ApiKeyTable.name(header.requestApiKey()) + " is not available through a virtual cluster woven"
                    + " from several clusters ('" + session.runtime.name() + "'): it cannot be answered correctly across clusters";
            session.logRefusal(why);
            advance(Step.respond(Refusals.errorResponse(body, version, Errors.UNSUPPORTED_VERSION, why)));
            return;
        }
        Step first;
        try {
            first = planner.plan(body, version, session.planContext);
        } catch (RuntimeException e) {
            releaseFrame();
            session.failed("cannot plan " + ApiKeyTable.name(header.requestApiKey()) + " v" + version, e);
            return;
        }
        advance(first);
    }

    private void advance(Step step) {
        if (session.isClosed()) {
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
                        session.runtime.catalogs().refresh().whenComplete((c, e) -> session.client.eventLoop().execute(() -> respond(r)));
                    } else {
                        respond(r);
                    }
                }
                case Step.Forward f -> forward();
                case Step.Send s -> send(s);
            }
        } catch (RuntimeException e) {
            releaseFrame();
            session.failed("cannot answer " + ApiKeyTable.name(header.requestApiKey()) + " v" + version, e);
        }
    }

    private void respond(Step.Respond r) {
        if (session.isClosed()) {
            return;
        }
        session.complete(slot, ColdCodec.writeResponse(session.client.alloc(), correlationId, version, r.body()));
        session.flushClient();
    }

    private static boolean changesTopics(short apiKey) {
        return apiKey == ApiKeys.CREATE_TOPICS.id || apiKey == ApiKeys.DELETE_TOPICS.id;
    }

    private void forward() {
        UpstreamLink own = session.links.own();
        if (own == null) {
            throw new IllegalStateException("plan forwards to the connection's own broker, but it is a bootstrap connection");
        }
        ByteBuf out = frame;
        frame = null;
        own.send(out, new UpstreamLink.Exchange() {
            @Override
            public void onResponse(ByteBuf response) {
                ResponseHeaderView.correlationId(response, response.readerIndex() + PREFIX, correlationId);
                session.complete(slot, response);
            }

            @Override
            public void onFailure(Errors error, String reason) {
                session.complete(slot, null); // the own link is gone: the session is closing
            }
        });
        own.flush();
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
                        session.failed("cannot merge the answers to " + ApiKeyTable.name(header.requestApiKey())
                                + " v" + version, e);
                        return;
                    }
                    advance(next);
                }
            });
        }
        session.links.flushAll();
    }

    private void sendPart(Part part, Consumer<Answer> done) {
        switch (part.to()) {
            case Destination.OwnBroker o -> {
                if (part.route() != session.ownRoute || session.links.own() == null) {
                    throw new IllegalStateException("part for the own broker of route " + part.route()
                            + " on a connection bound to route " + session.ownRoute);
                }
                exchange(session.links.own(), part, done, null);
            }
            case Destination.AnyBroker a -> exchange(session.links.any(part.route()), part, done, null);
            case Destination.Broker b -> exchange(session.links.broker(part.route(), b.nodeId()), part, done, null);
            case Destination.GroupCoordinator g -> {
                Integer known = session.cachedCoordinator(part.route(), g.groupId());
                if (known != null) {
                    exchange(session.links.broker(part.route(), known), part, done, g.groupId());
                } else {
                    findCoordinator(part, g.groupId(), done);
                }
            }
        }
    }

    private void findCoordinator(Part part, String group, Consumer<Answer> done) {
        FindCoordinatorRequestData find = new FindCoordinatorRequestData().setKey(group).setKeyType((byte) 0);
        Part lookup = new Part(part.route(), Destination.ANY, FIND_COORDINATOR_VERSION, find);
        exchange(session.links.any(part.route()), lookup, answer -> {
            if (answer.failed()) {
                done.accept(Answer.failed(Errors.COORDINATOR_NOT_AVAILABLE, answer.reason()));
                return;
            }
            FindCoordinatorResponseData found = (FindCoordinatorResponseData) answer.body();
            if (found.errorCode() != 0 || found.nodeId() < 0) {
                Errors e = Errors.forCode(found.errorCode());
                done.accept(Answer.failed(e == Errors.NONE ? Errors.COORDINATOR_NOT_AVAILABLE : e,
                        "cluster '" + session.runtime.routeName(part.route()) + "' has no coordinator for group '"
                                + group + "': " + e.name()));
                return;
            }
            session.cacheCoordinator(part.route(), group, found.nodeId());
            UpstreamLink link = session.links.broker(part.route(), found.nodeId());
            exchange(link, part, done, group);
            link.flush();
        }, null);
    }

    private void exchange(UpstreamLink link, Part part, Consumer<Answer> done, String coordinatedGroup) {
        ColdExchange.send(session, link, part, header.clientId(), done, coordinatedGroup);
    }

    private void releaseFrame() {
        if (frame != null) {
            frame.release();
            frame = null;
        }
    }
}
