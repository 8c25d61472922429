package dev.weft.routing.switching;

import dev.weft.routing.Placement;
import dev.weft.routing.TopicCollision;
import dev.weft.routing.VisibleTopic;
import dev.weft.routing.topicweave.IndexedTopicRouting;
import dev.weft.routing.topicweave.VisibleTopicIndex;
import java.util.List;

/**
 * A switch's topic view in one state: the active route's topics under their own names (a topic weave
 * fed that route's topics only), that route alone serving clients, fenced or not, and new topics
 * created there.
 */
final class SwitchCatalog implements IndexedTopicRouting {

    private final IndexedTopicRouting activeTopics;
    private final SwitchState state;
    private final String activeName;

    SwitchCatalog(IndexedTopicRouting activeTopics, SwitchState state, String activeName) {
        this.activeTopics = activeTopics;
        this.state = state;
        this.activeName = activeName;
    }

    @Override
    public VisibleTopicIndex index() {
        return activeTopics.index();
    }

    @Override
    public boolean routeServes(int route) {
        return state.known() && route == state.active();
    }

    @Override
    public boolean produceFenced(int route) {
        return (state.fenced() || !state.known()) && route == state.active();
    }

    @Override
    public int partitionCountOf(VisibleTopic topic) {
        return activeTopics.partitionCountOf(topic);
    }

    @Override
    public List<TopicCollision> collisions() {
        return activeTopics.collisions();
    }

    @Override
    public List<String> segmentProblems() {
        return activeTopics.segmentProblems();
    }

    /** The weave places everything on its first route; a switch creates topics on the active one. */
    @Override
    public Placement place(String virtualName) {
        Placement p = activeTopics.place(virtualName);
        return p instanceof Placement.Placed placed ? new Placement.Placed(state.active(), activeName, placed.realName()) : p;
    }

    @Override
    public String toString() {
        return "SwitchCatalog{active=" + activeName + ", " + state + "}";
    }
}
