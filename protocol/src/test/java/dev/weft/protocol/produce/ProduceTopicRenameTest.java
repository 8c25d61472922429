package dev.weft.protocol.produce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.protocol.skim.ChunkCountingAllocator;
import dev.weft.protocol.skim.NodeEndpointRewriter;
import dev.weft.protocol.skim.Seeds;
import dev.weft.protocol.skim.SkimFrames;
import dev.weft.protocol.skim.TestRewriter;
import dev.weft.protocol.skim.TestTopicKeys;
import dev.weft.protocol.skim.UpstreamTopicKeys;
import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceRequestData.PartitionProduceData;
import org.apache.kafka.common.message.ProduceRequestData.TopicProduceData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.message.ProduceResponseData.TopicProduceResponse;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Topic renames on the Produce hot path (topic weaving): split with upstream names (v3–12) or topic ids
 * (v13), parse the parts with kafka-clients, answer them under the upstream names/ids, merge with the
 * same keys and check the client sees its own names/ids with the upstream's per-partition results.
 */
class ProduceTopicRenameTest {

    static final short FAILED = ProduceResponseMerger.NOT_LEADER_OR_FOLLOWER;

    static short[] versions() {
        return ProduceCases.versions();
    }

    @ParameterizedTest(name = "Produce v{0}")
    @MethodSource("versions")
    void splitSendsUpstreamKeysAndMergeGivesBackTheClients(short version) {
        long seed = Seeds.seed();
        Random random = new Random(seed * 31 + version);
        ProduceRequestSkim skim = new ProduceRequestSkim();
        ProduceRequestBuilder builder = new ProduceRequestBuilder();
        ProduceResponseSkim[] skims = {new ProduceResponseSkim(), new ProduceResponseSkim(), new ProduceResponseSkim()};
        ProduceResponseMerger merger = new ProduceResponseMerger();
        int[] renamed = {0};
        Seeds.replayable(seed, "Produce v" + version + " renamed split and merge", () -> {
            for (int round = 0; round < 40; round++) {
                renamed[0] += runCase(random, version, skim, builder, skims, merger);
            }
        });
        assertTrue(renamed[0] > 0, "some topics were renamed");
    }

    private static int runCase(Random random, short version, ProduceRequestSkim skim, ProduceRequestBuilder builder,
                               ProduceResponseSkim[] skims, ProduceResponseMerger merger) {
        ProduceRequestData data = ProduceCases.request(random, version);
        int correlationId = random.nextInt();
        ByteBuf frame = SkimFrames.request(ApiKeys.PRODUCE, version, correlationId, "producer", data);
        List<ByteBuf> frames = new ArrayList<>();
        ByteBuf merged = null;
        try {
            skim.wrap(frame);
            TestTopicKeys renames = renames(random, data, version);
            UpstreamTopicKeys keys = renames.asKeys();
            ProduceRequestData upstreamView = renamed(data, renames);
            int routes = 1 + random.nextInt(skims.length);
            int[] routeOf = new int[skim.partitionCount()];
            for (int i = 0; i < routeOf.length; i++) {
                routeOf[i] = random.nextInt(routes);
            }

            // split: each part carries the upstream names/ids and the client's record bytes
            builder.topicKeys(keys);
            for (int route = 0; route < routes; route++) {
                int partCorrelation = random.nextInt();
                ByteBuf part = builder.build(skim, routeOf, route, partCorrelation, SkimFrames.ALLOC);
                frames.add(part);
                int r = route;
                ProduceRequestData expected = ProduceCases.subset(upstreamView, i -> routeOf[i] == r);
                ProduceRequestBuilderTest.assertParsesTo(part, version, partCorrelation, "producer", expected);
                ProduceRequestBuilderTest.assertSharesRecordsWithFrame(skim, frame, part, routeOf, route);
            }
            builder.topicKeys(null);

            // merge: upstreams answer under their names/ids, the client gets its own back
            ProduceResponseData[] upstream = new ProduceResponseData[routes];
            ProduceResponseSkim[] answers = new ProduceResponseSkim[routes];
            Set<Long> dropped = new HashSet<>();
            for (int r = 0; r < routes; r++) {
                if (random.nextInt(6) == 0) {
                    continue; // failed upstream
                }
                upstream[r] = ProduceResponseMergerTest.upstreamResponse(random, version, upstreamView, routeOf, r, dropped);
                ByteBuf answer = SkimFrames.response(ApiKeys.PRODUCE, version, random.nextInt(), upstream[r]);
                frames.add(answer);
                answers[r] = skims[r].wrap(answer, version);
            }
            TestRewriter rewriter = new TestRewriter(routes);
            merged = merger.merge(skim, routeOf, answers, keys, FAILED, rewriter, SkimFrames.ALLOC);

            ProduceResponseData expected = ProduceResponseMergerTest.expectedMerge(version, upstreamView, routeOf, upstream,
                    dropped, rewriter);
            toClientKeys(expected, data, renames);
            SkimFrames.Response parsed = SkimFrames.parseResponse(merged, ApiKeys.PRODUCE, version);
            assertEquals(correlationId, parsed.header().correlationId());
            ProduceResponseData actual = new ProduceResponseData(parsed.body(), version);
            SkimFrames.assertConsumed(parsed.body());
            assertEquals(clientKeys(data, version), responseKeys(actual, version), "the client's topic names/ids, in order");
            assertEquals(new ArrayList<>(expected.responses()), new ArrayList<>(actual.responses()), "per-partition results");
            assertEquals(expected, actual);
            return renames.renamedCount;
        } finally {
            if (merged != null) {
                merged.release();
            }
            frames.forEach(ByteBuf::release);
            frame.release();
        }
    }

