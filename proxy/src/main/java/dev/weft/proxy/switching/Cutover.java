package dev.weft.proxy.switching;

import dev.weft.routing.dag.ClusterTarget;
import dev.weft.routing.switching.SwitchRouter;
import dev.weft.routing.switching.SwitchState;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.mirror.IdentityReplicationPolicy;
import org.apache.kafka.connect.mirror.ReplicationPolicy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One cutover of a switch from its active route to {@code to}, in order: fence, catch up, translate
 * group offsets, re-point. Blocking; runs on the switch's own thread. Until the re-point, the old route
 * stays active: an abort (replication did not catch up in time, a cluster could not be read) unfences it
 * and leaves everything as it was, logged with the reason.
 *
 * <p>Catch-up and translation read MirrorMaker 2's offset syncs and checkpoints
 * ({@link ReplicationCatchUp}, {@link GroupOffsetTranslation}); a forced cutover (automatic failover, or
 * an operator's {@code force}) skips the catch-up, since the old cluster may be unreadable, and so may
 * lose what MM2 had not copied yet.
 */
final class Cutover {

    private static final Logger LOG = LoggerFactory.getLogger(Cutover.class);
    private static final ReplicationPolicy POLICY = new IdentityReplicationPolicy();
    private static final Duration LIST_TIMEOUT = Duration.ofSeconds(15);

    private final SwitchGroup target;
    private final SwitchStore store;
    private final int to;
    private final boolean force;
    private final Function<String, Map<String, Object>> clientConfigOfCluster;
    private final Consumer<String> progress;
    private final Map<CutoverPhase, Duration> phases = new EnumMap<>(CutoverPhase.class);

    /**
     * @param clientConfigOfCluster kafka-clients settings (bootstrap, TLS, SASL) of a cluster by name
     * @param progress told one line per step, for the operator who asked
     */
    Cutover(SwitchGroup target, SwitchStore store, int to, boolean force, Function<String, Map<String, Object>> clientConfigOfCluster,
            Consumer<String> progress) {
        this.target = target;
        this.store = store;
        this.to = to;
        this.force = force;
        this.clientConfigOfCluster = clientConfigOfCluster;
        this.progress = progress;
    }

    CutoverOutcome run() throws InterruptedException {
        SwitchRouter primary = target.primary();
        SwitchState from = primary.state();
        String name = primary.name();
        String fromRoute = primary.routeName(from.active());
        String toRoute = primary.routeName(to);
        String moving = "switch '" + name + "' from '" + fromRoute + "' to '" + toRoute + "'";
        long start = System.nanoTime();
        step(moving + ": fencing produce on '" + fromRoute + "' and draining client connections");
        SwitchState fenced;
        try {
            fenced = store.fence(from, "switch '" + name + "' fences produce on '" + fromRoute + "' for a move to '" + toRoute + "'");
        } catch (SwitchController.RefusedException | RuntimeException e) {
            return new CutoverOutcome(false, moving + " did not start: " + e.getMessage(), phases);
        }
        phases.put(CutoverPhase.FENCE, since(start));
        try {
            ReplicationCatchUp replication = force ? null
                    : ReplicationCatchUp.between(alias(from.active()), clientConfig(from.active()), alias(to), clientConfig(to)).build();
            if (!force) {
                Set<String> topics = aliasedTopics(from.active());
                long t = System.nanoTime();
                step(moving + ": waiting for MirrorMaker 2 to copy " + topics.size() + " topic(s) (at most "
                        + primary.settings().catchUpTimeout().toMillis() + " ms)");
                replication.await(topics, primary.settings().catchUpTimeout());
                phases.put(CutoverPhase.CATCH_UP, since(t));
            }
            long t = System.nanoTime();
            step(moving + ": committing consumer-group offsets on '" + toRoute + "' translated from MirrorMaker 2's checkpoints"
                    + (force ? "" : " and offset syncs"));
            GroupOffsetTranslation.Result groups = translateEveryGroup(replication, from.active(), to);
            phases.put(CutoverPhase.TRANSLATE, since(t));
            groups.refused().forEach((group, why) -> step(moving + ": consumer group '" + group + "' was not moved: " + why));
            int partitions = groups.committed().values().stream().mapToInt(Integer::intValue).sum();
            int ahead = groups.keptAhead().values().stream().mapToInt(Integer::intValue).sum();
            step(moving + ": " + partitions + " partition offset(s) of " + groups.committed().size() + " consumer group(s) committed"
                    + " on '" + toRoute + "'" + (ahead == 0 ? "" : ", " + ahead + " already at or past their checkpoint there"));
        } catch (MirrorLagException | GroupOffsetTranslation.MirrorTranslationException | RuntimeException e) {
            store.unfence(fenced);
            String why = e instanceof RuntimeException ? e.toString() : e.getMessage();
            return new CutoverOutcome(false, moving + " aborted after " + since(start).toMillis() + " ms: " + why
                    + "; '" + fromRoute + "' is unfenced and stays active", phases);
        } catch (InterruptedException e) {
            store.unfence(fenced);
            throw e;
        }
        long t = System.nanoTime();
        step(moving + ": re-pointing and draining client connections");
        store.repoint(fenced, to, "switch '" + name + "' moved from '" + fromRoute + "' to '" + toRoute + "'");
        phases.put(CutoverPhase.REPOINT, since(t));
        return new CutoverOutcome(true, moving + " done in " + since(start).toMillis() + " ms (" + describe(phases) + ")", phases);
    }

    /**
     * Commits the translated offsets on the target: MM2's checkpoints and, unless forced (the source may
     * be unreadable), the offsets every group has committed on the source now, translated through MM2's
     * offset syncs; the higher of the two per partition. A group MM2 has not checkpointed yet is thus
     * moved too, rather than start over on the target from its {@code auto.offset.reset}.
     */
    private GroupOffsetTranslation.Result translateEveryGroup(ReplicationCatchUp replication, int from, int to)
            throws GroupOffsetTranslation.MirrorTranslationException, InterruptedException {
        Map<String, Map<TopicPartition, Long>> fromSyncs =
                force ? Map.of() : new OffsetSyncTranslation(replication).translate(aliasedTopics(from));
        return new GroupOffsetTranslation(alias(from), clientConfig(to)).translate(aliasedTopics(to), fromSyncs);
    }

    private void step(String line) {
        LOG.info(line);
        progress.accept(line);
    }

    /** The topics clients see through {@code route}: the cluster's own, without MM2's and Kafka's internals. */
    private Set<String> aliasedTopics(int route) {
        try (Admin admin = Admin.create(clientConfig(route))) {
            Set<String> names = admin.listTopics(new ListTopicsOptions().listInternal(false)).names()
                    .get(LIST_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            Set<String> aliased = new TreeSet<>();
            for (String n : names) {
                if (!n.startsWith("__") && !POLICY.isInternalTopic(n) && !POLICY.isHeartbeatsTopic(n)) {
                    aliased.add(n);
                }
            }
            return aliased;
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("cannot list the topics of cluster '" + cluster(route) + "': " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while listing the topics of cluster '" + cluster(route) + "'", e);
        }
    }

    private String alias(int route) {
        return target.primary().settings().mirrorAliases().get(route);
    }

    private Map<String, Object> clientConfig(int route) {
        return clientConfigOfCluster.apply(cluster(route));
    }

    private String cluster(int route) {
        if (!(target.primary().routes().get(route).target() instanceof ClusterTarget c)) {
            throw new IllegalStateException("route '" + target.primary().routeName(route) + "' targets a router; a cutover"
                    + " reads replication between clusters, so its candidates must target clusters (or use force)");
        }
        return c.cluster();
    }

    private static Duration since(long startNanos) {
        return Duration.ofNanos(System.nanoTime() - startNanos);
    }

    static String describe(Map<CutoverPhase, Duration> phases) {
        StringBuilder b = new StringBuilder();
        phases.forEach((p, d) -> b.append(b.isEmpty() ? "" : ", ").append(p.label()).append(' ').append(d.toMillis()).append(" ms"));
        return b.toString();
    }
}
