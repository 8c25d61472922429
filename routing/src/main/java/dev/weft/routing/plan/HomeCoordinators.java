package dev.weft.routing.plan;

/**
 * Where a request for a group's or a transaction's coordinator goes. Mirrored topology: the client
 * found the coordinator through FindCoordinator and connected to it, so a connection bound to the
 * home route sends to its own broker and any other answers NOT_COORDINATOR, as a broker would.
 * Collapsed topology: every proxy node serves every group, so the proxy finds the real coordinator on
 * the home route itself (looked up, cached, looked up again when it moves).
 */
final class HomeCoordinators {

    private HomeCoordinators() {
    }

    /** Whether this connection can serve requests for a coordinator on route {@code home}. */
    static boolean serves(PlanContext ctx, int home) {
        return ctx.collapsedNodes() != null || ctx.ownRoute() == home;
    }

    /** The destination of a request for consumer group {@code groupId}'s coordinator. */
    static Destination group(PlanContext ctx, String groupId) {
        return ctx.collapsedNodes() != null ? new Destination.GroupCoordinator(groupId) : Destination.OWN;
    }

    /** The destination of a request for transactional id {@code transactionalId}'s coordinator. */
    static Destination transaction(PlanContext ctx, String transactionalId) {
        return ctx.collapsedNodes() != null ? new Destination.TransactionCoordinator(transactionalId) : Destination.OWN;
    }
}
