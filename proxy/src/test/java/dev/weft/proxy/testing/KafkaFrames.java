package dev.weft.proxy.testing;

import dev.weft.protocol.ApiKeyTable;
import dev.weft.protocol.cold.ColdCodec;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;

/**
 * Request frames (size prefix included) built with kafka-clients' message classes and Weft's cold codec,
 * for tests that hand a session or a socket exact requests, and the few fields of a response they read.
 */
public final class KafkaFrames {

    public static final short FETCH_VERSION = 12;
    public static final short PRODUCE_VERSION = 9;
    public static final short METADATA_VERSION = 12;

    private KafkaFrames() {
    }

    /** A request frame in an unpooled heap buffer; the receiver takes ownership. */
    public static ByteBuf request(ApiKeys api, short version, int correlationId, ApiMessage body) {
        RequestHeaderData header = new RequestHeaderData().setRequestApiKey(api.id).setRequestApiVersion(version)
                .setCorrelationId(correlationId).setClientId("weft-test");
        return ColdCodec.writeRequest(UnpooledByteBufAllocator.DEFAULT, header, body);
    }

    /** The same frame as bytes. */
    public static byte[] bytes(ApiKeys api, short version, int correlationId, ApiMessage body) {
        ByteBuf frame = request(api, version, correlationId, body);
        try {
            byte[] out = new byte[frame.readableBytes()];
            frame.readBytes(out);
            return out;
        } finally {
            frame.release();
        }
    }

    /** Fetch v12 of {@code topic}-{@code partition} from {@code offset}, waiting up to {@code maxWaitMs} for one byte. */
    public static FetchRequestData longPoll(String topic, int partition, long offset, int maxWaitMs) {
        return new FetchRequestData()
                .setReplicaId(-1).setMaxWaitMs(maxWaitMs).setMinBytes(1).setMaxBytes(1 << 20)
                .setIsolationLevel((byte) 0).setSessionId(0).setSessionEpoch(-1)
                .setTopics(List.of(new FetchRequestData.FetchTopic().setTopic(topic).setPartitions(List.of(
                        new FetchRequestData.FetchPartition().setPartition(partition).setFetchOffset(offset)
                                .setPartitionMaxBytes(1 << 20).setCurrentLeaderEpoch(-1).setLogStartOffset(-1)))));
    }

    /** Metadata v12 of every topic, no auto-creation. */
    public static MetadataRequestData allTopics() {
        return new MetadataRequestData().setTopics(null).setAllowAutoTopicCreation(false);
    }

    /** Produce v9 (by topic name) of {@code records} records of {@code valueBytes} each, one batch, to one partition. */
    public static ProduceRequestData produce(String topic, int partition, short acks, int records, int valueBytes) {
        SimpleRecord[] batch = new SimpleRecord[records];
        for (int i = 0; i < records; i++) {
            byte[] value = new byte[valueBytes];
            java.util.Arrays.fill(value, (byte) ('a' + i % 26));
            batch[i] = new SimpleRecord(("k" + i).getBytes(StandardCharsets.UTF_8), value);
        }
        ProduceRequestData.TopicProduceDataCollection topics = new ProduceRequestData.TopicProduceDataCollection();
        topics.add(new ProduceRequestData.TopicProduceData().setName(topic).setPartitionData(List.of(
                new ProduceRequestData.PartitionProduceData().setIndex(partition)
                        .setRecords(MemoryRecords.withRecords(Compression.NONE, batch)))));
        return new ProduceRequestData().setAcks(acks).setTimeoutMs(30_000).setTopicData(topics);
    }

    /** The correlation id of a response frame (size prefix included), read without moving its indexes. */
    public static int responseCorrelationId(ByteBuf frame) {
        return frame.getInt(frame.readerIndex() + 4);
    }

    /** Decodes a response frame (size prefix included) of {@code api} at {@code version}; borrows {@code frame}. */
    public static ApiMessage parseResponse(ApiKeys api, short version, ByteBuf frame) {
        int header = 4 + (ApiKeyTable.responseHeaderVersion(api.id, version) >= 1 ? 1 : 0); // no tagged fields
        int start = frame.readerIndex() + 4 + header;
        return ColdCodec.readResponseBody(api.id, version, frame.slice(start, frame.writerIndex() - start));
    }
}
