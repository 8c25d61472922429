package dev.weft.protocol.fetch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.protocol.skim.ChunkCountingAllocator;
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
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchRequestData.FetchTopic;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.FetchResponseData.FetchableTopicResponse;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Topic renames on the Fetch hot path (topic weaving): split with upstream names (v4–12) or topic ids
 * (v13–18) as a sessionless full fetch without forgotten topics (how the proxy fetches when it
 * renames), parse the parts with kafka-clients, answer them under the upstream names/ids (some failed,
 * some with top-level errors, some incremental, partitions dropped and reordered), merge with the same
 * keys and check the client sees its own names/ids with the upstream's per-partition results and records.
 */
class FetchTopicRenameTest {

    static final short FAILED = FetchResponseMerger.NOT_LEADER_OR_FOLLOWER;

    static short[] versions() {
        return FetchCases.versions();
    }

    @ParameterizedTest(name = "Fetch v{0}")
    @MethodSource("versions")
    void splitSendsUpstreamKeysAndMergeGivesBackTheClients(short version) {
        long seed = Seeds.seed();
        Random random = new Random(seed * 37 + version);
        FetchRequestSkim skim = new FetchRequestSkim();
        FetchRequestBuilder builder = new FetchRequestBuilder();
        FetchResponseSkim[] skims = {new FetchResponseSkim(), new FetchResponseSkim(), new FetchResponseSkim()};
        FetchResponseMerger merger = new FetchResponseMerger();
        int[] renamed = {0};
        Seeds.replayable(seed, "Fetch v" + version + " renamed split and merge", () -> {
            for (int round = 0; round < 40; round++) {
                renamed[0] += runCase(random, version, skim, builder, skims, merger);
            }
        });
        assertTrue(renamed[0] > 0, "some topics were renamed");
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
            TestTopicKeys renames = renames(random, data, version);
            UpstreamTopicKeys keys = renames.asKeys();
            FetchRequestData upstreamView = renamed(data, renames);
            int routes = 1 + random.nextInt(skims.length);
            int[] routeOf = new int[skim.partitionCount()];
            for (int i = 0; i < routeOf.length; i++) {
                routeOf[i] = random.nextInt(routes);
            }

            // split: each part asks for the upstream names/ids, sessionless, no forgotten topics
            builder.reset().session(0, -1).topicKeys(keys);
            for (int route = 0; route < routes; route++) {
                int partCorrelation = random.nextInt();
                ByteBuf part = builder.build(skim, routeOf, route, partCorrelation, SkimFrames.ALLOC);
                frames.add(part);
                int r = route;
                FetchRequestData expected = FetchRequestBuilderTest.subset(upstreamView, i -> routeOf[i] == r);
                expected.forgottenTopicsData().clear();
                if (version >= FetchRequestSkim.FIRST_SESSION_VERSION) {
                    expected.setSessionId(0).setSessionEpoch(-1);
                }
                FetchRequestBuilderTest.assertParsesTo(part, version, partCorrelation, "consumer", expected);
            }
            builder.reset();

            // merge: upstreams answer under their names/ids, the client gets its own back
            boolean sessions = version >= FetchRequestSkim.FIRST_SESSION_VERSION;
            FetchResponseMergerTest.Upstream[] kinds = new FetchResponseMergerTest.Upstream[routes];
            FetchResponseData[] upstream = new FetchResponseData[routes];
            FetchResponseSkim[] answers = new FetchResponseSkim[routes];
            Set<Long> dropped = new HashSet<>();
            for (int r = 0; r < routes; r++) {
                int roll = random.nextInt(10);
                kinds[r] = roll == 0 ? FetchResponseMergerTest.Upstream.FAILED
                        : roll == 1 && sessions ? FetchResponseMergerTest.Upstream.TOP_LEVEL_ERROR
                        : roll < 4 && sessions ? FetchResponseMergerTest.Upstream.INCREMENTAL
                        : FetchResponseMergerTest.Upstream.FULL;
                if (kinds[r] == FetchResponseMergerTest.Upstream.FAILED) {
                    continue;
                }
                upstream[r] = FetchResponseMergerTest.upstreamResponse(random, version, upstreamView, routeOf, r, kinds[r], dropped);
                ByteBuf answer = SkimFrames.response(ApiKeys.FETCH, version, random.nextInt(), upstream[r]);
                frames.add(answer);
                answers[r] = skims[r].wrap(answer, version);
            }
            TestRewriter rewriter = new TestRewriter(routes);
            merged = merger.merge(skim, routeOf, answers, keys, FAILED, 0, rewriter, SkimFrames.ALLOC);

            FetchResponseData expected = FetchResponseMergerTest.expectedMerge(version, upstreamView, routeOf, kinds, upstream,
                    dropped, 0, rewriter);
            toClientKeys(expected, data, renames);
            SkimFrames.Response parsed = SkimFrames.parseResponse(merged, ApiKeys.FETCH, version);
            assertEquals(correlationId, parsed.header().correlationId());
            FetchResponseData actual = new FetchResponseData(parsed.body(), version);
            SkimFrames.assertConsumed(parsed.body());
            assertEquals(keysOf(expected, version), keysOf(actual, version), "the client's topic names/ids, in order");
            assertEquals(expected.responses(), actual.responses(), "per-partition results and records");
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

    @Test
    void refusesKeysThatDoNotFitTheVersion() {
        Random random = new Random(4);
        for (short version : new short[] {12, 13}) {
            FetchRequestData data = FetchCases.request(random, version);
            while (data.topics().isEmpty() || data.topics().get(0).partitions().isEmpty()) {
                data = FetchCases.request(random, version);
            }
            ByteBuf frame = SkimFrames.request(ApiKeys.FETCH, version, 5, "c", data);
            try {
                FetchRequestSkim skim = new FetchRequestSkim().wrap(frame);
                byte[] bad = version >= FetchRequestSkim.FIRST_TOPIC_ID_VERSION ? new byte[17] : new byte[Short.MAX_VALUE + 1];
                FetchRequestBuilder builder = new FetchRequestBuilder().topicKeys(UpstreamTopicKeys.of(new byte[][] {bad}));
                assertThrows(IllegalArgumentException.class,
                        () -> builder.build(skim, new int[skim.partitionCount()], 0, 1, SkimFrames.ALLOC));
            } finally {
                frame.release();
            }
        }
    }

    /** Longer keys are in the size hint: a split takes one metadata chunk, however much the names grow. */
    @ParameterizedTest(name = "Fetch v{0}")
    @MethodSource("versions")
    void longerKeysTakeOneMetadataChunk(short version) {
        boolean ids = version >= FetchRequestSkim.FIRST_TOPIC_ID_VERSION;
        FetchRequestData data = new FetchRequestData().setMaxWaitMs(500).setReplicaId(-1);
        byte[][] keys = new byte[6][];
        for (int t = 0; t < keys.length; t++) {
            FetchTopic topic = ids ? new FetchTopic().setTopicId(Uuid.randomUuid()) : new FetchTopic().setTopic("t" + t);
            topic.partitions().add(new FetchRequestData.FetchPartition().setPartition(0).setFetchOffset(1));
            data.topics().add(topic);
            keys[t] = ids ? UpstreamTopicKeys.topicIdKey(Uuid.randomUuid()) : UpstreamTopicKeys.nameKey("n".repeat(400) + t);
        }
        ByteBuf frame = SkimFrames.request(ApiKeys.FETCH, version, 5, "c", data);
        try {
            FetchRequestSkim skim = new FetchRequestSkim().wrap(frame);
            ChunkCountingAllocator counting = new ChunkCountingAllocator();
            ByteBuf part = new FetchRequestBuilder().topicKeys(UpstreamTopicKeys.of(keys))
                    .build(skim, new int[skim.partitionCount()], 0, 9, counting);
            part.release();
            assertEquals(1, counting.buffers, "metadata chunks for a split with " + (ids ? "other ids" : "400-byte names"));
        } finally {
            frame.release();
        }
    }

    static TestTopicKeys renames(Random random, FetchRequestData data, short version) {
        List<String> names = new ArrayList<>();
        List<Uuid> ids = new ArrayList<>();
        for (FetchTopic topic : data.topics()) {
            names.add(topic.topic());
            ids.add(topic.topicId());
        }
        return TestTopicKeys.random(random, names, ids, version >= FetchRequestSkim.FIRST_TOPIC_ID_VERSION);
    }

    /** The request as the upstreams must see it: every topic under its upstream name/id, the rest the same objects. */
    static FetchRequestData renamed(FetchRequestData data, TestTopicKeys renames) {
        FetchRequestData out = data.duplicate();
        out.unknownTaggedFields().addAll(data.unknownTaggedFields());
        out.topics().clear();
        int t = 0;
        for (FetchTopic topic : data.topics()) {
            FetchTopic copy = new FetchTopic().setTopic(renames.upstreamNames[t]).setTopicId(renames.upstreamIds[t])
                    .setPartitions(topic.partitions());
            copy.unknownTaggedFields().addAll(topic.unknownTaggedFields());
            out.topics().add(copy);
            t++;
        }
        return out;
    }

    /** Puts the client's names/ids back on a response expected under the upstream ones. */
    static void toClientKeys(FetchResponseData expected, FetchRequestData data, TestTopicKeys renames) {
        for (FetchableTopicResponse topic : expected.responses()) {
            FetchTopic client = data.topics().get(renames.clientTopic(topic.topic(), topic.topicId()));
            topic.setTopic(client.topic()).setTopicId(client.topicId());
        }
    }

    static List<String> keysOf(FetchResponseData data, short version) {
        List<String> out = new ArrayList<>();
        data.responses().forEach(t -> out.add(version >= FetchRequestSkim.FIRST_TOPIC_ID_VERSION ? t.topicId().toString() : t.topic()));
        return out;
    }
}
