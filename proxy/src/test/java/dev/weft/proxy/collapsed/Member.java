package dev.weft.proxy.collapsed;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
 * A kafka-clients group member on a thread of its own: subscribes, puts every record it receives in a
 * shared sink, commits what it processed after each poll and, for partitions taken away, before they
 * go (so another member does not get them again). Anything thrown ends up in {@code failures}.
 */
final class Member implements AutoCloseable {

    private final String name;
    private final Map<String, Object> config;
    private final Collection<String> topics;
    private final List<Records.Got> sink;
    private final List<Throwable> failures;
    private final Thread thread;
    private final AtomicInteger received = new AtomicInteger();
    private final AtomicInteger commitsLost = new AtomicInteger();
    private volatile Set<TopicPartition> assignment = Set.of();
    private volatile boolean stop;

    Member(String name, Map<String, Object> config, Collection<String> topics, List<Records.Got> sink, List<Throwable> failures) {
        this.name = name;
        this.config = Map.copyOf(config);
        this.topics = List.copyOf(topics);
        this.sink = sink;
        this.failures = failures;
        this.thread = Thread.ofPlatform().name("member-" + name).unstarted(this::run);
    }

    Member start() {
        thread.start();
        return this;
    }

    String name() {
        return name;
    }

    Set<TopicPartition> assignment() {
        return assignment;
    }

    int received() {
        return received.get();
    }

    /** Commits refused because the group had moved on (a rebalance): each may cause a redelivery. */
    int commitsLost() {
        return commitsLost.get();
    }

    private void run() {
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            Map<TopicPartition, OffsetAndMetadata> processed = new HashMap<>();
            consumer.subscribe(topics, new ConsumerRebalanceListener() {
                @Override
                public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                    commit(consumer, processed, partitions);
                    partitions.forEach(processed::remove);
                }

                @Override
                public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                }

                @Override
                public void onPartitionsLost(Collection<TopicPartition> partitions) {
                    partitions.forEach(processed::remove);
                }
            });
            while (!stop) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    sink.add(Records.Got.of(name, r));
                    received.incrementAndGet();
                    processed.put(new TopicPartition(r.topic(), r.partition()), new OffsetAndMetadata(r.offset() + 1));
                }
                assignment = Set.copyOf(consumer.assignment());
                commit(consumer, processed, Set.copyOf(processed.keySet()));
            }
            commit(consumer, processed, Set.copyOf(processed.keySet()));
        } catch (Throwable t) {
            failures.add(new AssertionError("group member " + name + " failed: " + t, t));
        } finally {
            assignment = Set.of();
        }
    }

    private void commit(KafkaConsumer<?, ?> consumer, Map<TopicPartition, OffsetAndMetadata> processed,
            Collection<TopicPartition> partitions) {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        for (TopicPartition tp : partitions) {
            OffsetAndMetadata o = processed.get(tp);
            if (o != null) {
                offsets.put(tp, o);
            }
        }
        if (offsets.isEmpty()) {
            return;
        }
        try {
            consumer.commitSync(offsets, Duration.ofSeconds(30));
        } catch (RebalanceInProgressException | CommitFailedException e) {
            commitsLost.incrementAndGet(); // committed on revocation inside the next poll, or redelivered (and counted)
        }
    }

    @Override
    public void close() {
        stop = true;
        try {
            thread.join(Duration.ofSeconds(60));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (thread.isAlive()) {
            failures.add(new AssertionError("group member " + name + " did not stop within 60 s"));
        }
    }
}