    /** Without the keys, or with an upstream answering under the client's keys, renamed partitions do not match. */
    @ParameterizedTest(name = "Produce v{0}")
    @MethodSource("versions")
    void answersAreMatchedOnlyByTheKeySent(short version) {
        Random random = new Random(version * 7L);
        ProduceRequestData data = new ProduceRequestData().setAcks((short) -1).setTimeoutMs(1000);
        boolean ids = version >= ProduceRequestSkim.FIRST_TOPIC_ID_VERSION;
        for (String name : List.of("orders", "payments")) {
            data.topicData().add(new TopicProduceData().setName(ids ? "" : name).setTopicId(ids ? Uuid.randomUuid() : Uuid.ZERO_UUID)
                    .setPartitionData(new ArrayList<>(List.of(new PartitionProduceData().setIndex(3)
                            .setRecords(dev.weft.protocol.skim.TestRecords.random(random))))));
        }
        byte[] sentKey = ids ? UpstreamTopicKeys.topicIdKey(Uuid.randomUuid()) : UpstreamTopicKeys.nameKey("team-a.orders");
        UpstreamTopicKeys keys = UpstreamTopicKeys.of(new byte[][] {sentKey, null});
        List<TopicProduceData> clientTopics = new ArrayList<>(data.topicData());
        TopicProduceData orders = clientTopics.get(0);
        TopicProduceData payments = clientTopics.get(1);
        ByteBuf frame = SkimFrames.request(ApiKeys.PRODUCE, version, 5, "c", data);
        List<ByteBuf> frames = new ArrayList<>();
        try {
            ProduceRequestSkim skim = new ProduceRequestSkim().wrap(frame);
            int[] routeOf = {0, 0};
            // the upstream answers orders under the client's own key: not what was sent
            ProduceResponseData confused = new ProduceResponseData();
            for (TopicProduceData topic : List.of(orders, payments)) {
                confused.responses().add(new TopicProduceResponse().setName(topic.name()).setTopicId(topic.topicId())
                        .setPartitionResponses(new ArrayList<>(List.of(new PartitionProduceResponse().setIndex(3).setBaseOffset(42)))));
            }
            // and one that answers orders under the key sent
            ProduceResponseData right = new ProduceResponseData();
            for (TopicProduceResponse topic : confused.responses()) {
                boolean isOrders = topic.name().equals(orders.name()) && topic.topicId().equals(orders.topicId());
                right.responses().add(new TopicProduceResponse()
                        .setName(isOrders && !ids ? "team-a.orders" : topic.name())
                        .setTopicId(isOrders && ids ? new Uuid(getLong(sentKey, 0), getLong(sentKey, 8)) : topic.topicId())
                        .setPartitionResponses(topic.partitionResponses()));
            }
            ByteBuf confusedFrame = SkimFrames.response(ApiKeys.PRODUCE, version, 1, confused);
            frames.add(confusedFrame);
            ByteBuf rightFrame = SkimFrames.response(ApiKeys.PRODUCE, version, 1, right);
            frames.add(rightFrame);
            ProduceResponseMerger merger = new ProduceResponseMerger();

            assertEquals(List.of(FAILED, (short) 0), errorCodes(merger.merge(skim, routeOf,
                    new ProduceResponseSkim[] {new ProduceResponseSkim().wrap(confusedFrame, version)}, keys, FAILED,
                    NodeEndpointRewriter.IDENTITY, SkimFrames.ALLOC), version), "answer under the client's key");
            assertEquals(List.of(FAILED, (short) 0), errorCodes(merger.merge(skim, routeOf,
                    new ProduceResponseSkim[] {new ProduceResponseSkim().wrap(rightFrame, version)}, FAILED,
                    NodeEndpointRewriter.IDENTITY, SkimFrames.ALLOC), version), "merged without the keys");
            assertEquals(List.of((short) 0, (short) 0), errorCodes(merger.merge(skim, routeOf,
                    new ProduceResponseSkim[] {new ProduceResponseSkim().wrap(rightFrame, version)}, keys, FAILED,
                    NodeEndpointRewriter.IDENTITY, SkimFrames.ALLOC), version), "answer under the key sent");
        } finally {
            frames.forEach(ByteBuf::release);
            frame.release();
        }
    }

