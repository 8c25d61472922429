package dev.weft.routing.topicweave;

import dev.weft.routing.GroupRouting;
import dev.weft.routing.RealTopic;
import dev.weft.routing.Router;
import dev.weft.routing.TopicRouting;
import dev.weft.routing.TransactionRouting;
import dev.weft.routing.dag.RouteSpec;
import dev.weft.routing.dag.RouterSpec;
import java.util.List;

/** The topic-weave router (DESIGN §1): unions the topics of its routes; see {@link TopicCatalog}. */
final class TopicWeaveRouter implements Router {

    private final RouterSpec spec;
    private final CompiledWeave weave;

    TopicWeaveRouter(RouterSpec spec, CompiledWeave weave) {
        this.spec = spec;
        this.weave = weave;
    }

    @Override
    public String name() {
        return spec.name();
    }

    @Override
    public String type() {
        return TopicWeaveFactory.TYPE;
    }

    @Override
    public List<RouteSpec> routes() {
        return spec.routes();
    }

    @Override
    public TopicRouting catalog(List<List<RealTopic>> topicsByRoute) {
        return weave.catalog(topicsByRoute);
    }

    @Override
    public GroupRouting groups() {
        return weave.groups;
    }

    @Override
    public TransactionRouting transactions() {
        return weave.transactions;
    }

    @Override
    public String toString() {
        return "topic-weave router '" + spec.name() + "' " + spec.routeNames();
    }

    @Override
    public dev.weft.routing.api.ApiRoute apiRoute(short apiKey) {
        return dev.weft.routing.plan.Planners.catalogApiRoute(apiKey);
    }

    @Override
    public dev.weft.routing.api.HotPlanner hotPlanner() {
        return CatalogHotPlanner.INSTANCE;
    }

    @Override
    public dev.weft.routing.plan.ColdPlanner coldPlanner(short apiKey) {
        return dev.weft.routing.plan.Planners.forApi(apiKey);
    }

    @Override
    public boolean usesTopicCatalog() {
        return true;
    }
}
