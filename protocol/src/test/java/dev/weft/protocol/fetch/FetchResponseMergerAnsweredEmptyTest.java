package dev.weft.protocol.fetch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.protocol.skim.NodeEndpointRewriter;
import dev.weft.protocol.skim.SkimFrames;
import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchRequestData.FetchPartition;
import org.apache.kafka.common.message.FetchRequestData.FetchTopic;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.FetchResponseData.FetchableTopicResponse;
import org.apache.kafka.common.message.FetchResponseData.PartitionData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Partitions whose follower answer was set aside ({@code routeOf} {@link FetchResponseMerger#ANSWERED_EMPTY})
 * are answered empty with no error, so the client fetches them again, while refused partitions
 * ({@code routeOf} -1) keep the refusal code and partitions of failed upstreams the failed code. The
 * merged frame is read back with kafka-clients.
 *
 * <p>The request: {@code orders} p0..p4 and {@code clicks} p0, p1. Route 0 (a follower) answers orders
 * p0 and p4 with data, and orders p1, clicks p0 and p1 with its own trouble (set aside); orders p2 is
 * refused; orders p3 went to route 1, which failed.
 */
class FetchResponseMergerAnsweredEmptyTest {

    private static final short REFUSED = Errors.UNKNOWN_TOPIC_OR_PARTITION.code();
    private static final short FAILED = FetchResponseMerger.NOT_LEADER_OR_FOLLOWER;
    private static final short FOLLOWER_TROUBLE = Errors.OFFSET_NOT_AVAILABLE.code();
    private static final int SESSION = 0;
    private static final int FOLLOWER = 0;
    private static final int EMPTY = FetchResponseMerger.ANSWERED_EMPTY;
    private static final int NOT_SENT = -1;
    private static final int FAILED_ROUTE = 1;

    /** Per request partition (orders p0..p4, clicks p0, p1): where it went. */
    private static final int[] ROUTE_OF = {FOLLOWER, EMPTY, NOT_SENT, FAILED_ROUTE, FOLLOWER, EMPTY, EMPTY};

    static short[] versions() {
        return FetchCases.versions();
    }

    /** Versions with fetch sessions (an upstream may answer incrementally). */
    static short[] sessionVersions() {
        short[] all = versions();
        int from = FetchRequestSkim.FIRST_SESSION_VERSION - all[0];
        short[] out = new short[all.length - from];
        System.arraycopy(all, from, out, 0, out.length);
        return out;
    }

    private static FetchRequestData request(short version) {
        FetchRequestData data = new FetchRequestData().setMaxWaitMs(500).setMinBytes(1);
        data.topics().add(topic(version, "orders", new Uuid(0x0A, 1), 0, 1, 2, 3, 4));
        data.topics().add(topic(version, "clicks", new Uuid(0x0B, 2), 0, 1));
        return data;
    }

    private static FetchTopic topic(short version, String name, Uuid id, int... partitions) {
        FetchTopic t = version >= FetchRequestSkim.FIRST_TOPIC_ID_VERSION ? new FetchTopic().setTopicId(id) : new FetchTopic().setTopic(name);
        for (int p : partitions) {
            t.partitions().add(new FetchPartition().setPartition(p).setFetchOffset(100).setPartitionMaxBytes(1 << 16));
        }
        return t;
    }

    /** The follower's data for a partition: a record at offset 100, high watermark 101. */
    private static PartitionData data(short version, int index) {
        PartitionData p = new PartitionData().setPartitionIndex(index).setHighWatermark(101).setLastStableOffset(101)
                .setRecords(MemoryRecords.withRecords(100L, Compression.NONE,
                        new SimpleRecord(("p" + index).getBytes(StandardCharsets.UTF_8))));
        if (version >= FetchRequestSkim.FIRST_LOG_START_OFFSET_VERSION) {
            p.setLogStartOffset(0);
        }
        return p;
    }

    /** The follower's own trouble with a partition (what rack-aware fetch sets aside). */
    private static PartitionData trouble(int index) {
        return new PartitionData().setPartitionIndex(index).setErrorCode(FOLLOWER_TROUBLE).setHighWatermark(90)
                .setRecords(MemoryRecords.EMPTY);
    }

    /** What a broker writes for a partition in error, with {@code errorCode}; 0 answers it empty. */
    private static PartitionData entry(int index, short errorCode) {
        return new PartitionData().setPartitionIndex(index).setErrorCode(errorCode).setHighWatermark(-1)
                .setRecords(MemoryRecords.EMPTY);
    }

    private static FetchableTopicResponse answer(FetchTopic requested, PartitionData... partitions) {
        return new FetchableTopicResponse().setTopic(requested.topic()).setTopicId(requested.topicId())
                .setPartitions(new ArrayList<>(List.of(partitions)));
    }

    /** The follower's answer: data for orders p0 and p4, trouble for the rest (left out when {@code incremental}). */
    private static FetchResponseData followerAnswer(short version, FetchRequestData request, boolean incremental) {
        FetchResponseData response = new FetchResponseData().setSessionId(incremental ? 77 : 0);
        FetchTopic orders = request.topics().get(0);
        FetchTopic clicks = request.topics().get(1);
        if (incremental) {
            response.responses().add(answer(orders, data(version, 0), data(version, 4)));
        } else {
            response.responses().add(answer(orders, data(version, 0), trouble(1), data(version, 4)));
            response.responses().add(answer(clicks, trouble(0), trouble(1)));
        }
        return response;
    }

    /** What the client must see, given the codes for refused and failed partitions and whether the follower's data counts. */
    private static FetchResponseData expected(short version, FetchRequestData request, short refused, short failed,
                                              boolean followerAnswered) {
        FetchTopic orders = request.topics().get(0);
        FetchTopic clicks = request.topics().get(1);
        FetchResponseData out = new FetchResponseData().setSessionId(SESSION);
        out.responses().add(answer(orders,
                followerAnswered ? data(version, 0) : entry(0, failed),
                entry(1, Errors.NONE.code()),
                entry(2, refused),
                entry(3, failed),
                followerAnswered ? data(version, 4) : entry(4, failed)));
        out.responses().add(answer(clicks, entry(0, Errors.NONE.code()), entry(1, Errors.NONE.code())));
        return out;
    }

    @FunctionalInterface
    private interface Merge {
        ByteBuf merge(FetchResponseMerger merger, FetchRequestSkim request, FetchResponseSkim[] answers);
    }

    /**
     * Merges the follower's answer (route 0; route 1 failed) with {@code merge} and reads the client's
     * answer back; every frame is released.
     */
    private static FetchResponseData mergeAndParse(short version, FetchRequestData data, FetchResponseData follower, Merge merge) {
        ByteBuf requestFrame = SkimFrames.request(ApiKeys.FETCH, version, 4242, "rack-test", data);
        ByteBuf followerFrame = SkimFrames.response(ApiKeys.FETCH, version, 9, follower);
        ByteBuf merged = null;
        try {
            FetchRequestSkim request = new FetchRequestSkim().wrap(requestFrame);
            assertEquals(ROUTE_OF.length, request.partitionCount());
            FetchResponseSkim[] answers = {new FetchResponseSkim().wrap(followerFrame, version), null};
            merged = merge.merge(new FetchResponseMerger(), request, answers);
            SkimFrames.Response parsed = SkimFrames.parseResponse(merged, ApiKeys.FETCH, version);
            assertEquals(4242, parsed.header().correlationId());
            FetchResponseData client = new FetchResponseData(parsed.body(), version);
            SkimFrames.assertConsumed(parsed.body());
            return client;
        } finally {
            if (merged != null) {
                merged.release();
            }
            followerFrame.release();
            requestFrame.release();
        }
    }

    private static Merge withCodes(short refused, short failed) {
        return (merger, request, answers) -> merger.merge(request, ROUTE_OF, answers, null, refused, failed, SESSION,
                NodeEndpointRewriter.IDENTITY, SkimFrames.ALLOC);
    }

    private static PartitionData partition(FetchResponseData response, int topic, int index) {
        return response.responses().get(topic).partitions().get(index);
    }

    @ParameterizedTest(name = "Fetch v{0}")
    @MethodSource("versions")
    void answeredEmptyHasNoErrorWhileRefusedAndFailedKeepTheirCodes(short version) {
        FetchRequestData data = request(version);
        FetchResponseData client = mergeAndParse(version, data, followerAnswer(version, data, false), withCodes(REFUSED, FAILED));
        PartitionData setAside = partition(client, 0, 1);
        assertEquals(Errors.NONE.code(), setAside.errorCode(), "the follower's OFFSET_NOT_AVAILABLE is not the client's");
        assertEquals(-1, setAside.highWatermark(), "offsets unknown: not the follower's high watermark");
        assertEquals(0, ((MemoryRecords) setAside.records()).sizeInBytes(), "no records");
        assertEquals(REFUSED, partition(client, 0, 2).errorCode());
        assertEquals(FAILED, partition(client, 0, 3).errorCode());
        assertEquals(expected(version, data, REFUSED, FAILED, true), client);
    }

    @ParameterizedTest(name = "Fetch v{0}")
    @MethodSource("sessionVersions")
    void answeredEmptyIsWrittenWhenTheFollowerAnsweredIncrementally(short version) {
        FetchRequestData data = request(version);
        FetchResponseData client = mergeAndParse(version, data, followerAnswer(version, data, true), withCodes(REFUSED, FAILED));
        assertEquals(expected(version, data, REFUSED, FAILED, true), client,
                "a partition answered empty is always in the client's answer, whatever the follower left out");
    }

    @ParameterizedTest(name = "Fetch v{0}")
    @MethodSource("versions")
    void answeredEmptyHasNoErrorWhenFailuresAreRefusedAlike(short version) {
        FetchRequestData data = request(version);
        FetchResponseData client = mergeAndParse(version, data, followerAnswer(version, data, false),
                (merger, request, answers) -> merger.merge(request, ROUTE_OF, answers, FAILED, SESSION,
                        NodeEndpointRewriter.IDENTITY, SkimFrames.ALLOC));
        assertEquals(expected(version, data, FAILED, FAILED, true), client,
                "the one-code merge answers refused and failed partitions with it, set-aside ones with none");
    }

    @ParameterizedTest(name = "Fetch v{0}")
    @MethodSource("versions")
    void answeredEmptyHasNoErrorWhenAFollowerFailsWhole(short version) {
        FetchRequestData data = request(version);
        FetchResponseData failedWhole = followerAnswer(version, data, false);
        failedWhole.responses().clear();
        if (version >= FetchRequestSkim.FIRST_SESSION_VERSION) {
            failedWhole.setErrorCode(Errors.FETCH_SESSION_ID_NOT_FOUND.code());
        }
        FetchResponseData client = mergeAndParse(version, data, failedWhole, withCodes(REFUSED, FAILED));
        assertEquals(expected(version, data, REFUSED, FAILED, false), client, version >= FetchRequestSkim.FIRST_SESSION_VERSION
                ? "a top-level error fails the follower's partitions, not the ones answered empty"
                : "left out of a full fetch: the follower's partitions fail, the ones answered empty do not");
    }

    @ParameterizedTest(name = "Fetch v{0}")
    @MethodSource("versions")
    void unwaitedPartsAndAnsweredEmptyAreBothEmpty(short version) {
        FetchRequestData data = request(version);
        FetchResponseData client = mergeAndParse(version, data, followerAnswer(version, data, false),
                withCodes(REFUSED, Errors.NONE.code()));
        assertEquals(expected(version, data, REFUSED, Errors.NONE.code(), true), client);
        assertTrue(client.responses().get(1).partitions().stream().allMatch(p -> p.errorCode() == 0 && p.highWatermark() == -1));
    }
}
