package dev.weft.routing.plan;

/** Which broker of a route a {@link Part} goes to. */
public sealed interface Destination {

    /** Any broker of the route (bootstrap-like: Metadata, admin requests brokers forward to their controller). */
    record AnyBroker() implements Destination {
    }

    /**
     * The real broker the client's connection is bound to (the connection to virtual node v is served by
     * real broker {@code realNodeId(v)} of route {@code routeOf(v)}); only valid with that route.
     */
    record OwnBroker() implements Destination {
    }

    /** The coordinator of consumer group {@code groupId} on the route (found with FindCoordinator there, cached). */
    record GroupCoordinator(String groupId) implements Destination {
    }

    /**
     * The coordinator of transactional id {@code transactionalId} on the route (found with
     * FindCoordinator there, cached): the collapsed topology's home coordinator of a transaction.
     */
    record TransactionCoordinator(String transactionalId) implements Destination {
    }

    /** Real broker {@code nodeId} of the route. */
    record Broker(int nodeId) implements Destination {
    }

    AnyBroker ANY = new AnyBroker();
    OwnBroker OWN = new OwnBroker();
}
