package dev.weft.routing.partitionweave;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The settings of a partition-weave router: its logical topics by name, in config order (the order they
 * are listed to clients).
 */
public record PartitionWeaveSettings(Map<String, LogicalTopic> topics) {

    public PartitionWeaveSettings {
        // Map.copyOf would lose the config order
        topics = Collections.unmodifiableMap(new LinkedHashMap<>(topics));
    }

    /** The logical topic of this name, or null. */
    public LogicalTopic topic(String name) {
        return topics.get(name);
    }
}
