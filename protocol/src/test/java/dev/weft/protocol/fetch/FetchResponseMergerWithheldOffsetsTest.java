package dev.weft.protocol.fetch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.protocol.fetch.FetchResponseMergerTest.Upstream;
import dev.weft.protocol.skim.NodeEndpointRewriter;
import dev.weft.protocol.skim.Seeds;
import dev.weft.protocol.skim.SkimFrames;
import dev.weft.protocol.skim.TestRecords;
import dev.weft.protocol.skim.TestRewriter;
import dev.weft.protocol.skim.UpstreamPartitions;
import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchRequestData.FetchPartition;
import org.apache.kafka.common.message.FetchRequestData.FetchTopic;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.FetchResponseData.AbortedTransaction;
import org.apache.kafka.common.message.FetchResponseData.EpochEndOffset;
import org.apache.kafka.common.message.FetchResponseData.FetchableTopicResponse;
import org.apache.kafka.common.message.FetchResponseData.LeaderIdAndEpoch;
import org.apache.kafka.common.message.FetchResponseData.PartitionData;
import org.apache.kafka.common.message.FetchResponseData.SnapshotId;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.types.RawTaggedField;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link UpstreamPartitions#withholdsEndOffsets(int)}: a partition read from a follower the proxy chose
 * is answered with high_watermark and last_stable_offset -1 (unknown), and everything else of the
 * upstream's entry as it was written — error, log_start_offset, aborted transactions, preferred read
 * replica (mapped), the records (a retained slice), tagged fields (diverging epoch, current leader
 * mapped, snapshot id, unknown tags). Partitions not withheld keep the upstream's end offsets. The merged
 * frame is read back with kafka-clients, for every version v4–v18; every buffer is released.
 */
class FetchResponseMergerWithheldOffsetsTest {

    private static final short FAILED = FetchResponseMerger.NOT_LEADER_OR_FOLLOWER;

    static short[] versions() {
        return FetchCases.versions();
    }

    /** The client's own indexes, with end offsets withheld for the partitions in {@code withheld}. */
    private static UpstreamPartitions withholding(BitSet withheld) {
        return new UpstreamPartitions() {
            @Override
            public int upstreamPartition(int i) {
                return CLIENT_INDEX;
            }

            @Override
            public boolean withholdsEndOffsets(int i) {
                return withheld.get(i);
            }
        };
    }

