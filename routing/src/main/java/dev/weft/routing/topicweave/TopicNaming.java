package dev.weft.routing.topicweave;

import java.util.Map;

/**
 * How a route's visible topics are named for clients: a topic listed in {@code renames} (real → virtual)
 * gets its explicit name; every other topic gets {@code prefix} + its real name ({@code ""}: identity).
 * The rule is inverted for CreateTopics and everywhere a client names a topic.
 */
public record TopicNaming(String prefix, Map<String, String> renames) {

    public static final TopicNaming IDENTITY = new TopicNaming("", Map.of());

    public TopicNaming {
        prefix = prefix == null ? "" : prefix;
        renames = Map.copyOf(renames);
    }

    public static TopicNaming prefix(String prefix) {
        return new TopicNaming(prefix, Map.of());
    }

    public static TopicNaming renames(Map<String, String> realToVirtual) {
        return new TopicNaming("", realToVirtual);
    }
}
