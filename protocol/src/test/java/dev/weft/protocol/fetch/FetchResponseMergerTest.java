package dev.weft.protocol.fetch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.protocol.skim.Seeds;
import dev.weft.protocol.skim.SkimAsserts;
import dev.weft.protocol.skim.SkimFrames;
import dev.weft.protocol.skim.TestRewriter;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchRequestData.FetchPartition;
import org.apache.kafka.common.message.FetchRequestData.FetchTopic;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.FetchResponseData.FetchableTopicResponse;
import org.apache.kafka.common.message.FetchResponseData.PartitionData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Split a Fetch, answer each part with a random upstream response (some failed, some with a top-level
 * error, some incremental), merge, and compare the parsed merge with what the client must see.
 */
class FetchResponseMergerTest {

    static final short FAILED = FetchResponseMerger.NOT_LEADER_OR_FOLLOWER;
    static final short SESSION_NOT_FOUND = 70;

    enum Upstream { FAILED, TOP_LEVEL_ERROR, FULL, INCREMENTAL }

    static short[] versions() {
        return FetchCases.versions();
    }

    @ParameterizedTest(name = "Fetch v{0}")
    @MethodSource("versions")
    void mergeRestoresClientOrderAndSlicesRecords(short version) {
        long seed = Seeds.seed();
        Random random = new Random(seed * 101 + version);
        FetchRequestSkim request = new FetchRequestSkim();
        FetchResponseSkim[] skims = new FetchResponseSkim[4];
        for (int r = 0; r < skims.length; r++) {
            skims[r] = new FetchResponseSkim();
        }
        FetchResponseMerger merger = new FetchResponseMerger();
        Seeds.replayable(seed, "Fetch v" + version + " merge", () -> {
            for (int round = 0; round < 40; round++) {
                runCase(random, version, request, skims, merger);
            }
        });
    }

    private static void runCase(Random random, short version, FetchRequestSkim request, FetchResponseSkim[] skims,
                                FetchResponseMerger merger) {
        FetchRequestData data = FetchCases.request(random, version);
        int correlationId = random.nextInt();
        ByteBuf requestFrame = SkimFrames.request(ApiKeys.FETCH, version, correlationId, "c", data);
        List<ByteBuf> frames = new ArrayList<>();
        ByteBuf merged = null;
        try {
            request.wrap(requestFrame);
            int routes = 1 + random.nextInt(4);
            int[] routeOf = new int[request.partitionCount()];
            for (int i = 0; i < routeOf.length; i++) {
                routeOf[i] = random.nextInt(routes);
            }
            Upstream[] kinds = new Upstream[routes];
            FetchResponseData[] upstream = new FetchResponseData[routes];
            FetchResponseSkim[] answers = new FetchResponseSkim[routes];
            ByteBuf[] upstreamFrames = new ByteBuf[routes];
            Set<Long> dropped = new HashSet<>();
            boolean sessions = version >= FetchRequestSkim.FIRST_SESSION_VERSION;
            for (int r = 0; r < routes; r++) {
                kinds[r] = rollUpstream(random, sessions);
                if (kinds[r] == Upstream.FAILED) {
                    continue;
                }
                upstream[r] = upstreamResponse(random, version, data, routeOf, r, kinds[r], dropped);
                upstreamFrames[r] = SkimFrames.response(ApiKeys.FETCH, version, random.nextInt(), upstream[r]);
                frames.add(upstreamFrames[r]);
                answers[r] = skims[r].wrap(upstreamFrames[r], version);
            }
            TestRewriter rewriter = new TestRewriter(routes);
            int sessionId = sessions && random.nextBoolean() ? random.nextInt(1000) : 0;
            merged = merger.merge(request, routeOf, answers, FAILED, sessionId, rewriter, SkimFrames.ALLOC);

            FetchResponseData expected = expectedMerge(version, data, routeOf, kinds, upstream, dropped, sessionId, rewriter);
            SkimFrames.Response parsed = SkimFrames.parseResponse(merged, ApiKeys.FETCH, version);
            assertEquals(correlationId, parsed.header().correlationId());
            FetchResponseData actual = new FetchResponseData(parsed.body(), version);
            SkimFrames.assertConsumed(parsed.body());
            assertEquals(expected.responses(), actual.responses(), "topics, in client order");
            assertEquals(new ArrayList<>(expected.nodeEndpoints()), new ArrayList<>(actual.nodeEndpoints()), "node endpoints");
            assertEquals(expected, actual);
            assertRecordsAreSlices(answers, upstreamFrames, merged);
        } finally {
            if (merged != null) {
                merged.release();
            }
            frames.forEach(ByteBuf::release);
            requestFrame.release();
        }
    }

    static long key(int topic, int index) {
        return ((long) topic << 32) | (index & 0xFFFFFFFFL);
    }

    static FetchResponseData upstreamResponse(Random random, short version, FetchRequestData data, int[] routeOf, int route,
                                              Upstream kind, Set<Long> dropped) {
        FetchResponseData response = new FetchResponseData().setThrottleTimeMs(random.nextInt(3000));
        if (kind == Upstream.TOP_LEVEL_ERROR) {
            response.setErrorCode(SESSION_NOT_FOUND);
        }
        if (kind == Upstream.INCREMENTAL) {
            response.setSessionId(1 + random.nextInt(1 << 20));
        }
        if (kind != Upstream.TOP_LEVEL_ERROR) {
            int i = 0;
            int t = 0;
            List<FetchableTopicResponse> topics = new ArrayList<>();
            for (FetchTopic topic : data.topics()) {
                List<PartitionData> partitions = new ArrayList<>();
                for (FetchPartition p : topic.partitions()) {
                    if (routeOf[i++] == route) {
                        if (random.nextInt(7) == 0) {
                            dropped.add(key(t, p.partition()));
                        } else {
                            partitions.add(FetchCases.partitionResult(random, version, p.partition()));
                        }
                    }
                }
                if (!partitions.isEmpty()) {
                    if (random.nextInt(4) == 0) {
                        Collections.reverse(partitions);
                    }
                    topics.add(new FetchableTopicResponse().setTopic(topic.topic()).setTopicId(topic.topicId())
                            .setPartitions(partitions));
                }
                t++;
            }
            if (random.nextInt(4) == 0) {
                Collections.shuffle(topics, random);
            }
            response.responses().addAll(topics);
        }
        FetchCases.addEndpoints(random, version, response, route);
        return response;
    }