    /**
     * The request: {@code orders} p0..p3, {@code clicks} p0, p1. Route 0 (a follower) serves orders p0,
     * p2 and clicks p1, whose end offsets are withheld; route 1 (a leader) serves orders p1, p3 and clicks
     * p0. Every entry is full: an error code on orders p2, log start offset, aborted transactions, a
     * preferred read replica, records, diverging epoch, current leader, snapshot id and unknown tags.
     */
    @ParameterizedTest(name = "Fetch v{0}")
    @MethodSource("versions")
    void withheldPartitionsReportUnknownEndOffsetsAndTheRestAsTheUpstreamWroteIt(short version) {
        boolean ids = version >= FetchRequestSkim.FIRST_TOPIC_ID_VERSION;
        FetchRequestData data = new FetchRequestData().setMaxWaitMs(500).setMinBytes(1);
        data.topics().add(requestTopic(ids, "orders", new Uuid(0x0A, 1), 0, 1, 2, 3));
        data.topics().add(requestTopic(ids, "clicks", new Uuid(0x0B, 2), 0, 1));
        int[] routeOf = {0, 1, 0, 1, 1, 0};
        BitSet withheld = new BitSet();
        withheld.set(0);
        withheld.set(2);
        withheld.set(5);

        FetchResponseData[] upstream = {new FetchResponseData(), new FetchResponseData()};
        List<List<PartitionData>> answered = List.of(new ArrayList<>(), new ArrayList<>()); // per topic, wire order
        int i = 0;
        for (int t = 0; t < data.topics().size(); t++) {
            FetchTopic topic = data.topics().get(t);
            FetchableTopicResponse[] perRoute = new FetchableTopicResponse[2];
            for (FetchPartition p : topic.partitions()) {
                int route = routeOf[i];
                PartitionData entry = full(version, p.partition(), 1000L * (t + 1) + p.partition(),
                        i == 2 ? Errors.OFFSET_OUT_OF_RANGE.code() : Errors.NONE.code());
                if (perRoute[route] == null) {
                    perRoute[route] = new FetchableTopicResponse().setTopic(topic.topic()).setTopicId(topic.topicId());
                    upstream[route].responses().add(perRoute[route]);
                }
                perRoute[route].partitions().add(entry);
                answered.get(t).add(entry);
                i++;
            }
        }

        TestRewriter rewriter = new TestRewriter(2);
        FetchResponseData client = mergeAndParse(version, data, routeOf, upstream, withholding(withheld), rewriter);

        i = 0;
        for (int t = 0; t < data.topics().size(); t++) {
            List<PartitionData> got = client.responses().get(t).partitions();
            assertEquals(answered.get(t).size(), got.size());
            for (int k = 0; k < got.size(); k++, i++) {
                PartitionData sent = answered.get(t).get(k);
                PartitionData seen = got.get(k);
                String what = "v" + version + " " + data.topics().get(t).topic() + " p" + sent.partitionIndex();
                if (withheld.get(i)) {
                    assertEquals(-1L, seen.highWatermark(), what + ": high watermark withheld");
                    assertEquals(-1L, seen.lastStableOffset(), what + ": last stable offset withheld");
                } else {
                    assertEquals(sent.highWatermark(), seen.highWatermark(), what + ": the leader's high watermark");
                    assertEquals(sent.lastStableOffset(), seen.lastStableOffset(), what + ": the leader's last stable offset");
                }
                assertEquals(sent.partitionIndex(), seen.partitionIndex(), what);
                assertEquals(sent.errorCode(), seen.errorCode(), what + ": error");
                assertEquals(sent.logStartOffset(), seen.logStartOffset(), what + ": log start offset");
                assertEquals(sent.abortedTransactions(), seen.abortedTransactions(), what + ": aborted transactions");
                if (version >= FetchResponseSkim.FIRST_PREFERRED_READ_REPLICA_VERSION) {
                    assertEquals(rewriter.nodeId(routeOf[i], sent.preferredReadReplica()), seen.preferredReadReplica(),
                            what + ": preferred read replica, mapped");
                }
                assertEquals(sent.records(), seen.records(), what + ": records, byte for byte");
                assertEquals(sent.divergingEpoch(), seen.divergingEpoch(), what + ": diverging epoch");
                assertEquals(rewriter.nodeId(routeOf[i], sent.currentLeader().leaderId()), seen.currentLeader().leaderId(),
                        what + ": current leader, mapped");
                assertEquals(sent.currentLeader().leaderEpoch(), seen.currentLeader().leaderEpoch(), what);
                assertEquals(sent.snapshotId(), seen.snapshotId(), what + ": snapshot id");
                assertEquals(sent.unknownTaggedFields(), seen.unknownTaggedFields(), what + ": unknown tagged fields");
                if (version >= FetchRequestSkim.FIRST_FLEXIBLE_VERSION) {
                    assertEquals(1, seen.unknownTaggedFields().size(), what + ": the test's unknown tag is there");
                }
            }
        }
        assertEquals(expected(version, data, routeOf, upstream, withheld, rewriter), client, "v" + version);
    }

    /** Random requests and answers (failed, erroneous, incremental upstreams), random partitions withheld. */
    @ParameterizedTest(name = "Fetch v{0}")
    @MethodSource("versions")
    void randomSplitsWithheldAtRandom(short version) {
        long seed = Seeds.seed();
        Random random = new Random(seed * 31 + version);
        Seeds.replayable(seed, "Fetch v" + version + " merge with end offsets withheld", () -> {
            for (int round = 0; round < 40; round++) {
                randomCase(random, version);
            }
        });
    }

