package dev.weft.protocol.produce;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.weft.protocol.skim.SkimAsserts;
import dev.weft.protocol.skim.Seeds;
import dev.weft.protocol.skim.SkimFrames;
import dev.weft.protocol.skim.TestRewriter;
import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.message.ProduceResponseData.TopicProduceResponse;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class ProduceResponseSkimTest {

    static short[] versions() {
        return ProduceCases.versions();
    }

    @ParameterizedTest(name = "Produce v{0}")
    @MethodSource("versions")
    void skimMatchesKafkaClients(short version) {
        long seed = Seeds.seed();
        Random random = new Random(seed - version);
        ProduceResponseSkim skim = new ProduceResponseSkim();
        Seeds.replayable(seed, "Produce v" + version + " response skim", () -> {
            for (int round = 0; round < 50; round++) {
                ProduceResponseData data = response(random, version);
                int correlationId = random.nextInt();
                ByteBuf frame = SkimFrames.response(ApiKeys.PRODUCE, version, correlationId, data);
                try {
                    skim.wrap(frame, version);
                    assertEquals(correlationId, skim.correlationId());
                    assertEquals(frame.writerIndex(), skim.endOffset());
                    assertSkim(data, skim);
                } finally {
                    frame.release();
                }
            }
        });
    }

    static ProduceResponseData response(Random random, short version) {
        return ProduceCases.response(random, version);
    }

    static void assertSkim(ProduceResponseData data, ProduceResponseSkim skim) {
        assertEquals(data.throttleTimeMs(), skim.throttleTimeMs());
        assertEquals(data.responses().size(), skim.topicCount());
        int i = 0;
        int t = 0;
        for (TopicProduceResponse topic : data.responses()) {
            if (skim.usesTopicIds()) {
                assertEquals(topic.topicId(), skim.topicId(t));
            } else {
                assertEquals(topic.name(), skim.topicName(t));
            }
            assertEquals(topic.partitionResponses().size(), skim.topicPartitionCount(t));
            for (PartitionProduceResponse p : topic.partitionResponses()) {
                assertEquals(t, skim.partitionTopic(i));
                assertEquals(p.index(), skim.partitionIndex(i));
                assertEquals(p.errorCode(), skim.errorCode(i));
                assertEquals(p.baseOffset(), skim.baseOffset(i));
                assertEquals(p.logAppendTimeMs(), skim.logAppendTimeMs(i));
                assertEquals(p.logStartOffset(), skim.logStartOffset(i));
                assertEquals(p.recordErrors().size(), skim.recordErrorCount(i));
                assertEquals(p.errorMessage(), skim.errorMessage(i));
                assertEquals(p.currentLeader().leaderId(), skim.currentLeaderId(i));
                assertEquals(p.currentLeader().leaderEpoch(), skim.currentLeaderEpoch(i));
                i++;
            }
            t++;
        }
        assertEquals(i, skim.partitionCount());
        SkimAsserts.assertEndpoints(data.nodeEndpoints(), ProduceCases::fields, skim.nodeEndpoints());
    }

    /** The forward path: one upstream response, leader ids patched in place, node_endpoints re-emitted. */
    @ParameterizedTest(name = "Produce v{0}")
    @MethodSource("versions")
    void rewriteNodeIdsOfAForwardedResponse(short version) {
        long seed = Seeds.seed();
        Random random = new Random(seed + 3 * version);
        ProduceResponseSkim skim = new ProduceResponseSkim();
        Seeds.replayable(seed, "Produce v" + version + " endpoint rewrite", () -> {
            for (int round = 0; round < 30; round++) {
                ProduceResponseData data = response(random, version);
                int routes = 1 + random.nextInt(3);
                int source = random.nextInt(routes);
                TestRewriter rewriter = new TestRewriter(routes);
                ByteBuf frame = SkimFrames.response(ApiKeys.PRODUCE, version, 42, data);
                ByteBuf rewritten = null;
                try {
                    skim.wrap(frame, version);
                    skim.rewriteLeaderIdsInPlace(rewriter, source);
                    rewritten = skim.rewriteNodeEndpoints(rewriter, source, SkimFrames.ALLOC);
                    SkimFrames.Response parsed = SkimFrames.parseResponse(rewritten, ApiKeys.PRODUCE, version);
                    assertEquals(42, parsed.header().correlationId());
                    ProduceResponseData actual = new ProduceResponseData(parsed.body(), version);
                    SkimFrames.assertConsumed(parsed.body());

                    ProduceResponseData expected = data.duplicate();
                    for (TopicProduceResponse topic : expected.responses()) {
                        for (PartitionProduceResponse p : topic.partitionResponses()) {
                            p.currentLeader().setLeaderId(rewriter.nodeId(source, p.currentLeader().leaderId()));
                        }
                    }
                    expected.nodeEndpoints().clear();
                    expected.nodeEndpoints().addAll(SkimAsserts.expectedRewrite(rewriter, source, data.nodeEndpoints(),
                            ProduceCases::fields, ProduceCases::endpoint));
                    assertEquals(new ArrayList<>(expected.nodeEndpoints()), new ArrayList<>(actual.nodeEndpoints()));
                    assertEquals(topicsWithoutUnknownTags(expected), topicsWithoutUnknownTags(actual));
                    assertEquals(expected.throttleTimeMs(), actual.throttleTimeMs());
                } finally {
                    if (rewritten != null) {
                        rewritten.release();
                    }
                    frame.release();
                }
            }
        });
    }

    private static List<TopicProduceResponse> topicsWithoutUnknownTags(ProduceResponseData data) {
        List<TopicProduceResponse> out = new ArrayList<>();
        for (TopicProduceResponse topic : data.responses()) {
            TopicProduceResponse copy = topic.duplicate();
            out.add(copy);
        }
        return out;
    }
}
