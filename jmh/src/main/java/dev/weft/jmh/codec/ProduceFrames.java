package dev.weft.jmh.codec;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntPredicate;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceRequestData.PartitionProduceData;
import org.apache.kafka.common.message.ProduceRequestData.TopicProduceData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.message.ProduceResponseData.TopicProduceResponse;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.record.internal.MemoryRecords;

/**
 * Real Produce frames for the codec benchmarks (layout, batches and framing: {@link CodecFrames}).
 */
final class ProduceFrames {

    static final String CLIENT_ID = "bench-producer";

    private ProduceFrames() {
    }

    /** A Produce request with {@code partitions} partitions, each holding {@code records}. */
    static ProduceRequestData request(short version, int partitions, MemoryRecords records) {
        ProduceRequestData data = new ProduceRequestData().setAcks((short) -1).setTimeoutMs(30_000)
                .setTransactionalId(null);
        int[] sizes = CodecFrames.topicSizes(partitions);
        Uuid[] ids = CodecFrames.topicIds(sizes.length, partitions * 31L + version);
        for (int t = 0; t < sizes.length; t++) {
            TopicProduceData topic = new TopicProduceData();
            if (version >= 13) {
                topic.setTopicId(ids[t]);
            } else {
                topic.setName(CodecFrames.topicName(t));
            }
            List<PartitionProduceData> list = new ArrayList<>(sizes[t]);
            for (int p = 0; p < sizes[t]; p++) {
                list.add(new PartitionProduceData().setIndex(p).setRecords(records));
            }
            topic.setPartitionData(list);
            data.topicData().add(topic);
        }
        return data;
    }

    /** The same request holding only the partitions (numbered in wire order) that {@code keep} selects. */
    static ProduceRequestData subset(ProduceRequestData data, IntPredicate keep) {
        return copy(data, keep, false);
    }

    /** The same request as the proxy sends it upstream under the woven rename ({@link CodecFrames#upstreamName}). */
    static ProduceRequestData upstream(ProduceRequestData data) {
        return copy(data, i -> true, true);
    }

    /** Per topic of {@code data}, the upstream key the proxy sends instead of the client's (woven rename). */
    static byte[][] upstreamKeys(ProduceRequestData data, short version) {
        byte[][] keys = new byte[data.topicData().size()][];
        int t = 0;
        for (TopicProduceData topic : data.topicData()) {
            keys[t++] = CodecFrames.upstreamKey(topic.name(), topic.topicId(), version >= 13);
        }
        return keys;
    }

    private static ProduceRequestData copy(ProduceRequestData data, IntPredicate keep, boolean renamed) {
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
                out.topicData().add(new TopicProduceData()
                        .setName(renamed && !topic.name().isEmpty() ? CodecFrames.upstreamName(topic.name()) : topic.name())
                        .setTopicId(renamed && !topic.topicId().equals(Uuid.ZERO_UUID) ? CodecFrames.upstreamId(topic.topicId()) : topic.topicId())
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
        return CodecFrames.header(ApiKeys.PRODUCE, version, correlationId, CLIENT_ID);
    }

    /** A request frame as the decoder hands it over (size prefix skipped). Caller releases. */
    static ByteBuf requestFrame(ByteBufAllocator alloc, short version, int correlationId, ProduceRequestData data) {
        return CodecFrames.requestFrame(alloc, header(version, correlationId), data);
    }

    /** A response frame as the decoder hands it over (size prefix skipped). Caller releases. */
    static ByteBuf responseFrame(ByteBufAllocator alloc, short version, int correlationId, ProduceResponseData data) {
        return CodecFrames.responseFrame(alloc, version, correlationId, data);
    }
}
