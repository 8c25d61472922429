package dev.weft.protocol.produce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.weft.protocol.skim.NodeEndpointRewriter;
import dev.weft.protocol.skim.Seeds;
import dev.weft.protocol.skim.SkimAsserts;
import dev.weft.protocol.skim.SkimFrames;
import dev.weft.protocol.skim.TestRewriter;
import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceRequestData.PartitionProduceData;
import org.apache.kafka.common.message.ProduceRequestData.TopicProduceData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.ProduceResponseData.BatchIndexAndErrorMessage;
import org.apache.kafka.common.message.ProduceResponseData.LeaderIdAndEpoch;
import org.apache.kafka.common.message.ProduceResponseData.NodeEndpoint;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.message.ProduceResponseData.TopicProduceResponse;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.types.RawTaggedField;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Split a Produce request, answer each part with a random upstream response (kafka-clients), merge,
 * parse the merge back and compare with what the client must see.
 */
class ProduceResponseMergerTest {

    static final short FAILED = ProduceResponseMerger.NOT_LEADER_OR_FOLLOWER;

    static short[] versions() {
        return ProduceCases.versions();
    }

    @ParameterizedTest(name = "Produce v{0}")
    @MethodSource("versions")
    void mergeRestoresClientOrderErrorsThrottleAndEndpoints(short version) {
        long seed = Seeds.seed();
        Random random = new Random(seed * 17 + version);
        ProduceRequestSkim request = new ProduceRequestSkim();
        ProduceResponseSkim[] skims = new ProduceResponseSkim[4];
        for (int r = 0; r < skims.length; r++) {
            skims[r] = new ProduceResponseSkim();
        }
        ProduceResponseMerger merger = new ProduceResponseMerger();
        Seeds.replayable(seed, "Produce v" + version + " merge", () -> {
            for (int round = 0; round < 40; round++) {
                runMergeCase(random, version, request, skims, merger);
            }
        });
    }

    private static void runMergeCase(Random random, short version, ProduceRequestSkim request,
                                     ProduceResponseSkim[] skims, ProduceResponseMerger merger) {
        ProduceRequestData data = ProduceCases.request(random, version);
        int correlationId = random.nextInt();
        ByteBuf requestFrame = SkimFrames.request(ApiKeys.PRODUCE, version, correlationId, "c", data);
        List<ByteBuf> frames = new ArrayList<>();
        ByteBuf merged = null;
        try {
            request.wrap(requestFrame);
            int routes = 1 + random.nextInt(4);
            int[] routeOf = new int[request.partitionCount()];
            for (int i = 0; i < routeOf.length; i++) {
                routeOf[i] = random.nextInt(routes);
            }
            boolean[] failed = new boolean[routes];
            ProduceResponseData[] upstream = new ProduceResponseData[routes];
            ProduceResponseSkim[] answers = new ProduceResponseSkim[routes];
            Set<Long> dropped = new HashSet<>();
            for (int r = 0; r < routes; r++) {
                failed[r] = random.nextInt(5) == 0;
                if (failed[r]) {
                    continue;
                }
                upstream[r] = upstreamResponse(random, version, data, routeOf, r, dropped);
                ByteBuf frame = SkimFrames.response(ApiKeys.PRODUCE, version, random.nextInt(), upstream[r]);
                frames.add(frame);
                answers[r] = skims[r].wrap(frame, version);
            }
            TestRewriter rewriter = new TestRewriter(routes);
            merged = merger.merge(request, routeOf, answers, FAILED, rewriter, SkimFrames.ALLOC);

            ProduceResponseData expected = expectedMerge(version, data, routeOf, upstream, dropped, rewriter);
            SkimFrames.Response parsed = SkimFrames.parseResponse(merged, ApiKeys.PRODUCE, version);
            assertEquals(correlationId, parsed.header().correlationId());
            ProduceResponseData actual = new ProduceResponseData(parsed.body(), version);
            SkimFrames.assertConsumed(parsed.body());
            assertEquals(new ArrayList<>(expected.responses()), new ArrayList<>(actual.responses()), "topics, in client order");
            assertEquals(new ArrayList<>(expected.nodeEndpoints()), new ArrayList<>(actual.nodeEndpoints()), "node endpoints");
            assertEquals(expected, actual);
        } finally {
            if (merged != null) {
                merged.release();
            }
            frames.forEach(ByteBuf::release);
            requestFrame.release();
        }
    }

