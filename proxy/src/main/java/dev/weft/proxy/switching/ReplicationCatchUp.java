package dev.weft.proxy.switching;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.connect.mirror.IdentityReplicationPolicy;
import org.apache.kafka.connect.mirror.ReplicationPolicy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * The cutover's first replication phase: waits until MirrorMaker 2 has copied every record that the
 * source held when the wait began, judged from MM2's offset syncs. Cold path, blocking: run it on a
 * thread of its own.
 *
 * <h2>The rule</h2>
 * At the start, for each partition of the given topics, the source's end offset {@code E} and log start
 * offset {@code S} are read, and then the offset of the last <em>record</em> below {@code E}, {@code L}
 * (found by reading back from {@code E}). A partition with no record in {@code [S, E)} needs nothing. A
 * partition is caught up once MM2 has published an offset sync for it whose upstream offset is at least
 * {@code L}. Why this is sound and complete, from how MM2 4.x emits syncs ({@code MirrorSourceTask},
 * {@code OffsetSyncWriter.PartitionState}):
 * <ul>
 *   <li><b>Sound.</b> MM2 queues a sync {@code (upstream, downstream)} in {@code commitRecord}, which runs
 *       when the target acknowledged the copy of record {@code upstream}. MM2 copies a partition in
 *       order, so a sync at {@code u} means every record up to {@code u} is on the target.</li>
 *   <li><b>Complete.</b> A sync is sent at once for a partition's first record in a task's life, when
 *       upstream offsets skip (compaction, transaction markers, aborted records under read_committed),
 *       when the downstream offset runs {@code offset.lag.max} past the last sync, and when the target
 *       was truncated. Every other record's sync is held back (one per partition, the newest replacing
 *       the older) and published at the task's next offset commit, every {@code offset.flush.interval.ms}.
 *       So the last copied record always gets its sync, at most one flush interval after the copy. Syncs
 *       are <em>not</em> guaranteed every {@code offset.lag.max} records: with ten syncs in flight MM2
 *       replaces the pending one, so under load syncs coalesce; only the newest matters here.</li>
 * </ul>
 * The target's end offsets are not used: other writers, a target topic that pre-existed, or records
 * that MM2 wrote but the target has not acknowledged make them a poor witness.
 *
 * <h2>Transaction markers and isolation</h2>
 * End offsets are read with the configured {@link IsolationLevel}, which must match MM2's source
 * consumer ({@code source.consumer.isolation.level}, Kafka's default read_uncommitted). A transaction's
 * commit or abort marker takes an offset but is no record: MM2 never copies it and never syncs its
 * offset, so a partition whose last offset is a marker could never show a sync at {@code E - 1}. That
 * is why the target is {@code L}, the last record below {@code E}, and not {@code E - 1}. Under
 * read_uncommitted, records of aborted and of still-open transactions count (MM2 copies them too);
 * under read_committed {@code E} is the last stable offset and aborted records are skipped, as MM2 skips
 * them.
 *
 * <h2>MM2 settings it needs</h2>
 * {@code emit.offset-syncs.enabled=true} (the default); the syncs topic where this class looks for it
 * ({@code offset-syncs.topic.location}, default source, named by the replication policy:
 * {@code mm2-offset-syncs.<target alias>.internal}); a short {@code <target>.offset.flush.interval.ms}
 * (the worker's, default 60 s), since it is how late the last sync of a burst may be, so the timeout
 * must exceed it. {@code offset.lag.max} does not affect correctness.
 *
 * <h2>Limits</h2>
 * A source topic deleted and re-created under the same name restarts its offsets while old syncs remain
 * in the (compacted) syncs topic, which can make a partition look caught up: not supported during a
 * cutover.
 */
public final class ReplicationCatchUp {

    private static final Logger LOG = LoggerFactory.getLogger(ReplicationCatchUp.class);
    private static final Duration FIRST_PAUSE = Duration.ofMillis(100);
    private static final Duration LONGEST_PAUSE = Duration.ofSeconds(1);
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(15);
    private static final Duration MIN_SYNCS_READ = Duration.ofSeconds(1);

    /** Where MM2 keeps its offset syncs ({@code offset-syncs.topic.location}). */
    public enum OffsetSyncsLocation { SOURCE, TARGET }

    private final String sourceAlias;
    private final Map<String, Object> sourceClient;
    private final String targetAlias;
    private final Map<String, Object> targetClient;
    private final OffsetSyncsLocation syncsLocation;
    private final String syncsTopic;
    private final IsolationLevel isolationLevel;

    private ReplicationCatchUp(Builder builder) {
        this.sourceAlias = builder.sourceAlias;
        this.sourceClient = Map.copyOf(builder.sourceClient);
        this.targetAlias = builder.targetAlias;
        this.targetClient = Map.copyOf(builder.targetClient);
        this.syncsLocation = builder.syncsLocation;
        this.isolationLevel = builder.isolationLevel;
        this.syncsTopic = builder.syncsTopic != null ? builder.syncsTopic
            : builder.policy.offsetSyncsTopic(syncsLocation == OffsetSyncsLocation.SOURCE ? targetAlias : sourceAlias);
    }

    /**
     * @param sourceClient client settings of the source cluster (bootstrap, TLS, SASL...), passed through
     * @param targetClient client settings of the target cluster, passed through
     */
    public static Builder between(String sourceAlias, Map<String, Object> sourceClient,
                                  String targetAlias, Map<String, Object> targetClient) {
        return new Builder(sourceAlias, sourceClient, targetAlias, targetClient);
    }

    /** The offset-syncs topic read, on the cluster {@link #offsetSyncsLocation()} names. */
    public String offsetSyncsTopic() {
        return syncsTopic;
    }

    public OffsetSyncsLocation offsetSyncsLocation() {
        return syncsLocation;
    }

    Map<String, Object> sourceClient() {
        return sourceClient;
    }

    Map<String, Object> targetClient() {
        return targetClient;
    }

    /** Client settings of the cluster holding the offset syncs. */
    Map<String, Object> syncsClient() {
        return syncsLocation == OffsetSyncsLocation.SOURCE ? sourceClient : targetClient;
    }

    /** The alias of the cluster holding the offset syncs, for messages. */
    String syncsAlias() {
        return syncsLocation == OffsetSyncsLocation.SOURCE ? sourceAlias : targetAlias;
    }

    /**
     * Blocks until MM2 has copied every record the source's {@code topics} hold now, or {@code timeout}
     * passed.
     *
     * @param topics source topic names (with identity replication, the same names on the target)
     * @return every partition's progress, all caught up
     * @throws MirrorLagException   when the timeout passes first; it names the partitions behind
     * @throws InterruptedException if the thread is interrupted while waiting
     * @throws IllegalArgumentException if a topic does not exist on the source
     */
    public Progress await(Set<String> topics, Duration timeout) throws MirrorLagException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        String flow = sourceAlias + "->" + targetAlias;
        Map<TopicPartition, Goal> goals = goals(topics, deadline);
        Map<TopicPartition, MirrorOffsetSync> latest = new HashMap<>();
        Map<String, Object> syncsCluster = syncsClient();
        String syncsAlias = syncsAlias();
        Duration pause = FIRST_PAUSE;
        try (MirrorTopicReader syncs = new MirrorTopicReader(syncsCluster, syncsAlias, syncsTopic, "weft-catch-up-syncs")) {
            while (true) {
                String trouble = null;
                try {
                    // At least a second even at the deadline: a read cut shorter would fail for lack of time
                    // and put a misleading "timed out" into the operator's message.
                    Duration budget = max(boundedBy(deadline), MIN_SYNCS_READ);
                    if (!syncs.readToEnd(budget, record -> keepNewest(record, goals.keySet(), latest))) {
                        trouble = "MM2's offset-syncs topic " + syncsTopic + " does not exist on " + syncsAlias
                            + ": is MM2 running for " + flow + " with emit.offset-syncs.enabled=true"
                            + " and offset-syncs.topic.location=" + syncsLocation.name().toLowerCase(Locale.ROOT) + "?";
                    }
                } catch (MirrorTopicReader.MirrorReadTimeoutException | org.apache.kafka.common.errors.TimeoutException e) {
                    trouble = e.getMessage();
                }
                Progress progress = progress(goals, latest);
                if (progress.caughtUp()) {
                    LOG.info("MirrorMaker 2 ({}) has caught up on {} partitions of {}", flow, goals.size(), topics);
                    return progress;
                }
                if (System.nanoTime() - deadline >= 0) {
                    throw new MirrorLagException(flow, timeout, progress, trouble);
                }
                Thread.sleep(min(pause, Duration.ofNanos(Math.max(1, deadline - System.nanoTime()))));
                pause = min(pause.multipliedBy(2), LONGEST_PAUSE);
            }
        }
    }

    private static void keepNewest(ConsumerRecord<byte[], byte[]> record, Set<TopicPartition> wanted,
                                   Map<TopicPartition, MirrorOffsetSync> latest) {
        MirrorOffsetSync sync;
        try {
            sync = MirrorOffsetSync.parse(record);
        } catch (IllegalArgumentException e) {
            LOG.warn("Skipping a record of MM2's offset-syncs topic: {}", e.getMessage());
            return;
        }
        if (wanted.contains(sync.partition())) {
            // Syncs of a partition are written in order to one partition of the syncs topic: the last read
            // is the newest. A newer one can be lower only after a target truncation; it is still the truth.
            latest.put(sync.partition(), sync);
        }
    }

    private static Progress progress(Map<TopicPartition, Goal> goals, Map<TopicPartition, MirrorOffsetSync> latest) {
        Map<TopicPartition, PartitionProgress> partitions = new TreeMap<>(PARTITION_ORDER);
        goals.forEach((tp, goal) -> {
            MirrorOffsetSync sync = latest.get(tp);
            partitions.put(tp, new PartitionProgress(tp, goal.startOffset, goal.endOffset, goal.lastRecordOffset,
                sync == null ? -1 : sync.upstreamOffset(), sync == null ? -1 : sync.downstreamOffset()));
        });
        return new Progress(partitions);
    }

    // ------------------------------------------------------------------------------------------------
    // What must be copied

    /** A partition's target, fixed when the wait starts. {@code lastRecordOffset} is -1 when it holds none. */
    private record Goal(long startOffset, long endOffset, long lastRecordOffset) {
    }

    private Map<TopicPartition, Goal> goals(Set<String> topics, long deadline) throws InterruptedException {
        Map<String, Object> adminConfig = new HashMap<>(sourceClient);
        adminConfig.put(AdminClientConfig.CLIENT_ID_CONFIG, "weft-catch-up-admin");
        Map<TopicPartition, Goal> goals = new TreeMap<>(PARTITION_ORDER);
        try (Admin admin = Admin.create(adminConfig)) {
            List<TopicPartition> partitions = partitions(admin, topics, deadline);
            if (partitions.isEmpty()) {
                return goals;
            }
            ListOffsetsOptions options = new ListOffsetsOptions(isolationLevel);
            var end = admin.listOffsets(partitions.stream().collect(Collectors.toMap(tp -> tp, tp -> OffsetSpec.latest())), options)
                .all().get(boundedBy(deadline).toMillis(), TimeUnit.MILLISECONDS);
            var start = admin.listOffsets(partitions.stream().collect(Collectors.toMap(tp -> tp, tp -> OffsetSpec.earliest())), options)
                .all().get(boundedBy(deadline).toMillis(), TimeUnit.MILLISECONDS);
            try (KafkaConsumer<byte[], byte[]> reader = backwardReader()) {
                for (TopicPartition tp : partitions) {
                    long s = start.get(tp).offset();
                    long e = end.get(tp).offset();
                    goals.put(tp, new Goal(s, e, s >= e ? -1 : lastRecordBelow(reader, tp, s, e, deadline)));
                }
            }
        } catch (ExecutionException e) {
            throw new IllegalStateException("cannot read the end offsets of " + topics + " on " + sourceAlias + ": "
                + e.getCause().getMessage(), e.getCause());
        } catch (java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("timed out reading the end offsets of " + topics + " on " + sourceAlias, e);
        }
        return goals;
    }

    private List<TopicPartition> partitions(Admin admin, Set<String> topics, long deadline)
            throws InterruptedException, ExecutionException, java.util.concurrent.TimeoutException {
        if (topics.isEmpty()) {
            return List.of();
        }
        Map<String, TopicDescription> descriptions;
        try {
            descriptions = admin.describeTopics(topics).allTopicNames().get(boundedBy(deadline).toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof org.apache.kafka.common.errors.UnknownTopicOrPartitionException) {
                throw new IllegalArgumentException("a topic of " + topics + " does not exist on " + sourceAlias
                    + ": " + e.getCause().getMessage(), e.getCause());
            }
            throw e;
        }
        return descriptions.values().stream()
            .flatMap(d -> d.partitions().stream().map(p -> new TopicPartition(d.name(), p.partition())))
            .sorted(PARTITION_ORDER)
            .toList();
    }

    private KafkaConsumer<byte[], byte[]> backwardReader() {
        Map<String, Object> config = new HashMap<>(sourceClient);
        config.remove(ConsumerConfig.GROUP_ID_CONFIG);
        config.remove(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG);
        config.put(ConsumerConfig.CLIENT_ID_CONFIG, "weft-catch-up-last-record");
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolationLevel.toString().toLowerCase(Locale.ROOT));
        config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 500);
        return new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    /**
     * The offset of the last record in {@code [start, end)} as the configured isolation level sees it, or
     * -1 if there is none (only markers, or aborted records under read_committed). Reads windows back
     * from {@code end}, eight times wider each time: a partition ending in a marker costs one small read.
     */
    private long lastRecordBelow(KafkaConsumer<byte[], byte[]> reader, TopicPartition tp, long start, long end,
                                 long deadline) {
        reader.assign(List.of(tp));
        long window = 8;
        while (true) {
            long from = Math.max(start, end - window);
            reader.seek(tp, from);
            long last = -1;
            while (reader.position(tp, boundedBy(deadline)) < end) {
                if (System.nanoTime() - deadline >= 0) {
                    throw new org.apache.kafka.common.errors.TimeoutException(
                        "timed out reading the last records of " + tp + " on " + sourceAlias);
                }
                for (ConsumerRecord<byte[], byte[]> record : reader.poll(Duration.ofMillis(100))) {
                    if (record.offset() < end) {
                        last = Math.max(last, record.offset());
                    }
                }
            }
            if (last >= 0 || from == start) {
                return last;
            }
            window = Math.multiplyExact(window, 8);
        }
    }

    private static Duration boundedBy(long deadline) {
        long left = deadline - System.nanoTime();
        return left <= 0 ? Duration.ofMillis(1) : min(Duration.ofNanos(left), CALL_TIMEOUT);
    }

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    private static final Comparator<TopicPartition> PARTITION_ORDER =
        Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition);

    // ------------------------------------------------------------------------------------------------
    // Results

    /**
     * One partition's replication progress.
     *
     * @param sourceStartOffset        the source's log start offset when the wait began
     * @param sourceEndOffset          the source's end offset when the wait began
     * @param lastRecordOffset         the last record below {@code sourceEndOffset}, -1 if there is none
     * @param replicatedUpstreamOffset upstream offset of MM2's newest sync, -1 if none was seen
     * @param replicatedDownstreamOffset where that record is on the target, -1 if none was seen
     */
    public record PartitionProgress(TopicPartition partition, long sourceStartOffset, long sourceEndOffset,
                                    long lastRecordOffset, long replicatedUpstreamOffset,
                                    long replicatedDownstreamOffset) {

        public boolean caughtUp() {
            return lastRecordOffset < 0 || replicatedUpstreamOffset >= lastRecordOffset;
        }

        /** Offsets still to copy (markers and compacted-away offsets in between count too); 0 when caught up. */
        public long behind() {
            if (caughtUp()) {
                return 0;
            }
            return lastRecordOffset - Math.max(replicatedUpstreamOffset, sourceStartOffset - 1);
        }

        /** For a log line: {@code orders-0 behind by 57 offsets (replicated up to 442, last record 499, ...)}. */
        public String describe() {
            if (lastRecordOffset < 0) {
                return partition + " has no record to copy (source offsets " + sourceStartOffset + ".." + sourceEndOffset + ")";
            }
            String replicated = replicatedUpstreamOffset < 0 ? "no offset sync from MM2 yet"
                : "replicated up to source offset " + replicatedUpstreamOffset + " (target offset " + replicatedDownstreamOffset + ")";
            return partition + (caughtUp() ? " caught up" : " behind by " + behind() + " offsets") + " (" + replicated
                + ", last record at " + lastRecordOffset + ", source end offset " + sourceEndOffset + ")";
        }
    }

    /** Every partition's progress, in topic and partition order. */
    public record Progress(Map<TopicPartition, PartitionProgress> partitions) {

        public Progress {
            Map<TopicPartition, PartitionProgress> sorted = new TreeMap<>(PARTITION_ORDER);
            sorted.putAll(partitions);
            partitions = java.util.Collections.unmodifiableMap(sorted);
        }

        public boolean caughtUp() {
            return partitions.values().stream().allMatch(PartitionProgress::caughtUp);
        }

        /** Partitions behind, each with its offsets still to copy. */
        public Map<TopicPartition, Long> behind() {
            Map<TopicPartition, Long> behind = new TreeMap<>(PARTITION_ORDER);
            behindPartitions().forEach((tp, p) -> behind.put(tp, p.behind()));
            return behind;
        }

        Map<TopicPartition, PartitionProgress> behindPartitions() {
            Map<TopicPartition, PartitionProgress> behind = new TreeMap<>(PARTITION_ORDER);
            partitions.forEach((tp, p) -> {
                if (!p.caughtUp()) {
                    behind.put(tp, p);
                }
            });
            return behind;
        }
    }

    /** Settings of a {@link ReplicationCatchUp}; aliases and client settings are required. */
    public static final class Builder {
        private final String sourceAlias;
        private final Map<String, Object> sourceClient;
        private final String targetAlias;
        private final Map<String, Object> targetClient;
        private OffsetSyncsLocation syncsLocation = OffsetSyncsLocation.SOURCE;
        private String syncsTopic;
        private ReplicationPolicy policy = new IdentityReplicationPolicy();
        private IsolationLevel isolationLevel = IsolationLevel.READ_UNCOMMITTED;

        private Builder(String sourceAlias, Map<String, Object> sourceClient, String targetAlias, Map<String, Object> targetClient) {
            this.sourceAlias = Objects.requireNonNull(sourceAlias, "source alias");
            this.sourceClient = Objects.requireNonNull(sourceClient, "source client settings");
            this.targetAlias = Objects.requireNonNull(targetAlias, "target alias");
            this.targetClient = Objects.requireNonNull(targetClient, "target client settings");
        }

        /** MM2's {@code offset-syncs.topic.location}; default source. */
        public Builder offsetSyncsLocation(OffsetSyncsLocation location) {
            this.syncsLocation = Objects.requireNonNull(location);
            return this;
        }

        /** The offset-syncs topic's name, when not the replication policy's. */
        public Builder offsetSyncsTopic(String topic) {
            this.syncsTopic = topic;
            return this;
        }

        /** MM2's {@code replication.policy.class}, which names the syncs topic; default identity. */
        public Builder replicationPolicy(ReplicationPolicy policy) {
            this.policy = Objects.requireNonNull(policy);
            return this;
        }

        /** Must match MM2's {@code source.consumer.isolation.level}; default read_uncommitted (Kafka's). */
        public Builder isolationLevel(IsolationLevel level) {
            this.isolationLevel = Objects.requireNonNull(level);
            return this;
        }

        public ReplicationCatchUp build() {
            return new ReplicationCatchUp(this);
        }
    }

}
