package dev.weft.testkit.mirror;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * What a {@link MirrorMaker} replicates and how, rendered as the {@code mm2.properties} of Kafka's
 * dedicated MirrorMaker 2. Build one with {@link MirrorMaker#builder()}.
 *
 * <p>Fixed choices, because Weft's connection switching relies on them: one direction only
 * ({@code source->target}), {@code IdentityReplicationPolicy} (a topic keeps its name on the target),
 * offset syncs and checkpoints on, and {@code sync.group.offsets.enabled=false}: Weft commits translated
 * offsets itself, at cutover, instead of MM2 moving groups under running consumers.
 */
record MirrorMakerSettings(
    String sourceAlias,
    String sourceBootstrap,
    String targetAlias,
    String targetBootstrap,
    String topicsRegex,
    String groupsRegex,
    int replicationFactor,
    long offsetLagMax,
    Duration emitCheckpointsInterval,
    Duration refreshInterval,
    Duration offsetFlushInterval,
    Map<String, String> extraProperties,
    String heap,
    Duration startTimeout) {

    static final String IDENTITY_POLICY = "org.apache.kafka.connect.mirror.IdentityReplicationPolicy";

    MirrorMakerSettings {
        Objects.requireNonNull(sourceAlias, "source alias");
        Objects.requireNonNull(sourceBootstrap, "source bootstrap servers");
        Objects.requireNonNull(targetAlias, "target alias");
        Objects.requireNonNull(targetBootstrap, "target bootstrap servers");
        if (sourceAlias.equals(targetAlias)) {
            throw new IllegalArgumentException("source and target need different aliases, both are " + sourceAlias);
        }
        if (replicationFactor < 1) {
            throw new IllegalArgumentException("replication factor must be at least 1: " + replicationFactor);
        }
        extraProperties = Map.copyOf(extraProperties);
    }

    /** The properties file's entries, in a readable order; {@link #extraProperties} override the rest. */
    Map<String, String> properties() {
        String flow = sourceAlias + "->" + targetAlias;
        String reverse = targetAlias + "->" + sourceAlias;
        Map<String, String> p = new LinkedHashMap<>();
        p.put("clusters", sourceAlias + ", " + targetAlias);
        p.put(sourceAlias + ".bootstrap.servers", sourceBootstrap);
        p.put(targetAlias + ".bootstrap.servers", targetBootstrap);
        p.put(flow + ".enabled", "true");
        p.put(reverse + ".enabled", "false");
        p.put(flow + ".topics", topicsRegex);
        p.put("groups", groupsRegex);
        p.put("replication.policy.class", IDENTITY_POLICY);
        p.put("tasks.max", "1");

        p.put("emit.offset-syncs.enabled", "true");
        p.put("offset.lag.max", Long.toString(offsetLagMax));
        p.put("emit.checkpoints.enabled", "true");
        p.put("emit.checkpoints.interval.seconds", Long.toString(emitCheckpointsInterval.toSeconds()));
        p.put("sync.group.offsets.enabled", "false");
        p.put("emit.heartbeats.enabled", "true");
        p.put("emit.heartbeats.interval.seconds", Long.toString(refreshInterval.toSeconds()));
        p.put("refresh.topics.interval.seconds", Long.toString(refreshInterval.toSeconds()));
        p.put("refresh.groups.interval.seconds", Long.toString(refreshInterval.toSeconds()));
        // Test brokers run without an authorizer: describing ACLs would only log errors.
        p.put("sync.topic.acls.enabled", "false");
        // The worker commits source offsets this often, and that commit also publishes the offset syncs
        // held back since the last one (OffsetSyncWriter's delayed syncs): it bounds how stale the last
        // sync of a quiet partition can be. MM2 takes worker settings from the target cluster's prefix
        // (MirrorMakerConfig.workerConfig), not from the top level.
        p.put(targetAlias + ".offset.flush.interval.ms", Long.toString(offsetFlushInterval.toMillis()));
        // Every plugin MM2 needs has a ServiceLoader manifest; skipping the reflective scan saves seconds.
        // Read at the top level by MirrorMakerConfig's own plugin scan and, as a worker setting, per
        // cluster by each herder (which reads its target's prefix).
        p.put("plugin.discovery", "service_load");
        p.put(sourceAlias + ".plugin.discovery", "service_load");
        p.put(targetAlias + ".plugin.discovery", "service_load");

        String factor = Integer.toString(replicationFactor);
        p.put("replication.factor", factor);
        p.put("checkpoints.topic.replication.factor", factor);
        p.put("heartbeats.topic.replication.factor", factor);
        p.put("offset-syncs.topic.replication.factor", factor);
        p.put("offset.storage.replication.factor", factor);
        p.put("status.storage.replication.factor", factor);
        p.put("config.storage.replication.factor", factor);
        p.putAll(extraProperties);
        return p;
    }

    /**
     * {@code key = value} lines. Backslashes are doubled, since {@code java.util.Properties} reads them as
     * escapes and a topics regex such as {@code orders\..*} must reach MM2 intact.
     */
    String render() {
        StringBuilder text = new StringBuilder("# Written by Weft testkit's MirrorMaker\n");
        properties().forEach((key, value) -> text.append(key).append(" = ")
            .append(value.replace("\\", "\\\\")).append('\n'));
        return text.toString();
    }
}
