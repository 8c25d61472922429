package dev.weft.proxy.pid;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates the state topic when it is missing and checks it when it exists: one partition (one total
 * order), {@code cleanup.policy=compact} (never {@code delete}: a deleted claim would let a replica
 * started later decide differently), {@code min.compaction.lag.ms} of 7 days (recent history, where the
 * first claim of a key and its confirmation live, is never compacted), replication factor
 * {@code min(3, brokers)} and {@code min.insync.replicas} {@code min(2, RF)}.
 */
final class StateTopic {

    private static final Logger LOG = LoggerFactory.getLogger(StateTopic.class);

    static final long MIN_COMPACTION_LAG_MS = Duration.ofDays(7).toMillis();

    private StateTopic() {
    }

    /** Returns a description of what was done, for the start log line. */
    static String ensure(Admin admin, ProducerIdClaimsConfig config, long deadlineNanos) {
        String topic = config.topic();
        TopicDescription existing = describe(admin, config, deadlineNanos);
        String outcome;
        if (existing == null) {
            int brokers = get(admin.describeCluster().nodes(), config, deadlineNanos,
                    "count the brokers (for the replication factor) to create").size();
            short rf = (short) Math.max(1, Math.min(3, brokers));
            int minIsr = Math.min(2, rf);
            NewTopic t = new NewTopic(topic, 1, rf).configs(Map.of(
                    TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT,
                    TopicConfig.MIN_COMPACTION_LAG_MS_CONFIG, Long.toString(MIN_COMPACTION_LAG_MS),
                    TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG, Integer.toString(minIsr)));
            try {
                get(admin.createTopics(List.of(t)).all(), config, deadlineNanos, "create");
                outcome = "created (1 partition, replication factor " + rf + ", min.insync.replicas " + minIsr
                        + ", compacted, min.compaction.lag.ms " + MIN_COMPACTION_LAG_MS + ")";
            } catch (ProducerIdStateException e) {
                if (!(e.getCause() instanceof TopicExistsException)) {
                    throw e;
                }
                outcome = "created by another replica meanwhile";
            }
            // the broker that answers may learn about the new topic a moment after the controller created it
            while ((existing = describe(admin, config, deadlineNanos)) == null) {
                if (System.nanoTime() - deadlineNanos > 0) {
                    throw new ProducerIdStateException("producer-id state " + config.where()
                            + ": created, but the cluster still does not describe it at the end of the start timeout ("
                            + config.startTimeout().toMillis() + " ms)");
                }
                pause();
            }
        } else {
            outcome = "exists";
        }
        if (existing.partitions().size() > 1) {
            LOG.warn("producer-id state {}: has {} partitions; only partition 0 is used (one total order)",
                    config.where(), existing.partitions().size());
        }
        checkConfig(admin, config, deadlineNanos);
        return outcome;
    }

    private static void checkConfig(Admin admin, ProducerIdClaimsConfig config, long deadlineNanos) {
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, config.topic());
        Map<ConfigResource, Config> configs;
        while (true) {
            try {
                configs = get(admin.describeConfigs(List.of(resource)).all(), config, deadlineNanos,
                        "read the configuration of");
                break;
            } catch (ProducerIdStateException e) {
                if (!(e.getCause() instanceof UnknownTopicOrPartitionException) || System.nanoTime() - deadlineNanos > 0) {
                    throw e;
                }
                pause(); // just created: this broker does not know it yet
            }
        }
        Config c = configs.get(resource);
        ConfigEntry policy = c.get(TopicConfig.CLEANUP_POLICY_CONFIG);
        Set<String> policies = policy == null || policy.value() == null ? Set.of()
                : Set.of(policy.value().replace(" ", "").split(","));
        if (!policies.equals(Set.of(TopicConfig.CLEANUP_POLICY_COMPACT))) {
            throw new ProducerIdStateException("producer-id state " + config.where() + " has cleanup.policy="
                    + (policy == null ? "(unknown)" : policy.value())
                    + ", but it must be exactly 'compact': with 'delete' the claims would expire and a replica started"
                    + " later could give a producer different upstream ids than the others. Fix it with"
                    + " kafka-configs.sh --alter --entity-type topics --entity-name " + config.topic()
                    + " --add-config cleanup.policy=compact,min.compaction.lag.ms=" + MIN_COMPACTION_LAG_MS
                    + " (or delete the topic and let Weft create it, or configure another topic name)");
        }
        ConfigEntry lag = c.get(TopicConfig.MIN_COMPACTION_LAG_MS_CONFIG);
        long lagMs = lag == null || lag.value() == null ? 0 : Long.parseLong(lag.value());
        if (lagMs < MIN_COMPACTION_LAG_MS) {
            LOG.warn("producer-id state {}: min.compaction.lag.ms is {}, below the {} (7 days) Weft sets: compaction"
                    + " may keep a record other than the first claim of a key if a replica crashed between its claim"
                    + " and its confirmation", config.where(), lagMs, MIN_COMPACTION_LAG_MS);
        }
    }

    private static void pause() {
        try {
            Thread.sleep(100);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ProducerIdStateException("producer-id state: interrupted while setting up the state topic", e);
        }
    }

    private static TopicDescription describe(Admin admin, ProducerIdClaimsConfig config, long deadlineNanos) {
        try {
            return get(admin.describeTopics(List.of(config.topic())).allTopicNames(), config, deadlineNanos, "describe")
                    .get(config.topic());
        } catch (ProducerIdStateException e) {
            if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                return null;
            }
            throw e;
        }
    }

    private static <T> T get(org.apache.kafka.common.KafkaFuture<T> f, ProducerIdClaimsConfig config, long deadlineNanos,
            String what) {
        try {
            return f.get(Math.max(1, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            throw new ProducerIdStateException("producer-id state: cannot " + what + " " + config.where() + ": "
                    + cause.getClass().getSimpleName() + ": " + cause.getMessage(), cause);
        } catch (TimeoutException e) {
            throw new ProducerIdStateException("producer-id state: cannot " + what + " " + config.where()
                    + ": no answer within the start timeout (" + config.startTimeout().toMillis()
                    + " ms); is the home cluster up and reachable with these security settings?", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ProducerIdStateException("producer-id state: interrupted while waiting to " + what + " "
                    + config.where(), e);
        }
    }
}
