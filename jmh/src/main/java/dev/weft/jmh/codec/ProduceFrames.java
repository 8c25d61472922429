package dev.weft.jmh.codec;

import dev.weft.protocol.cold.ColdCodec;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.IntPredicate;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceRequestData.PartitionProduceData;
import org.apache.kafka.common.message.ProduceRequestData.TopicProduceData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.message.ProduceResponseData.TopicProduceResponse;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * Real Produce frames for the codec benchmarks, written once per trial by kafka-clients' own
 * {@code *Data} serializers (through {@link ColdCodec}) into Netty buffers, exactly as Weft's frame
 * decoder hands them over: size prefix skipped, reader index at the request header.
 *
 * <p>Layout: {@code partitions} partitions spread over topics of at most {@link #PARTITIONS_PER_TOPIC}
 * partitions each; every partition carries one uncompressed, idempotent record batch of about
 * {@code batchBytes} bytes (records with 1000-byte values; never fewer than one record).
 */
final class ProduceFrames {

    static final int PARTITIONS_PER_TOPIC = 10;
    static final String CLIENT_ID = "bench-producer";
    static final long PRODUCER_ID = 4711L;
    static final short PRODUCER_EPOCH = 3;
    private static final int VALUE_BYTES = 1000;

    private ProduceFrames() {
    }

    /** One uncompressed idempotent batch of about {@code batchBytes} bytes (at least one record). */
    static MemoryRecords batch(int batchBytes, long seed) {
        Random random = new Random(seed);
        MemoryRecordsBuilder builder = MemoryRecords.builder(ByteBuffer.allocate(batchBytes + 2048),
                RecordBatch.CURRENT_MAGIC_VALUE, Compression.NONE, TimestampType.CREATE_TIME, 0L,
                RecordBatch.NO_TIMESTAMP, PRODUCER_ID, PRODUCER_EPOCH, 0, false, 0);
        int valueBytes = Math.min(VALUE_BYTES, Math.max(16, batchBytes - dev.weft.protocol.record.RecordBatchView.RECORD_BATCH_OVERHEAD - 40));
        long now = 1_700_000_000_000L;
        int i = 0;
        do {
            byte[] key = ("key-" + i).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            byte[] value = new byte[valueBytes];
            random.nextBytes(value);
            builder.append(now + i, key, value);
            i++;
        } while (builder.estimatedSizeInBytes() + valueBytes + 30 <= batchBytes);
        return builder.build();
    }

    /** A Produce request with {@code partitions} partitions, each holding {@code records}. */
    static ProduceRequestData request(short version, int partitions, MemoryRecords records) {
        ProduceRequestData data = new ProduceRequestData().setAcks((short) -1).setTimeoutMs(30_000)
                .setTransactionalId(null);
        Random random = new Random(partitions * 31L + version);
        int left = partitions;
        for (int t = 0; left > 0; t++) {
            int n = Math.min(PARTITIONS_PER_TOPIC, left);
            TopicProduceData topic = new TopicProduceData();
            if (version >= 13) {
                topic.setTopicId(new Uuid(random.nextLong(), random.nextLong()));
            } else {
                topic.setName("bench-topic-" + t);
            }
            List<PartitionProduceData> list = new ArrayList<>(n);
            for (int p = 0; p < n; p++) {
                list.add(new PartitionProduceData().setIndex(p).setRecords(records));
            }
            topic.setPartitionData(list);
            data.topicData().add(topic);
            left -= n;
        }
        return data;
    }

    /** The same request holding only the partitions (numbered in wire order) that {@code keep} selects. */
    static ProduceRequestData subset(ProduceRequestData data, IntPredicate keep) {
        ProduceRequestData out = new ProduceRequestData().setAcks(data.acks()).setTimeoutMs(data.timeoutMs())
                .setTransactionalId(data.transactionalId());
        int i = 0;
        for (TopicProduceData topic : data.topicData()) {
            List<PartitionProduceData> list = new ArrayList<>();
            for (PartitionProduceData p : topic.partitionData()) {
                if (keep.test(i++)) {
                    list.add(p);
                }
            }
            if (!list.isEmpty()) {
                out.topicData().add(new TopicProduceData().setName(topic.name()).setTopicId(topic.topicId())
                        .setPartitionData(list));
            }
        }
        return out;
    }

    /** The response an upstream sends for the partitions of {@code data} that {@code keep} selects. */
    static ProduceResponseData response(short version, ProduceRequestData data, IntPredicate keep) {
        ProduceResponseData response = new ProduceResponseData().setThrottleTimeMs(0);
        int i = 0;
        long offset = 1_000_000L;
        for (TopicProduceData topic : data.topicData()) {
            List<PartitionProduceResponse> list = new ArrayList<>();
            for (PartitionProduceData p : topic.partitionData()) {
                if (keep.test(i++)) {
                    PartitionProduceResponse r = new PartitionProduceResponse().setIndex(p.index())
                            .setErrorCode((short) 0).setBaseOffset(offset += 100).setLogAppendTimeMs(-1);
                    if (version >= 5) {
                        r.setLogStartOffset(0);
                    }
                    list.add(r);
                }
            }
            if (!list.isEmpty()) {
                response.responses().add(new TopicProduceResponse().setName(topic.name()).setTopicId(topic.topicId())
                        .setPartitionResponses(list));
            }
        }
        return response;
    }

    static RequestHeaderData header(short version, int correlationId) {
        return new RequestHeaderData().setRequestApiKey((short) 0).setRequestApiVersion(version)
                .setCorrelationId(correlationId).setClientId(CLIENT_ID);
    }

    /** A request frame as the decoder hands it over (size prefix skipped). Caller releases. */
    static ByteBuf requestFrame(ByteBufAllocator alloc, short version, int correlationId, ProduceRequestData data) {
        ByteBuf frame = ColdCodec.writeRequest(alloc, header(version, correlationId), data);
        frame.skipBytes(4);
        return frame;
    }

    /** A response frame as the decoder hands it over (size prefix skipped). Caller releases. */
    static ByteBuf responseFrame(ByteBufAllocator alloc, short version, int correlationId, ProduceResponseData data) {
        ByteBuf frame = ColdCodec.writeResponse(alloc, correlationId, version, data);
        frame.skipBytes(4);
        return frame;
    }
}