    static FetchResponseData expectedMerge(short version, FetchRequestData data, int[] routeOf, Upstream[] kinds,
                                           FetchResponseData[] upstream, Set<Long> dropped, int sessionId,
                                           TestRewriter rewriter) {
        FetchResponseData out = new FetchResponseData().setSessionId(sessionId);
        int throttle = 0;
        for (FetchResponseData response : upstream) {
            if (response != null) {
                throttle = Math.max(throttle, response.throttleTimeMs());
            }
        }
        out.setThrottleTimeMs(throttle);
        int i = 0;
        int t = 0;
        for (FetchTopic topic : data.topics()) {
            List<PartitionData> partitions = new ArrayList<>();
            for (FetchPartition p : topic.partitions()) {
                int route = routeOf[i++];
                Upstream kind = kinds[route];
                if (kind == Upstream.FAILED || kind == Upstream.TOP_LEVEL_ERROR) {
                    partitions.add(errorEntry(p.partition()));
                } else if (dropped.contains(key(t, p.partition()))) {
                    if (kind == Upstream.FULL) {
                        partitions.add(errorEntry(p.partition()));
                    }
                } else {
                    PartitionData found = find(upstream[route], topic, p.partition());
                    PartitionData copy = found.duplicate();
                    copy.unknownTaggedFields().addAll(found.unknownTaggedFields());
                    if (found.abortedTransactions() != null) {
                        for (int k = 0; k < found.abortedTransactions().size(); k++) {
                            copy.abortedTransactions().get(k).unknownTaggedFields()
                                    .addAll(found.abortedTransactions().get(k).unknownTaggedFields());
                        }
                    }
                    copy.currentLeader().setLeaderId(rewriter.nodeId(route, found.currentLeader().leaderId()));
                    copy.setPreferredReadReplica(rewriter.nodeId(route, found.preferredReadReplica()));
                    partitions.add(copy);
                }
            }
            if (!partitions.isEmpty()) {
                out.responses().add(new FetchableTopicResponse().setTopic(topic.topic()).setTopicId(topic.topicId())
                        .setPartitions(partitions));
            }
            t++;
        }
        out.nodeEndpoints().addAll(SkimAsserts.expectedUnion(rewriter, upstream, FetchResponseData::nodeEndpoints,
                FetchCases::fields, FetchCases::endpoint));
        return out;
    }

    /** What a broker writes for a partition in error (FetchResponse.partitionResponse). */
    static PartitionData errorEntry(int index) {
        return new PartitionData().setPartitionIndex(index).setErrorCode(FAILED).setHighWatermark(-1)
                .setRecords(MemoryRecords.EMPTY);
    }

    /** A random kind of upstream answer: failed 1 in 10; with sessions, a top-level error 1 in 10, incremental 3 in 10. */
    static Upstream rollUpstream(Random random, boolean sessions) {
        int roll = random.nextInt(10);
        return roll == 0 ? Upstream.FAILED
                : roll == 1 && sessions ? Upstream.TOP_LEVEL_ERROR
                : roll < 5 && sessions ? Upstream.INCREMENTAL : Upstream.FULL;
    }

    /** The upstream answer's entry for partition {@code index} of {@code topic} (shared by the merger tests). */
    static PartitionData find(FetchResponseData response, FetchTopic topic, int index) {
        for (FetchableTopicResponse t : response.responses()) {
            if (t.topic().equals(topic.topic()) && t.topicId().equals(topic.topicId())) {
                for (PartitionData p : t.partitions()) {
                    if (p.partitionIndex() == index) {
                        return p;
                    }
                }
            }
        }
        throw new AssertionError("partition " + index + " not in its upstream response");
    }

    /** Flip a record byte in an upstream frame: the merged frame sees it, so it was sliced, not copied. */
    static void assertRecordsAreSlices(FetchResponseSkim[] answers, ByteBuf[] frames, ByteBuf merged) {
        for (int r = 0; r < answers.length; r++) {
            FetchResponseSkim skim = answers[r];
            if (skim == null || skim.errorCode() != 0) {
                continue;
            }
            for (int j = 0; j < skim.partitionCount(); j++) {
                int length = skim.recordsLength(j);
                if (length < 16) {
                    continue;
                }
                int at = skim.recordsOffset(j);
                byte before = frames[r].getByte(at);
                frames[r].setByte(at, before ^ 0x3C);
                byte[] flipped = ByteBufUtil.getBytes(frames[r], at, 16);
                // search a heap snapshot: byte-by-byte reads of a PARANOID-tracked buffer are slow
                int where = ByteBufUtil.indexOf(io.netty.buffer.Unpooled.wrappedBuffer(flipped),
                        io.netty.buffer.Unpooled.wrappedBuffer(ByteBufUtil.getBytes(merged)));
                frames[r].setByte(at, before);
                // the flipped bytes exist only in the upstream frame: found through the merge, it is a slice
                assertTrue(where >= 0, "merged records read the upstream frame's bytes: no copy");
                return;
            }
        }
    }
}
