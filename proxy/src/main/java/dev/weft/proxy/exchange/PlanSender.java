package dev.weft.proxy.session;

import dev.weft.routing.api.RoutePlan;
import dev.weft.routing.api.RoutePlanPool;
import io.netty.buffer.ByteBuf;
import java.util.function.IntFunction;

/**
 * Sends the parts of a split Produce or Fetch ({@link Session#sendParts}): one per session and API, so
 * the plan being split is a field and the functions handed on are made once, not per request.
 */
final class PlanSender {

    /** Builds the part of {@code plan} for one target from the skimmed client request. */
    @FunctionalInterface
    interface PartBuilder {
        ByteBuf build(RoutePlan plan, int target);
    }

    private final Session session;
    private final String api;
    private final IntFunction<ByteBuf> buildPart;
    private final Runnable releasePlan;
    private RoutePlan splitting;

    PlanSender(Session session, RoutePlanPool plans, String api, PartBuilder builder) {
        this.session = session;
        this.api = api;
        this.buildPart = t -> builder.build(splitting, t);
        this.releasePlan = () -> plans.release(splitting);
    }

    /** @return false when the request could not be split (released, connection closed with a log line) */
    boolean send(RoutePlan plan, SplitAnswer answer, ByteBuf frame) {
        splitting = plan;
        try {
            return session.sendParts(plan, buildPart, answer, frame, releasePlan, api);
        } finally {
            splitting = null;
        }
    }
}