    private static void randomCase(Random random, short version) {
        FetchRequestData data = FetchCases.request(random, version);
        int correlationId = random.nextInt();
        ByteBuf requestFrame = SkimFrames.request(ApiKeys.FETCH, version, correlationId, "c", data);
        List<ByteBuf> frames = new ArrayList<>();
        ByteBuf merged = null;
        try {
            FetchRequestSkim request = new FetchRequestSkim().wrap(requestFrame);
            int routes = 1 + random.nextInt(4);
            int[] routeOf = new int[request.partitionCount()];
            BitSet withheld = new BitSet();
            for (int i = 0; i < routeOf.length; i++) {
                routeOf[i] = random.nextInt(routes);
                if (random.nextBoolean()) {
                    withheld.set(i);
                }
            }
            boolean sessions = version >= FetchRequestSkim.FIRST_SESSION_VERSION;
            Upstream[] kinds = new Upstream[routes];
            FetchResponseData[] upstream = new FetchResponseData[routes];
            FetchResponseSkim[] answers = new FetchResponseSkim[routes];
            ByteBuf[] upstreamFrames = new ByteBuf[routes];
            Set<Long> dropped = new HashSet<>();
            for (int r = 0; r < routes; r++) {
                kinds[r] = FetchResponseMergerTest.rollUpstream(random, sessions);
                if (kinds[r] == Upstream.FAILED) {
                    continue;
                }
                upstream[r] = FetchResponseMergerTest.upstreamResponse(random, version, data, routeOf, r, kinds[r], dropped);
                upstreamFrames[r] = SkimFrames.response(ApiKeys.FETCH, version, random.nextInt(), upstream[r]);
                frames.add(upstreamFrames[r]);
                answers[r] = new FetchResponseSkim().wrap(upstreamFrames[r], version);
            }
            TestRewriter rewriter = new TestRewriter(routes);
            int sessionId = sessions && random.nextBoolean() ? random.nextInt(1000) : 0;
            merged = new FetchResponseMerger().merge(request, routeOf, answers, null, withholding(withheld), FAILED, FAILED,
                    sessionId, rewriter, SkimFrames.ALLOC);

            FetchResponseData expected = FetchResponseMergerTest.expectedMerge(version, data, routeOf, kinds, upstream, dropped,
                    sessionId, rewriter);
            withhold(expected, data, routeOf, withheld, dropped, kinds);
            SkimFrames.Response parsed = SkimFrames.parseResponse(merged, ApiKeys.FETCH, version);
            assertEquals(correlationId, parsed.header().correlationId());
            FetchResponseData actual = new FetchResponseData(parsed.body(), version);
            SkimFrames.assertConsumed(parsed.body());
            assertEquals(expected.responses(), actual.responses(), "topics, in client order, end offsets withheld");
            assertEquals(expected, actual);
            FetchResponseMergerTest.assertRecordsAreSlices(answers, upstreamFrames, merged);
        } finally {
            if (merged != null) {
                merged.release();
            }
            frames.forEach(ByteBuf::release);
            requestFrame.release();
        }
    }

