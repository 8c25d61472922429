package dev.weft.protocol.produce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.protocol.skim.ChunkCountingAllocator;
import dev.weft.protocol.skim.Seeds;
import dev.weft.protocol.skim.SkimAsserts;
import dev.weft.protocol.skim.SkimFrames;
import dev.weft.protocol.skim.TestPartitionMap;
import dev.weft.protocol.skim.TestRecords;
import dev.weft.protocol.skim.TestRewriter;
import dev.weft.protocol.skim.UpstreamPartitions;
import dev.weft.protocol.skim.UpstreamTopicKeys;
import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.IntPredicate;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceRequestData.PartitionProduceData;
import org.apache.kafka.common.message.ProduceRequestData.TopicProduceData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.message.ProduceResponseData.TopicProduceResponse;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Partition renumbering on the Produce hot path (partition weaving, issue #9): split with per-partition
 * upstream keys ({@link UpstreamTopicKeys#perPartition}) and indexes ({@link UpstreamPartitions}), parse
 * the parts with kafka-clients, answer them under the upstream names/ids and indexes, merge with the
 * same keys and indexes and check the client sees its own names/ids and indexes with the upstream's
 * per-partition results. Every version, v3–13.
 */
class ProducePartitionRenumberTest {

    static final short FAILED = ProduceResponseMerger.NOT_LEADER_OR_FOLLOWER;

    static short[] versions() {
        return ProduceCases.versions();
    }

    /**
     * {@code orders} 0..5 is {@code orders-us} 0..2 on route 0 and {@code orders-eu} 0..2 on route 1;
     * {@code payments} 0 and 1 go to routes 0 and 1 as they are.
     */
    @ParameterizedTest(name = "Produce v{0}")
    @MethodSource("versions")
    void ordersWovenFromTwoUpstreamTopics(short version) {
        boolean ids = version >= ProduceRequestSkim.FIRST_TOPIC_ID_VERSION;
        Random random = new Random(version * 131L);
        Uuid ordersId = Uuid.randomUuid();
        Uuid paymentsId = Uuid.randomUuid();
        Uuid usId = Uuid.randomUuid();
        Uuid euId = Uuid.randomUuid();
        MemoryRecords[] orders = new MemoryRecords[6];
        MemoryRecords[] payments = {TestRecords.random(random), TestRecords.random(random)};
        ProduceRequestData data = new ProduceRequestData().setAcks((short) -1).setTimeoutMs(30_000);
        TopicProduceData ordersTopic = topic(ids, "orders", ordersId);
        for (int p = 0; p < 6; p++) {
            orders[p] = TestRecords.random(random);
            ordersTopic.partitionData().add(new PartitionProduceData().setIndex(p).setRecords(orders[p]));
        }
        TopicProduceData paymentsTopic = topic(ids, "payments", paymentsId);
        for (int p = 0; p < 2; p++) {
            paymentsTopic.partitionData().add(new PartitionProduceData().setIndex(p).setRecords(payments[p]));
        }
        data.topicData().add(ordersTopic);
        data.topicData().add(paymentsTopic);

        byte[] us = ids ? UpstreamTopicKeys.topicIdKey(usId) : UpstreamTopicKeys.nameKey("orders-us");
        byte[] eu = ids ? UpstreamTopicKeys.topicIdKey(euId) : UpstreamTopicKeys.nameKey("orders-eu");
        int[] routeOf = {0, 0, 0, 1, 1, 1, 0, 1};
        UpstreamTopicKeys keys = UpstreamTopicKeys.perPartition(new byte[][] {us, us, us, eu, eu, eu, null, null});
        UpstreamPartitions partitions = UpstreamPartitions.of(new int[] {0, 1, 2, 0, 1, 2, -1, -1});

        ByteBuf frame = SkimFrames.request(ApiKeys.PRODUCE, version, 41, "producer", data);
        List<ByteBuf> frames = new ArrayList<>();
        try {
            ProduceRequestSkim skim = new ProduceRequestSkim().wrap(frame);
            ProduceRequestBuilder builder = new ProduceRequestBuilder().topicKeys(keys).partitions(partitions);

            ByteBuf part0 = builder.build(skim, routeOf, 0, 100, SkimFrames.ALLOC);
            frames.add(part0);
            ProduceRequestData expected0 = new ProduceRequestData().setAcks((short) -1).setTimeoutMs(30_000);
            expected0.topicData().add(topic(ids, "orders-us", usId, orders[0], orders[1], orders[2]));
            expected0.topicData().add(topic(ids, "payments", paymentsId, payments[0]));
            ProduceRequestBuilderTest.assertParsesTo(part0, version, 100, "producer", expected0);
            ProduceRequestBuilderTest.assertSharesRecordsWithFrame(skim, frame, part0, routeOf, 0);

            ByteBuf part1 = builder.build(skim, routeOf, 1, 101, SkimFrames.ALLOC);
            frames.add(part1);
            ProduceRequestData expected1 = new ProduceRequestData().setAcks((short) -1).setTimeoutMs(30_000);
            expected1.topicData().add(topic(ids, "orders-eu", euId, orders[3], orders[4], orders[5]));
            TopicProduceData payments1 = topic(ids, "payments", paymentsId);
            payments1.partitionData().add(new PartitionProduceData().setIndex(1).setRecords(payments[1]));
            expected1.topicData().add(payments1);
            ProduceRequestBuilderTest.assertParsesTo(part1, version, 101, "producer", expected1);
            ProduceRequestBuilderTest.assertSharesRecordsWithFrame(skim, frame, part1, routeOf, 1);

            // each upstream answers under its names and indexes
            ProduceResponseData[] upstream = {answer(random, version, expected0), answer(random, version, expected1)};
            ProduceResponseSkim[] answers = new ProduceResponseSkim[2];
            for (int r = 0; r < 2; r++) {
                ByteBuf response = SkimFrames.response(ApiKeys.PRODUCE, version, 200 + r, upstream[r]);
                frames.add(response);
                answers[r] = new ProduceResponseSkim().wrap(response, version);
            }
            TestRewriter rewriter = new TestRewriter(2);
            ProduceResponseMerger merger = new ProduceResponseMerger();
            ProduceResponseData actual = parse(merger.merge(skim, routeOf, answers, keys, partitions, FAILED, rewriter,
                    SkimFrames.ALLOC), version, 41);

            List<TopicProduceResponse> topics = new ArrayList<>(actual.responses());
            assertEquals(2, topics.size());
            assertEquals(ids ? "" : "orders", topics.get(0).name());
            assertEquals(ids ? ordersId : Uuid.ZERO_UUID, topics.get(0).topicId());
            assertEquals(ids ? "" : "payments", topics.get(1).name());
            for (int p = 0; p < 6; p++) {
                PartitionProduceResponse got = topics.get(0).partitionResponses().get(p);
                PartitionProduceResponse sent = p < 3
                        ? find(upstream[0], ids ? "" : "orders-us", ids ? usId : Uuid.ZERO_UUID, p)
                        : find(upstream[1], ids ? "" : "orders-eu", ids ? euId : Uuid.ZERO_UUID, p - 3);
                assertEquals(p, got.index(), "the client's index");
                assertEquals(withIndex(sent, p, p < 3 ? 0 : 1, rewriter), got, "orders " + p + ": the upstream's result");
            }
            for (int p = 0; p < 2; p++) {
                PartitionProduceResponse got = topics.get(1).partitionResponses().get(p);
                PartitionProduceResponse sent = find(upstream[p], ids ? "" : "payments", ids ? paymentsId : Uuid.ZERO_UUID, p);
                assertEquals(withIndex(sent, p, p, rewriter), got, "payments " + p + ": untouched");
            }

            // merged without the indexes sent: orders 3..5 (sent as 0..2) find no answer
            ProduceResponseData unmatched = parse(merger.merge(skim, routeOf, answers, keys, FAILED, rewriter,
                    SkimFrames.ALLOC), version, 41);
            List<PartitionProduceResponse> ordersResults = new ArrayList<>(unmatched.responses()).get(0).partitionResponses();
            for (int p = 3; p < 6; p++) {
                assertEquals(FAILED, ordersResults.get(p).errorCode(), "orders " + p + " matched only by the index sent");
                assertEquals(-1L, ordersResults.get(p).baseOffset());
            }
        } finally {
            frames.forEach(ByteBuf::release);
            frame.release();
        }
    }

    @ParameterizedTest(name = "Produce v{0}")
    @MethodSource("versions")
    void randomWeavesSplitAndMergeBack(short version) {
        long seed = Seeds.seed();
        Random random = new Random(seed * 43 + version);
        ProduceRequestSkim skim = new ProduceRequestSkim();
        ProduceRequestBuilder builder = new ProduceRequestBuilder();
        ProduceResponseSkim[] skims = {new ProduceResponseSkim(), new ProduceResponseSkim(), new ProduceResponseSkim()};
        ProduceResponseMerger merger = new ProduceResponseMerger();
        int[] changed = {0};
        Seeds.replayable(seed, "Produce v" + version + " renumbered split and merge", () -> {
            for (int round = 0; round < 40; round++) {
                changed[0] += runCase(random, version, skim, builder, skims, merger);
            }
        });
        assertTrue(changed[0] > 0, "some partitions were moved or renumbered");
    }

    private static int runCase(Random random, short version, ProduceRequestSkim skim, ProduceRequestBuilder builder,
                               ProduceResponseSkim[] skims, ProduceResponseMerger merger) {
        ProduceRequestData data = ProduceCases.request(random, version);
        int correlationId = random.nextInt();
        ByteBuf frame = SkimFrames.request(ApiKeys.PRODUCE, version, correlationId, "producer", data);
        List<ByteBuf> frames = new ArrayList<>();
        try {
            skim.wrap(frame);
            TestPartitionMap weave = weave(random, data, version);
            int routes = 1 + random.nextInt(skims.length);
            int[] routeOf = new int[skim.partitionCount()];
            for (int i = 0; i < routeOf.length; i++) {
                routeOf[i] = random.nextInt(routes);
            }

            builder.reset().topicKeys(weave.asKeys()).partitions(weave.asPartitions());
            ProduceResponseData[] upstream = new ProduceResponseData[routes];
            ProduceResponseSkim[] answers = new ProduceResponseSkim[routes];
            for (int route = 0; route < routes; route++) {
                int partCorrelation = random.nextInt();
                ByteBuf part = builder.build(skim, routeOf, route, partCorrelation, SkimFrames.ALLOC);
                frames.add(part);
                int r = route;
                ProduceRequestData expected = expectedPart(data, weave, i -> routeOf[i] == r);
                ProduceRequestBuilderTest.assertParsesTo(part, version, partCorrelation, "producer", expected);
                ProduceRequestBuilderTest.assertSharesRecordsWithFrame(skim, frame, part, routeOf, route);
                if (random.nextInt(6) == 0) {
                    continue; // failed upstream
                }
                upstream[r] = ProduceResponseMergerTest.upstreamResponse(random, version, expected,
                        new int[ProduceCases.flatten(expected).size()], 0, new HashSet<>());
                ByteBuf answer = SkimFrames.response(ApiKeys.PRODUCE, version, random.nextInt(), upstream[r]);
                frames.add(answer);
                answers[r] = skims[r].wrap(answer, version);
            }
            builder.reset();

            TestRewriter rewriter = new TestRewriter(routes);
            ProduceResponseData actual = parse(merger.merge(skim, routeOf, answers, weave.asKeys(), weave.asPartitions(),
                    FAILED, rewriter, SkimFrames.ALLOC), version, correlationId);
            ProduceResponseData expected = expectedMerge(data, weave, routeOf, upstream, rewriter);
            assertEquals(new ArrayList<>(expected.responses()), new ArrayList<>(actual.responses()),
                    "the client's topics and indexes, the upstreams' results (" + weave + ")");
            expected.nodeEndpoints().addAll(SkimAsserts.expectedUnion(rewriter, upstream, ProduceResponseData::nodeEndpoints,
                    ProduceCases::fields, ProduceCases::endpoint));
            assertEquals(expected, actual);
            return weave.changed;
        } finally {
            frames.forEach(ByteBuf::release);
            frame.release();
        }
    }

    /** Many upstream topics, some with long names, in one part: the size hint still covers them in one chunk. */
    @ParameterizedTest(name = "Produce v{0}")
    @MethodSource("versions")
    void groupedSplitTakesOneMetadataChunk(short version) {
        boolean ids = version >= ProduceRequestSkim.FIRST_TOPIC_ID_VERSION;
        ProduceRequestData data = new ProduceRequestData().setAcks((short) 1).setTimeoutMs(1000);
        int partitionsPerTopic = 8;
        byte[][] keys = new byte[3 * partitionsPerTopic][];
        int[] indexes = new int[keys.length];
        for (int t = 0; t < 3; t++) {
            TopicProduceData topic = topic(ids, "t" + t, Uuid.randomUuid());
            for (int p = 0; p < partitionsPerTopic; p++) {
                topic.partitionData().add(new PartitionProduceData().setIndex(p).setRecords(TestRecords.random(new Random(p))));
                int i = t * partitionsPerTopic + p;
                keys[i] = ids ? UpstreamTopicKeys.topicIdKey(Uuid.randomUuid()) : UpstreamTopicKeys.nameKey("n".repeat(300) + i);
                indexes[i] = 1000 + i;
            }
            data.topicData().add(topic);
        }
        ByteBuf frame = SkimFrames.request(ApiKeys.PRODUCE, version, 5, "c", data);
        try {
            ProduceRequestSkim skim = new ProduceRequestSkim().wrap(frame);
            ChunkCountingAllocator counting = new ChunkCountingAllocator();
            ByteBuf part = new ProduceRequestBuilder().topicKeys(UpstreamTopicKeys.perPartition(keys))
                    .partitions(UpstreamPartitions.of(indexes)).build(skim, new int[skim.partitionCount()], 0, 9, counting);
            part.release();
            assertEquals(1, counting.buffers, "metadata chunks for a split into " + keys.length + " upstream topics");
        } finally {
            frame.release();
        }
    }

    static TestPartitionMap weave(Random random, ProduceRequestData data, short version) {
        List<String> names = new ArrayList<>();
        List<Uuid> ids = new ArrayList<>();
        List<Integer> topicOf = new ArrayList<>();
        List<Integer> indexOf = new ArrayList<>();
        for (TopicProduceData topic : data.topicData()) {
            for (PartitionProduceData partition : topic.partitionData()) {
                topicOf.add(names.size());
                indexOf.add(partition.index());
            }
            names.add(topic.name());
            ids.add(topic.topicId());
        }
        return TestPartitionMap.random(random, names, ids, topicOf.stream().mapToInt(Integer::intValue).toArray(),
                indexOf.stream().mapToInt(Integer::intValue).toArray(), version >= ProduceRequestSkim.FIRST_TOPIC_ID_VERSION);
    }

    /**
     * What the part with the chosen partitions must equal: one topic per distinct upstream topic, in the
     * order its first partition comes, partitions in the client's order with their upstream index and the
     * client's records and tagged fields; topic tagged fields of the first partition's client topic.
     */
    static ProduceRequestData expectedPart(ProduceRequestData data, TestPartitionMap weave, IntPredicate chosen) {
        ProduceRequestData out = new ProduceRequestData()
                .setAcks(data.acks()).setTimeoutMs(data.timeoutMs()).setTransactionalId(data.transactionalId());
        out.unknownTaggedFields().addAll(data.unknownTaggedFields());
        Map<String, TopicProduceData> groups = new LinkedHashMap<>();
        int i = 0;
        for (TopicProduceData topic : data.topicData()) {
            for (PartitionProduceData partition : topic.partitionData()) {
                if (chosen.test(i)) {
                    int at = i;
                    TopicProduceData group = groups.computeIfAbsent(weave.upstreamTopic(i), k -> {
                        TopicProduceData g = new TopicProduceData().setName(weave.upstreamNames[at]).setTopicId(weave.upstreamIds[at]);
                        g.unknownTaggedFields().addAll(topic.unknownTaggedFields());
                        return g;
                    });
                    PartitionProduceData copy = partition.duplicate().setIndex(weave.upstreamIndexes[i]);
                    copy.unknownTaggedFields().addAll(partition.unknownTaggedFields());
                    group.partitionData().add(copy);
                }
                i++;
            }
        }
        groups.values().forEach(out.topicData()::add);
        return out;
    }

    /** Per client partition, the result its upstream gave under (upstream topic, upstream index), with the client's index. */
    static ProduceResponseData expectedMerge(ProduceRequestData data, TestPartitionMap weave, int[] routeOf,
                                             ProduceResponseData[] upstream, TestRewriter rewriter) {
        ProduceResponseData out = new ProduceResponseData();
        for (ProduceResponseData response : upstream) {
            if (response != null) {
                out.setThrottleTimeMs(Math.max(out.throttleTimeMs(), response.throttleTimeMs()));
            }
        }
        int i = 0;
        for (TopicProduceData topic : data.topicData()) {
            List<PartitionProduceResponse> partitions = new ArrayList<>();
            for (PartitionProduceData partition : topic.partitionData()) {
                int route = routeOf[i];
                PartitionProduceResponse found = upstream[route] == null ? null
                        : find(upstream[route], weave.upstreamNames[i], weave.upstreamIds[i], weave.upstreamIndexes[i]);
                partitions.add(found == null ? ProduceResponseMergerTest.errorEntry(partition.index(), FAILED)
                        : withIndex(found, partition.index(), route, rewriter));
                i++;
            }
            out.responses().add(new TopicProduceResponse().setName(topic.name()).setTopicId(topic.topicId())
                    .setPartitionResponses(partitions));
        }
        return out;
    }

    private static PartitionProduceResponse find(ProduceResponseData response, String name, Uuid id, int index) {
        for (TopicProduceResponse t : response.responses()) {
            if (t.name().equals(name) && t.topicId().equals(id)) {
                for (PartitionProduceResponse p : t.partitionResponses()) {
                    if (p.index() == index) {
                        return p;
                    }
                }
            }
        }
        return null;
    }

    /** An upstream result as the client must see it: its own index, the leader id through the rewriter. */
    static PartitionProduceResponse withIndex(PartitionProduceResponse found, int clientIndex, int route, TestRewriter rewriter) {
        PartitionProduceResponse copy = found.duplicate().setIndex(clientIndex);
        copy.unknownTaggedFields().addAll(found.unknownTaggedFields());
        copy.currentLeader().setLeaderId(rewriter.nodeId(route, found.currentLeader().leaderId()));
        return copy;
    }

    /** An answer to every partition of a part, in its order, random results. */
    private static ProduceResponseData answer(Random random, short version, ProduceRequestData part) {
        ProduceResponseData response = new ProduceResponseData().setThrottleTimeMs(random.nextInt(100));
        for (TopicProduceData topic : part.topicData()) {
            List<PartitionProduceResponse> partitions = new ArrayList<>();
            for (PartitionProduceData p : topic.partitionData()) {
                partitions.add(ProduceResponseMergerTest.partitionResult(random, version, p.index()));
            }
            if (random.nextBoolean()) {
                Collections.reverse(partitions);
            }
            response.responses().add(new TopicProduceResponse().setName(topic.name()).setTopicId(topic.topicId())
                    .setPartitionResponses(partitions));
        }
        return response;
    }

    private static ProduceResponseData parse(ByteBuf merged, short version, int correlationId) {
        try {
            SkimFrames.Response parsed = SkimFrames.parseResponse(merged, ApiKeys.PRODUCE, version);
            assertEquals(correlationId, parsed.header().correlationId());
            ProduceResponseData actual = new ProduceResponseData(parsed.body(), version);
            SkimFrames.assertConsumed(parsed.body());
            return actual;
        } finally {
            merged.release();
        }
    }

    private static TopicProduceData topic(boolean ids, String name, Uuid id, MemoryRecords... records) {
        TopicProduceData topic = new TopicProduceData().setName(ids ? "" : name).setTopicId(ids ? id : Uuid.ZERO_UUID);
        for (int p = 0; p < records.length; p++) {
            topic.partitionData().add(new PartitionProduceData().setIndex(p).setRecords(records[p]));
        }
        return topic;
    }
}
