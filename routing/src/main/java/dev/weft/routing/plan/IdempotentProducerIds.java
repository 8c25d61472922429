package dev.weft.routing.plan;

import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.protocol.Errors;

/**
 * InitProducerId without a transactional id (an idempotent producer): the virtual producer id is the
 * one the producer-id home cluster (route {@link #HOME_ROUTE}) allocates, so it is unique across every
 * proxy replica without coordination; batches bound for other clusters get that cluster's id for it
 * (the proxy's producer-id translation, agreed by the fleet).
 */
public final class IdempotentProducerIds {

    /** The route whose cluster allocates virtual producer ids (and holds the fleet's producer-id state). */
    public static final int HOME_ROUTE = 0;

    /** InitProducerId: idempotent producers here, transactional ones at their transaction's home. */
    static final ColdPlanner PLANNER = (request, version, ctx) -> {
        InitProducerIdRequestData init = (InitProducerIdRequestData) request;
        if (init.transactionalId() != null) {
            return HomeForwarding.initProducerId(request, version, ctx);
        }
        return Step.send(new Part(HOME_ROUTE, Destination.ANY, version, init), answer -> {
            if (answer.failed()) {
                return Step.respond(Refusals.errorResponse(init, version, Errors.COORDINATOR_NOT_AVAILABLE,
                        "cluster '" + ctx.routeName(HOME_ROUTE) + "' could not allocate a producer id: " + answer.reason()));
            }
            return Step.respond(answer.body());
        });
    };

    private IdempotentProducerIds() {
    }

    /** Whether batches for {@code route} need a producer id of their own cluster (every route but the home). */
    public static boolean translates(int route) {
        return route != HOME_ROUTE;
    }
}
