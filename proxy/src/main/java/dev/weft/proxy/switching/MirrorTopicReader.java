package dev.weft.proxy.switching;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Reads one of MirrorMaker 2's internal topics (offset syncs, checkpoints) from its beginning, and on
 * each {@link #readToEnd} call picks up where it stopped, up to the end offsets of that moment. No
 * consumer group: nothing is committed, so Weft leaves no trace on MM2's topics.
 */
final class MirrorTopicReader implements AutoCloseable {

    private static final Duration POLL = Duration.ofMillis(100);

    private final String topic;
    private final String cluster;
    private final KafkaConsumer<byte[], byte[]> consumer;
    private List<TopicPartition> partitions = List.of();

    /**
     * @param clientProperties connection settings of the cluster holding the topic (bootstrap, TLS, SASL);
     *                         group and deserializer settings are replaced
     * @param cluster          the cluster's alias, for messages
     */
    MirrorTopicReader(Map<String, Object> clientProperties, String cluster, String topic, String clientId) {
        this.topic = topic;
        this.cluster = cluster;
        Map<String, Object> config = new HashMap<>(clientProperties);
        config.remove(ConsumerConfig.GROUP_ID_CONFIG);
        config.remove(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG);
        config.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        this.consumer = new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    /** The topic read, for messages. */
    String topic() {
        return topic;
    }

    /**
     * Hands every record not seen yet, up to the end offsets read now, to {@code sink}.
     *
     * @return false if the topic does not exist (yet) on the cluster
     * @throws MirrorReadTimeoutException if the end was not reached within {@code timeout}
     */
    boolean readToEnd(Duration timeout, Consumer<ConsumerRecord<byte[], byte[]>> sink) throws MirrorReadTimeoutException {
        if (partitions.isEmpty() && !assign(timeout)) {
            return false;
        }
        Map<TopicPartition, Long> end = consumer.endOffsets(partitions, timeout);
        long deadline = System.nanoTime() + timeout.toNanos();
        while (partitions.stream().anyMatch(tp -> consumer.position(tp, timeout) < end.get(tp))) {
            if (System.nanoTime() - deadline > 0) {
                throw new MirrorReadTimeoutException("could not read MirrorMaker 2's topic " + topic + " on "
                    + cluster + " to its end " + end + " within " + timeout);
            }
            consumer.poll(POLL).forEach(sink);
        }
        return true;
    }

    private boolean assign(Duration timeout) {
        List<PartitionInfo> infos = consumer.partitionsFor(topic, timeout);
        if (infos == null || infos.isEmpty()) {
            return false;
        }
        partitions = infos.stream().map(info -> new TopicPartition(topic, info.partition())).toList();
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        return true;
    }

    @Override
    public void close() {
        consumer.close(org.apache.kafka.clients.consumer.CloseOptions.timeout(Duration.ofSeconds(5)));
    }

    /** Reading an internal topic took too long: the cluster is slow or unreachable. */
    static final class MirrorReadTimeoutException extends Exception {
        MirrorReadTimeoutException(String message) {
            super(message);
        }
    }
}
