package dev.weft.routing;

/**
 * The home route of each transactional id (DESIGN §5): FindCoordinator(TRANSACTION), InitProducerId,
 * AddPartitionsToTxn, AddOffsetsToTxn, EndTxn go there, and a transaction touching a partition behind
 * another route is refused. Allocation-free.
 */
@FunctionalInterface
public interface TransactionRouting {

    /** The route index of the transactional id's home. */
    int homeRoute(String transactionalId);

    /** True when a transaction of {@code transactionalId} may touch a partition behind {@code route}. */
    default boolean confinedTo(String transactionalId, int route) {
        return homeRoute(transactionalId) == route;
    }
}
