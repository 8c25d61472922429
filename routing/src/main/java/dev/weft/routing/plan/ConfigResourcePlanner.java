package dev.weft.routing.plan;

import dev.weft.routing.VisibleTopic;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.Message;

/**
 * The config APIs (DescribeConfigs, AlterConfigs, IncrementalAlterConfigs): entries are config resources,
 * each routed by its type. A topic goes to its owning route under its real name; a broker or broker
 * logger named by a virtual node id goes to that very broker (broker configs are per broker) under its
 * real id; a group goes to its home route. Results match back by (type, name), so a topic and a broker
 * with the same name never mix.
 */
abstract class ConfigResourcePlanner<Q extends ApiMessage, E extends Message, R extends ApiMessage, T extends Message>
        extends TopicListPlanner<Q, E, R, T> {

    private static final byte TOPIC = ConfigResource.Type.TOPIC.id();
    private static final byte BROKER = ConfigResource.Type.BROKER.id();
    private static final byte BROKER_LOGGER = ConfigResource.Type.BROKER_LOGGER.id();
    private static final byte GROUP = ConfigResource.Type.GROUP.id();
    private static final byte CLIENT_METRICS = ConfigResource.Type.CLIENT_METRICS.id();

    /** True for the APIs that change configs (cluster-wide broker defaults are refused there). */
    private final boolean alters;

    ConfigResourcePlanner(boolean alters) {
        super(Addressing.OWNING_ROUTE);
        this.alters = alters;
    }

    abstract byte resourceType(E entry);

    abstract void setResourceName(E entry, String name);

    abstract byte resultType(T result);

    abstract void setResultName(T result, String name);

    private record ResourceKey(byte type, String name) {
    }

    @Override
    final Object key(E realEntry) {
        return new ResourceKey(resourceType(realEntry), name(realEntry));
    }

    @Override
    final List<Object> resultKeys(T result) {
        return List.of(new ResourceKey(resultType(result), resultName(result)));
    }

    @Override
    final void toReal(E entry, Located.Owner owner, PlanContext ctx) {
        setResourceName(entry, owner.realName());
    }

    @Override
    final void toVirtual(T result, int route, String virtualName, Uuid virtualId, PlanContext ctx) {
        setResultName(result, virtualName);
    }

    @Override
    final Located locate(E entry, PlanContext ctx) {
        byte type = resourceType(entry);
        String name = name(entry);
        if (type == TOPIC) {
            VisibleTopic topic = ctx.topics().resolve(name);
            if (topic != null && topic.woven()) {
                return wovenTopic(topic, ctx);
            }
            return topic == null ? Located.unknownTopic() : owner(topic, ctx);
        }
        if (type == BROKER || type == BROKER_LOGGER) {
            return broker(name, ctx);
        }
        if (type == GROUP) {
            return new Located.Owner(ctx.groups().homeRoute(name), Destination.ANY, name, Uuid.ZERO_UUID, name,
                    Uuid.ZERO_UUID);
        }
        if (type == CLIENT_METRICS) {
            return new Located.Refused(Errors.INVALID_REQUEST, "client metrics subscriptions are per physical "
                    + "cluster and cannot be managed through virtual cluster '" + ctx.virtualClusterName()
                    + "'; manage them on each cluster", true);
        }
        return new Located.Refused(Errors.INVALID_REQUEST, "config resource type " + type
                + " is not supported by virtual cluster '" + ctx.virtualClusterName() + "'", true);
    }

    /**
     * A partition-woven topic whole (reads are split per physical topic, {@link DescribeConfigsPlanner}):
     * changing its configs is refused, since it could not be done on every segment's topic at once; each
     * physical topic is configured on its cluster.
     */
    private Located wovenTopic(VisibleTopic topic, PlanContext ctx) {
        if (alters) {
            return new Located.Refused(Errors.POLICY_VIOLATION, "topic '" + topic.virtualName() + "' is partition-woven"
                    + " over physical topics " + topic.segments().list().stream().map(s -> "'" + s.realName() + "' on route '"
                            + ctx.routeName(s.route()) + "'").distinct().toList()
                    + "; change the configs of each physical topic on its cluster", true);
        }
        var first = topic.segments().get(0);
        return owner(first.route(), first.realName(), first.realId(), topic, ctx);
    }

    /** A broker (or its loggers) by virtual node id; the empty name means the cluster-wide defaults. */
    private Located broker(String name, PlanContext ctx) {
        if (name.isEmpty()) {
            if (alters) {
                return new Located.Refused(Errors.INVALID_REQUEST, "cluster-wide broker defaults differ per "
                        + "cluster; set them on each cluster behind virtual cluster '" + ctx.virtualClusterName()
                        + "'", true);
            }
            // Reading them is harmless: the first route's defaults stand for the virtual cluster's.
            return new Located.Owner(0, Destination.ANY, "", Uuid.ZERO_UUID, "", Uuid.ZERO_UUID);
        }
        int virtualId;
        try {
            virtualId = Integer.parseInt(name);
        } catch (NumberFormatException e) {
            virtualId = -1;
        }
        int route = virtualId < 0 ? -1 : ctx.routeOfVirtualNodeId(virtualId);
        if (route < 0 || route >= ctx.routeCount()) {
            return new Located.Refused(Errors.INVALID_REQUEST, "'" + name + "' is not a broker id of virtual "
                    + "cluster '" + ctx.virtualClusterName() + "'", false);
        }
        int realId = ctx.realNodeId(virtualId);
        return new Located.Owner(route, new Destination.Broker(realId), Integer.toString(realId), Uuid.ZERO_UUID,
                name, Uuid.ZERO_UUID);
    }
}
