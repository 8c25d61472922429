package dev.weft.proxy.conformance;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * A kafka-clients group member on a thread of its own: subscribes, processes every record (records it
 * in a shared list), then commits what it processed (at least once). Checks, per partition and per
 * assignment, that offsets strictly increase; anything wrong is collected in {@code failures}.
 */
final class GroupMember implements AutoCloseable {

    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(60);

    private final String name;
    private final Map<String, Object> config;
    private final String topic;
    private final List<Arrived> sink;
    private final Set<String> distinctKeys;
    private final List<String> failures;
    private final Thread thread;
    private final Set<TopicPartition> assignment = ConcurrentHashMap.newKeySet();
    private final AtomicInteger assignmentsSeen = new AtomicInteger();
    private final AtomicInteger consumed = new AtomicInteger();
    private final AtomicInteger commitsLostToRebalance = new AtomicInteger();
    private volatile boolean stop;

    /**
     * @param config       consumer settings (bootstrap through the proxy, group, protocol)
     * @param sink         every record received, by every member (thread-safe list)
     * @param distinctKeys keys received so far, by every member (thread-safe set)
     * @param failures     problems found (thread-safe list)
     */
    GroupMember(String name, Map<String, Object> config, String topic, List<Arrived> sink, Set<String> distinctKeys,
                List<String> failures) {
        this.name = name;
        this.config = config;
        this.topic = topic;
        this.sink = sink;
        this.distinctKeys = distinctKeys;
        this.failures = failures;
        this.thread = Thread.ofPlatform().name("member-" + name).unstarted(this::run);
    }

    GroupMember start() {
        thread.start();
        return this;
    }

    String name() {
        return name;
    }

    /** The partitions this member owns now (empty once stopped). */
    Set<TopicPartition> assignment() {
        return Set.copyOf(assignment);
    }

    int assignmentsSeen() {
        return assignmentsSeen.get();
    }

    int consumed() {
        return consumed.get();
    }

    int commitsLostToRebalance() {
        return commitsLostToRebalance.get();
    }

    private void run() {
        Map<TopicPartition, Long> lastSinceAssigned = new HashMap<>();
        try (KafkaConsumer<byte[], byte[]> consumer =
                     new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(topic), new ConsumerRebalanceListener() {
                @Override
                public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                    assignment.removeAll(partitions);
                    partitions.forEach(lastSinceAssigned::remove);
                }

                @Override
                public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                    assignment.addAll(partitions);
                    partitions.forEach(lastSinceAssigned::remove);
                    assignmentsSeen.incrementAndGet();
                }
            });
            while (!stop) {
                Map<TopicPartition, OffsetAndMetadata> processed = new HashMap<>();
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
                    TopicPartition tp = new TopicPartition(r.topic(), r.partition());
                    Long last = lastSinceAssigned.put(tp, r.offset());
                    if (last != null && last >= r.offset()) {
                        failures.add(name + ": offset " + r.offset() + " after " + last + " in " + tp);
                    }
                    Arrived a = Arrived.of(name, r);
                    sink.add(a);
                    distinctKeys.add(a.key());
                    consumed.incrementAndGet();
                    processed.put(tp, new OffsetAndMetadata(r.offset() + 1));
                }
                if (!processed.isEmpty()) {
                    try {
                        consumer.commitSync(processed);
                    } catch (CommitFailedException | RebalanceInProgressException e) {
                        // The partitions moved before the commit: the next owner redelivers them.
                        commitsLostToRebalance.incrementAndGet();
                    }
                }
            }
        } catch (RuntimeException e) {
            failures.add(name + " died: " + e);
        } finally {
            assignment.clear();
        }
    }

    /** Stops polling, leaves the group (consumer close) and waits for the thread. */
    @Override
    public void close() {
        stop = true;
        try {
            if (!thread.join(STOP_TIMEOUT)) {
                failures.add(name + " did not stop within " + STOP_TIMEOUT);
                thread.interrupt();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Live members' assignments: together they own every one of {@code partitions}, each exactly once. */
    static boolean coverExactly(List<GroupMember> live, int partitions) {
        Set<TopicPartition> union = new HashSet<>();
        int total = 0;
        for (GroupMember m : live) {
            Set<TopicPartition> owned = m.assignment();
            union.addAll(owned);
            total += owned.size();
        }
        return union.size() == partitions && total == partitions;
    }

    static String describe(List<GroupMember> members) {
        List<String> parts = new ArrayList<>();
        for (GroupMember m : members) {
            parts.add(m.name + "{owns " + m.assignment().stream().map(TopicPartition::partition).sorted().toList()
                    + ", assignments " + m.assignmentsSeen() + ", consumed " + m.consumed() + "}");
        }
        return String.join(", ", parts);
    }

    @Override
    public String toString() {
        return describe(List.of(this));
    }
}
