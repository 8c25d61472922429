package dev.weft.proxy.switching;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsSpec;
import org.apache.kafka.clients.admin.ListGroupsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Translates the offsets consumer groups have committed on the source <em>now</em> into offsets on the
 * target, with MirrorMaker 2's offset syncs read by Weft itself. It completes MM2's checkpoints, which
 * lag a group's commits by {@code emit.checkpoints.interval.seconds} and are missing altogether for a
 * group MM2 has not discovered or cannot translate yet (its checkpoint task keeps a sparse, in-memory
 * history of syncs that starts over whenever the task restarts, as it does when a new group appears).
 *
 * <p>The rule is MM2's: for a committed offset {@code O}, the newest sync with upstream offset
 * {@code u <= O} gives the target offset {@code d} when {@code O == u}, else {@code d + 1}. It never runs
 * ahead of what the group consumed (records after a sync are copied after it, in order), so a resumed
 * group may re-read records but skips none. After the catch-up the last record of every partition has a
 * sync, so a group that had read everything resumes exactly at the target's end. A partition with no
 * sync at or below {@code O} (the syncs were compacted, or the group's offset predates replication)
 * starts at the target's earliest offset: everything again rather than anything missed.
 *
 * <p>Needs a readable source (it is skipped in a forced cutover). Cold path, blocking.
 */
final class OffsetSyncTranslation {

    private static final Logger LOG = LoggerFactory.getLogger(OffsetSyncTranslation.class);
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(15);

    private final Map<String, Object> sourceClient;
    private final Map<String, Object> syncsClient;
    private final String syncsCluster;
    private final String syncsTopic;
    private final Map<String, Object> targetClient;

    OffsetSyncTranslation(ReplicationCatchUp replication) {
        this.sourceClient = replication.sourceClient();
        this.syncsClient = replication.syncsClient();
        this.syncsCluster = replication.syncsAlias();
        this.syncsTopic = replication.offsetSyncsTopic();
        this.targetClient = replication.targetClient();
    }

    /**
     * Group -> target partition -> offset, for every group with offsets committed on the source for
     * {@code topics} (identity replication: the same names on the target).
     */
    Map<String, Map<TopicPartition, Long>> translate(Set<String> topics) throws InterruptedException, GroupOffsetTranslation.MirrorTranslationException {
        Map<String, Map<TopicPartition, Long>> committed = committedOnSource(topics);
        Map<String, Map<TopicPartition, MirrorOffsetSync>> best = new HashMap<>();
        Map<TopicPartition, Map<String, Long>> wanted = new HashMap<>();
        committed.forEach((group, offsets) -> offsets.forEach((tp, offset) ->
                wanted.computeIfAbsent(tp, p -> new HashMap<>()).put(group, offset)));
        if (!wanted.isEmpty()) {
            try (MirrorTopicReader syncs = new MirrorTopicReader(syncsClient, syncsCluster, syncsTopic, "weft-offset-sync-translation")) {
                syncs.readToEnd(CALL_TIMEOUT, record -> {
                    MirrorOffsetSync sync;
                    try {
                        sync = MirrorOffsetSync.parse(record);
                    } catch (IllegalArgumentException e) {
                        return; // the catch-up phase has logged it
                    }
                    Map<String, Long> groups = wanted.get(sync.partition());
                    if (groups != null) {
                        groups.forEach((group, offset) -> keepBest(best, group, sync, offset));
                    }
                });
            } catch (MirrorTopicReader.MirrorReadTimeoutException | org.apache.kafka.common.errors.TimeoutException e) {
                throw new GroupOffsetTranslation.MirrorTranslationException(e.getMessage(), e);
            }
        }
        Map<TopicPartition, Long> earliest = new HashMap<>();
        Map<String, Map<TopicPartition, Long>> translated = new TreeMap<>();
        for (var group : committed.entrySet()) {
            Map<TopicPartition, Long> target = new HashMap<>();
            for (var entry : group.getValue().entrySet()) {
                MirrorOffsetSync sync = best.getOrDefault(group.getKey(), Map.of()).get(entry.getKey());
                if (sync != null) {
                    target.put(entry.getKey(), entry.getValue() == sync.upstreamOffset() ? sync.downstreamOffset() : sync.downstreamOffset() + 1);
                } else {
                    long start = earliest.computeIfAbsent(entry.getKey(), this::earliestOnTarget);
                    LOG.warn("No MirrorMaker 2 offset sync at or below offset {} of {} for group {}: it starts at the target's"
                            + " earliest offset {} (records again rather than records missed)", entry.getValue(), entry.getKey(),
                            group.getKey(), start);
                    target.put(entry.getKey(), start);
                }
            }
            translated.put(group.getKey(), target);
        }
        return translated;
    }

    /** The newest sync at or below the group's offset wins; a later one at a lower upstream offset follows a truncation. */
    private static void keepBest(Map<String, Map<TopicPartition, MirrorOffsetSync>> best, String group, MirrorOffsetSync sync, long offset) {
        if (sync.upstreamOffset() <= offset) {
            best.computeIfAbsent(group, g -> new HashMap<>()).put(sync.partition(), sync);
        }
    }

    private Map<String, Map<TopicPartition, Long>> committedOnSource(Set<String> topics) throws InterruptedException, GroupOffsetTranslation.MirrorTranslationException {
        try (Admin admin = Admin.create(withClientId(sourceClient))) {
            Map<String, ListConsumerGroupOffsetsSpec> groups = new HashMap<>();
            for (GroupListing listing : admin.listGroups(ListGroupsOptions.forConsumerGroups()).all()
                    .get(CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                groups.put(listing.groupId(), new ListConsumerGroupOffsetsSpec());
            }
            Map<String, Map<TopicPartition, Long>> committed = new TreeMap<>();
            if (groups.isEmpty()) {
                return committed;
            }
            Map<String, Map<TopicPartition, OffsetAndMetadata>> all = admin.listConsumerGroupOffsets(groups).all()
                    .get(CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            all.forEach((group, offsets) -> {
                Map<TopicPartition, Long> ofTopics = new HashMap<>();
                offsets.forEach((tp, offset) -> {
                    if (offset != null && topics.contains(tp.topic())) {
                        ofTopics.put(tp, offset.offset());
                    }
                });
                if (!ofTopics.isEmpty()) {
                    committed.put(group, ofTopics);
                }
            });
            return committed;
        } catch (ExecutionException | TimeoutException e) {
            throw new GroupOffsetTranslation.MirrorTranslationException("cannot read the consumer groups' offsets on the source: " + e, e);
        }
    }

    private long earliestOnTarget(TopicPartition tp) {
        try (Admin admin = Admin.create(withClientId(targetClient))) {
            return admin.listOffsets(Map.of(tp, OffsetSpec.earliest())).partitionResult(tp)
                    .get(CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS).offset();
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot read the earliest offset of " + tp + " on the target: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading the earliest offset of " + tp + " on the target", e);
        }
    }

    private static Map<String, Object> withClientId(Map<String, Object> client) {
        Map<String, Object> config = new HashMap<>(client);
        config.put(AdminClientConfig.CLIENT_ID_CONFIG, "weft-offset-sync-translation");
        return config;
    }
}
