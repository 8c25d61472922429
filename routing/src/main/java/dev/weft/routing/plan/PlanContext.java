package dev.weft.routing.plan;

import dev.weft.routing.GroupRouting;
import dev.weft.routing.TopicRouting;
import dev.weft.routing.TransactionRouting;

/**
 * What a planner may know about the virtual cluster and the client's connection. Snapshots: a
 * planner reads them once per request.
 */
public interface PlanContext {

    /** The current topic catalog (visibility, names, ids, placement). */
    TopicRouting topics();

    GroupRouting groups();

    TransactionRouting transactions();

    /** How many routes the router has. */
    int routeCount();

    /** The route's name in the config (for messages). */
    String routeName(int route);

    /**
     * The route of the broker the client's connection is bound to, or -1 for a bootstrap connection
     * (which has no own broker: {@link Destination#OWN} is invalid there).
     */
    int ownRoute();

    /** The virtual node id of real broker {@code realNodeId} of {@code route}; negative ids pass through. */
    int toVirtualNodeId(int route, int realNodeId);

    /** The route behind a virtual node id (-1 for negative ids). */
    int routeOfVirtualNodeId(int virtualNodeId);

    /** The real broker id behind a virtual node id (negative ids pass through). */
    int realNodeId(int virtualNodeId);

    /** The host clients use for virtual node {@code virtualNodeId} (the gateway's). */
    String brokerHost(int virtualNodeId);

    /** The port clients use for virtual node {@code virtualNodeId} (the gateway's). */
    int brokerPort(int virtualNodeId);

    /** The cluster id clients see. */
    String virtualClusterId();

    /** The virtual cluster's name (for messages). */
    String virtualClusterName();

    /**
     * The highest version of {@code apiKey} every route supports (for requests a planner makes up, e.g.
     * a Heartbeat), or -1 when some route does not support it.
     */
    short maxVersion(short apiKey);

    /**
     * The proxy nodes of a collapsed virtual cluster (DESIGN §4: the fleet is the broker list, no
     * connection is bound to a broker; coordinators and partition leaders are found by the proxy), or
     * null in the mirrored topology.
     */
    default dev.weft.routing.node.CollapsedNodes collapsedNodes() {
        return null;
    }

    /**
     * The real leader of {@code partition} of real topic {@code realTopic} behind {@code route}, as the
     * topology cache last saw it, or -1 when unknown (the caller answers NOT_LEADER_OR_FOLLOWER and the
     * client's next Metadata teaches it).
     */
    default int leaderOf(int route, String realTopic, int partition) {
        return -1;
    }

    /** The partitions each route's Metadata answers last showed (one per virtual cluster, shared by every core). */
    KnownPartitions knownPartitions();

    /** A route's Metadata answer: the topology cache learns its brokers and partition leaders. */
    default void learnTopology(int route, org.apache.kafka.common.message.MetadataResponseData answer) {
    }

    /** The client named a topic the catalog does not know: read every route's topics again soon (rate-limited). */
    default void refreshCatalogSoon() {
    }

    /** Logs why a request was refused (WARN, with the connection's id and peer); for operators. */
    void logRefusal(String message);
}
