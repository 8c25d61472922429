package dev.weft.protocol.fetch;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.weft.protocol.skim.Seeds;
import dev.weft.protocol.skim.SkimAsserts;
import dev.weft.protocol.skim.SkimFrames;
import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Random;
import java.util.function.IntPredicate;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchRequestData.FetchPartition;
import org.apache.kafka.common.message.FetchRequestData.FetchTopic;
import org.apache.kafka.common.message.FetchRequestData.ForgottenTopic;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Split a skimmed Fetch request by route, with and without overrides, and parse every part back. */
class FetchRequestBuilderTest {

    static short[] versions() {
        return FetchCases.versions();
    }

    @ParameterizedTest(name = "Fetch v{0}")
    @MethodSource("versions")
    void splitCopiesEverythingButTheUnchosenPartitions(short version) {
        long seed = Seeds.seed();
        Random random = new Random(seed ^ (version * 0x5DEECE66DL));
        FetchRequestSkim skim = new FetchRequestSkim();
        FetchRequestBuilder builder = new FetchRequestBuilder().keepForgottenTopics(true);
        Seeds.replayable(seed, "Fetch v" + version + " split", () -> {
            for (int round = 0; round < 40; round++) {
                FetchRequestData data = FetchCases.request(random, version);
                String clientId = random.nextBoolean() ? "consumer-" + round : null;
                ByteBuf frame = SkimFrames.request(ApiKeys.FETCH, version, round, clientId, data);
                try {
                    skim.wrap(frame);
                    int routes = 1 + random.nextInt(4);
                    int[] routeOf = new int[skim.partitionCount()];
                    for (int i = 0; i < routeOf.length; i++) {
                        routeOf[i] = random.nextInt(routes);
                    }
                    for (int route = 0; route < routes; route++) {
                        int correlationId = random.nextInt();
                        ByteBuf part = builder.build(skim, routeOf, route, correlationId, SkimFrames.ALLOC);
                        try {
                            int r = route;
                            assertParsesTo(part, version, correlationId, clientId, subset(data, i -> routeOf[i] == r));
                        } finally {
                            part.release();
                        }
                    }
                } finally {
                    frame.release();
                }
            }
        });
    }

    @ParameterizedTest(name = "Fetch v{0}")
    @MethodSource("versions")
    void overridesSessionWaitBytesClientIdAndDropsForgottenTopics(short version) {
        long seed = Seeds.seed();
        Random random = new Random(seed + version);
        FetchRequestSkim skim = new FetchRequestSkim();
        FetchRequestBuilder builder = new FetchRequestBuilder();
        Seeds.replayable(seed, "Fetch v" + version + " split with overrides", () -> {
            for (int round = 0; round < 20; round++) {
                FetchRequestData data = FetchCases.request(random, version);
                ByteBuf frame = SkimFrames.request(ApiKeys.FETCH, version, 1, "consumer", data);
                ByteBuf part = null;
                try {
                    skim.wrap(frame);
                    BitSet chosen = new BitSet();
                    for (int i = 0; i < skim.partitionCount(); i++) {
                        chosen.set(i, random.nextBoolean());
                    }
                    int maxWait = random.nextInt(500);
                    builder.reset().clientId("weft").session(0, -1).maxWaitMs(maxWait).minBytes(1).maxBytes(1 << 20);
                    part = builder.build(skim, chosen, 5, SkimFrames.ALLOC);
                    FetchRequestData expected = subset(data, chosen::get).setMaxWaitMs(maxWait).setMinBytes(1)
                            .setMaxBytes(1 << 20);
                    expected.forgottenTopicsData().clear();
                    if (version >= FetchRequestSkim.FIRST_SESSION_VERSION) {
                        expected.setSessionId(0).setSessionEpoch(-1);
                    }
                    assertParsesTo(part, version, 5, "weft", expected);
                } finally {
                    if (part != null) {
                        part.release();
                    }
                    frame.release();
                }
            }
        });
    }

