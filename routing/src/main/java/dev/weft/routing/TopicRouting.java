package dev.weft.routing;

import dev.weft.routing.dag.RoutingProblem;
import java.util.List;
import org.apache.kafka.common.Uuid;

/**
 * An immutable snapshot of a router's topic view: which topics are visible, under which names and ids,
 * and where each really lives. Lookups are hash-map gets built once per snapshot: no regex, no
 * allocation (beyond what {@code Map.get} with a String key does).
 */
public interface TopicRouting extends PlacementRouting {

    /** Every visible topic, ordered by virtual name. */
    List<VisibleTopic> visibleTopics();

    /** The topic a client means by {@code virtualName}, or null when no such topic is visible. */
    VisibleTopic resolve(String virtualName);

    /** The name clients see for real topic {@code realName} behind {@code route}, or null when it is hidden. */
    String virtualNameOf(int route, String realName);

    /** The topic with this virtual id, or null. */
    VisibleTopic byVirtualId(long mostSignificantBits, long leastSignificantBits);

    /** The visible topic with this real id behind {@code route}, or null when hidden or unknown. */
    VisibleTopic byRealId(int route, long mostSignificantBits, long leastSignificantBits);

    /**
     * The partition-woven topic one of whose segments is real topic {@code realName} behind {@code route},
     * or null ({@link #virtualNameOf} never names a woven topic: its answers need renumbering, not renaming).
     */
    default VisibleTopic wovenOf(int route, String realName) {
        return null;
    }

    /**
     * How many partitions {@code topic} has, as this snapshot was built from (a woven topic: what its
     * segments say), or -1 when not known (topic lists without partition counts).
     */
    default int partitionCountOf(VisibleTopic topic) {
        return topic.woven() ? topic.segments().partitionCount() : -1;
    }

    /**
     * What is wrong with the woven topics in this snapshot (a segment naming a topic or partitions its
     * route does not show), one line each: at startup any of them refuses the virtual cluster; later,
     * each new one is logged and counted once.
     */
    default List<String> segmentProblems() {
        return List.of();
    }

    /**
     * Whether clients are served by {@code route} in this snapshot. False for a switch's candidates other
     * than the active one: their brokers, topics and groups stay out of what clients see, so requests that
     * go to every route (Metadata, DescribeCluster, listings of all topics or groups) skip them.
     */
    default boolean routeServes(int route) {
        return true;
    }

    /**
     * Whether Produce to partitions behind {@code route} is refused for now, retriably
     * (NOT_LEADER_OR_FOLLOWER: the client refreshes its metadata and retries), and transactions homed there
     * may not commit: a switch fences its active route while the cutover waits for replication.
     */
    default boolean produceFenced(int route) {
        return false;
    }

    default VisibleTopic byVirtualId(Uuid id) {
        return byVirtualId(id.getMostSignificantBits(), id.getLeastSignificantBits());
    }

    default VisibleTopic byRealId(int route, Uuid id) {
        return byRealId(route, id.getMostSignificantBits(), id.getLeastSignificantBits());
    }

    /** Every name collision found when this snapshot was built, in virtual-name order. */
    List<TopicCollision> collisions();

    /**
     * The collisions that are errors ({@link TopicCollision.Outcome#isError()}), as problems under
     * {@code path}: at startup any of them refuses the virtual cluster.
     */
    default List<RoutingProblem> startupProblems(String path) {
        List<RoutingProblem> out = new java.util.ArrayList<>();
        collisions().stream().filter(c -> c.outcome().isError()).forEach(c -> out.add(new RoutingProblem(path, c.describe())));
        segmentProblems().forEach(p -> out.add(new RoutingProblem(path, p)));
        return out;
    }

    /** The collisions in this snapshot that {@code previous} did not have: log and count each once. */
    default List<TopicCollision> newCollisionsSince(TopicRouting previous) {
        if (previous == null) {
            return collisions();
        }
        return collisions().stream().filter(c -> !previous.collisions().contains(c)).toList();
    }
}