    @Test
    void refusesKeysThatDoNotFitTheVersion() {
        Random random = new Random(3);
        for (short version : new short[] {12, 13}) {
            ProduceRequestData data = ProduceCases.request(random, version);
            while (data.topicData().isEmpty() || data.topicData().iterator().next().partitionData().isEmpty()) {
                data = ProduceCases.request(random, version);
            }
            ByteBuf frame = SkimFrames.request(ApiKeys.PRODUCE, version, 5, "c", data);
            try {
                ProduceRequestSkim skim = new ProduceRequestSkim().wrap(frame);
                byte[] bad = version >= ProduceRequestSkim.FIRST_TOPIC_ID_VERSION ? new byte[15] : new byte[Short.MAX_VALUE + 1];
                ProduceRequestBuilder builder = new ProduceRequestBuilder().topicKeys(UpstreamTopicKeys.of(new byte[][] {bad}));
                assertThrows(IllegalArgumentException.class,
                        () -> builder.build(skim, new int[skim.partitionCount()], 0, 1, SkimFrames.ALLOC));
            } finally {
                frame.release();
            }
        }
    }

    /** Longer keys are in the size hint: a split takes one metadata chunk, however much the names grow. */
    @ParameterizedTest(name = "Produce v{0}")
    @MethodSource("versions")
    void longerKeysTakeOneMetadataChunk(short version) {
        boolean ids = version >= ProduceRequestSkim.FIRST_TOPIC_ID_VERSION;
        ProduceRequestData data = new ProduceRequestData().setAcks((short) 1).setTimeoutMs(1000);
        byte[][] keys = new byte[6][];
        for (int t = 0; t < keys.length; t++) {
            data.topicData().add(new TopicProduceData().setName(ids ? "" : "t" + t).setTopicId(ids ? Uuid.randomUuid() : Uuid.ZERO_UUID)
                    .setPartitionData(new ArrayList<>(List.of(new PartitionProduceData().setIndex(0)
                            .setRecords(dev.weft.protocol.skim.TestRecords.random(new Random(t)))))));
            keys[t] = ids ? UpstreamTopicKeys.topicIdKey(Uuid.randomUuid()) : UpstreamTopicKeys.nameKey("n".repeat(400) + t);
        }
        ByteBuf frame = SkimFrames.request(ApiKeys.PRODUCE, version, 5, "c", data);
        try {
            ProduceRequestSkim skim = new ProduceRequestSkim().wrap(frame);
            ChunkCountingAllocator counting = new ChunkCountingAllocator();
            ByteBuf part = new ProduceRequestBuilder().topicKeys(UpstreamTopicKeys.of(keys))
                    .build(skim, new int[skim.partitionCount()], 0, 9, counting);
            part.release();
            assertEquals(1, counting.buffers, "metadata chunks for a split with " + (ids ? "other ids" : "400-byte names"));
        } finally {
            frame.release();
        }
    }

