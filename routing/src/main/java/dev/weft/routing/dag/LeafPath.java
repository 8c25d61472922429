package dev.weft.routing.dag;

import java.util.List;

/**
 * One way down the DAG from a virtual cluster's target to an upstream cluster: the routers passed
 * (outermost first) and the route index taken in each. A cluster reached along two paths (a diamond,
 * or two routes of one router to the same cluster) is two leaves: each gets its own node ids.
 *
 * @param cluster the upstream cluster at the end of the path
 * @param routers the routers passed, outermost first; empty when the virtual cluster targets a cluster
 * @param routeIndices the route taken in each of {@code routers}, same order
 * @param routeNames the names of those routes, same order
 */
public record LeafPath(String cluster, List<String> routers, List<Integer> routeIndices, List<String> routeNames) {
    public LeafPath {
        routers = List.copyOf(routers);
        routeIndices = List.copyOf(routeIndices);
        routeNames = List.copyOf(routeNames);
    }

    /** For messages: {@code weave.us -> inner.a -> cluster 'us-east'}. */
    public String describe() {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < routers.size(); i++) {
            sb.append(routers.get(i)).append('.').append(routeNames.get(i)).append(" -> ");
        }
        return sb.append("cluster '").append(cluster).append('\'').toString();
    }
}
