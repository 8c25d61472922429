package dev.weft.protocol.skim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.protocol.fetch.FetchRequestSkim;
import dev.weft.protocol.fetch.FetchResponseMerger;
import dev.weft.protocol.fetch.FetchResponseSkim;
import dev.weft.protocol.produce.ProduceRequestBuilder;
import dev.weft.protocol.produce.ProduceRequestSkim;
import io.netty.buffer.ByteBuf;
import java.util.Random;
import org.apache.kafka.common.Uuid;
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

    /**
     * Partition weaving of the 3 × 4 partitions of {@link #produce} or {@link #mergeBytes}: partition p of
     * topic t goes upstream as partition {@code 4t + p} of {@code woven-(p % 2)} (16-byte ids from
     * {@code FIRST_TOPIC_ID_VERSION}): one client topic in two upstream topics, each upstream topic
     * holding partitions of every client topic.
     */
    static final class Weave {
        final byte[][] keys = new byte[12][];
        final int[] indexes = new int[12];
        final String[] names = {"woven-0", "woven-1"};
        final Uuid[] ids = {Uuid.randomUuid(), Uuid.randomUuid()};

        Weave(boolean topicIds) {
            byte[][] upstream = new byte[2][];
            for (int k = 0; k < 2; k++) {
                upstream[k] = topicIds ? UpstreamTopicKeys.topicIdKey(ids[k]) : UpstreamTopicKeys.nameKey(names[k]);
            }
            for (int i = 0; i < 12; i++) {
                keys[i] = upstream[(i % 4) % 2];
                indexes[i] = i;
            }
        }
    }

    long splitBytes(MemoryRecords records, short version) {
        return splitBytes(records, version, false);
    }

    long splitBytes(MemoryRecords records, short version, boolean renumber) {
        ByteBuf frame = SkimFrames.request(ApiKeys.PRODUCE, version, 1, "c", produce(records));
        CountingAllocator counting = new CountingAllocator();
        try {
            ProduceRequestSkim skim = new ProduceRequestSkim().wrap(frame);
            int[] routeOf = new int[skim.partitionCount()];
            for (int i = 0; i < routeOf.length; i++) {
                routeOf[i] = i % 2;
            }
            ProduceRequestBuilder builder = new ProduceRequestBuilder();
            if (renumber) {
                Weave weave = new Weave(skim.usesTopicIds());
                builder.topicKeys(UpstreamTopicKeys.perPartition(weave.keys)).partitions(UpstreamPartitions.of(weave.indexes));
            }
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
        return mergeBytes(records, version, null);
    }

    /** With {@code weave}: the answers come under the woven names/ids and indexes, merged with them. */
    long mergeBytes(MemoryRecords records, short version, Weave weave) {
        boolean topicIds = version >= FetchRequestSkim.FIRST_TOPIC_ID_VERSION;
        FetchRequestData request = new FetchRequestData().setMaxWaitMs(500).setReplicaId(-1);
        FetchResponseData[] answers = {new FetchResponseData(), new FetchResponseData()};
        FetchResponseData.FetchableTopicResponse[][] woven = new FetchResponseData.FetchableTopicResponse[2][2];
        for (int t = 0; t < 3; t++) {
            String name = topicIds ? "" : "topic-" + t;
            Uuid id = topicIds ? Uuid.randomUuid() : Uuid.ZERO_UUID;
            FetchRequestData.FetchTopic topic = new FetchRequestData.FetchTopic().setTopic(name).setTopicId(id);
            FetchResponseData.FetchableTopicResponse[] parts = {
                new FetchResponseData.FetchableTopicResponse().setTopic(name).setTopicId(id),
                new FetchResponseData.FetchableTopicResponse().setTopic(name).setTopicId(id)};
            for (int p = 0; p < 4; p++) {
                topic.partitions().add(new FetchRequestData.FetchPartition().setPartition(p).setFetchOffset(10));
                int route = p % 2;
                FetchResponseData.PartitionData result = new FetchResponseData.PartitionData().setPartitionIndex(p)
                        .setHighWatermark(100).setRecords(records);
                if (weave == null) {
                    parts[route].partitions().add(result);
                    continue;
                }
                int i = 4 * t + p;
                int k = (i % 4) % 2;
                if (woven[route][k] == null) {
                    woven[route][k] = new FetchResponseData.FetchableTopicResponse()
                            .setTopic(topicIds ? "" : weave.names[k]).setTopicId(topicIds ? weave.ids[k] : Uuid.ZERO_UUID);
                    answers[route].responses().add(woven[route][k]);
                }
                woven[route][k].partitions().add(result.setPartitionIndex(weave.indexes[i]));
            }
            request.topics().add(topic);
            if (weave == null) {
                answers[0].responses().add(parts[0]);
                answers[1].responses().add(parts[1]);
            }
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
            ByteBuf merged = weave == null
                    ? new FetchResponseMerger().merge(skim, routeOf, skims, (short) 6, 0, NodeEndpointRewriter.IDENTITY, counting)
                    : new FetchResponseMerger().merge(skim, routeOf, skims, UpstreamTopicKeys.perPartition(weave.keys),
                            UpstreamPartitions.of(weave.indexes), (short) 6, (short) 6, 0, NodeEndpointRewriter.IDENTITY, counting);
            if (weave != null) {
                assertMatchedAll(merged, version);
            }
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

    @Test
    void renumberedProduceSplitAllocatesTheSameForTinyAndLargeBatches() {
        for (short version : new short[] {3, 8, 9, 12, 13}) {
            MemoryRecords tiny = records(1, 3);
            MemoryRecords large = records(100_000, 3);
            long small = splitBytes(tiny, version, true);
            long big = splitBytes(large, version, true);
            assertTrue(Math.abs(big - small) <= 64, "v" + version + " renumbered: " + small
                    + " bytes allocated for tiny batches, " + big + " for batches of " + large.sizeInBytes() + " bytes");
        }
    }

    @Test
    void renumberedFetchMergeAllocatesTheSameForTinyAndLargeBatches() {
        for (short version : new short[] {4, 11, 12, 13, 16, 18}) {
            Weave weave = new Weave(version >= FetchRequestSkim.FIRST_TOPIC_ID_VERSION);
            long small = mergeBytes(records(1, 4), version, weave);
            long big = mergeBytes(records(100_000, 4), version, weave);
            assertTrue(Math.abs(big - small) <= 64, "v" + version + " renumbered: " + small
                    + " bytes allocated for tiny batches, " + big + " for large ones");
        }
    }

    /** Every partition of a woven merge found its answer (none synthesized): the weave really matched. */
    private static void assertMatchedAll(ByteBuf merged, short version) {
        SkimFrames.Response parsed = SkimFrames.parseResponse(merged, ApiKeys.FETCH, version);
        FetchResponseData data = new FetchResponseData(parsed.body(), version);
        int partitions = 0;
        for (FetchResponseData.FetchableTopicResponse topic : data.responses()) {
            for (int p = 0; p < topic.partitions().size(); p++) {
                FetchResponseData.PartitionData partition = topic.partitions().get(p);
                assertEquals(0, partition.errorCode(), "partition " + p + " of " + topic.topic() + " matched");
                assertEquals(p, partition.partitionIndex(), "the client's index");
                partitions++;
            }
        }
        assertEquals(12, partitions);
    }
}
