package dev.weft.routing;

import java.util.Objects;
import org.apache.kafka.common.Uuid;

/**
 * A topic as one route shows it: its name there, its topic id ({@link Uuid#ZERO_UUID} when unknown,
 * e.g. learned from an old Metadata version) and its partition count (-1 when the listing did not count
 * them: only routers that {@link Router#countsPartitions() count partitions} get counts).
 */
public record RealTopic(String name, Uuid id, int partitionCount) {
    public RealTopic {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(id, "id");
    }

    public RealTopic(String name, Uuid id) {
        this(name, id, -1);
    }

    public static RealTopic of(String name) {
        return new RealTopic(name, Uuid.ZERO_UUID);
    }
}