    /**
     * Sets -1 end offsets on the expected entries of withheld partitions, walking the request as
     * {@link FetchResponseMergerTest#expectedMerge} builds it (omitted partitions skipped).
     */
    private static void withhold(FetchResponseData expected, FetchRequestData data, int[] routeOf, BitSet withheld,
                                 Set<Long> dropped, Upstream[] kinds) {
        int i = 0;
        int written = 0;
        for (int t = 0; t < data.topics().size(); t++) {
            FetchTopic topic = data.topics().get(t);
            List<PartitionData> entries = new ArrayList<>();
            for (FetchPartition p : topic.partitions()) {
                Upstream kind = kinds[routeOf[i]];
                boolean omitted = kind == Upstream.INCREMENTAL && dropped.contains(FetchResponseMergerTest.key(t, p.partition()));
                if (!omitted && withheld.get(i)) {
                    entries.add(null); // placeholder: resolved below by position
                } else if (!omitted) {
                    entries.add(new PartitionData()); // kept as is
                }
                i++;
            }
            if (entries.isEmpty()) {
                continue;
            }
            List<PartitionData> actual = expected.responses().get(written++).partitions();
            assertEquals(entries.size(), actual.size(), "expected entries of topic " + t);
            for (int k = 0; k < entries.size(); k++) {
                if (entries.get(k) == null) {
                    actual.get(k).setHighWatermark(-1).setLastStableOffset(-1);
                }
            }
        }
    }

    /** Withholding nothing (the default) keeps every end offset; withholding everything hides them all. */
    @ParameterizedTest(name = "Fetch v{0}")
    @MethodSource("versions")
    void theDefaultWithholdsNothingAndEveryPartitionCanBeWithheld(short version) {
        boolean ids = version >= FetchRequestSkim.FIRST_TOPIC_ID_VERSION;
        FetchRequestData data = new FetchRequestData().setMaxWaitMs(500).setMinBytes(1);
        data.topics().add(requestTopic(ids, "orders", new Uuid(0x0A, 1), 0, 1, 2));
        int[] routeOf = {0, 0, 0};
        FetchResponseData answer = new FetchResponseData();
        FetchableTopicResponse orders = new FetchableTopicResponse().setTopic(data.topics().get(0).topic())
                .setTopicId(data.topics().get(0).topicId());
        for (int p = 0; p < 3; p++) {
            orders.partitions().add(full(version, p, 500 + p, Errors.NONE.code()));
        }
        answer.responses().add(orders);
        FetchResponseData[] upstream = {answer};

        UpstreamPartitions clientIndexes = i -> UpstreamPartitions.CLIENT_INDEX; // withholdsEndOffsets: the default
        FetchResponseData kept = mergeAndParse(version, data, routeOf, upstream, clientIndexes, NodeEndpointRewriter.IDENTITY);
        FetchResponseData none = mergeAndParse(version, data, routeOf, upstream, UpstreamPartitions.of(new int[0]),
                NodeEndpointRewriter.IDENTITY);
        FetchResponseData without = mergeAndParse(version, data, routeOf, upstream, null, NodeEndpointRewriter.IDENTITY);
        for (int p = 0; p < 3; p++) {
            assertEquals(500 + p, kept.responses().get(0).partitions().get(p).highWatermark(), "v" + version + " p" + p);
            assertEquals(500 + p + 1, kept.responses().get(0).partitions().get(p).lastStableOffset(), "v" + version + " p" + p);
        }
        assertEquals(without, kept, "the default withholds nothing: as a merge with no partition indexes at all");
        assertEquals(without, none);

        BitSet all = new BitSet();
        all.set(0, 3);
        FetchResponseData hidden = mergeAndParse(version, data, routeOf, upstream, withholding(all), NodeEndpointRewriter.IDENTITY);
        for (int p = 0; p < 3; p++) {
            PartitionData entry = hidden.responses().get(0).partitions().get(p);
            assertEquals(-1L, entry.highWatermark(), "v" + version + " p" + p);
            assertEquals(-1L, entry.lastStableOffset(), "v" + version + " p" + p);
            PartitionData restored = entry.duplicate().setHighWatermark(500 + p).setLastStableOffset(500 + p + 1);
            restored.unknownTaggedFields().addAll(entry.unknownTaggedFields());
            PartitionData original = kept.responses().get(0).partitions().get(p);
            assertEquals(original, restored, "v" + version + " p" + p + ": only the end offsets differ");
            assertEquals(original.unknownTaggedFields(), restored.unknownTaggedFields());
            assertNotEquals(original, entry);
        }
    }

