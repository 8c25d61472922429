package dev.weft.proxy.session;

import dev.weft.routing.GroupRouting;
import dev.weft.routing.TopicRouting;
import dev.weft.routing.TransactionRouting;
import dev.weft.routing.plan.PlanContext;

/** What planners see of a woven session: the runtime's current snapshots plus the connection's route and gateway. */
final class SessionPlanContext implements PlanContext {

    private final Session session;

    SessionPlanContext(Session session) {
        this.session = session;
    }

    @Override
    public TopicRouting topics() {
        return session.runtime.catalog().topics();
    }

    @Override
    public GroupRouting groups() {
        return session.runtime.router().groups();
    }

    @Override
    public TransactionRouting transactions() {
        return session.runtime.router().transactions();
    }

    @Override
    public int routeCount() {
        return session.runtime.routeCount();
    }

    @Override
    public String routeName(int route) {
        return session.runtime.routeName(route);
    }

    @Override
    public int ownRoute() {
        return session.ownRoute;
    }

    @Override
    public int toVirtualNodeId(int route, int realNodeId) {
        return session.runtime.bijection().toVirtual(route, realNodeId);
    }

    @Override
    public int routeOfVirtualNodeId(int virtualNodeId) {
        return session.runtime.bijection().routeOf(virtualNodeId);
    }

    @Override
    public int realNodeId(int virtualNodeId) {
        return session.runtime.bijection().realNodeId(virtualNodeId);
    }

    @Override
    public String brokerHost(int virtualNodeId) {
        return session.addresses.brokerPort(virtualNodeId) > 0 ? session.addresses.brokerHost(virtualNodeId)
                : session.addresses.bootstrapHost();
    }

    @Override
    public int brokerPort(int virtualNodeId) {
        int port = session.addresses.brokerPort(virtualNodeId);
        if (port > 0) {
            return port;
        }
        session.runtime.reportMissingPort(session.addresses, virtualNodeId);
        return session.addresses.bootstrapPort();
    }

    @Override
    public String virtualClusterId() {
        return session.runtime.virtualClusterId();
    }

    @Override
    public String virtualClusterName() {
        return session.runtime.name();
    }

    @Override
    public short maxVersion(short apiKey) {
        return session.runtime.apiVersions().maxVersion(apiKey);
    }

    @Override
    public dev.weft.routing.node.CollapsedNodes collapsedNodes() {
        return session.runtime.collapsed();
    }

    @Override
    public int leaderOf(int route, String realTopic, int partition) {
        dev.weft.routing.topology.TopicLeaders t = session.runtime.leaders(route).topic(realTopic);
        return t == null ? -1 : Math.max(-1, t.leader(partition));
    }

    @Override
    public dev.weft.routing.plan.KnownPartitions knownPartitions() {
        return session.runtime.knownPartitions();
    }

    @Override
    public void learnTopology(int route, org.apache.kafka.common.message.MetadataResponseData answer) {
        session.runtime.learnTopology(route, answer);
    }

    @Override
    public void refreshCatalogSoon() {
        session.runtime.refreshCatalogSoon();
    }

    @Override
    public void logRefusal(String message) {
        session.logRefusal(message);
    }
}
