package dev.weft.proxy.switching;

import dev.weft.testkit.KafkaCluster;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/** Produces records and reads offsets with real kafka-clients, for the connection-switching tests. */
final class MirrorTestRecords {

    private MirrorTestRecords() {
    }

    /** Sends {@code count} records keyed {@code prefix-i} with acks=all and waits for every ack. */
    static List<String> produce(KafkaCluster cluster, String topic, String prefix, int count) throws Exception {
        Map<String, Object> config = new HashMap<>(cluster.producerConfig());
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        List<String> keys = new ArrayList<>();
        try (KafkaProducer<String, String> producer =
                 new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
            List<Future<RecordMetadata>> acks = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                String key = prefix + "-" + i;
                keys.add(key);
                acks.add(producer.send(new ProducerRecord<>(topic, key, "value of " + key)));
            }
            for (Future<RecordMetadata> ack : acks) {
                ack.get(30, TimeUnit.SECONDS);
            }
        }
        return keys;
    }

    /**
     * Sends {@code count} records in one committed transaction: the partitions end with a commit marker.
     * Returns once every marker is written (commitTransaction returns when the coordinator logged the
     * commit; the markers reach the partitions after it): then the last stable offset is the end offset.
     */
    static void produceInTransaction(KafkaCluster cluster, String topic, String prefix, int count) throws InterruptedException {
        Map<String, Object> config = new HashMap<>(cluster.producerConfig());
        int partitions;
        config.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "weft-test-" + topic);
        try (KafkaProducer<String, String> producer =
                 new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
            producer.initTransactions();
            producer.beginTransaction();
            for (int i = 0; i < count; i++) {
                producer.send(new ProducerRecord<>(topic, prefix + "-" + i, "value"));
            }
            producer.commitTransaction();
            partitions = producer.partitionsFor(topic).size();
        }
        int all = partitions;
        await(Duration.ofSeconds(30), "the commit markers of the transaction on " + topic,
                () -> endOffsets(cluster, topic, all, IsolationLevel.READ_COMMITTED)
                        .equals(endOffsets(cluster, topic, all, IsolationLevel.READ_UNCOMMITTED)));
    }

    static Map<TopicPartition, Long> endOffsets(KafkaCluster cluster, String topic, int partitions) {
        return endOffsets(cluster, topic, partitions, IsolationLevel.READ_UNCOMMITTED);
    }

    /** The end offsets as a consumer with {@code isolation} sees them (READ_COMMITTED: the last stable offsets). */
    static Map<TopicPartition, Long> endOffsets(KafkaCluster cluster, String topic, int partitions, IsolationLevel isolation) {
        List<TopicPartition> tps = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            tps.add(new TopicPartition(topic, p));
        }
        Map<String, Object> config = cluster.consumerConfig();
        config.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation.toString().toLowerCase(java.util.Locale.ROOT));
        try (KafkaConsumer<byte[], byte[]> consumer =
                 new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            return new HashMap<>(consumer.endOffsets(tps, Duration.ofSeconds(10)));
        }
    }

    /** Polls {@code condition} every 200 ms until it holds; fails with {@code what} after {@code timeout}. */
    static void await(Duration timeout, String what, BooleanSupplier condition) throws InterruptedException {
        await(timeout, () -> what, condition);
    }

    /** As above, with {@code what} made when it fails (so it can say what was seen by then). */
    static void await(Duration timeout, java.util.function.Supplier<String> what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out after " + timeout + " waiting for " + what.get());
            }
            Thread.sleep(200);
        }
    }
}