    /** A withheld partition that was refused, answered empty or whose upstream failed is an error entry, offsets -1. */
    @ParameterizedTest(name = "Fetch v{0}")
    @MethodSource("versions")
    void withheldPartitionsWithoutAnAnswerAreErrorEntries(short version) {
        boolean ids = version >= FetchRequestSkim.FIRST_TOPIC_ID_VERSION;
        FetchRequestData data = new FetchRequestData().setMaxWaitMs(500).setMinBytes(1);
        data.topics().add(requestTopic(ids, "orders", new Uuid(0x0A, 1), 0, 1, 2, 3));
        int[] routeOf = {0, -1, FetchResponseMerger.ANSWERED_EMPTY, 1}; // route 1 failed
        FetchResponseData answer = new FetchResponseData();
        answer.responses().add(new FetchableTopicResponse().setTopic(data.topics().get(0).topic())
                .setTopicId(data.topics().get(0).topicId()).setPartitions(new ArrayList<>(List.of(
                        full(version, 0, 700, Errors.NONE.code())))));
        BitSet all = new BitSet();
        all.set(0, 4);
        FetchResponseData client = mergeAndParse(version, data, routeOf, new FetchResponseData[] {answer, null},
                withholding(all), NodeEndpointRewriter.IDENTITY);
        List<PartitionData> got = client.responses().get(0).partitions();
        assertEquals(4, got.size());
        assertEquals(Errors.NONE.code(), got.get(0).errorCode());
        assertEquals(-1L, got.get(0).highWatermark());
        assertTrue(((MemoryRecords) got.get(0).records()).sizeInBytes() > 0, "the follower's records");
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(), got.get(1).errorCode(), "refused");
        assertEquals(Errors.NONE.code(), got.get(2).errorCode(), "answered empty");
        assertEquals(FAILED, got.get(3).errorCode(), "failed upstream");
        for (PartitionData p : got) {
            assertEquals(-1L, p.highWatermark());
            assertEquals(-1L, p.lastStableOffset());
        }
    }

    private static FetchTopic requestTopic(boolean ids, String name, Uuid id, int... partitions) {
        FetchTopic t = ids ? new FetchTopic().setTopicId(id) : new FetchTopic().setTopic(name);
        for (int p : partitions) {
            t.partitions().add(new FetchPartition().setPartition(p).setFetchOffset(100).setPartitionMaxBytes(1 << 16));
        }
        return t;
    }

    /** An entry with every field this version carries set to something other than its default. */
    private static PartitionData full(short version, int index, long highWatermark, short errorCode) {
        PartitionData p = new PartitionData().setPartitionIndex(index).setErrorCode(errorCode)
                .setHighWatermark(highWatermark).setLastStableOffset(highWatermark + 1)
                .setRecords(TestRecords.VARIANTS.get(index % TestRecords.VARIANTS.size()).records());
        if (version >= FetchRequestSkim.FIRST_LOG_START_OFFSET_VERSION) {
            p.setLogStartOffset(highWatermark - 50);
        }
        List<AbortedTransaction> aborted = new ArrayList<>();
        aborted.add(new AbortedTransaction().setProducerId(9000 + index).setFirstOffset(highWatermark - 10));
        aborted.add(new AbortedTransaction().setProducerId(9100 + index).setFirstOffset(highWatermark - 5));
        p.setAbortedTransactions(aborted);
        if (version >= FetchResponseSkim.FIRST_PREFERRED_READ_REPLICA_VERSION) {
            p.setPreferredReadReplica(2 + index % 3);
        }
        if (version >= FetchRequestSkim.FIRST_FLEXIBLE_VERSION) {
            p.setDivergingEpoch(new EpochEndOffset().setEpoch(7 + index).setEndOffset(highWatermark - 3));
            p.setCurrentLeader(new LeaderIdAndEpoch().setLeaderId(1 + index % 3).setLeaderEpoch(11 + index));
            p.setSnapshotId(new SnapshotId().setEndOffset(highWatermark - 20).setEpoch(3 + index));
            p.unknownTaggedFields().add(new RawTaggedField(120 + index, ("tag" + index).getBytes(StandardCharsets.UTF_8)));
        }
        return p;
    }

    /** The upstream entries in client order, end offsets -1 where withheld, node ids mapped (every partition answered). */
    private static FetchResponseData expected(short version, FetchRequestData data, int[] routeOf, FetchResponseData[] upstream,
                                              BitSet withheld, TestRewriter rewriter) {
        FetchResponseData out = new FetchResponseData();
        int i = 0;
        for (FetchTopic topic : data.topics()) {
            FetchableTopicResponse t = new FetchableTopicResponse().setTopic(topic.topic()).setTopicId(topic.topicId());
            for (FetchPartition p : topic.partitions()) {
                int route = routeOf[i];
                PartitionData found = find(upstream[route], topic, p.partition());
                PartitionData copy = found.duplicate();
                copy.unknownTaggedFields().addAll(found.unknownTaggedFields());
                copy.currentLeader().setLeaderId(rewriter.nodeId(route, found.currentLeader().leaderId()));
                copy.setPreferredReadReplica(rewriter.nodeId(route, found.preferredReadReplica()));
                if (withheld.get(i)) {
                    copy.setHighWatermark(-1).setLastStableOffset(-1);
                }
                t.partitions().add(copy);
                i++;
            }
            out.responses().add(t);
        }
        return out;
    }

    private static PartitionData find(FetchResponseData response, FetchTopic topic, int index) {
        return FetchResponseMergerTest.find(response, topic, index);
    }

    /** Serializes the upstream answers (null: failed), merges them with {@code partitions}, parses the result; releases all. */
    private static FetchResponseData mergeAndParse(short version, FetchRequestData data, int[] routeOf, FetchResponseData[] upstream,
                                                   UpstreamPartitions partitions, NodeEndpointRewriter rewriter) {
        ByteBuf requestFrame = SkimFrames.request(ApiKeys.FETCH, version, 4243, "rack-test", data);
        List<ByteBuf> frames = new ArrayList<>();
        ByteBuf merged = null;
        try {
            FetchRequestSkim request = new FetchRequestSkim().wrap(requestFrame);
            assertEquals(routeOf.length, request.partitionCount());
            FetchResponseSkim[] answers = new FetchResponseSkim[upstream.length];
            ByteBuf[] upstreamFrames = new ByteBuf[upstream.length];
            for (int r = 0; r < upstream.length; r++) {
                if (upstream[r] != null) {
                    upstreamFrames[r] = SkimFrames.response(ApiKeys.FETCH, version, 9 + r, upstream[r]);
                    frames.add(upstreamFrames[r]);
                    answers[r] = new FetchResponseSkim().wrap(upstreamFrames[r], version);
                }
            }
            merged = new FetchResponseMerger().merge(request, routeOf, answers, null, partitions,
                    Errors.UNKNOWN_TOPIC_OR_PARTITION.code(), FAILED, 0, rewriter, SkimFrames.ALLOC);
            SkimFrames.Response parsed = SkimFrames.parseResponse(merged, ApiKeys.FETCH, version);
            assertEquals(4243, parsed.header().correlationId());
            FetchResponseData client = new FetchResponseData(parsed.body(), version);
            SkimFrames.assertConsumed(parsed.body());
            FetchResponseMergerTest.assertRecordsAreSlices(answers, upstreamFrames, merged);
            return client;
        } finally {
            if (merged != null) {
                merged.release();
            }
            frames.forEach(ByteBuf::release);
            requestFrame.release();
        }
    }
}