    static TestTopicKeys renames(Random random, ProduceRequestData data, short version) {
        List<String> names = new ArrayList<>();
        List<Uuid> ids = new ArrayList<>();
        for (TopicProduceData topic : data.topicData()) {
            names.add(topic.name());
            ids.add(topic.topicId());
        }
        return TestTopicKeys.random(random, names, ids, version >= ProduceRequestSkim.FIRST_TOPIC_ID_VERSION);
    }

    /** The request as the upstreams must see it: every topic under its upstream name/id, the rest the same objects. */
    static ProduceRequestData renamed(ProduceRequestData data, TestTopicKeys renames) {
        ProduceRequestData out = new ProduceRequestData()
                .setAcks(data.acks()).setTimeoutMs(data.timeoutMs()).setTransactionalId(data.transactionalId());
        out.unknownTaggedFields().addAll(data.unknownTaggedFields());
        int t = 0;
        for (TopicProduceData topic : data.topicData()) {
            TopicProduceData copy = new TopicProduceData().setName(renames.upstreamNames[t]).setTopicId(renames.upstreamIds[t])
                    .setPartitionData(topic.partitionData());
            copy.unknownTaggedFields().addAll(topic.unknownTaggedFields());
            out.topicData().add(copy);
            t++;
        }
        return out;
    }

    /** Puts the client's names/ids back on a response expected under the upstream ones. */
    static void toClientKeys(ProduceResponseData expected, ProduceRequestData data, TestTopicKeys renames) {
        List<TopicProduceData> clientTopics = new ArrayList<>(data.topicData());
        List<TopicProduceResponse> upstreamKeyed = new ArrayList<>(expected.responses());
        expected.responses().clear(); // keyed by name and id: rebuilt, not renamed in place
        for (TopicProduceResponse topic : upstreamKeyed) {
            TopicProduceData client = clientTopics.get(renames.clientTopic(topic.name(), topic.topicId()));
            expected.responses().add(new TopicProduceResponse().setName(client.name()).setTopicId(client.topicId())
                    .setPartitionResponses(topic.partitionResponses()));
        }
    }

    static List<String> clientKeys(ProduceRequestData data, short version) {
        List<String> out = new ArrayList<>();
        data.topicData().forEach(t -> out.add(version >= ProduceRequestSkim.FIRST_TOPIC_ID_VERSION ? t.topicId().toString() : t.name()));
        return out;
    }

    static List<String> responseKeys(ProduceResponseData data, short version) {
        List<String> out = new ArrayList<>();
        data.responses().forEach(t -> out.add(version >= ProduceRequestSkim.FIRST_TOPIC_ID_VERSION ? t.topicId().toString() : t.name()));
        return out;
    }

    /** Parses a merged response (released here) into the error codes of its partitions, in order. */
    private static List<Short> errorCodes(ByteBuf merged, short version) {
        try {
            SkimFrames.Response parsed = SkimFrames.parseResponse(merged, ApiKeys.PRODUCE, version);
            ProduceResponseData actual = new ProduceResponseData(parsed.body(), version);
            List<Short> out = new ArrayList<>();
            actual.responses().forEach(t -> t.partitionResponses().forEach(p -> out.add(p.errorCode())));
            return out;
        } finally {
            merged.release();
        }
    }

    private static long getLong(byte[] b, int at) {
        long v = 0;
        for (int k = 0; k < 8; k++) {
            v = (v << 8) | (b[at + k] & 0xFF);
        }
        return v;
    }
}
