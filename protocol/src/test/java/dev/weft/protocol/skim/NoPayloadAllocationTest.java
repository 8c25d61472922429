package dev.weft.protocol.skim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.protocol.fetch.FetchRequestSkim;
import dev.weft.protocol.fetch.FetchResponseMerger;
import dev.weft.protocol.fetch.FetchResponseSkim;
import dev.weft.protocol.produce.ProduceRequestBuilder;
import dev.weft.protocol.produce.ProduceRequestSkim;
import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.util.Random;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.junit.jupiter.api.Test;

/**
 * DESIGN §3: bytes allocated per split or merge must not grow with the record batches. The same
 * layout is built with tiny and with ~100 KB batches through an allocator that counts every byte
 * asked of it; the two counts must agree (up to a varint length). The JMH benchmark measures the heap
 * side; this pins the buffer side in every build.
 */
class NoPayloadAllocationTest {

    /** Delegates to the pooled allocator and counts the capacity asked for. */
    static final class CountingAllocator extends AbstractByteBufAllocator {
        long requested;

        CountingAllocator() {
            super(true);
        }

        @Override
        protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
            requested += initialCapacity;
            return PooledByteBufAllocator.DEFAULT.heapBuffer(initialCapacity, maxCapacity);
        }

        @Override
        protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
            requested += initialCapacity;
            return PooledByteBufAllocator.DEFAULT.directBuffer(initialCapacity, maxCapacity);
        }

        @Override
        public boolean isDirectBufferPooled() {
            return true;
        }
    }

    static MemoryRecords records(int valueBytes, long seed) {
        Random random = new Random(seed);
        return TestRecords.batch(random, Compression.NONE, TimestampType.CREATE_TIME, 0, 1000, (short) 1, 0, false,
                4, valueBytes);
    }

    static ProduceRequestData produce(MemoryRecords records) {
        ProduceRequestData data = new ProduceRequestData().setAcks((short) -1).setTimeoutMs(30_000);
        for (int t = 0; t < 3; t++) {
            ProduceRequestData.TopicProduceData topic = new ProduceRequestData.TopicProduceData().setName("topic-" + t);
            for (int p = 0; p < 4; p++) {
                topic.partitionData().add(new ProduceRequestData.PartitionProduceData().setIndex(p).setRecords(records));
            }
            data.topicData().add(topic);
        }
        return data;
    }

    long splitBytes(MemoryRecords records, short version) {
        ByteBuf frame = SkimFrames.request(ApiKeys.PRODUCE, version, 1, "c", produce(records));
        CountingAllocator counting = new CountingAllocator();
        try {
            ProduceRequestSkim skim = new ProduceRequestSkim().wrap(frame);
            int[] routeOf = new int[skim.partitionCount()];
            for (int i = 0; i < routeOf.length; i++) {
                routeOf[i] = i % 2;
            }
            ProduceRequestBuilder builder = new ProduceRequestBuilder();
            for (int route = 0; route < 2; route++) {
                ByteBuf part = builder.build(skim, routeOf, route, 7, counting);
                assertTrue(part.readableBytes() > skim.recordsBytes() / 3, "the records are in the split");
                part.release();
            }
            return counting.requested;
        } finally {
            frame.release();
        }
    }

    @Test
    void produceSplitAllocatesTheSameForTinyAndLargeBatches() {
        for (short version : new short[] {3, 8, 9, 13}) {
            MemoryRecords tiny = records(1, 1);
            MemoryRecords large = records(100_000, 1);
            long small = splitBytes(tiny, version);
            long big = splitBytes(large, version);
            assertTrue(large.sizeInBytes() > 100 * tiny.sizeInBytes(), "the batches really differ in size");
            assertTrue(Math.abs(big - small) <= 64, "v" + version + ": " + small + " bytes allocated for tiny batches, " + big
                    + " for batches of " + large.sizeInBytes() + " bytes");
        }
    }

    long mergeBytes(MemoryRecords records, short version) {
        FetchRequestData request = new FetchRequestData().setMaxWaitMs(500).setReplicaId(-1);
        FetchResponseData[] answers = {new FetchResponseData(), new FetchResponseData()};
        for (int t = 0; t < 3; t++) {
            FetchRequestData.FetchTopic topic = new FetchRequestData.FetchTopic().setTopic("topic-" + t);
            FetchResponseData.FetchableTopicResponse[] parts = {
                new FetchResponseData.FetchableTopicResponse().setTopic("topic-" + t),
                new FetchResponseData.FetchableTopicResponse().setTopic("topic-" + t)};
            for (int p = 0; p < 4; p++) {
                topic.partitions().add(new FetchRequestData.FetchPartition().setPartition(p).setFetchOffset(10));
                parts[p % 2].partitions().add(new FetchResponseData.PartitionData().setPartitionIndex(p)
                        .setHighWatermark(100).setRecords(records));
            }
            request.topics().add(topic);
            answers[0].responses().add(parts[0]);
            answers[1].responses().add(parts[1]);
        }
        ByteBuf requestFrame = SkimFrames.request(ApiKeys.FETCH, version, 1, "c", request);
        ByteBuf[] frames = {SkimFrames.response(ApiKeys.FETCH, version, 2, answers[0]),
            SkimFrames.response(ApiKeys.FETCH, version, 3, answers[1])};
        CountingAllocator counting = new CountingAllocator();
        try {
            FetchRequestSkim skim = new FetchRequestSkim().wrap(requestFrame);
            FetchResponseSkim[] skims = {new FetchResponseSkim().wrap(frames[0], version),
                new FetchResponseSkim().wrap(frames[1], version)};
            int[] routeOf = new int[skim.partitionCount()];
            for (int i = 0; i < routeOf.length; i++) {
                routeOf[i] = i % 2;
            }
            ByteBuf merged = new FetchResponseMerger().merge(skim, routeOf, skims, (short) 6, 0,
                    NodeEndpointRewriter.IDENTITY, counting);
            assertTrue(merged.readableBytes() > skims[0].recordsBytes() + skims[1].recordsBytes());
            merged.release();
            ByteBuf forwarded = skims[0].rewriteNodeEndpoints(NodeEndpointRewriter.IDENTITY, 0, counting);
            assertEquals(frames[0].readableBytes() + 4, forwarded.readableBytes());
            forwarded.release();
            return counting.requested;
        } finally {
            requestFrame.release();
            frames[0].release();
            frames[1].release();
        }
    }

    @Test
    void fetchMergeAndEndpointRewriteAllocateTheSameForTinyAndLargeBatches() {
        for (short version : new short[] {4, 11, 12, 16, 18}) {
            long small = mergeBytes(records(1, 2), version);
            long big = mergeBytes(records(100_000, 2), version);
            assertTrue(Math.abs(big - small) <= 64, "v" + version + ": " + small + " bytes allocated for tiny batches, "
                    + big + " for large ones");
        }
    }
}
