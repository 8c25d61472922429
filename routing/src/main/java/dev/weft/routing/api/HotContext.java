package dev.weft.routing.api;

/** What a {@link HotPlanner} may know of the client's connection and the virtual cluster's snapshots. */
public interface HotContext {

    /** The route of the broker the connection is bound to, or -1 for a bootstrap connection. */
    int ownRoute();

    /** The current topic catalog with its precomputed upstream keys (routers that use one). */
    HotCatalog catalog();

    /**
     * Whether the connection is bound to one real broker (mirrored topology: the client picked the
     * partition's leader by connecting to it) or to none (collapsed: the plan targets each partition's
     * real leader, {@link #leaders}).
     */
    boolean boundToBroker();

    /** What the topology cache knows of the partition leaders behind {@code route} (current snapshot). */
    dev.weft.routing.topology.PartitionLeadership leaders(int route);

    /** The real node id of the broker the connection is bound to, or -1 when it is bound to none. */
    int ownBroker();

    /** The brokers (with racks) the topology cache knows behind {@code route} (current snapshot). */
    dev.weft.routing.topology.ClusterTopology brokers(int route);

    /** What followers of this connection's partitions said was the end, and what the leaders said to that (rack-aware fetch). */
    FollowerEndChecks endChecks();
}
