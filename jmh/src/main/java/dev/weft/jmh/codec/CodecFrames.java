package dev.weft.jmh.codec;

import dev.weft.protocol.cold.ColdCodec;
import dev.weft.protocol.record.RecordBatchView;
import dev.weft.protocol.skim.UpstreamTopicKeys;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * What every codec benchmark shares: the {@code shape} parameter, the record batches, the topic layout,
 * the two-way split's routes, and frames written by kafka-clients' own {@code *Data} serializers
 * (through {@link ColdCodec}) into Netty buffers exactly as Weft's frame decoder hands them over: size
 * prefix skipped, reader index at the header.
 *
 * <p>Layout: {@code partitions} partitions spread over topics of at most {@link #PARTITIONS_PER_TOPIC}
 * partitions each (topic ids, or names {@code bench-topic-<t>} before topic-id versions); records are
 * one uncompressed, idempotent batch per partition of about {@code batchBytes} bytes (records with
 * 1000-byte values; never fewer than one record).
 */
final class CodecFrames {

    static final int PARTITIONS_PER_TOPIC = 10;
    static final long PRODUCER_ID = 4711L;
    static final short PRODUCER_EPOCH = 3;
    private static final int VALUE_BYTES = 1000;

    private CodecFrames() {
    }

    /** The {@code shape} parameter, {@code <partitions>x<batch bytes>}. */
    record Shape(int partitions, int batchBytes) {
        static Shape parse(String shape) {
            int x = shape.indexOf('x');
            return new Shape(Integer.parseInt(shape.substring(0, x)), Integer.parseInt(shape.substring(x + 1)));
        }
    }

    /** The split every benchmark uses: partition {@code i} goes to route {@code i & 1} (every other one). */
    static int[] alternatingRoutes(int partitions) {
        int[] routeOf = new int[partitions];
        for (int i = 0; i < partitions; i++) {
            routeOf[i] = i & 1;
        }
        return routeOf;
    }

    /** Partitions per topic, in order: {@link #PARTITIONS_PER_TOPIC} each, the last one the rest. */
    static int[] topicSizes(int partitions) {
        return topicSizes(partitions, PARTITIONS_PER_TOPIC);
    }

    /** Partitions per topic, in order: {@code perTopic} each, the last one the rest. */
    static int[] topicSizes(int partitions, int perTopic) {
        if (perTopic < 1) {
            throw new IllegalArgumentException("partitions per topic must be at least 1: " + perTopic);
        }
        int[] sizes = new int[(partitions + perTopic - 1) / perTopic];
        for (int t = 0; t < sizes.length; t++) {
            sizes[t] = Math.min(perTopic, partitions - t * perTopic);
        }
        return sizes;
    }

    /** Topic ids, the same for a given partition count and version (seeded). */
    static Uuid[] topicIds(int topics, long seed) {
        Random random = new Random(seed);
        Uuid[] ids = new Uuid[topics];
        for (int t = 0; t < topics; t++) {
            ids[t] = new Uuid(random.nextLong(), random.nextLong());
        }
        return ids;
    }

    static String topicName(int t) {
        return "bench-topic-" + t;
    }

    /**
     * Topic weaving's rename (the woven benchmarks): the frames above carry the client's (virtual) names
     * and ids; behind the proxy the same topic is {@code upstream.<name>} with another id (bits flipped).
     */
    static String upstreamName(String virtualName) {
        return "upstream." + virtualName;
    }

    /** The upstream id of a topic whose virtual id is {@code virtualId} (see {@link #upstreamName}). */
    static Uuid upstreamId(Uuid virtualId) {
        return new Uuid(~virtualId.getMostSignificantBits(), ~virtualId.getLeastSignificantBits());
    }

    /**
     * The upstream key of one topic as the proxy precomputes it in its catalog (16 id bytes, or the
     * UTF-8 upstream name), for a request that {@code usesTopicIds} or not.
     */
    static byte[] upstreamKey(String virtualName, Uuid virtualId, boolean usesTopicIds) {
        return usesTopicIds ? UpstreamTopicKeys.topicIdKey(upstreamId(virtualId))
                : UpstreamTopicKeys.nameKey(upstreamName(virtualName));
    }

    /** One uncompressed idempotent batch of about {@code batchBytes} bytes (at least one record). */
    static MemoryRecords batch(int batchBytes, long seed) {
        Random random = new Random(seed);
        MemoryRecordsBuilder builder = MemoryRecords.builder(ByteBuffer.allocate(batchBytes + 2048),
                RecordBatch.CURRENT_MAGIC_VALUE, Compression.NONE, TimestampType.CREATE_TIME, 0L,
                RecordBatch.NO_TIMESTAMP, PRODUCER_ID, PRODUCER_EPOCH, 0, false, 0);
        int valueBytes = Math.min(VALUE_BYTES, Math.max(16, batchBytes - RecordBatchView.RECORD_BATCH_OVERHEAD - 40));
        long now = 1_700_000_000_000L;
        int i = 0;
        do {
            byte[] key = ("key-" + i).getBytes(StandardCharsets.US_ASCII);
            byte[] value = new byte[valueBytes];
            random.nextBytes(value);
            builder.append(now + i, key, value);
            i++;
        } while (builder.estimatedSizeInBytes() + valueBytes + 30 <= batchBytes);
        return builder.build();
    }

    static RequestHeaderData header(ApiKeys api, short version, int correlationId, String clientId) {
        return new RequestHeaderData().setRequestApiKey(api.id).setRequestApiVersion(version)
                .setCorrelationId(correlationId).setClientId(clientId);
    }

    /** A request frame as the decoder hands it over (size prefix skipped). Caller releases. */
    static ByteBuf requestFrame(ByteBufAllocator alloc, RequestHeaderData header, ApiMessage body) {
        ByteBuf frame = ColdCodec.writeRequest(alloc, header, body);
        frame.skipBytes(4);
        return frame;
    }

    /** A response frame as the decoder hands it over (size prefix skipped). Caller releases. */
    static ByteBuf responseFrame(ByteBufAllocator alloc, short version, int correlationId, ApiMessage body) {
        ByteBuf frame = ColdCodec.writeResponse(alloc, correlationId, version, body);
        frame.skipBytes(4);
        return frame;
    }
}
