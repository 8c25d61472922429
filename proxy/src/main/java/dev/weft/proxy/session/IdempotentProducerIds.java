package dev.weft.proxy.session;

import dev.weft.routing.plan.ColdPlanner;
import dev.weft.routing.plan.Destination;
import dev.weft.routing.plan.Part;
import dev.weft.routing.plan.Refusals;
import dev.weft.routing.plan.Step;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.protocol.Errors;

/**
 * InitProducerId without a transactional id (an idempotent producer): the virtual producer id is the
 * one the producer-id home cluster (route {@link VirtualClusterRuntime#PRODUCER_ID_HOME_ROUTE}) allocates, so it
 * is unique across every proxy replica without coordination; batches bound for other clusters get
 * that cluster's id for it ({@link HotProduce}, {@link ProducerIdTranslator}).
 */
final class IdempotentProducerIds {

    static final ColdPlanner PLANNER = (request, version, ctx) -> {
        InitProducerIdRequestData init = (InitProducerIdRequestData) request;
        return Step.send(new Part(VirtualClusterRuntime.PRODUCER_ID_HOME_ROUTE, Destination.ANY, version, init), answer -> {
            if (answer.failed()) {
                return Step.respond(Refusals.errorResponse(init, version, Errors.COORDINATOR_NOT_AVAILABLE,
                        "cluster '" + ctx.routeName(VirtualClusterRuntime.PRODUCER_ID_HOME_ROUTE) + "' could not allocate a producer id: "
                                + answer.reason()));
            }
            return Step.respond(answer.body());
        });
    };

    private IdempotentProducerIds() {
    }
}
