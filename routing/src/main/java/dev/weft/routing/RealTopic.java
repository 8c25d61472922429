package dev.weft.routing;

import java.util.Objects;
import org.apache.kafka.common.Uuid;

/**
 * A topic as one route shows it: its name there and its topic id ({@link Uuid#ZERO_UUID} when unknown,
 * e.g. learned from an old Metadata version).
 */
public record RealTopic(String name, Uuid id) {
    public RealTopic {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(id, "id");
    }

    public static RealTopic of(String name) {
        return new RealTopic(name, Uuid.ZERO_UUID);
    }
}
