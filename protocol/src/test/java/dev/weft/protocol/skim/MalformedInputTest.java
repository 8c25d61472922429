package dev.weft.protocol.skim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.weft.protocol.fetch.FetchCases;
import dev.weft.protocol.fetch.FetchRequestBuilder;
import dev.weft.protocol.fetch.FetchRequestSkim;
import dev.weft.protocol.fetch.FetchResponseMerger;
import dev.weft.protocol.fetch.FetchResponseSkim;
import dev.weft.protocol.produce.ProduceCases;
import dev.weft.protocol.produce.ProduceRequestBuilder;
import dev.weft.protocol.produce.ProduceRequestSkim;
import dev.weft.protocol.produce.ProduceResponseMerger;
import dev.weft.protocol.produce.ProduceResponseSkim;
import dev.weft.protocol.wire.MalformedFrameException;
import io.netty.buffer.ByteBuf;
import java.util.BitSet;
import java.util.Random;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.Test;

/**
 * Truncated, lying and corrupted frames: every skim answers {@link MalformedFrameException} (never an
 * {@code IndexOutOfBoundsException}, never a huge allocation), and whatever does parse can be split and
 * merged without leaking. The leak extension fails the class if any buffer is left unreleased.
 */
class MalformedInputTest {

    /** A skim under test: wraps a frame (borrowed) as message {@code version}. */
    interface Skimmer {
        void skim(ByteBuf frame, short version);
    }

    private final ProduceRequestSkim produceRequest = new ProduceRequestSkim();
    private final ProduceResponseSkim produceResponse = new ProduceResponseSkim();
    private final FetchRequestSkim fetchRequest = new FetchRequestSkim();
    private final FetchResponseSkim fetchResponse = new FetchResponseSkim();
    private final TestRewriter rewriter = new TestRewriter(2);

    private final Skimmer produceRequestSkimmer = (frame, v) -> {
        produceRequest.wrap(frame);
        splitAll(produceRequest);
    };
    private final Skimmer produceResponseSkimmer = (frame, v) -> {
        produceResponse.wrap(frame, v);
        produceResponse.rewriteLeaderIdsInPlace(rewriter, 1);
        produceResponse.rewriteNodeEndpoints(rewriter, 1, SkimFrames.ALLOC).release();
    };
    private final Skimmer fetchRequestSkimmer = (frame, v) -> {
        fetchRequest.wrap(frame);
        splitAll(fetchRequest);
    };
    private final Skimmer fetchResponseSkimmer = (frame, v) -> {
        fetchResponse.wrap(frame, v);
        fetchResponse.rewriteNodeIdsInPlace(rewriter, 0);
        fetchResponse.rewriteNodeEndpoints(rewriter, 0, SkimFrames.ALLOC).release();
    };

    private static void splitAll(ProduceRequestSkim skim) {
        BitSet all = new BitSet();
        all.set(0, skim.partitionCount());
        new ProduceRequestBuilder().build(skim, all, 1, SkimFrames.ALLOC).release();
    }

    private static void splitAll(FetchRequestSkim skim) {
        BitSet all = new BitSet();
        all.set(0, skim.partitionCount());
        new FetchRequestBuilder().keepForgottenTopics(true).build(skim, all, 1, SkimFrames.ALLOC).release();
    }

    private static ByteBuf produceRequestFrame(Random random, short v) {
        return SkimFrames.request(ApiKeys.PRODUCE, v, 1, "c", ProduceCases.request(random, v));
    }

    @Test
    void everyStrictPrefixIsMalformed() {
        long seed = Seeds.seed();
        Random random = new Random(seed);
        Seeds.replayable(seed, "truncation", () -> {
            for (short v = 3; v <= 13; v++) {
                checkPrefixes(random, produceRequestFrame(random, v), v, produceRequestSkimmer, "Produce request");
                checkPrefixes(random, SkimFrames.response(ApiKeys.PRODUCE, v, 1, ProduceCases.response(random, v)), v,
                        produceResponseSkimmer, "Produce response");
            }
            for (short v = 4; v <= 18; v++) {
                FetchRequestData request = FetchCases.request(random, v);
                checkPrefixes(random, SkimFrames.request(ApiKeys.FETCH, v, 1, "c", request), v, fetchRequestSkimmer, "Fetch request");
                checkPrefixes(random, SkimFrames.response(ApiKeys.FETCH, v, 1, FetchCases.response(random, v, request)), v,
                        fetchResponseSkimmer, "Fetch response");
            }
        });
    }

