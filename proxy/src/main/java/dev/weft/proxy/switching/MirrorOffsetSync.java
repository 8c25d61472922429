package dev.weft.proxy.switching;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * One record of MirrorMaker 2's offset-syncs topic: upstream record {@code upstreamOffset} of
 * {@code partition} (a source topic-partition) was written at {@code downstreamOffset} of its replica on
 * the target, and the target had acknowledged it when MM2 sent the sync (MM2 queues a sync from
 * {@code MirrorSourceTask.commitRecord}, which runs on the producer's acknowledgement).
 *
 * <p>The class of the same name lives in {@code connect-mirror}, not in {@code connect-mirror-client},
 * so the format is read here: key = topic (Kafka STRING: int16 length, UTF-8), partition (INT32);
 * value = upstreamOffset (INT64), offset (INT64). It has had no version field since MM2's first release.
 */
record MirrorOffsetSync(TopicPartition partition, long upstreamOffset, long downstreamOffset) {

    /** Parses a record of the offset-syncs topic; a record that does not fit the format is rejected. */
    static MirrorOffsetSync parse(ConsumerRecord<byte[], byte[]> record) {
        if (record.key() == null || record.value() == null) {
            throw new IllegalArgumentException("offset sync at " + record.topic() + "-" + record.partition()
                + "@" + record.offset() + " has a null key or value");
        }
        try {
            ByteBuffer key = ByteBuffer.wrap(record.key());
            ByteBuffer value = ByteBuffer.wrap(record.value());
            byte[] topic = new byte[key.getShort()];
            key.get(topic);
            TopicPartition partition = new TopicPartition(new String(topic, StandardCharsets.UTF_8), key.getInt());
            return new MirrorOffsetSync(partition, value.getLong(), value.getLong());
        } catch (BufferUnderflowException | NegativeArraySizeException e) {
            throw new IllegalArgumentException("offset sync at " + record.topic() + "-" + record.partition()
                + "@" + record.offset() + " is not in MM2's format", e);
        }
    }
}
