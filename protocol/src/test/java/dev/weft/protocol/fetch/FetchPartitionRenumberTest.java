package dev.weft.protocol.fetch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.protocol.skim.ChunkCountingAllocator;
import dev.weft.protocol.skim.Seeds;
import dev.weft.protocol.skim.SkimAsserts;
import dev.weft.protocol.skim.SkimFrames;
import dev.weft.protocol.skim.TestPartitionMap;
import dev.weft.protocol.skim.TestRewriter;
import dev.weft.protocol.skim.UpstreamPartitions;
import dev.weft.protocol.skim.UpstreamTopicKeys;
import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.IntPredicate;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchRequestData.FetchPartition;
import org.apache.kafka.common.message.FetchRequestData.FetchTopic;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.FetchResponseData.FetchableTopicResponse;
import org.apache.kafka.common.message.FetchResponseData.PartitionData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Partition renumbering on the Fetch hot path (partition weaving, issue #9): split with per-partition
 * upstream keys and indexes as a sessionless full fetch without forgotten topics, parse the parts with
 * kafka-clients, answer them under the upstream names/ids and indexes (some failed, some with top-level
 * errors, some incremental, partitions dropped and reordered), merge with the same keys and indexes and
 * check the client sees its own names/ids and indexes with the upstream's per-partition results and
 * records (retained slices, byte-identical). Every version, v4–18.
 */
class FetchPartitionRenumberTest {

    static final short FAILED = FetchResponseMerger.NOT_LEADER_OR_FOLLOWER;

    static short[] versions() {
        return FetchCases.versions();
    }

    /**
     * {@code orders} 0..5 is {@code orders-us} 0..2 on route 0 and {@code orders-eu} 0..2 on route 1;
     * {@code payments} 0 and 1 go to routes 0 and 1 as they are.
     */
    @ParameterizedTest(name = "Fetch v{0}")
    @MethodSource("versions")
    void ordersWovenFromTwoUpstreamTopics(short version) {
        boolean ids = version >= FetchRequestSkim.FIRST_TOPIC_ID_VERSION;
        boolean sessions = version >= FetchRequestSkim.FIRST_SESSION_VERSION;
        Random random = new Random(version * 137L);
        Uuid ordersId = Uuid.randomUuid();
        Uuid paymentsId = Uuid.randomUuid();
        Uuid usId = Uuid.randomUuid();
        Uuid euId = Uuid.randomUuid();
        FetchRequestData data = FetchCases.request(random, version);
        data.topics().clear();
        data.forgottenTopicsData().clear();
        FetchTopic orders = topic(ids, "orders", ordersId);
        for (int p = 0; p < 6; p++) {
            orders.partitions().add(partition(random, version, p));
        }
        FetchTopic payments = topic(ids, "payments", paymentsId);
        for (int p = 0; p < 2; p++) {
            payments.partitions().add(partition(random, version, p));
        }
        data.topics().add(orders);
        data.topics().add(payments);

        byte[] us = ids ? UpstreamTopicKeys.topicIdKey(usId) : UpstreamTopicKeys.nameKey("orders-us");
        byte[] eu = ids ? UpstreamTopicKeys.topicIdKey(euId) : UpstreamTopicKeys.nameKey("orders-eu");
        int[] routeOf = {0, 0, 0, 1, 1, 1, 0, 1};
        UpstreamTopicKeys keys = UpstreamTopicKeys.perPartition(new byte[][] {us, us, us, eu, eu, eu, null, null});
        UpstreamPartitions partitions = UpstreamPartitions.of(new int[] {0, 1, 2, 0, 1, 2, -1, -1});

        ByteBuf frame = SkimFrames.request(ApiKeys.FETCH, version, 61, "consumer", data);
        List<ByteBuf> frames = new ArrayList<>();
        try {
            FetchRequestSkim skim = new FetchRequestSkim().wrap(frame);
            FetchRequestBuilder builder = new FetchRequestBuilder().session(0, -1).topicKeys(keys).partitions(partitions);
            FetchRequestData[] expectedParts = new FetchRequestData[2];
            for (int r = 0; r < 2; r++) {
                FetchRequestData expected = data.duplicate();
                expected.unknownTaggedFields().addAll(data.unknownTaggedFields());
                expected.topics().clear();
                if (sessions) {
                    expected.setSessionId(0).setSessionEpoch(-1);
                }
                FetchTopic woven = topic(ids, r == 0 ? "orders-us" : "orders-eu", r == 0 ? usId : euId);
                for (int p = 0; p < 3; p++) {
                    woven.partitions().add(copy(orders.partitions().get(3 * r + p)).setPartition(p));
                }
                FetchTopic untouched = topic(ids, "payments", paymentsId);
                untouched.partitions().add(copy(payments.partitions().get(r)));
                expected.topics().add(woven);
                expected.topics().add(untouched);
                expectedParts[r] = expected;

                ByteBuf part = builder.build(skim, routeOf, r, 300 + r, SkimFrames.ALLOC);
                frames.add(part);
                FetchRequestBuilderTest.assertParsesTo(part, version, 300 + r, "consumer", expected);
            }

            // each upstream answers every partition under its names and indexes
            FetchResponseData[] upstream = new FetchResponseData[2];
            FetchResponseSkim[] answers = new FetchResponseSkim[2];
            ByteBuf[] answerFrames = new ByteBuf[2];
            for (int r = 0; r < 2; r++) {
                upstream[r] = FetchCases.response(random, version, expectedParts[r]).setSessionId(0);
                answerFrames[r] = SkimFrames.response(ApiKeys.FETCH, version, 400 + r, upstream[r]);
                frames.add(answerFrames[r]);
                answers[r] = new FetchResponseSkim().wrap(answerFrames[r], version);
            }
            TestRewriter rewriter = new TestRewriter(2);
            FetchResponseMerger merger = new FetchResponseMerger();
            ByteBuf merged = merger.merge(skim, routeOf, answers, keys, partitions, FAILED, FAILED, 0, rewriter, SkimFrames.ALLOC);
            FetchResponseData actual;
            try {
                FetchResponseMergerTest.assertRecordsAreSlices(answers, answerFrames, merged);
                actual = parse(merged, version, 61);
            } finally {
                merged.release();
            }

            assertEquals(2, actual.responses().size());
            FetchableTopicResponse gotOrders = actual.responses().get(0);
            assertEquals(ids ? "" : "orders", gotOrders.topic());
            assertEquals(ids ? ordersId : Uuid.ZERO_UUID, gotOrders.topicId());
            assertEquals(6, gotOrders.partitions().size());
            for (int p = 0; p < 6; p++) {
                PartitionData got = gotOrders.partitions().get(p);
                PartitionData sent = find(upstream[p / 3], ids ? "" : p < 3 ? "orders-us" : "orders-eu",
                        ids ? (p < 3 ? usId : euId) : Uuid.ZERO_UUID, p % 3);
                assertEquals(p, got.partitionIndex(), "the client's index");
                assertEquals(sent.records(), got.records(), "orders " + p + ": the upstream's record bytes");
                assertEquals(withIndex(sent, p, p / 3, rewriter), got, "orders " + p + ": the upstream's result");
            }
            FetchableTopicResponse gotPayments = actual.responses().get(1);
            assertEquals(ids ? "" : "payments", gotPayments.topic());
            for (int p = 0; p < 2; p++) {
                PartitionData sent = find(upstream[p], ids ? "" : "payments", ids ? paymentsId : Uuid.ZERO_UUID, p);
                assertEquals(withIndex(sent, p, p, rewriter), gotPayments.partitions().get(p), "payments " + p + ": untouched");
            }

            // merged without the indexes sent: orders 3..5 (sent as 0..2) find no answer
            ByteBuf unmatched = merger.merge(skim, routeOf, answers, keys, FAILED, FAILED, 0, rewriter, SkimFrames.ALLOC);
            List<PartitionData> ordersResults;
            try {
                ordersResults = parse(unmatched, version, 61).responses().get(0).partitions();
            } finally {
                unmatched.release();
            }
            for (int p = 3; p < 6; p++) {
                assertEquals(FetchResponseMergerTest.errorEntry(p), ordersResults.get(p), "orders " + p + " matched only by the index sent");
            }
        } finally {
            frames.forEach(ByteBuf::release);
            frame.release();
        }
    }

    @ParameterizedTest(name = "Fetch v{0}")
    @MethodSource("versions")
    void randomWeavesSplitAndMergeBack(short version) {
        long seed = Seeds.seed();
        Random random = new Random(seed * 47 + version);
        FetchRequestSkim skim = new FetchRequestSkim();
        FetchRequestBuilder builder = new FetchRequestBuilder();
        FetchResponseSkim[] skims = {new FetchResponseSkim(), new FetchResponseSkim(), new FetchResponseSkim()};
        FetchResponseMerger merger = new FetchResponseMerger();
        int[] changed = {0};
        Seeds.replayable(seed, "Fetch v" + version + " renumbered split and merge", () -> {
            for (int round = 0; round < 40; round++) {
                changed[0] += runCase(random, version, skim, builder, skims, merger);
            }
        });
        assertTrue(changed[0] > 0, "some partitions were moved or renumbered");
    }

    private static int runCase(Random random, short version, FetchRequestSkim skim, FetchRequestBuilder builder,
                               FetchResponseSkim[] skims, FetchResponseMerger merger) {
        FetchRequestData data = FetchCases.request(random, version);
        int correlationId = random.nextInt();
        ByteBuf frame = SkimFrames.request(ApiKeys.FETCH, version, correlationId, "consumer", data);
        List<ByteBuf> frames = new ArrayList<>();
        ByteBuf merged = null;
        try {
            skim.wrap(frame);
            TestPartitionMap weave = weave(random, data, version);
            int routes = 1 + random.nextInt(skims.length);
            int[] routeOf = new int[skim.partitionCount()];
            for (int i = 0; i < routeOf.length; i++) {
                routeOf[i] = random.nextInt(routes);
            }

            boolean sessions = version >= FetchRequestSkim.FIRST_SESSION_VERSION;
            builder.reset().session(0, -1).topicKeys(weave.asKeys()).partitions(weave.asPartitions());
            FetchResponseMergerTest.Upstream[] kinds = new FetchResponseMergerTest.Upstream[routes];
            FetchResponseData[] upstream = new FetchResponseData[routes];
            FetchResponseSkim[] answers = new FetchResponseSkim[routes];
            ByteBuf[] answerFrames = new ByteBuf[routes];
            for (int route = 0; route < routes; route++) {
                int partCorrelation = random.nextInt();
                ByteBuf part = builder.build(skim, routeOf, route, partCorrelation, SkimFrames.ALLOC);
                frames.add(part);
                int r = route;
                FetchRequestData expected = expectedPart(data, weave, i -> routeOf[i] == r);
                if (sessions) {
                    expected.setSessionId(0).setSessionEpoch(-1);
                }
                FetchRequestBuilderTest.assertParsesTo(part, version, partCorrelation, "consumer", expected);

                int roll = random.nextInt(10);
                kinds[r] = roll == 0 ? FetchResponseMergerTest.Upstream.FAILED
                        : roll == 1 && sessions ? FetchResponseMergerTest.Upstream.TOP_LEVEL_ERROR
                        : roll < 4 && sessions ? FetchResponseMergerTest.Upstream.INCREMENTAL
                        : FetchResponseMergerTest.Upstream.FULL;
                if (kinds[r] == FetchResponseMergerTest.Upstream.FAILED) {
                    continue;
                }
                int partPartitions = 0;
                for (FetchTopic topic : expected.topics()) {
                    partPartitions += topic.partitions().size();
                }
                upstream[r] = FetchResponseMergerTest.upstreamResponse(random, version, expected, new int[partPartitions], 0,
                        kinds[r], new HashSet<>());
                answerFrames[r] = SkimFrames.response(ApiKeys.FETCH, version, random.nextInt(), upstream[r]);
                frames.add(answerFrames[r]);
                answers[r] = skims[r].wrap(answerFrames[r], version);
            }
            builder.reset();

            TestRewriter rewriter = new TestRewriter(routes);
            merged = merger.merge(skim, routeOf, answers, weave.asKeys(), weave.asPartitions(), FAILED, FAILED, 0, rewriter,
                    SkimFrames.ALLOC);
            FetchResponseMergerTest.assertRecordsAreSlices(answers, answerFrames, merged);
            FetchResponseData actual = parse(merged, version, correlationId);
            FetchResponseData expected = expectedMerge(data, weave, routeOf, kinds, upstream, rewriter);
            expected.nodeEndpoints().addAll(SkimAsserts.expectedUnion(rewriter, upstream, FetchResponseData::nodeEndpoints,
                    FetchCases::fields, FetchCases::endpoint));
            assertEquals(expected.responses(), actual.responses(),
                    "the client's topics and indexes, the upstreams' results and records (" + weave + ")");
            assertEquals(expected, actual);
            return weave.changed;
        } finally {
            if (merged != null) {
                merged.release();
            }
            frames.forEach(ByteBuf::release);
            frame.release();
        }
    }

    /** Many upstream topics, some with long names, in one part: the size hint still covers them in one chunk. */
    @ParameterizedTest(name = "Fetch v{0}")
    @MethodSource("versions")
    void groupedSplitTakesOneMetadataChunk(short version) {
        boolean ids = version >= FetchRequestSkim.FIRST_TOPIC_ID_VERSION;
        FetchRequestData data = new FetchRequestData().setMaxWaitMs(500).setReplicaId(-1);
        int partitionsPerTopic = 8;
        byte[][] keys = new byte[3 * partitionsPerTopic][];
        int[] indexes = new int[keys.length];
        for (int t = 0; t < 3; t++) {
            FetchTopic topic = topic(ids, "t" + t, Uuid.randomUuid());
            for (int p = 0; p < partitionsPerTopic; p++) {
                topic.partitions().add(new FetchPartition().setPartition(p).setFetchOffset(1));
                int i = t * partitionsPerTopic + p;
                keys[i] = ids ? UpstreamTopicKeys.topicIdKey(Uuid.randomUuid()) : UpstreamTopicKeys.nameKey("n".repeat(300) + i);
                indexes[i] = 1000 + i;
            }
            data.topics().add(topic);
        }
        ByteBuf frame = SkimFrames.request(ApiKeys.FETCH, version, 5, "c", data);
        try {
            FetchRequestSkim skim = new FetchRequestSkim().wrap(frame);
            ChunkCountingAllocator counting = new ChunkCountingAllocator();
            ByteBuf part = new FetchRequestBuilder().topicKeys(UpstreamTopicKeys.perPartition(keys))
                    .partitions(UpstreamPartitions.of(indexes)).build(skim, new int[skim.partitionCount()], 0, 9, counting);
            part.release();
            assertEquals(1, counting.buffers, "metadata chunks for a split into " + keys.length + " upstream topics");
        } finally {
            frame.release();
        }
    }

    static TestPartitionMap weave(Random random, FetchRequestData data, short version) {
        List<String> names = new ArrayList<>();
        List<Uuid> ids = new ArrayList<>();
        List<Integer> topicOf = new ArrayList<>();
        List<Integer> indexOf = new ArrayList<>();
        for (FetchTopic topic : data.topics()) {
            for (FetchPartition partition : topic.partitions()) {
                topicOf.add(names.size());
                indexOf.add(partition.partition());
            }
            names.add(topic.topic());
            ids.add(topic.topicId());
        }
        return TestPartitionMap.random(random, names, ids, topicOf.stream().mapToInt(Integer::intValue).toArray(),
                indexOf.stream().mapToInt(Integer::intValue).toArray(), version >= FetchRequestSkim.FIRST_TOPIC_ID_VERSION);
    }

    /**
     * What the part with the chosen partitions must equal: the client's top-level fields, no forgotten
     * topics, one topic per distinct upstream topic in the order its first partition comes, partitions in
     * the client's order with their upstream index and the client's fields and tagged fields; topic
     * tagged fields of the first partition's client topic.
     */
    static FetchRequestData expectedPart(FetchRequestData data, TestPartitionMap weave, IntPredicate chosen) {
        FetchRequestData out = data.duplicate();
        out.unknownTaggedFields().addAll(data.unknownTaggedFields());
        out.topics().clear();
        out.forgottenTopicsData().clear();
        Map<String, FetchTopic> groups = new LinkedHashMap<>();
        int i = 0;
        for (FetchTopic topic : data.topics()) {
            for (FetchPartition partition : topic.partitions()) {
                if (chosen.test(i)) {
                    int at = i;
                    FetchTopic group = groups.computeIfAbsent(weave.upstreamTopic(i), k -> {
                        FetchTopic g = new FetchTopic().setTopic(weave.upstreamNames[at]).setTopicId(weave.upstreamIds[at]);
                        g.unknownTaggedFields().addAll(topic.unknownTaggedFields());
                        return g;
                    });
                    group.partitions().add(copy(partition).setPartition(weave.upstreamIndexes[i]));
                }
                i++;
            }
        }
        out.topics().addAll(groups.values());
        return out;
    }

    /**
     * Per client partition, what its upstream gave under (upstream topic, upstream index), with the
     * client's index; failed upstreams and partitions missing from full answers get the error entry,
     * partitions missing from incremental answers are left out, as are topics left empty.
     */
    static FetchResponseData expectedMerge(FetchRequestData data, TestPartitionMap weave, int[] routeOf,
                                           FetchResponseMergerTest.Upstream[] kinds, FetchResponseData[] upstream,
                                           TestRewriter rewriter) {
        FetchResponseData out = new FetchResponseData().setSessionId(0);
        for (FetchResponseData response : upstream) {
            if (response != null) {
                out.setThrottleTimeMs(Math.max(out.throttleTimeMs(), response.throttleTimeMs()));
            }
        }
        int i = 0;
        for (FetchTopic topic : data.topics()) {
            List<PartitionData> partitions = new ArrayList<>();
            for (FetchPartition partition : topic.partitions()) {
                int route = routeOf[i];
                FetchResponseMergerTest.Upstream kind = kinds[route];
                PartitionData found = kind == FetchResponseMergerTest.Upstream.FAILED
                        || kind == FetchResponseMergerTest.Upstream.TOP_LEVEL_ERROR ? null
                        : find(upstream[route], weave.upstreamNames[i], weave.upstreamIds[i], weave.upstreamIndexes[i]);
                if (found != null) {
                    partitions.add(withIndex(found, partition.partition(), route, rewriter));
                } else if (kind != FetchResponseMergerTest.Upstream.INCREMENTAL) {
                    partitions.add(FetchResponseMergerTest.errorEntry(partition.partition()));
                }
                i++;
            }
            if (!partitions.isEmpty()) {
                out.responses().add(new FetchableTopicResponse().setTopic(topic.topic()).setTopicId(topic.topicId())
                        .setPartitions(partitions));
            }
        }
        return out;
    }

    private static PartitionData find(FetchResponseData response, String name, Uuid id, int index) {
        for (FetchableTopicResponse t : response.responses()) {
            if (t.topic().equals(name) && t.topicId().equals(id)) {
                for (PartitionData p : t.partitions()) {
                    if (p.partitionIndex() == index) {
                        return p;
                    }
                }
            }
        }
        return null;
    }

    /** An upstream result as the client must see it: its own index, node ids through the rewriter, all else as sent. */
    static PartitionData withIndex(PartitionData found, int clientIndex, int route, TestRewriter rewriter) {
        PartitionData copy = found.duplicate().setPartitionIndex(clientIndex);
        copy.unknownTaggedFields().addAll(found.unknownTaggedFields());
        if (found.abortedTransactions() != null) {
            for (int k = 0; k < found.abortedTransactions().size(); k++) {
                copy.abortedTransactions().get(k).unknownTaggedFields()
                        .addAll(found.abortedTransactions().get(k).unknownTaggedFields());
            }
        }
        copy.currentLeader().setLeaderId(rewriter.nodeId(route, found.currentLeader().leaderId()));
        copy.setPreferredReadReplica(rewriter.nodeId(route, found.preferredReadReplica()));
        return copy;
    }

    private static FetchPartition copy(FetchPartition partition) {
        FetchPartition copy = partition.duplicate();
        copy.unknownTaggedFields().addAll(partition.unknownTaggedFields());
        return copy;
    }

    private static FetchPartition partition(Random random, short version, int index) {
        FetchPartition p = new FetchPartition().setPartition(index).setFetchOffset(random.nextLong() >>> 3)
                .setPartitionMaxBytes(1 << 20);
        if (version >= FetchRequestSkim.FIRST_CURRENT_LEADER_EPOCH_VERSION) {
            p.setCurrentLeaderEpoch(random.nextInt(50));
        }
        if (version >= FetchRequestSkim.FIRST_LOG_START_OFFSET_VERSION) {
            p.setLogStartOffset(random.nextLong() >>> 4);
        }
        return p;
    }

    /** Parses a merged response (borrowed). */
    private static FetchResponseData parse(ByteBuf merged, short version, int correlationId) {
        SkimFrames.Response parsed = SkimFrames.parseResponse(merged, ApiKeys.FETCH, version);
        assertEquals(correlationId, parsed.header().correlationId());
        FetchResponseData actual = new FetchResponseData(parsed.body(), version);
        SkimFrames.assertConsumed(parsed.body());
        return actual;
    }

    private static FetchTopic topic(boolean ids, String name, Uuid id) {
        return ids ? new FetchTopic().setTopicId(id) : new FetchTopic().setTopic(name);
    }
}