    /**
     * Parts the proxy sends to a broker the client did not pick carry the proxy's zone as rack_id (so the
     * broker's replica selector agrees with the proxy); everything else, the tagged fields after rack_id
     * included, is the client's. Before v11 there is no rack_id to write.
     */
    @ParameterizedTest(name = "Fetch v{0}")
    @MethodSource("versions")
    void overridesTheRackIdKeepingWhatFollowsIt(short version) {
        long seed = Seeds.seed();
        Random random = new Random(seed - version);
        FetchRequestSkim skim = new FetchRequestSkim();
        FetchRequestBuilder builder = new FetchRequestBuilder();
        Seeds.replayable(seed, "Fetch v" + version + " split with the proxy's rack", () -> {
            for (int round = 0; round < 20; round++) {
                FetchRequestData data = FetchCases.request(random, version);
                if (version >= FetchRequestSkim.FIRST_RACK_ID_VERSION) {
                    data.setRackId(random.nextBoolean() ? "" : "client-rack-" + round);
                }
                String zone = round % 3 == 0 ? "" : "use1-az" + round + "-ß"; // empty, and a name of multi-byte UTF-8
                ByteBuf frame = SkimFrames.request(ApiKeys.FETCH, version, 1, "consumer", data);
                ByteBuf part = null;
                try {
                    skim.wrap(frame);
                    BitSet chosen = new BitSet();
                    chosen.set(0, skim.partitionCount());
                    builder.reset().keepForgottenTopics(true).rackId(zone.getBytes(java.nio.charset.StandardCharsets.UTF_8));
                    part = builder.build(skim, chosen, 9, SkimFrames.ALLOC);
                    FetchRequestData expected = subset(data, i -> true);
                    if (version >= FetchRequestSkim.FIRST_RACK_ID_VERSION) {
                        expected.setRackId(zone);
                    }
                    assertParsesTo(part, version, 9, "consumer", expected);
                } finally {
                    if (part != null) {
                        part.release();
                    }
                    frame.release();
                }
            }
        });
    }

    static void assertParsesTo(ByteBuf part, short version, int correlationId, String clientId, FetchRequestData expected) {
        ByteBufferAccessor body = SkimAsserts.assertRequestHeader(part, ApiKeys.FETCH, version, correlationId, clientId);
        FetchRequestData actual = new FetchRequestData(body, version);
        SkimFrames.assertConsumed(body);
        assertEquals(expected.topics(), actual.topics(), "topics and partitions, in order");
        assertEquals(expected, actual);
    }

    static FetchRequestData subset(FetchRequestData data, IntPredicate selected) {
        FetchRequestData out = data.duplicate();
        out.unknownTaggedFields().addAll(data.unknownTaggedFields());
        out.topics().clear();
        int i = 0;
        for (FetchTopic topic : data.topics()) {
            List<FetchPartition> kept = new ArrayList<>();
            for (FetchPartition partition : topic.partitions()) {
                if (selected.test(i++)) {
                    FetchPartition copy = partition.duplicate();
                    copy.unknownTaggedFields().addAll(partition.unknownTaggedFields());
                    kept.add(copy);
                }
            }
            if (!kept.isEmpty()) {
                FetchTopic copy = new FetchTopic().setTopic(topic.topic()).setTopicId(topic.topicId()).setPartitions(kept);
                copy.unknownTaggedFields().addAll(topic.unknownTaggedFields());
                out.topics().add(copy);
            }
        }
        out.forgottenTopicsData().clear();
        for (ForgottenTopic forgotten : data.forgottenTopicsData()) {
            ForgottenTopic copy = forgotten.duplicate();
            copy.unknownTaggedFields().addAll(forgotten.unknownTaggedFields());
            out.forgottenTopicsData().add(copy);
        }
        return out;
    }
}
