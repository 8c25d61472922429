package dev.weft.testkit.mirror;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Reads MM2's internal topics by hand, so testkit's tests need no MirrorMaker jar on their class path.
 * Formats (connect-mirror-client's Checkpoint, connect-mirror's OffsetSync), Kafka protocol types:
 * STRING is an int16 length and UTF-8 bytes.
 * <ul>
 *   <li>checkpoint key: group STRING, topic STRING, partition INT32; value: version INT16,
 *       upstreamOffset INT64, offset INT64, metadata STRING</li>
 *   <li>offset sync key: topic STRING, partition INT32; value: upstreamOffset INT64, offset INT64</li>
 * </ul>
 */
final class Mm2Records {

    record Checkpoint(String group, TopicPartition partition, long upstreamOffset, long downstreamOffset) {
    }

    record OffsetSync(TopicPartition partition, long upstreamOffset, long downstreamOffset) {
    }

    private Mm2Records() {
    }

    static List<Checkpoint> checkpoints(Map<String, Object> consumerConfig, String topic) {
        List<Checkpoint> result = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> record : readAll(consumerConfig, topic)) {
            ByteBuffer key = ByteBuffer.wrap(record.key());
            ByteBuffer value = ByteBuffer.wrap(record.value());
            String group = string(key);
            TopicPartition partition = new TopicPartition(string(key), key.getInt());
            value.getShort();
            result.add(new Checkpoint(group, partition, value.getLong(), value.getLong()));
        }
        return result;
    }

    static List<OffsetSync> offsetSyncs(Map<String, Object> consumerConfig, String topic) {
        List<OffsetSync> result = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> record : readAll(consumerConfig, topic)) {
            ByteBuffer key = ByteBuffer.wrap(record.key());
            ByteBuffer value = ByteBuffer.wrap(record.value());
            result.add(new OffsetSync(new TopicPartition(string(key), key.getInt()), value.getLong(), value.getLong()));
        }
        return result;
    }

    /** Every record of every partition of {@code topic}, up to the end offsets read when called. */
    static List<ConsumerRecord<byte[], byte[]>> readAll(Map<String, Object> consumerConfig, String topic) {
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer =
                 new KafkaConsumer<>(consumerConfig, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(10)).stream()
                .map(info -> new TopicPartition(topic, info.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException("could not read " + topic + " to its end " + end);
                }
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            }
        }
        return records;
    }

    private static String string(ByteBuffer buffer) {
        byte[] bytes = new byte[buffer.getShort()];
        buffer.get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