    /** The upstream's answer to the partitions routed to it: random results, order shuffled, some left out. */
    static ProduceResponseData upstreamResponse(Random random, short version, ProduceRequestData data, int[] routeOf,
                                                int route, Set<Long> dropped) {
        ProduceResponseData response = new ProduceResponseData().setThrottleTimeMs(random.nextInt(2000));
        int i = 0;
        int t = 0;
        List<TopicProduceResponse> topics = new ArrayList<>();
        for (TopicProduceData topic : data.topicData()) {
            List<PartitionProduceResponse> partitions = new ArrayList<>();
            for (PartitionProduceData partition : topic.partitionData()) {
                if (routeOf[i] == route) {
                    if (random.nextInt(15) == 0) {
                        dropped.add(key(t, partition.index()));
                    } else {
                        partitions.add(partitionResult(random, version, partition.index()));
                    }
                }
                i++;
            }
            if (!partitions.isEmpty()) {
                if (random.nextInt(4) == 0) {
                    Collections.reverse(partitions);
                }
                topics.add(new TopicProduceResponse().setName(topic.name()).setTopicId(topic.topicId())
                        .setPartitionResponses(partitions));
            }
            t++;
        }
        if (random.nextInt(4) == 0) {
            Collections.shuffle(topics, random);
        }
        topics.forEach(response.responses()::add);
        if (version >= ProduceResponseSkim.FIRST_NODE_ENDPOINTS_VERSION) {
            for (int node = 0; node < 7; node++) {
                if (random.nextBoolean()) {
                    response.nodeEndpoints().add(new NodeEndpoint().setNodeId(node)
                            .setHost("b" + node + ".route" + route + ".upstream").setPort(9092 + node)
                            .setRack(random.nextBoolean() ? null : "az-" + node));
                }
            }
        }
        return response;
    }

    static PartitionProduceResponse partitionResult(Random random, short version, int index) {
        PartitionProduceResponse p = new PartitionProduceResponse()
                .setIndex(index)
                .setErrorCode(random.nextInt(3) == 0 ? (short) random.nextInt(100) : 0)
                .setBaseOffset(random.nextLong() >>> 1)
                .setLogAppendTimeMs(random.nextBoolean() ? -1 : random.nextLong() >>> 20);
        if (version >= ProduceResponseSkim.FIRST_LOG_START_OFFSET_VERSION) {
            p.setLogStartOffset(random.nextLong() >>> 2);
        }
        if (version >= ProduceResponseSkim.FIRST_RECORD_ERRORS_VERSION) {
            List<BatchIndexAndErrorMessage> errors = new ArrayList<>();
            for (int e = random.nextInt(3); e > 0; e--) {
                errors.add(new BatchIndexAndErrorMessage().setBatchIndex(random.nextInt(100))
                        .setBatchIndexErrorMessage(random.nextBoolean() ? null : "bad record " + e));
            }
            p.setRecordErrors(errors).setErrorMessage(random.nextBoolean() ? null : "batch dropped: ünïcode");
        }
        if (version >= ProduceResponseSkim.FIRST_NODE_ENDPOINTS_VERSION && random.nextBoolean()) {
            p.setCurrentLeader(new LeaderIdAndEpoch().setLeaderId(random.nextInt(7)).setLeaderEpoch(random.nextInt(90)));
        }
        if (version >= ProduceRequestSkim.FIRST_FLEXIBLE_VERSION && random.nextInt(6) == 0) {
            p.unknownTaggedFields().add(new RawTaggedField(42, new byte[] {1, 2, 3}));
        }
        return p;
    }

    static long key(int topic, int index) {
        return ((long) topic << 32) | (index & 0xFFFFFFFFL);
    }

