package dev.weft.routing.topicweave;

import dev.weft.routing.VisibleTopic;
import dev.weft.routing.topology.TopicIdIndex;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.Uuid;

/**
 * The lookups every topic view needs over its visible topics, built once per snapshot: by virtual
 * name, by virtual id, and per route by real name and real id. Id lookups go through {@link TopicIdIndex}
 * (no key object per request). When two topics of a route share a real name or id (inconsistent
 * metadata), the first in {@code visible} order wins. A partition-woven topic is not found by real name
 * or id (it has no one real topic): its segments' real topics are indexed apart ({@link #wovenOf}), so a
 * caller that renames answers by real name cannot take a segment for a whole topic. Immutable.
 */
public final class VisibleTopicIndex {

    private final List<VisibleTopic> visible;
    private final Map<String, VisibleTopic> byVirtualName = new HashMap<>();
    private final TopicIdIndex byVirtualId;
    private final List<Map<String, VisibleTopic>> byRealName = new ArrayList<>();
    private final TopicIdIndex[] byRealId;
    private final List<Map<String, VisibleTopic>> wovenByRealName = new ArrayList<>();

    /** @param routes how many routes the topics' {@link VisibleTopic#route()} index into */
    public VisibleTopicIndex(List<VisibleTopic> visible, int routes) {
        this.visible = List.copyOf(visible);
        this.byVirtualId = new TopicIdIndex(this.visible.size());
        int[] perRoute = new int[routes];
        for (VisibleTopic t : this.visible) {
            if (!t.woven()) {
                perRoute[t.route()]++;
            }
        }
        this.byRealId = new TopicIdIndex[routes];
        for (int k = 0; k < routes; k++) {
            byRealName.add(new HashMap<>());
            wovenByRealName.add(new HashMap<>());
            byRealId[k] = new TopicIdIndex(perRoute[k]);
        }
        for (int i = 0; i < this.visible.size(); i++) {
            VisibleTopic t = this.visible.get(i);
            byVirtualName.putIfAbsent(t.virtualName(), t);
            if (!Uuid.ZERO_UUID.equals(t.virtualId())) {
                byVirtualId.putIfAbsent(t.virtualId().getMostSignificantBits(), t.virtualId().getLeastSignificantBits(), i);
            }
            if (t.woven()) {
                for (var seg : t.segments().list()) {
                    wovenByRealName.get(seg.route()).putIfAbsent(seg.realName(), t);
                }
                continue;
            }
            byRealName.get(t.route()).putIfAbsent(t.realName(), t);
            if (!Uuid.ZERO_UUID.equals(t.realId())) {
                byRealId[t.route()].putIfAbsent(t.realId().getMostSignificantBits(), t.realId().getLeastSignificantBits(), i);
            }
        }
    }

    public List<VisibleTopic> visibleTopics() {
        return visible;
    }

    public VisibleTopic resolve(String virtualName) {
        return byVirtualName.get(virtualName);
    }

    public String virtualNameOf(int route, String realName) {
        VisibleTopic t = byRealName.get(route).get(realName);
        return t == null ? null : t.virtualName();
    }

    public VisibleTopic byVirtualId(long mostSignificantBits, long leastSignificantBits) {
        int i = byVirtualId.get(mostSignificantBits, leastSignificantBits);
        return i < 0 ? null : visible.get(i);
    }

    public VisibleTopic byRealId(int route, long mostSignificantBits, long leastSignificantBits) {
        int i = byRealId[route].get(mostSignificantBits, leastSignificantBits);
        return i < 0 ? null : visible.get(i);
    }

    /** The woven topic one of whose segments is real topic {@code realName} behind {@code route}, or null. */
    public VisibleTopic wovenOf(int route, String realName) {
        return wovenByRealName.get(route).get(realName);
    }
}
