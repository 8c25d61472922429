package dev.weft.routing.api;

/**
 * What the one session does with a request of one API on a virtual cluster, as the virtual cluster's
 * router decides ({@link dev.weft.routing.Router#apiRoute(short)}). The session dispatches on this
 * through an array per router, never on the router's type.
 */
public enum ApiRoute {
    /**
     * The client's frame goes unchanged over the connection's own upstream connection (a broker port's
     * broker; for a bootstrap connection, one broker of the first route), only the correlation id
     * patched; the answer comes back with node ids and broker addresses mapped to the gateway's. Nothing
     * is decoded. Requests stay on one upstream connection, in order, so SASL passes through.
     */
    FORWARD,
    /**
     * Produce and Fetch: skimmed, planned per partition by the router's {@link HotPlanner} into a
     * {@link RoutePlan}, and sent, split or answered by the proxy's exchange.
     */
    HOT,
    /** Decoded (kafka-clients' message classes) and planned by the router's cold planner. */
    PLANNED,
    /** ApiVersions answered by the proxy: what every route behind the virtual cluster supports. */
    ANSWERED,
    /** Not offered through this virtual cluster (not in its ApiVersions): a client sending it is closed. */
    REFUSED
}
