package dev.weft.routing.passthrough;

import dev.weft.routing.GroupRouting;
import dev.weft.routing.RealTopic;
import dev.weft.routing.Router;
import dev.weft.routing.TopicRouting;
import dev.weft.routing.TransactionRouting;
import dev.weft.routing.api.ApiRoute;
import dev.weft.routing.api.HotPlanner;
import dev.weft.routing.api.RoutePlan;
import dev.weft.routing.dag.ClusterTarget;
import dev.weft.routing.dag.RouteSpec;
import dev.weft.routing.plan.ColdPlanner;
import java.util.List;

/**
 * The identity router: a virtual cluster over one cluster (mirrored topology), as clients would see the
 * cluster itself. Every request is forwarded over the connection's own upstream connection as the
 * client sent it ({@link ApiRoute#FORWARD}); only node ids and broker addresses in answers are mapped
 * to the gateway's. Produce and Fetch are skimmed only to map the node endpoints of their answers
 * (leader hints); partitions are never refused or renamed, so every Fetch goes as sent, fetch session and all.
 */
public final class PassThroughRouter implements Router {

    private static final HotPlanner ALL_TO_OWN_BROKER = (skim, ctx, out) -> {
        int own = out.target(0, RoutePlan.OWN_BROKER);
        out.send(0, skim.partitionCount(), own);
    };

    private final String name;
    private final List<RouteSpec> routes;

    /** @param cluster the cluster's name under {@code clusters} */
    public PassThroughRouter(String cluster) {
        this.name = cluster;
        this.routes = List.of(new RouteSpec(cluster, new ClusterTarget(cluster)));
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String type() {
        return "pass-through";
    }

    @Override
    public List<RouteSpec> routes() {
        return routes;
    }

    @Override
    public ApiRoute apiRoute(short apiKey) {
        return apiKey == org.apache.kafka.common.protocol.ApiKeys.PRODUCE.id
                || apiKey == org.apache.kafka.common.protocol.ApiKeys.FETCH.id ? ApiRoute.HOT : ApiRoute.FORWARD;
    }

    @Override
    public HotPlanner hotPlanner() {
        return ALL_TO_OWN_BROKER;
    }

    @Override
    public ColdPlanner coldPlanner(short apiKey) {
        return null; // nothing is planned: every cold API is forwarded
    }

    @Override
    public boolean usesTopicCatalog() {
        return false;
    }

    @Override
    public TopicRouting catalog(List<List<RealTopic>> topicsByRoute) {
        throw new UnsupportedOperationException("a pass-through virtual cluster keeps no topic catalog");
    }

    @Override
    public GroupRouting groups() {
        return group -> 0;
    }

    @Override
    public TransactionRouting transactions() {
        return transactionalId -> 0;
    }
}
