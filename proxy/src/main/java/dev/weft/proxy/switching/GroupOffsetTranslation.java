package dev.weft.proxy.switching;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsSpec;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.connect.mirror.Checkpoint;
import org.apache.kafka.connect.mirror.IdentityReplicationPolicy;
import org.apache.kafka.connect.mirror.ReplicationPolicy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The cutover's second replication phase: commits, on the target, the consumer-group offsets that
 * MirrorMaker 2 translated from the source (its checkpoints), so that groups moved to the target
 * resume where they were on the source. MM2 itself runs with {@code sync.group.offsets.enabled=false};
 * Weft commits once, at cutover, when the groups' clients are held back.
 *
 * <p>Rules:
 * <ul>
 *   <li>The checkpoints are those of {@code <source alias>.checkpoints.internal} on the target (the
 *       replication policy's name), the newest per (group, partition). Their partitions are target
 *       topic-partitions; only those of the given topics are committed, and only groups with
 *       checkpoints are touched.</li>
 *   <li>A checkpoint's downstream offset never runs ahead of what the group consumed on the source: MM2
 *       translates an upstream offset to one past the newest sync at or below it, so a resumed group may
 *       re-read records (at most those after that sync) but never skips one.</li>
 *   <li>A committed offset on the target is never moved backwards: where the group's offset there is
 *       already at or past the checkpoint, it is kept (counted as {@link Result#keptAhead()}).</li>
 *   <li>A group with members on the target (any state but Empty or Dead) is refused and reported in
 *       {@link Result#refused()}, not committed: Kafka would reject the commit, and moving a live group's
 *       offsets under it would make it skip or repeat records. Run translation again once it is empty.</li>
 * </ul>
 * Cold path, blocking.
 */
public final class GroupOffsetTranslation {

    private static final Logger LOG = LoggerFactory.getLogger(GroupOffsetTranslation.class);
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(30);

    private final String sourceAlias;
    private final Map<String, Object> targetClient;
    private final String checkpointsTopic;

    /**
     * @param sourceAlias  MM2's alias of the source cluster (names the checkpoints topic)
     * @param targetClient client settings of the target cluster (bootstrap, TLS, SASL...), passed through
     */
    public GroupOffsetTranslation(String sourceAlias, Map<String, Object> targetClient) {
        this(sourceAlias, targetClient, new IdentityReplicationPolicy());
    }

    /** @param policy MM2's {@code replication.policy.class}, which names the checkpoints topic */
    public GroupOffsetTranslation(String sourceAlias, Map<String, Object> targetClient, ReplicationPolicy policy) {
        this.sourceAlias = Objects.requireNonNull(sourceAlias, "source alias");
        this.targetClient = Map.copyOf(targetClient);
        this.checkpointsTopic = policy.checkpointsTopic(sourceAlias);
    }

    public String checkpointsTopic() {
        return checkpointsTopic;
    }

    /**
     * Commits the newest checkpoints of every group for {@code targetTopics} on the target.
     *
     * @param targetTopics topic names on the target (with identity replication, the source's)
     * @throws MirrorTranslationException if the checkpoints cannot be read or the target cannot be reached
     */
    public Result translate(Set<String> targetTopics) throws MirrorTranslationException, InterruptedException {
        return translate(targetTopics, Map.of());
    }

    /**
     * Like {@link #translate(Set)}, taking for each (group, partition) the higher of the checkpoint and
     * {@code fromSyncs} (offsets on the target Weft translated itself from the groups' current offsets on
     * the source, {@link OffsetSyncTranslation}): both never run ahead of what the group consumed, so the
     * higher one re-reads less. A group in {@code fromSyncs} without any checkpoint is committed too.
     */
    Result translate(Set<String> targetTopics, Map<String, Map<TopicPartition, Long>> fromSyncs)
            throws MirrorTranslationException, InterruptedException {
        Map<String, Map<TopicPartition, OffsetAndMetadata>> candidates = new TreeMap<>();
        newestCheckpoints(targetTopics).forEach((group, byPartition) -> byPartition.forEach((tp, checkpoint) ->
            candidates.computeIfAbsent(group, g -> new HashMap<>()).put(tp, checkpoint.offsetAndMetadata())));
        fromSyncs.forEach((group, byPartition) -> byPartition.forEach((tp, offset) -> {
            if (targetTopics.contains(tp.topic())) {
                candidates.computeIfAbsent(group, g -> new HashMap<>())
                    .merge(tp, new OffsetAndMetadata(offset), (a, b) -> a.offset() >= b.offset() ? a : b);
            }
        }));
        Map<String, Object> adminConfig = new HashMap<>(targetClient);
        adminConfig.put(AdminClientConfig.CLIENT_ID_CONFIG, "weft-group-offset-translation");
        Map<String, Integer> committed = new TreeMap<>();
        Map<String, Integer> keptAhead = new TreeMap<>();
        Map<String, String> refused = new TreeMap<>();
        try (Admin admin = Admin.create(adminConfig)) {
            for (var entry : candidates.entrySet()) {
                String group = entry.getKey();
                String busy = membersOnTarget(admin, group);
                if (busy != null) {
                    refused.put(group, busy);
                    LOG.warn("Not committing translated offsets of group {} on the target: {}", group, busy);
                    continue;
                }
                Map<TopicPartition, OffsetAndMetadata> current = committedOnTarget(admin, group);
                Map<TopicPartition, OffsetAndMetadata> toCommit = new HashMap<>();
                int ahead = 0;
                for (var candidate : entry.getValue().entrySet()) {
                    OffsetAndMetadata existing = current.get(candidate.getKey());
                    if (existing != null && existing.offset() >= candidate.getValue().offset()) {
                        ahead++;
                    } else {
                        toCommit.put(candidate.getKey(), candidate.getValue());
                    }
                }
                keptAhead.put(group, ahead);
                if (toCommit.isEmpty()) {
                    committed.put(group, 0);
                    continue;
                }
                try {
                    admin.alterConsumerGroupOffsets(group, toCommit).all()
                        .get(CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
                    committed.put(group, toCommit.size());
                    LOG.info("Committed translated offsets of group {} on the target for {} partitions ({} kept, already ahead)",
                        group, toCommit.size(), ahead);
                } catch (ExecutionException e) {
                    // Typically a member joined since the check: the broker refuses commits to a live group.
                    String reason = "the target refused the commit: " + e.getCause();
                    refused.put(group, reason);
                    LOG.warn("Not committing translated offsets of group {} on the target: {}", group, reason);
                }
            }
        } catch (TimeoutException e) {
            throw new MirrorTranslationException("timed out talking to the target cluster while committing offsets"
                + " translated from " + sourceAlias, e);
        }
        return new Result(committed, keptAhead, refused);
    }

    /** The group's state when it has members on the target, null when it is empty or does not exist. */
    private static String membersOnTarget(Admin admin, String group)
            throws InterruptedException, TimeoutException, MirrorTranslationException {
        ConsumerGroupDescription description;
        try {
            description = admin.describeConsumerGroups(Set.of(group)).describedGroups().get(group)
                .get(CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof GroupIdNotFoundException) {
                return null;
            }
            throw new MirrorTranslationException("cannot describe group " + group + " on the target: " + e.getCause(), e.getCause());
        }
        GroupState state = description.groupState();
        if (state == GroupState.EMPTY || state == GroupState.DEAD) {
            return null;
        }
        return "the group is " + state + " with " + description.members().size() + " members on the target";
    }

    private static Map<TopicPartition, OffsetAndMetadata> committedOnTarget(Admin admin, String group)
            throws InterruptedException, TimeoutException, MirrorTranslationException {
        try {
            Map<TopicPartition, OffsetAndMetadata> offsets = admin
                .listConsumerGroupOffsets(Map.of(group, new ListConsumerGroupOffsetsSpec()))
                .partitionsToOffsetAndMetadata(group).get(CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            Map<TopicPartition, OffsetAndMetadata> present = new HashMap<>();
            offsets.forEach((tp, offset) -> {
                if (offset != null) {
                    present.put(tp, offset);
                }
            });
            return present;
        } catch (ExecutionException e) {
            if (e.getCause() instanceof GroupIdNotFoundException) {
                return Map.of();
            }
            throw new MirrorTranslationException("cannot read group " + group + "'s offsets on the target: " + e.getCause(), e.getCause());
        }
    }

    /** Group -> target partition -> newest checkpoint, for partitions of {@code targetTopics}. */
    private Map<String, Map<TopicPartition, Checkpoint>> newestCheckpoints(Set<String> targetTopics)
            throws MirrorTranslationException {
        Map<String, Map<TopicPartition, Checkpoint>> newest = new TreeMap<>();
        try (MirrorTopicReader reader = new MirrorTopicReader(targetClient, "the target", checkpointsTopic,
                 "weft-group-offset-translation-checkpoints")) {
            boolean exists = reader.readToEnd(CALL_TIMEOUT, record -> keep(record, targetTopics, newest));
            if (!exists) {
                LOG.warn("MM2's checkpoints topic {} does not exist on the target: no group offsets to translate"
                    + " (is MM2 running with emit.checkpoints.enabled=true?)", checkpointsTopic);
            }
        } catch (MirrorTopicReader.MirrorReadTimeoutException | org.apache.kafka.common.errors.TimeoutException e) {
            throw new MirrorTranslationException(e.getMessage(), e);
        }
        return newest;
    }

    private static void keep(ConsumerRecord<byte[], byte[]> record, Set<String> topics,
                             Map<String, Map<TopicPartition, Checkpoint>> newest) {
        Checkpoint checkpoint;
        try {
            checkpoint = Checkpoint.deserializeRecord(record);
        } catch (RuntimeException e) {
            LOG.warn("Skipping record {}-{}@{} of MM2's checkpoints topic: {}", record.topic(), record.partition(),
                record.offset(), e.toString());
            return;
        }
        if (topics.contains(checkpoint.topicPartition().topic())) {
            // A group's checkpoints for one partition share a key, hence a partition of the topic: the
            // one read last is the newest.
            newest.computeIfAbsent(checkpoint.consumerGroupId(), g -> new HashMap<>())
                .put(checkpoint.topicPartition(), checkpoint);
        }
    }

    /**
     * What translation did, per group.
     *
     * @param committed partitions committed per group (0 when every partition was kept)
     * @param keptAhead partitions per group whose offset on the target was already at or past the checkpoint
     * @param refused   groups not committed, with the reason (members on the target, a refused commit)
     */
    public record Result(Map<String, Integer> committed, Map<String, Integer> keptAhead, Map<String, String> refused) {
        public Result {
            committed = Collections.unmodifiableMap(new TreeMap<>(committed));
            keptAhead = Collections.unmodifiableMap(new TreeMap<>(keptAhead));
            refused = Collections.unmodifiableMap(new TreeMap<>(refused));
        }
    }

    /** Translation could not be carried out: checkpoints unreadable or the target unreachable. */
    public static final class MirrorTranslationException extends Exception {
        MirrorTranslationException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
