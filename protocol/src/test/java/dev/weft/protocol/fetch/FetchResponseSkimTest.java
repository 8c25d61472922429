package dev.weft.protocol.fetch;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.weft.protocol.skim.SkimAsserts;
import dev.weft.protocol.skim.Seeds;
import dev.weft.protocol.skim.SkimFrames;
import dev.weft.protocol.skim.TestRewriter;
import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.FetchResponseData.AbortedTransaction;
import org.apache.kafka.common.message.FetchResponseData.FetchableTopicResponse;
import org.apache.kafka.common.message.FetchResponseData.PartitionData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class FetchResponseSkimTest {

    static short[] versions() {
        return FetchCases.versions();
    }

    @ParameterizedTest(name = "Fetch v{0}")
    @MethodSource("versions")
    void skimMatchesKafkaClients(short version) {
        long seed = Seeds.seed();
        Random random = new Random(seed - 13L * version);
        FetchResponseSkim skim = new FetchResponseSkim();
        Seeds.replayable(seed, "Fetch v" + version + " response skim", () -> {
            for (int round = 0; round < 50; round++) {
                FetchResponseData data = FetchCases.response(random, version, FetchCases.request(random, version));
                if (version >= FetchRequestSkim.FIRST_SESSION_VERSION && random.nextInt(5) == 0) {
                    data.setErrorCode((short) 70);
                }
                int correlationId = random.nextInt();
                ByteBuf frame = SkimFrames.response(ApiKeys.FETCH, version, correlationId, data);
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

    static void assertSkim(FetchResponseData data, FetchResponseSkim skim) {
        assertEquals(data.throttleTimeMs(), skim.throttleTimeMs());
        assertEquals(data.errorCode(), skim.errorCode());
        assertEquals(data.sessionId(), skim.sessionId());
        assertEquals(data.responses().size(), skim.topicCount());
        int i = 0;
        int t = 0;
        long recordsBytes = 0;
        for (FetchableTopicResponse topic : data.responses()) {
            if (skim.usesTopicIds()) {
                assertEquals(topic.topicId(), skim.topicId(t));
            } else {
                assertEquals(topic.topic(), skim.topicName(t));
            }
            assertEquals(topic.partitions().size(), skim.topicPartitionCount(t));
            for (PartitionData p : topic.partitions()) {
                assertEquals(t, skim.partitionTopic(i));
                assertEquals(p.partitionIndex(), skim.partitionIndex(i));
                assertEquals(p.errorCode(), skim.errorCode(i));
                assertEquals(p.highWatermark(), skim.highWatermark(i));
                assertEquals(p.lastStableOffset(), skim.lastStableOffset(i));
                assertEquals(p.logStartOffset(), skim.logStartOffset(i));
                assertEquals(p.preferredReadReplica(), skim.preferredReadReplica(i));
                assertEquals(p.divergingEpoch().epoch(), skim.divergingEpoch(i));
                assertEquals(p.divergingEpoch().endOffset(), skim.divergingEpochEndOffset(i));
                assertEquals(p.currentLeader().leaderId(), skim.currentLeaderId(i));
                assertEquals(p.currentLeader().leaderEpoch(), skim.currentLeaderEpoch(i));
                assertEquals(p.snapshotId().endOffset(), skim.snapshotIdEndOffset(i));
                assertEquals(p.snapshotId().epoch(), skim.snapshotIdEpoch(i));
                if (p.abortedTransactions() == null) {
                    assertEquals(-1, skim.abortedTransactionCount(i));
                } else {
                    assertEquals(p.abortedTransactions().size(), skim.abortedTransactionCount(i));
                    for (int k = 0; k < p.abortedTransactions().size(); k++) {
                        AbortedTransaction a = p.abortedTransactions().get(k);
                        assertEquals(a.producerId(), skim.abortedProducerId(i, k));
                        assertEquals(a.firstOffset(), skim.abortedFirstOffset(i, k));
                    }
                }
                recordsBytes += SkimAsserts.assertRecords((MemoryRecords) p.records(), skim.records(i), skim.recordsLength(i), i);
                i++;
            }
            t++;
        }
        assertEquals(i, skim.partitionCount());
        assertEquals(recordsBytes, skim.recordsBytes());
        SkimAsserts.assertEndpoints(data.nodeEndpoints(), FetchCases::fields, skim.nodeEndpoints());
    }

    /** The forward path: node ids patched in place, node_endpoints re-emitted, records untouched. */
    @ParameterizedTest(name = "Fetch v{0}")
    @MethodSource("versions")
    void rewriteNodeIdsOfAForwardedResponse(short version) {
        long seed = Seeds.seed();
        Random random = new Random(seed + 7L * version);
        FetchResponseSkim skim = new FetchResponseSkim();
        Seeds.replayable(seed, "Fetch v" + version + " endpoint rewrite", () -> {
            for (int round = 0; round < 30; round++) {
                FetchResponseData data = FetchCases.response(random, version, FetchCases.request(random, version));
                int routes = 1 + random.nextInt(3);
                int source = random.nextInt(routes);
                TestRewriter rewriter = new TestRewriter(routes);
                ByteBuf frame = SkimFrames.response(ApiKeys.FETCH, version, 9, data);
                ByteBuf rewritten = null;
                try {
                    skim.wrap(frame, version);
                    skim.rewriteNodeIdsInPlace(rewriter, source);
                    rewritten = skim.rewriteNodeEndpoints(rewriter, source, SkimFrames.ALLOC);
                    SkimFrames.Response parsed = SkimFrames.parseResponse(rewritten, ApiKeys.FETCH, version);
                    assertEquals(9, parsed.header().correlationId());
                    FetchResponseData actual = new FetchResponseData(parsed.body(), version);
                    SkimFrames.assertConsumed(parsed.body());

                    FetchResponseData expected = data.duplicate();
                    for (FetchableTopicResponse topic : expected.responses()) {
                        for (PartitionData p : topic.partitions()) {
                            p.currentLeader().setLeaderId(rewriter.nodeId(source, p.currentLeader().leaderId()));
                            p.setPreferredReadReplica(rewriter.nodeId(source, p.preferredReadReplica()));
                        }
                    }
                    expected.nodeEndpoints().clear();
                    expected.nodeEndpoints().addAll(SkimAsserts.expectedRewrite(rewriter, source, data.nodeEndpoints(),
                            FetchCases::fields, FetchCases::endpoint));
                    assertEquals(new ArrayList<>(expected.nodeEndpoints()), new ArrayList<>(actual.nodeEndpoints()));
                    assertEquals(withoutUnknownTags(expected), withoutUnknownTags(actual));
                    assertEquals(expected.throttleTimeMs(), actual.throttleTimeMs());
                    assertEquals(expected.sessionId(), actual.sessionId());
                } finally {
                    if (rewritten != null) {
                        rewritten.release();
                    }
                    frame.release();
                }
            }
        });
    }

    private static List<FetchableTopicResponse> withoutUnknownTags(FetchResponseData data) {
        List<FetchableTopicResponse> out = new ArrayList<>();
        for (FetchableTopicResponse topic : data.responses()) {
            out.add(topic.duplicate());
        }
        return out;
    }
}
