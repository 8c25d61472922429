package dev.weft.routing.access;

import dev.weft.routing.GroupRouting;
import dev.weft.routing.TopicRouting;
import dev.weft.routing.TransactionRouting;
import dev.weft.routing.plan.KnownPartitions;
import dev.weft.routing.plan.PlanContext;
import org.apache.kafka.common.message.MetadataResponseData;

/** A connection's plan context with the principal's topic view (and homes, when it has its own) in place of the router's. */
final class ViewPlanContext implements PlanContext {

    private final PlanContext ctx;
    private final TopicRouting topics;
    private final RouteScope scope;

    ViewPlanContext(PlanContext ctx, TopicRouting topics, RouteScope scope) {
        this.ctx = ctx;
        this.topics = topics;
        this.scope = scope;
    }

    @Override
    public TopicRouting topics() {
        return topics;
    }

    @Override
    public GroupRouting groups() {
        int home = scope.home();
        return home < 0 ? ctx.groups() : group -> home; // the principal's home, not the router's
    }

    @Override
    public TransactionRouting transactions() {
        int home = scope.home();
        return home < 0 ? ctx.transactions() : transactionalId -> home;
    }

    @Override
    public int routeCount() {
        return ctx.routeCount();
    }

    @Override
    public String routeName(int route) {
        return ctx.routeName(route);
    }

    @Override
    public int ownRoute() {
        return ctx.ownRoute();
    }

    @Override
    public int toVirtualNodeId(int route, int realNodeId) {
        return ctx.toVirtualNodeId(route, realNodeId);
    }

    @Override
    public int routeOfVirtualNodeId(int virtualNodeId) {
        return ctx.routeOfVirtualNodeId(virtualNodeId);
    }

    @Override
    public int realNodeId(int virtualNodeId) {
        return ctx.realNodeId(virtualNodeId);
    }

    @Override
    public String brokerHost(int virtualNodeId) {
        return ctx.brokerHost(virtualNodeId);
    }

    @Override
    public int brokerPort(int virtualNodeId) {
        return ctx.brokerPort(virtualNodeId);
    }

    @Override
    public String virtualClusterId() {
        return ctx.virtualClusterId();
    }

    @Override
    public String virtualClusterName() {
        return ctx.virtualClusterName();
    }

    @Override
    public short maxVersion(short apiKey) {
        return ctx.maxVersion(apiKey);
    }

    @Override
    public dev.weft.routing.node.CollapsedNodes collapsedNodes() {
        return ctx.collapsedNodes();
    }

    @Override
    public int leaderOf(int route, String realTopic, int partition) {
        return ctx.leaderOf(route, realTopic, partition);
    }

    @Override
    public KnownPartitions knownPartitions() {
        return ctx.knownPartitions();
    }

    @Override
    public void learnTopology(int route, MetadataResponseData answer) {
        ctx.learnTopology(route, answer);
    }

    @Override
    public void refreshCatalogSoon() {
        ctx.refreshCatalogSoon();
    }

    @Override
    public void logRefusal(String message) {
        ctx.logRefusal(message);
    }
}
