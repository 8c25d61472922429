package dev.weft.routing.plan;

import java.util.function.Function;
import org.apache.kafka.common.message.AddOffsetsToTxnRequestData;
import org.apache.kafka.common.message.EndTxnRequestData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * Requests that only a group's or a transaction's coordinator serves, and that need no translation:
 * the client found that coordinator through FindCoordinator on the home route, so a connection bound
 * to the home route forwards the frame unchanged, and any other connection answers NOT_COORDINATOR —
 * the normal answer of a broker that is not the coordinator, after which clients look it up again.
 */
final class HomeForwarding {

    private HomeForwarding() {
    }

    /** JoinGroup, SyncGroup, Heartbeat, LeaveGroup: home is the group's. */
    static ColdPlanner group(Function<ApiMessage, String> groupIdOf) {
        return (request, version, ctx) -> {
            String group = groupIdOf.apply(request);
            return toHome(request, version, ctx, ctx.groups().homeRoute(group), HomeCoordinators.group(ctx, group));
        };
    }

    /**
     * EndTxn, at the transaction's home. A commit while the home's Produce is fenced (a switch's cutover)
     * is refused TRANSACTION_ABORTABLE: the client aborts, so the transaction ends aborted on the old
     * cluster and is never committed there after replication was judged complete.
     */
    static Step endTxn(ApiMessage request, short version, PlanContext ctx) {
        EndTxnRequestData req = (EndTxnRequestData) request;
        int home = ctx.transactions().homeRoute(req.transactionalId());
        if (req.committed() && ctx.topics().produceFenced(home)) {
            return Refusals.refuse(req, version, ctx, Errors.TRANSACTION_ABORTABLE, "transaction '" + req.transactionalId()
                    + "' cannot commit while cluster '" + ctx.routeName(home) + "' is fenced for a switch; it is to be aborted");
        }
        return toHome(req, version, ctx, home, HomeCoordinators.transaction(ctx, req.transactionalId()));
    }

    /**
     * InitProducerId with a transactional id: the producer id and epoch come from the transaction's
     * home. Without one it is the proxy's own business (virtual producer ids); it never gets here.
     */
    static Step initProducerId(ApiMessage request, short version, PlanContext ctx) {
        String transactionalId = ((InitProducerIdRequestData) request).transactionalId();
        if (transactionalId == null) {
            return Refusals.refuse(request, version, ctx, Errors.INVALID_REQUEST,
                    "InitProducerId without a transactional id is answered by the proxy, not planned");
        }
        return toHome(request, version, ctx, ctx.transactions().homeRoute(transactionalId),
                HomeCoordinators.transaction(ctx, transactionalId));
    }

    /**
     * AddOffsetsToTxn: the group's offsets are committed by the transaction's coordinator through the
     * group's coordinator, which must be on the same cluster; else the transaction cannot commit them.
     */
    static Step addOffsetsToTxn(ApiMessage request, short version, PlanContext ctx) {
        AddOffsetsToTxnRequestData req = (AddOffsetsToTxnRequestData) request;
        int txnHome = ctx.transactions().homeRoute(req.transactionalId());
        int groupHome = ctx.groups().homeRoute(req.groupId());
        if (groupHome != txnHome) {
            return Refusals.refuse(req, version, ctx, Errors.TRANSACTION_ABORTABLE, TransactionConfinement.groupElsewhere(
                    ctx, req.transactionalId(), txnHome, req.groupId(), groupHome));
        }
        return toHome(req, version, ctx, txnHome, HomeCoordinators.transaction(ctx, req.transactionalId()));
    }

    /**
     * To the coordinator on {@code home}: forwarded unchanged on a connection bound to it; sent to the
     * coordinator the proxy finds in the collapsed topology; NOT_COORDINATOR elsewhere.
     */
    static Step toHome(ApiMessage request, short version, PlanContext ctx, int home, Destination coordinator) {
        if (coordinator instanceof Destination.OwnBroker) {
            return ctx.ownRoute() == home ? Step.FORWARD
                    : Step.respond(Refusals.errorResponse(request, version, Errors.NOT_COORDINATOR, null));
        }
        return Step.send(new Part(home, coordinator, version, request), answer -> answer.failed()
                ? Step.respond(Refusals.errorResponse(request, version, CoordinatorFailures.retriable(answer), answer.reason()))
                : Step.respond(answer.body()));
    }
}
