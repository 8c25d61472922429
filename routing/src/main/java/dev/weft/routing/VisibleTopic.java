package dev.weft.routing;

import org.apache.kafka.common.Uuid;

/**
 * One topic a client can see through a router: its virtual name and id, and where it really lives.
 *
 * <p>A plain topic lives whole behind one route ({@code segments} null): every partition under its own
 * number. A partition-woven topic ({@link #woven()}) is made of {@link TopicSegments}, runs of partitions
 * of real topics behind one or more routes; it has no single route or real name ({@code route} is -1,
 * {@code realName} and {@code realId} its first segment's, for messages only), so whoever routes by
 * topic asks {@link #woven()} first and routes a woven topic partition by partition.
 *
 * @param virtualName the name clients use
 * @param route the route index it lives behind; -1 for a woven topic
 * @param realName its name behind that route
 * @param virtualId the id clients see (the real id unless another visible topic has the same real id;
 *     a woven topic's is synthetic, derived from the virtual cluster and its name)
 * @param realId its id behind the route ({@link Uuid#ZERO_UUID} when unknown)
 * @param segments a woven topic's segments, else null
 */
public record VisibleTopic(String virtualName, int route, String realName, Uuid virtualId, Uuid realId,
        TopicSegments segments) {

    /** A plain topic: whole behind {@code route}. */
    public VisibleTopic(String virtualName, int route, String realName, Uuid virtualId, Uuid realId) {
        this(virtualName, route, realName, virtualId, realId, null);
    }

    /** A partition-woven topic. */
    public static VisibleTopic woven(String virtualName, Uuid virtualId, TopicSegments segments) {
        TopicSegment first = segments.get(0);
        return new VisibleTopic(virtualName, -1, first.realName(), virtualId, first.realId(), segments);
    }

    /** Whether the topic is partition-woven: routed partition by partition through its {@link #segments}. */
    public boolean woven() {
        return segments != null;
    }
}