    /** What the client must see: its own order, the upstream results rewritten, the rest synthesized. */
    static ProduceResponseData expectedMerge(short version, ProduceRequestData data, int[] routeOf,
                                             ProduceResponseData[] upstream, Set<Long> dropped, TestRewriter rewriter) {
        ProduceResponseData out = new ProduceResponseData();
        int throttle = 0;
        for (ProduceResponseData response : upstream) {
            if (response != null) {
                throttle = Math.max(throttle, response.throttleTimeMs());
            }
        }
        out.setThrottleTimeMs(throttle);
        int i = 0;
        int t = 0;
        for (TopicProduceData topic : data.topicData()) {
            List<PartitionProduceResponse> partitions = new ArrayList<>();
            for (PartitionProduceData partition : topic.partitionData()) {
                int route = routeOf[i++];
                PartitionProduceResponse found = upstream[route] == null || dropped.contains(key(t, partition.index()))
                        ? null : find(upstream[route], topic, partition.index());
                if (found == null) {
                    partitions.add(errorEntry(partition.index(), FAILED));
                } else {
                    PartitionProduceResponse copy = found.duplicate();
                    copy.unknownTaggedFields().addAll(found.unknownTaggedFields());
                    copy.currentLeader().setLeaderId(rewriter.nodeId(route, found.currentLeader().leaderId()));
                    partitions.add(copy);
                }
            }
            out.responses().add(new TopicProduceResponse().setName(topic.name()).setTopicId(topic.topicId())
                    .setPartitionResponses(partitions));
            t++;
        }
        out.nodeEndpoints().addAll(SkimAsserts.expectedUnion(rewriter, upstream, ProduceResponseData::nodeEndpoints,
                ProduceCases::fields, ProduceCases::endpoint));
        return out;
    }

    static PartitionProduceResponse errorEntry(int index, short error) {
        return new PartitionProduceResponse().setIndex(index).setErrorCode(error)
                .setBaseOffset(-1).setLogAppendTimeMs(-1).setLogStartOffset(-1);
    }

    private static PartitionProduceResponse find(ProduceResponseData response, TopicProduceData topic, int index) {
        for (TopicProduceResponse t : response.responses()) {
            if (t.name().equals(topic.name()) && t.topicId().equals(topic.topicId())) {
                for (PartitionProduceResponse p : t.partitionResponses()) {
                    if (p.index() == index) {
                        return p;
                    }
                }
            }
        }
        return null;
    }

    @ParameterizedTest(name = "Produce v{0}")
    @MethodSource("versions")
    void errorResponseAnswersEveryPartition(short version) {
        Random random = new Random(version);
        ProduceRequestData data = ProduceCases.request(random, version);
        ByteBuf frame = SkimFrames.request(ApiKeys.PRODUCE, version, 77, "c", data);
        ByteBuf response = null;
        try {
            ProduceRequestSkim skim = new ProduceRequestSkim().wrap(frame);
            response = new ProduceResponseMerger().errorResponse(skim, (short) 7, SkimFrames.ALLOC);
            SkimFrames.Response parsed = SkimFrames.parseResponse(response, ApiKeys.PRODUCE, version);
            ProduceResponseData actual = new ProduceResponseData(parsed.body(), version);
            ProduceResponseData expected = new ProduceResponseData();
            for (TopicProduceData topic : data.topicData()) {
                List<PartitionProduceResponse> partitions = new ArrayList<>();
                topic.partitionData().forEach(p -> partitions.add(errorEntry(p.index(), (short) 7)));
                expected.responses().add(new TopicProduceResponse().setName(topic.name()).setTopicId(topic.topicId())
                        .setPartitionResponses(partitions));
            }
            assertEquals(77, parsed.header().correlationId());
            assertEquals(expected, actual);
        } finally {
            if (response != null) {
                response.release();
            }
            frame.release();
        }
    }

    @Test
    void refusesResponsesOfAnotherVersion() {
        ByteBuf request = SkimFrames.request(ApiKeys.PRODUCE, (short) 9, 1, "c", new ProduceRequestData());
        ByteBuf response = SkimFrames.response(ApiKeys.PRODUCE, (short) 8, 1, new ProduceResponseData());
        try {
            ProduceRequestSkim skim = new ProduceRequestSkim().wrap(request);
            ProduceResponseSkim answer = new ProduceResponseSkim().wrap(response, (short) 8);
            assertThrows(IllegalArgumentException.class, () -> new ProduceResponseMerger().merge(skim, new int[0],
                    new ProduceResponseSkim[] {answer}, FAILED, NodeEndpointRewriter.IDENTITY, SkimFrames.ALLOC));
        } finally {
            request.release();
            response.release();
        }
    }
}
