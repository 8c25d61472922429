package dev.weft.routing;

import java.util.Objects;
import org.apache.kafka.common.Uuid;

/**
 * A run of a partition-woven topic's partitions (DESIGN §1, partition weaving): virtual partitions
 * {@code firstVirtual .. firstVirtual + count - 1} are partitions {@code firstReal ..} of real topic
 * {@code realName} behind {@code route}.
 *
 * @param route the route (or, in a flattened DAG, the leaf) the real topic lives behind
 * @param realName the real topic's name there
 * @param realId its id there ({@link Uuid#ZERO_UUID} when not known yet)
 * @param firstVirtual the virtual partition of the run's first partition
 * @param firstReal the real partition of the run's first partition
 * @param count how many partitions the run has, at least 1
 */
public record TopicSegment(int route, String realName, Uuid realId, int firstVirtual, int firstReal, int count) {

    public TopicSegment {
        Objects.requireNonNull(realName, "realName");
        Objects.requireNonNull(realId, "realId");
        if (route < 0 || firstVirtual < 0 || firstReal < 0 || count < 1) {
            throw new IllegalArgumentException("not a segment: route " + route + ", virtual " + firstVirtual
                    + ", real " + firstReal + ", " + count + " partition(s)");
        }
    }

    /** The real partition of virtual partition {@code virtualPartition} (which must be in this run). */
    public int toReal(int virtualPartition) {
        return virtualPartition - firstVirtual + firstReal;
    }

    /** The virtual partition of real partition {@code realPartition}, or -1 when the run does not take it. */
    public int toVirtual(int realPartition) {
        int offset = realPartition - firstReal;
        return offset >= 0 && offset < count ? firstVirtual + offset : -1;
    }

    public boolean holdsVirtual(int virtualPartition) {
        int offset = virtualPartition - firstVirtual;
        return offset >= 0 && offset < count;
    }

    /** The last real partition the run takes. */
    public int lastReal() {
        return firstReal + count - 1;
    }

    /** The same run on another route (a flattened DAG's leaf) under another real name and id. */
    public TopicSegment at(int route, String realName, Uuid realId) {
        return new TopicSegment(route, realName, realId, firstVirtual, firstReal, count);
    }
}
