package dev.weft.routing;

import dev.weft.routing.dag.RouteSpec;
import dev.weft.routing.api.ApiRoute;
import dev.weft.routing.api.HotPlanner;
import dev.weft.routing.plan.ColdPlanner;
import java.util.List;

/**
 * A router of the DAG, as the proxy sees it: what it decides per kind of request, in terms of route
 * indices (positions in {@link #routes()}). A route index leads to a cluster or to another router; the
 * proxy follows it down (DESIGN §1), so a router never knows what is behind its routes.
 *
 * <p>A router type implements this once and registers a {@link RouterFactory} by name in
 * {@link RouterRegistry}; sessions and codecs never change for a new type. Everything returned is
 * immutable and safe to share between cores.
 */
public interface Router {

    /** The router's name (its key under {@code routers}). */
    String name();

    /** The router type, e.g. {@code "topic-weave"}. */
    String type();

    /** The routes in config order; a route index is a position in this list. */
    List<RouteSpec> routes();

    /**
     * An immutable topic view over what each route currently shows: visibility, names and ids, plus
     * CreateTopics placement. Built again (off the hot path) whenever discovery sees a route's topic
     * list change; the old view stays valid for whoever still holds it.
     *
     * @param topicsByRoute the topics behind each route, {@code topicsByRoute.get(k)} for route k (the
     *     real cluster's topics, or the visible topics of an inner router)
     */
    TopicRouting catalog(List<List<RealTopic>> topicsByRoute);

    /** Which route is each consumer group's home (its coordinator's cluster). */
    GroupRouting groups();

    /** Which route is each transactional id's home; a transaction is confined to it. */
    TransactionRouting transactions();

    /**
     * What the session does with requests of {@code apiKey} (the session keeps this in an array per
     * virtual cluster: asked once per API key at start).
     */
    ApiRoute apiRoute(short apiKey);

    /** Plans Produce and Fetch ({@link ApiRoute#HOT}) per partition. */
    HotPlanner hotPlanner();

    /** The planner of a {@link ApiRoute#PLANNED} API, or null when the API cannot be answered through this router. */
    ColdPlanner coldPlanner(short apiKey);

    /**
     * Whether the router can sit under another router of the DAG. A nested DAG is flattened to its
     * leaves and planned through the composed topic views ({@code routing.compose.LeafRouter}), which
     * carries every router's topic view but not its own hot planner: a router whose hot planning is more
     * than its topic view (branch copies) says false, and a config nesting it is refused.
     */
    default boolean nestable() {
        return true;
    }

    /**
     * Whether the client's own requests can reach {@code route} (false: the route only receives what the
     * proxy sends on its own, such as a branch's copies). The proxy keeps fleet-wide producer-id state
     * only when client-facing routes span several clusters.
     */
    default boolean clientFacing(int route) {
        return true;
    }

    /**
     * Whether the hot planner reads the replicas and in-sync replicas of every route's partitions
     * ({@link dev.weft.routing.api.HotContext#leaders}) even when connections are bound to brokers: the
     * proxy then learns them from every Metadata answer it forwards and reads them again every refresh
     * interval (ISRs change without clients asking Metadata).
     */
    default boolean readsReplicas() {
        return false;
    }

    /**
     * The rack_id (Fetch v11+) the proxy writes into the Fetch parts it builds, or null to copy the
     * client's. A router that chooses replicas itself gives "" (none), so a broker's own replica selector
     * (KIP-392) does not answer a part with "read it elsewhere" and no data.
     */
    default String fetchRackId() {
        return null;
    }

    /**
     * Whether the router needs each route's topics listed with their partition counts
     * ({@link RealTopic#partitionCount}): a partition-weave router checks its segments against them. Costs
     * one more Metadata request per route and listing, so only routers that check say true.
     */
    default boolean countsPartitions() {
        return false;
    }

    /**
     * How copies bound for side route {@code route} (the BRANCH plan kind) are written: null (the default)
     * sends them as they are, the client's batches over the proxy's own connection to the route's
     * broker; a spec has them decoded, transformed and produced off the event loops instead.
     */
    default dev.weft.routing.branch.transform.TransformSpec sideTransforms(int route) {
        return null;
    }

    /**
     * The cluster (a name under {@code clusters}) where the proxy keeps this router's fleet state — the
     * producer-id claims — or null for the first route's cluster. A switch names its state cluster: the
     * first route's cluster may be the very one it failed away from.
     */
    default String fleetStateCluster() {
        return null;
    }

    /**
     * Registers {@code listener} to be told when the router's own state changes what {@link #catalog}
     * returns for the same topics (a switch fenced or re-pointed): the proxy then builds the catalog again
     * from the topics it last listed, without listing them. Routers whose catalog depends on the topics
     * alone never call it.
     */
    default void watch(RouterListener listener) {
    }

    /**
     * Whether the router decides by topic and so needs {@link #catalog} kept up to date from every
     * route's topic list (listed at start and every few seconds).
     */
    boolean usesTopicCatalog();
}
