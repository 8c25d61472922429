package dev.weft.routing.rack;

import dev.weft.routing.GroupRouting;
import dev.weft.routing.RealTopic;
import dev.weft.routing.Router;
import dev.weft.routing.TopicRouting;
import dev.weft.routing.TransactionRouting;
import dev.weft.routing.api.ApiRoute;
import dev.weft.routing.api.HotPlanner;
import dev.weft.routing.dag.RouteSpec;
import dev.weft.routing.plan.ColdPlanner;
import java.util.List;

/**
 * A virtual cluster's router with rack-aware fetch on top: everything is the router's, except that its
 * Fetch plans go through {@link InZoneReplicaPlanner} for the proxy's zone. Composes with every router
 * type, because it only changes which broker of the leaf the router chose serves a partition. Produce,
 * ListOffsets, OffsetCommit and the rest still go where the router sends them (the leader).
 */
public final class RackAwareRouter implements Router {

    private final Router router;
    private final String zone;
    private final HotPlanner planner;

    private RackAwareRouter(Router router, String zone) {
        this.router = router;
        this.zone = zone;
        this.planner = new InZoneReplicaPlanner(router.hotPlanner(), zone);
    }

    /** {@code router} reading Fetch partitions from replicas in {@code zone}; {@code router} itself when the zone is null or blank. */
    public static Router over(Router router, String zone) {
        return zone == null || zone.isBlank() ? router : new RackAwareRouter(router, zone);
    }

    /** The proxy's zone, as configured. */
    public String zone() {
        return zone;
    }

    /** The router underneath. */
    public Router router() {
        return router;
    }

    @Override
    public HotPlanner hotPlanner() {
        return planner;
    }

    @Override
    public boolean readsReplicas() {
        return true;
    }

    /**
     * Parts the proxy builds carry no rack: the replica is the proxy's choice, so a broker's replica
     * selector (KIP-392) answers with data, not with "read it from a replica in that rack" and none —
     * which a leader would say for every part the proxy sends it to learn where the partition ends.
     */
    @Override
    public String fetchRackId() {
        return "";
    }

    @Override
    public String name() {
        return router.name();
    }

    @Override
    public String type() {
        return router.type();
    }

    @Override
    public List<RouteSpec> routes() {
        return router.routes();
    }

    @Override
    public TopicRouting catalog(List<List<RealTopic>> topicsByRoute) {
        return router.catalog(topicsByRoute);
    }

    @Override
    public GroupRouting groups() {
        return router.groups();
    }

    @Override
    public TransactionRouting transactions() {
        return router.transactions();
    }

    @Override
    public ApiRoute apiRoute(short apiKey) {
        return router.apiRoute(apiKey);
    }

    @Override
    public ColdPlanner coldPlanner(short apiKey) {
        return router.coldPlanner(apiKey);
    }

    @Override
    public boolean nestable() {
        return router.nestable();
    }

    @Override
    public boolean clientFacing(int route) {
        return router.clientFacing(route);
    }

    @Override
    public boolean usesTopicCatalog() {
        return router.usesTopicCatalog();
    }

    @Override
    public void watch(dev.weft.routing.RouterListener listener) {
        router.watch(listener);
    }

    @Override
    public String fleetStateCluster() {
        return router.fleetStateCluster();
    }

    @Override
    public boolean countsPartitions() {
        return router.countsPartitions();
    }

    @Override
    public dev.weft.routing.branch.transform.TransformSpec sideTransforms(int route) {
        return router.sideTransforms(route);
    }

    @Override
    public String toString() {
        return router + " reading Fetch partitions in zone '" + zone + "'";
    }
}
