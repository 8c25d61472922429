package dev.weft.routing;

import dev.weft.routing.dag.ClusterTarget;
import dev.weft.routing.dag.RouteSpec;
import dev.weft.routing.dag.RouterSpec;
import dev.weft.routing.dag.RoutingProblem;
import dev.weft.routing.passthrough.PassThroughRouter;
import dev.weft.routing.topicweave.TopicWeaveFactory;
import java.util.ArrayList;
import java.util.List;

/** The router of a virtual cluster that targets one cluster directly, for each topology. */
public final class ClusterRouters {

    private ClusterRouters() {
    }

    /**
     * Mirrored: the identity router (every request forwarded over the connection's broker). Collapsed:
     * no connection is bound to a broker, so nothing can be forwarded as it is; the cluster is served as
     * a one-route topic weave (every topic under its own name, planned and split by leader).
     *
     * @param bindsConnectionsToBrokers true for the mirrored topology
     */
    public static Router over(String cluster, boolean bindsConnectionsToBrokers) {
        return over(cluster, bindsConnectionsToBrokers, false);
    }

    /**
     * @param plansEveryRequest true when every request must be decoded and planned through a topic view
     *     (per-principal authorization): the one-route topic weave then serves the mirrored topology too,
     *     since the identity router forwards what it cannot see into
     */
    public static Router over(String cluster, boolean bindsConnectionsToBrokers, boolean plansEveryRequest) {
        if (bindsConnectionsToBrokers && !plansEveryRequest) {
            return new PassThroughRouter(cluster);
        }
        List<RoutingProblem> problems = new ArrayList<>();
        Router r = new TopicWeaveFactory().create("virtualClusters (cluster '" + cluster + "')",
                new RouterSpec(cluster, TopicWeaveFactory.TYPE, List.of(new RouteSpec(cluster, new ClusterTarget(cluster))), null),
                problems);
        if (r == null) {
            throw new IllegalStateException("a one-cluster weave over '" + cluster + "' was refused: " + problems);
        }
        return r;
    }
}
