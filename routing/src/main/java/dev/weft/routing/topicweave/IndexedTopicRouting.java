package dev.weft.routing.topicweave;

import dev.weft.routing.TopicRouting;
import dev.weft.routing.VisibleTopic;
import java.util.List;

/**
 * A topic view whose lookups are its {@link VisibleTopicIndex}'s: what every catalog built over a list
 * of visible topics (a topic weave's, a partition weave's, a flattened DAG's) answers the same way.
 */
public interface IndexedTopicRouting extends TopicRouting {

    /** The index of this snapshot's visible topics. */
    VisibleTopicIndex index();

    @Override
    default List<VisibleTopic> visibleTopics() {
        return index().visibleTopics();
    }

    @Override
    default VisibleTopic resolve(String virtualName) {
        return index().resolve(virtualName);
    }

    @Override
    default String virtualNameOf(int route, String realName) {
        return index().virtualNameOf(route, realName);
    }

    @Override
    default VisibleTopic wovenOf(int route, String realName) {
        return index().wovenOf(route, realName);
    }

    @Override
    default VisibleTopic byVirtualId(long mostSignificantBits, long leastSignificantBits) {
        return index().byVirtualId(mostSignificantBits, leastSignificantBits);
    }

    @Override
    default VisibleTopic byRealId(int route, long mostSignificantBits, long leastSignificantBits) {
        return index().byRealId(route, mostSignificantBits, leastSignificantBits);
    }
}
