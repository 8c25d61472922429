package dev.weft.jmh.codec;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntPredicate;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchRequestData.FetchPartition;
import org.apache.kafka.common.message.FetchRequestData.FetchTopic;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.FetchResponseData.FetchableTopicResponse;
import org.apache.kafka.common.message.FetchResponseData.PartitionData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.record.internal.MemoryRecords;

/**
 * Real Fetch frames for the codec benchmarks (layout, batches and framing: {@link CodecFrames}): a
 * consumer's sessionless full fetch of {@code partitions} partitions, and the broker's answer carrying
 * one record batch per partition.
 */
final class FetchFrames {

    static final String CLIENT_ID = "bench-consumer";

    private FetchFrames() {
    }

    /** A consumer's Fetch request (no session, READ_UNCOMMITTED, rack "rack-a") for {@code partitions} partitions. */
    static FetchRequestData request(short version, int partitions) {
        return request(version, partitions, CodecFrames.PARTITIONS_PER_TOPIC);
    }

    /** The same with topics of at most {@code perTopic} partitions ({@link CodecFrames#topicSizes(int, int)}). */
    static FetchRequestData request(short version, int partitions, int perTopic) {
        FetchRequestData data = new FetchRequestData().setMaxWaitMs(500).setMinBytes(1).setMaxBytes(50 * 1024 * 1024)
                .setIsolationLevel((byte) 0).setSessionId(0).setSessionEpoch(-1).setRackId("rack-a");
        int[] sizes = CodecFrames.topicSizes(partitions, perTopic);
        Uuid[] ids = CodecFrames.topicIds(sizes.length, partitions * 31L + version);
        for (int t = 0; t < sizes.length; t++) {
            FetchTopic topic = new FetchTopic();
            if (version >= 13) {
                topic.setTopicId(ids[t]);
            } else {
                topic.setTopic(CodecFrames.topicName(t));
            }
            List<FetchPartition> list = new ArrayList<>(sizes[t]);
            for (int p = 0; p < sizes[t]; p++) {
                list.add(new FetchPartition().setPartition(p).setCurrentLeaderEpoch(5).setFetchOffset(1_000_000L + p)
                        .setLastFetchedEpoch(5).setLogStartOffset(-1).setPartitionMaxBytes(1024 * 1024));
            }
            topic.setPartitions(list);
            data.topics().add(topic);
        }
        return data;
    }

    /** The same request asking only for the partitions (numbered in wire order) that {@code keep} selects. */
    static FetchRequestData subset(FetchRequestData data, IntPredicate keep) {
        return copy(data, keep, false);
    }

    /** The same request as the proxy sends it upstream under the woven rename ({@link CodecFrames#upstreamName}). */
    static FetchRequestData upstream(FetchRequestData data) {
        return copy(data, i -> true, true);
    }

    /** Per topic of {@code data}, the upstream key the proxy sends instead of the client's (woven rename). */
    static byte[][] upstreamKeys(FetchRequestData data, short version) {
        byte[][] keys = new byte[data.topics().size()][];
        for (int t = 0; t < keys.length; t++) {
            FetchTopic topic = data.topics().get(t);
            keys[t] = CodecFrames.upstreamKey(topic.topic(), topic.topicId(), version >= 13);
        }
        return keys;
    }

    private static FetchRequestData copy(FetchRequestData data, IntPredicate keep, boolean renamed) {
        FetchRequestData out = data.duplicate().setTopics(new ArrayList<>());
        int i = 0;
        for (FetchTopic topic : data.topics()) {
            List<FetchPartition> list = new ArrayList<>();
            for (FetchPartition p : topic.partitions()) {
                if (keep.test(i++)) {
                    list.add(p);
                }
            }
            if (!list.isEmpty()) {
                out.topics().add(new FetchTopic()
                        .setTopic(renamed && !topic.topic().isEmpty() ? CodecFrames.upstreamName(topic.topic()) : topic.topic())
                        .setTopicId(renamed && !topic.topicId().equals(Uuid.ZERO_UUID) ? CodecFrames.upstreamId(topic.topicId()) : topic.topicId())
                        .setPartitions(list));
            }
        }
        return out;
    }

    /**
     * The response a broker sends for the partitions of {@code data} that {@code keep} selects, each
     * with {@code records} (no error, no aborted transactions, no preferred read replica).
     */
    static FetchResponseData response(FetchRequestData data, IntPredicate keep, MemoryRecords records) {
        FetchResponseData response = new FetchResponseData().setThrottleTimeMs(0).setErrorCode((short) 0)
                .setSessionId(0);
        int i = 0;
        for (FetchTopic topic : data.topics()) {
            List<PartitionData> list = new ArrayList<>();
            for (FetchPartition p : topic.partitions()) {
                if (keep.test(i++)) {
                    list.add(new PartitionData().setPartitionIndex(p.partition()).setErrorCode((short) 0)
                            .setHighWatermark(p.fetchOffset() + 10_000).setLastStableOffset(p.fetchOffset() + 10_000)
                            .setLogStartOffset(0).setAbortedTransactions(null).setPreferredReadReplica(-1)
                            .setRecords(records));
                }
            }
            if (!list.isEmpty()) {
                response.responses().add(new FetchableTopicResponse().setTopic(topic.topic()).setTopicId(topic.topicId())
                        .setPartitions(list));
            }
        }
        return response;
    }

    static RequestHeaderData header(short version, int correlationId) {
        return CodecFrames.header(ApiKeys.FETCH, version, correlationId, CLIENT_ID);
    }

    /** A request frame as the decoder hands it over (size prefix skipped). Caller releases. */
    static ByteBuf requestFrame(ByteBufAllocator alloc, short version, int correlationId, FetchRequestData data) {
        return CodecFrames.requestFrame(alloc, header(version, correlationId), data);
    }

    /** A response frame as the decoder hands it over (size prefix skipped). Caller releases. */
    static ByteBuf responseFrame(ByteBufAllocator alloc, short version, int correlationId, FetchResponseData data) {
        return CodecFrames.responseFrame(alloc, version, correlationId, data);
    }
}