    private static void checkPrefixes(Random random, ByteBuf frame, short v, Skimmer skimmer, String what) {
        try {
            skimmer.skim(frame, v); // the whole frame parses
            int length = frame.writerIndex();
            for (int k = 0; k < Math.min(length, 400); k++) {
                int cut = length <= 400 ? k : random.nextInt(length);
                ByteBuf prefix = frame.slice(0, cut);
                try {
                    skimmer.skim(prefix, v);
                    fail(what + " v" + v + " cut to " + cut + " of " + length + " bytes parsed");
                } catch (MalformedFrameException expected) {
                    // the clear error
                }
            }
        } finally {
            frame.release();
        }
    }

    @Test
    void lyingCountsAndLengthsAreMalformed() {
        // Produce v3, no transactional id: topic count right after acks and timeout
        ProduceRequestData data = new ProduceRequestData().setAcks((short) 1).setTimeoutMs(5);
        ProduceRequestData.TopicProduceData topic = new ProduceRequestData.TopicProduceData().setName("t");
        topic.partitionData().add(new ProduceRequestData.PartitionProduceData().setIndex(0)
                .setRecords(TestRecords.VARIANTS.get(0).records()));
        data.topicData().add(topic);
        ByteBuf frame = SkimFrames.request(ApiKeys.PRODUCE, (short) 3, 1, "c", data);
        try {
            ProduceRequestSkim skim = new ProduceRequestSkim().wrap(frame);
            int recordsLength = skim.recordsOffset(0) - 4;
            int topicCount = skim.header().bodyOffset() + 2 + 2 + 4;
            assertEquals(1, frame.getInt(topicCount));

            frame.setInt(topicCount, Integer.MAX_VALUE);
            MalformedFrameException e = assertThrows(MalformedFrameException.class, () -> skim.wrap(frame));
            assertTrue(e.getMessage().contains("claims " + Integer.MAX_VALUE), e.getMessage());
            frame.setInt(topicCount, -7);
            assertThrows(MalformedFrameException.class, () -> skim.wrap(frame));
            frame.setInt(topicCount, 1);

            frame.setInt(recordsLength, frame.writerIndex());
            e = assertThrows(MalformedFrameException.class, () -> skim.wrap(frame));
            assertTrue(e.getMessage().contains("runs past the end"), e.getMessage());
            frame.setInt(recordsLength, -2);
            assertThrows(MalformedFrameException.class, () -> skim.wrap(frame));
        } finally {
            frame.release();
        }
    }

    @Test
    void lyingCompactCountsAreMalformed() {
        FetchResponseData data = new FetchResponseData();
        FetchResponseData.FetchableTopicResponse topic = new FetchResponseData.FetchableTopicResponse().setTopic("t");
        topic.partitions().add(new FetchResponseData.PartitionData().setPartitionIndex(3)
                .setRecords(TestRecords.VARIANTS.get(2).records()));
        data.responses().add(topic);
        ByteBuf frame = SkimFrames.response(ApiKeys.FETCH, (short) 12, 1, data);
        try {
            FetchResponseSkim skim = new FetchResponseSkim().wrap(frame, (short) 12);
            // body: throttle(4) error(2) session(4), then the compact topic count (2 = 1 topic + 1)
            int topicCount = 4 + 1 + 4 + 2 + 4;
            assertEquals(2, frame.getByte(topicCount));
            frame.setByte(topicCount, 0x7F); // 126 topics in a few hundred bytes
            assertThrows(MalformedFrameException.class, () -> skim.wrap(frame, (short) 12));
            frame.setByte(topicCount, 0); // null topics array
            assertThrows(MalformedFrameException.class, () -> skim.wrap(frame, (short) 12));
            frame.setByte(topicCount, 2);
            skim.wrap(frame, (short) 12);
            assertEquals(3, skim.partitionIndex(0));
        } finally {
            frame.release();
        }
    }

