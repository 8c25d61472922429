package dev.weft.routing.partitionweave;

import dev.weft.routing.GroupRouting;
import dev.weft.routing.RealTopic;
import dev.weft.routing.Router;
import dev.weft.routing.TopicRouting;
import dev.weft.routing.TransactionRouting;
import dev.weft.routing.api.ApiRoute;
import dev.weft.routing.api.HotPlanner;
import dev.weft.routing.dag.RouteSpec;
import dev.weft.routing.dag.RouterSpec;
import dev.weft.routing.plan.ColdPlanner;
import dev.weft.routing.plan.Planners;
import dev.weft.routing.topicweave.CatalogHotPlanner;
import java.util.List;

/**
 * The partition-weave router (DESIGN §1): logical topics made of partitions of real topics behind its
 * routes ({@link WovenCatalog}). Everything else is the shared catalog machinery: the hot planner routes
 * and renumbers woven topics partition by partition, the cold planners split entries by segment. Groups
 * and transactions are homed on the first route.
 */
final class PartitionWeaveRouter implements Router {

    private final RouterSpec spec;
    private final String path;
    private final PartitionWeaveSettings settings;

    PartitionWeaveRouter(String path, RouterSpec spec, PartitionWeaveSettings settings) {
        this.spec = spec;
        this.path = path;
        this.settings = settings;
    }

    @Override
    public String name() {
        return spec.name();
    }

    @Override
    public String type() {
        return PartitionWeaveFactory.TYPE;
    }

    @Override
    public List<RouteSpec> routes() {
        return spec.routes();
    }

    @Override
    public TopicRouting catalog(List<List<RealTopic>> topicsByRoute) {
        return new WovenCatalog(spec.name(), path, settings, topicsByRoute);
    }

    @Override
    public GroupRouting groups() {
        return group -> 0;
    }

    @Override
    public TransactionRouting transactions() {
        return id -> 0;
    }

    @Override
    public ApiRoute apiRoute(short apiKey) {
        return Planners.catalogApiRoute(apiKey);
    }

    @Override
    public HotPlanner hotPlanner() {
        return CatalogHotPlanner.INSTANCE;
    }

    @Override
    public ColdPlanner coldPlanner(short apiKey) {
        return Planners.forApi(apiKey);
    }

    @Override
    public boolean countsPartitions() {
        return true;
    }

    @Override
    public boolean usesTopicCatalog() {
        return true;
    }

    @Override
    public String toString() {
        return "partition-weave router '" + spec.name() + "' " + spec.routeNames() + " " + settings.topics().keySet();
    }
}
