package dev.weft.routing.api;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;

/**
 * Real Produce and Fetch request frames (header + body, no size prefix: what the frame decoder hands
 * the skims), serialized by kafka-clients. Topics are named by name before the version that carries
 * topic ids and by id from it. The frames are plain heap buffers: PARANOID leak tracking records (and
 * allocates for) every access to tracked buffers, which would defeat the allocation checks. Callers
 * release them all the same.
 */
public final class HotFrames {

    /** First Fetch version naming topics by id. */
    public static final short FETCH_TOPIC_IDS = 13;
    /** First Produce version naming topics by id. */
    public static final short PRODUCE_TOPIC_IDS = 13;

    private HotFrames() {
    }

    /** One topic of a request: its name, its id, the partitions asked for (in wire order). */
    public record Topic(String name, Uuid id, int... partitions) {
    }

    public static Topic topic(String name, Uuid id, int... partitions) {
        return new Topic(name, id, partitions);
    }

    /** A Fetch of each partition from offset 100 (rack id "b" from v11). */
    public static ByteBuf fetch(short version, Topic... topics) {
        FetchRequestData data = new FetchRequestData().setMaxWaitMs(500).setMinBytes(1).setMaxBytes(1 << 20);
        if (version >= 11) {
            data.setRackId("b");
        }
        for (Topic t : topics) {
            FetchRequestData.FetchTopic topic = version >= FETCH_TOPIC_IDS
                    ? new FetchRequestData.FetchTopic().setTopicId(t.id()) : new FetchRequestData.FetchTopic().setTopic(t.name());
            for (int p : t.partitions()) {
                topic.partitions().add(new FetchRequestData.FetchPartition().setPartition(p).setFetchOffset(100)
                        .setPartitionMaxBytes(1 << 16));
            }
            data.topics().add(topic);
        }
        return frame(ApiKeys.FETCH, version, data);
    }

    /** A Produce of one small batch to each partition. */
    public static ByteBuf produce(short version, Topic... topics) {
        ProduceRequestData.TopicProduceDataCollection data = new ProduceRequestData.TopicProduceDataCollection();
        for (Topic t : topics) {
            ProduceRequestData.TopicProduceData topic = version >= PRODUCE_TOPIC_IDS
                    ? new ProduceRequestData.TopicProduceData().setTopicId(t.id())
                    : new ProduceRequestData.TopicProduceData().setName(t.name());
            for (int p : t.partitions()) {
                topic.partitionData().add(new ProduceRequestData.PartitionProduceData().setIndex(p).setRecords(
                        MemoryRecords.withRecords(Compression.NONE, new SimpleRecord(("v" + p).getBytes(StandardCharsets.UTF_8)))));
            }
            data.add(topic);
        }
        return frame(ApiKeys.PRODUCE, version,
                new ProduceRequestData().setAcks((short) -1).setTimeoutMs(30_000).setTopicData(data));
    }

    private static ByteBuf frame(ApiKeys key, short version, ApiMessage body) {
        RequestHeaderData header = new RequestHeaderData().setRequestApiKey(key.id).setRequestApiVersion(version)
                .setCorrelationId(7).setClientId("rack-test");
        short headerVersion = key.requestHeaderVersion(version);
        ObjectSerializationCache cache = new ObjectSerializationCache();
        ByteBuffer bytes = ByteBuffer.allocate(header.size(cache, headerVersion) + body.size(cache, version));
        ByteBufferAccessor out = new ByteBufferAccessor(bytes);
        header.write(out, cache, headerVersion);
        body.write(out, cache, version);
        return Unpooled.wrappedBuffer(bytes.array());
    }
}