    /** Random byte corruption: either it still parses (and splits, merges, rewrites without leaking) or it is malformed. */
    @Test
    void corruptedFramesParseOrAreMalformed() {
        long seed = Seeds.seed();
        Random random = new Random(seed);
        Seeds.replayable(seed, "corruption", () -> {
            for (int round = 0; round < 150; round++) {
                short pv = (short) (3 + random.nextInt(11));
                short fv = (short) (4 + random.nextInt(15));
                FetchRequestData fetch = FetchCases.request(random, fv);
                corrupt(random, produceRequestFrame(random, pv), pv, produceRequestSkimmer);
                corrupt(random, SkimFrames.response(ApiKeys.PRODUCE, pv, 1, ProduceCases.response(random, pv)), pv, produceResponseSkimmer);
                corrupt(random, SkimFrames.request(ApiKeys.FETCH, fv, 1, "c", fetch), fv, fetchRequestSkimmer);
                corrupt(random, SkimFrames.response(ApiKeys.FETCH, fv, 1, FetchCases.response(random, fv, fetch)), fv, fetchResponseSkimmer);
            }
        });
    }

    private static void corrupt(Random random, ByteBuf frame, short v, Skimmer skimmer) {
        try {
            int length = frame.writerIndex();
            for (int k = 1 + random.nextInt(4); k > 0 && length > 0; k--) {
                int at = random.nextInt(length);
                int value = switch (random.nextInt(4)) {
                    case 0 -> 0xFF;
                    case 1 -> 0x7F;
                    case 2 -> 0;
                    default -> random.nextInt(256);
                };
                frame.setByte(at, value);
            }
            try {
                skimmer.skim(frame, v);
            } catch (MalformedFrameException | IllegalArgumentException expected) {
                // IllegalArgumentException: the api key itself was corrupted
            }
        } finally {
            frame.release();
        }
    }

    @Test
    void errorResponsesWhenEveryUpstreamFailedLeakNothing() {
        // a merge where every upstream failed: synthesized errors only, no leak
        ProduceRequestData data = ProduceCases.request(new Random(5), (short) 11);
        ByteBuf frame = SkimFrames.request(ApiKeys.PRODUCE, (short) 11, 1, "c", data);
        try {
            ProduceRequestSkim skim = new ProduceRequestSkim().wrap(frame);
            ByteBuf response = new ProduceResponseMerger().errorResponse(skim, (short) 6, SkimFrames.ALLOC);
            assertTrue(response.readableBytes() > 4);
            response.release();
            assertEquals(1, frame.refCnt());
        } finally {
            frame.release();
        }
        FetchRequestData fetch = FetchCases.request(new Random(6), (short) 16);
        ByteBuf fetchFrame = SkimFrames.request(ApiKeys.FETCH, (short) 16, 1, "c", fetch);
        try {
            FetchRequestSkim skim = new FetchRequestSkim().wrap(fetchFrame);
            ByteBuf response = new FetchResponseMerger().errorResponse(skim, (short) 6, 0, SkimFrames.ALLOC);
            assertTrue(response.readableBytes() > 4);
            response.release();
        } finally {
            fetchFrame.release();
        }
    }

    @Test
    void frameAssemblerAbortReleasesEverything() {
        ByteBuf source = SkimFrames.ALLOC.directBuffer(64).writeZero(64);
        FrameAssembler out = new FrameAssembler();
        out.begin(SkimFrames.ALLOC, 16);
        out.copy(source, 0, 8);
        out.appendSlice(source, 8, 40);
        out.meta(10_000).writeZero(10_000); // forces a second chunk
        assertEquals(2, source.refCnt(), "the slice holds a reference");
        out.abort();
        assertEquals(1, source.refCnt(), "abort released the slice");
        out.abort(); // idempotent
        out.begin(SkimFrames.ALLOC, 16);
        out.appendSlice(source, 0, 64);
        ByteBuf frame = out.finish();
        assertEquals(64, frame.getInt(0));
        assertEquals(68, frame.readableBytes());
        frame.release();
        assertEquals(1, source.refCnt());
        source.release();
    }
}
