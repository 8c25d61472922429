package dev.weft.routing.partitionweave;

import java.util.Objects;

/**
 * One piece of a logical topic: the partitions {@code firstPartition..lastPartition} (both included) of
 * the physical topic {@code topic} reached through route {@code route} of the router.
 *
 * @param route the route's index in its router (what node ids, catalogs and plans speak in)
 * @param routeName the route's name, for messages
 * @param topic the physical topic's name as the route shows it (the real name on a cluster, or a
 *     visible name of the router the route leads to)
 * @param firstPartition the first physical partition, 0 or more
 * @param lastPartition the last physical partition, at least {@code firstPartition}
 */
public record Segment(int route, String routeName, String topic, int firstPartition, int lastPartition) {

    public Segment {
        Objects.requireNonNull(routeName, "routeName");
        Objects.requireNonNull(topic, "topic");
        if (route < 0) {
            throw new IllegalArgumentException("route index " + route + " is negative");
        }
        if (topic.isEmpty()) {
            throw new IllegalArgumentException("physical topic name is empty");
        }
        if (firstPartition < 0 || lastPartition < firstPartition) {
            throw new IllegalArgumentException("partitions " + firstPartition + "-" + lastPartition + " are not a range");
        }
        // 0-2147483647 would be 2^31 partitions: more than an int counts, and more than a topic can have
        if (firstPartition == 0 && lastPartition == Integer.MAX_VALUE) {
            throw new IllegalArgumentException("partitions 0-" + Integer.MAX_VALUE + " are more than a topic can have");
        }
    }

    /** How many partitions this segment contributes to its logical topic. */
    public int size() {
        return lastPartition - firstPartition + 1;
    }

    /** Whether physical partition {@code partition} of this segment's topic is in this segment. */
    public boolean contains(int partition) {
        return partition >= firstPartition && partition <= lastPartition;
    }

    /** Whether both segments take partitions of the same physical topic (same route, same name). */
    public boolean samePhysicalTopic(Segment other) {
        return route == other.route && topic.equals(other.topic);
    }

    /** The range as the config writes it: {@code "0-15"}, or {@code "3"} for a single partition. */
    public String range() {
        return range(firstPartition, lastPartition);
    }

    static String range(int first, int last) {
        return first == last ? Integer.toString(first) : first + "-" + last;
    }
}
