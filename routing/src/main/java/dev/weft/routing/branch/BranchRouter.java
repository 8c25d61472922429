package dev.weft.routing.branch;

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
import java.util.List;

/**
 * A branch router: every request is planned by its primary (a topic weave in which only route 0 shows,
 * groups and transactions homed there); Produce plans gain copies for the branches
 * ({@link BranchHotPlanner}). Not nestable: a nested DAG is planned through topic views alone, which
 * would drop the copies.
 */
final class BranchRouter implements Router {

    private final RouterSpec spec;
    private final Router primary;
    private final List<BranchRoute> branches;
    private final HotPlanner hot;

    BranchRouter(RouterSpec spec, Router primary, List<BranchRoute> branches) {
        this.spec = spec;
        this.primary = primary;
        this.branches = List.copyOf(branches);
        this.hot = new BranchHotPlanner(primary.hotPlanner());
    }

    @Override
    public String name() {
        return spec.name();
    }

    @Override
    public String type() {
        return BranchFactory.TYPE;
    }

    @Override
    public List<RouteSpec> routes() {
        return spec.routes();
    }

    @Override
    public TopicRouting catalog(List<List<RealTopic>> topicsByRoute) {
        return new BranchCatalog(primary.catalog(topicsByRoute), branches, topicsByRoute);
    }

    @Override
    public GroupRouting groups() {
        return primary.groups();
    }

    @Override
    public TransactionRouting transactions() {
        return primary.transactions();
    }

    @Override
    public ApiRoute apiRoute(short apiKey) {
        return primary.apiRoute(apiKey);
    }

    @Override
    public HotPlanner hotPlanner() {
        return hot;
    }

    @Override
    public ColdPlanner coldPlanner(short apiKey) {
        return primary.coldPlanner(apiKey);
    }

    @Override
    public boolean usesTopicCatalog() {
        return true;
    }

    @Override
    public boolean nestable() {
        return false;
    }

    @Override
    public dev.weft.routing.branch.transform.TransformSpec sideTransforms(int route) {
        for (BranchRoute b : branches) {
            if (b.route() == route) {
                return b.transforms();
            }
        }
        return null;
    }

    /** Only the primary: the branches see copies, whose batches carry no producer id. */
    @Override
    public boolean clientFacing(int route) {
        return route == 0;
    }
}
