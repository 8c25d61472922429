package dev.weft.routing.plan;

import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.protocol.Errors;

/**
 * InitProducerId without a transactional id (an idempotent producer): the virtual producer id is one
 * that a cluster of the virtual cluster allocated — the first route that serves clients (route 0 of a
 * weave; a switch's active route) — so it is unique across every proxy replica without coordination.
 * An id allocated by route {@code r > 0} carries {@code r} above bit {@value #ROUTE_SHIFT}, so ids that
 * two clusters allocated never collide, and the route that allocated an id stays known after a switch
 * moved on (Kafka's ids are allocated upwards from 0 and never come near 2^48). Batches bound for any
 * other cluster get that cluster's own id for it (the proxy's producer-id translation, agreed by the
 * fleet); batches for the allocating cluster get the id without its route bits.
 */
public final class IdempotentProducerIds {

    /** The route that allocates virtual producer ids of weaves and branches (the first, which always serves). */
    public static final int HOME_ROUTE = 0;
    static final int ROUTE_SHIFT = 48;
    private static final long ALLOCATED_MASK = (1L << ROUTE_SHIFT) - 1;

    /** InitProducerId: idempotent producers here, transactional ones at their transaction's home. */
    static final ColdPlanner PLANNER = (request, version, ctx) -> {
        InitProducerIdRequestData init = (InitProducerIdRequestData) request;
        if (init.transactionalId() != null) {
            return HomeForwarding.initProducerId(request, version, ctx);
        }
        int route = allocatingRoute(ctx);
        return Step.send(new Part(route, Destination.ANY, version, init), answer -> {
            if (answer.failed()) {
                // what a broker answers while it cannot allocate (retried as it is): COORDINATOR_NOT_AVAILABLE
                // would make kafka-clients look up the coordinator of a null transactional id (its I/O thread
                // then fails writing FindCoordinator, again and again)
                return Step.respond(Refusals.errorResponse(init, version, Errors.COORDINATOR_LOAD_IN_PROGRESS,
                        "cluster '" + ctx.routeName(route) + "' could not allocate a producer id: " + answer.reason()));
            }
            InitProducerIdResponseData body = (InitProducerIdResponseData) answer.body();
            if (body.errorCode() == Errors.NONE.code() && body.producerId() >= 0) {
                if (body.producerId() > ALLOCATED_MASK) {
                    return Step.respond(Refusals.errorResponse(init, version, Errors.UNKNOWN_SERVER_ERROR,
                            "cluster '" + ctx.routeName(route) + "' allocated producer id " + body.producerId()
                                    + ", above 2^" + ROUTE_SHIFT + ": it cannot carry its route"));
                }
                body.setProducerId(virtualId(body.producerId(), route));
            }
            return Step.respond(body);
        });
    };

    private IdempotentProducerIds() {
    }

    /** The first route that serves clients (it is reachable through the virtual cluster as it is now). */
    static int allocatingRoute(PlanContext ctx) {
        for (int r = 0; r < ctx.routeCount(); r++) {
            if (ctx.topics().routeServes(r)) {
                return r;
            }
        }
        return HOME_ROUTE;
    }

    /** The virtual id of producer id {@code allocated}, allocated by {@code route}'s cluster. */
    public static long virtualId(long allocated, int route) {
        return allocated | ((long) route << ROUTE_SHIFT);
    }

    /** The route whose cluster allocated {@code virtualPid}. */
    public static int allocatingRoute(long virtualPid) {
        return (int) (virtualPid >>> ROUTE_SHIFT);
    }

    /** {@code virtualPid} as its allocating cluster knows it (without the route bits). */
    public static long allocatedId(long virtualPid) {
        return virtualPid & ALLOCATED_MASK;
    }

    /**
     * Whether batches of {@code virtualPid} bound for {@code route} need another producer id than the
     * client's: every route but the one that allocated it, and that one too when the id carries route bits.
     */
    public static boolean translates(long virtualPid, int route) {
        return virtualPid > ALLOCATED_MASK || route != HOME_ROUTE;
    }
}
