package dev.weft.protocol.produce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.protocol.skim.Seeds;
import dev.weft.protocol.skim.SkimAsserts;
import dev.weft.protocol.skim.SkimFrames;
import dev.weft.protocol.wire.MalformedFrameException;
import io.netty.buffer.ByteBuf;
import java.util.Random;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceRequestData.PartitionProduceData;
import org.apache.kafka.common.message.ProduceRequestData.TopicProduceData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class ProduceRequestSkimTest {

    static short[] versions() {
        return ProduceCases.versions();
    }

    @ParameterizedTest(name = "Produce v{0}")
    @MethodSource("versions")
    void skimMatchesKafkaClients(short version) {
        long seed = Seeds.seed();
        Random random = new Random(seed + version);
        ProduceRequestSkim skim = new ProduceRequestSkim(); // reused across cases, as on a connection
        Seeds.replayable(seed, "Produce v" + version + " skim", () -> {
            for (int round = 0; round < 60; round++) {
                ProduceRequestData data = ProduceCases.request(random, version);
                int correlationId = random.nextInt();
                ByteBuf frame = SkimFrames.request(ApiKeys.PRODUCE, version, correlationId, "client-" + round, data);
                try {
                    assertSkim(data, skim.wrap(frame), version, correlationId);
                    assertEquals(data.acks(), ProduceRequestSkim.acks(frame, skim.header().bodyOffset(), version));
                    assertEquals(frame.writerIndex(), skim.endOffset());
                } finally {
                    frame.release();
                }
            }
        });
    }

    /**
     * Bytes after the message are not the skim's business, as they are not the broker's: the request
     * skims exactly as without them, and a part built from it carries none.
     */
    @ParameterizedTest(name = "Produce v{0}")
    @MethodSource("versions")
    void bytesAfterTheMessageAreIgnoredAsTheBrokerIgnoresThem(short version) {
        long seed = Seeds.seed();
        Random random = new Random(seed - 17L * version);
        ProduceRequestSkim skim = new ProduceRequestSkim();
        ProduceRequestBuilder builder = new ProduceRequestBuilder();
        Seeds.replayable(seed, "Produce v" + version + " trailing bytes", () -> {
            for (int round = 0; round < 20; round++) {
                ProduceRequestData data = ProduceCases.request(random, version);
                ByteBuf exact = SkimFrames.request(ApiKeys.PRODUCE, version, round, "client", data);
                int extra = 1 + random.nextInt(8);
                ByteBuf frame = SkimFrames.ALLOC.directBuffer().writeBytes(exact, exact.readerIndex(), exact.readableBytes());
                for (int i = 0; i < extra; i++) {
                    frame.writeByte(random.nextBoolean() ? 0 : random.nextInt(256));
                }
                ByteBuf part = null;
                try {
                    skim.wrap(frame);
                    assertEquals(exact.writerIndex(), skim.endOffset());
                    assertEquals(extra, skim.trailingBytes());
                    assertSkim(data, skim, version, round);
                    int[] all = new int[skim.partitionCount()];
                    part = builder.build(skim, all, 0, 99, SkimFrames.ALLOC);
                    ProduceRequestBuilderTest.assertParsesTo(part, version, 99, "client", ProduceCases.subset(data, i -> true));
                    assertEquals(0, skim.wrap(exact).trailingBytes());
                } finally {
                    exact.release();
                    frame.release();
                    if (part != null) {
                        part.release();
                    }
                }
            }
        });
    }

    static void assertSkim(ProduceRequestData data, ProduceRequestSkim skim, short version, int correlationId) {
        assertEquals(version, skim.version());
        assertEquals(correlationId, skim.correlationId());
        assertEquals(data.acks(), skim.acks());
        assertEquals(data.timeoutMs(), skim.timeoutMs());
        assertEquals(data.transactionalId(), skim.transactionalId());
        assertEquals(data.topicData().size(), skim.topicCount());
        int i = 0;
        int t = 0;
        long recordsBytes = 0;
        for (TopicProduceData topic : data.topicData()) {
            if (skim.usesTopicIds()) {
                assertEquals(topic.topicId(), skim.topicId(t));
                assertEquals(topic.topicId().getMostSignificantBits(), skim.topicIdMostSignificantBits(t));
            } else {
                assertEquals(topic.name(), skim.topicName(t));
            }
            assertEquals(topic.partitionData().size(), skim.topicPartitionCount(t));
            assertEquals(i, skim.topicFirstPartition(t));
            for (PartitionProduceData partition : topic.partitionData()) {
                assertEquals(t, skim.partitionTopic(i));
                assertEquals(partition.index(), skim.partitionIndex(i));
                recordsBytes += SkimAsserts.assertRecords((MemoryRecords) partition.records(), skim.records(i),
                        skim.recordsLength(i), i);
                i++;
            }
            t++;
        }
        assertEquals(i, skim.partitionCount());
        assertEquals(recordsBytes, skim.recordsBytes());
    }

    @Test
    void recordsSliceIsRetainedAndSharesTheFrame() {
        ProduceRequestData data = ProduceCases.request(new Random(1), (short) 9);
        while (ProduceCases.flatten(data).stream().noneMatch(p -> p.records() != null && p.records().sizeInBytes() > 0)) {
            data = ProduceCases.request(new Random(System.nanoTime()), (short) 9);
        }
        ByteBuf frame = SkimFrames.request(ApiKeys.PRODUCE, (short) 9, 1, "c", data);
        ProduceRequestSkim skim = new ProduceRequestSkim().wrap(frame);
        int i = 0;
        while (skim.recordsLength(i) <= 0) {
            i++;
        }
        ByteBuf slice = skim.records(i);
        assertEquals(2, frame.refCnt(), "the slice holds its own reference to the frame");
        frame.setByte(skim.recordsOffset(i), frame.getByte(skim.recordsOffset(i)) ^ 0x5A);
        assertEquals(frame.getByte(skim.recordsOffset(i)), slice.getByte(0), "same memory: nothing copied");
        slice.release();
        assertEquals(1, frame.refCnt());
        frame.release();
    }

    @Test
    void acksReadAloneOnEveryVersion() {
        for (short version : versions()) {
            for (short acks : new short[] {-1, 0, 1}) {
                ProduceRequestData data = ProduceCases.request(new Random(version * 7L + acks), version).setAcks(acks);
                ByteBuf frame = SkimFrames.request(ApiKeys.PRODUCE, version, 5, "acks-test", data);
                try {
                    int body = new dev.weft.protocol.header.RequestHeaderView().wrap(frame).bodyOffset();
                    assertEquals(acks, ProduceRequestSkim.acks(frame, body, version));
                    ByteBuf cut = frame.slice(0, body + 1);
                    assertThrows(MalformedFrameException.class, () -> ProduceRequestSkim.acks(cut, body, version));
                } finally {
                    frame.release();
                }
            }
        }
    }

    @Test
    void refusesOtherApisAndVersions() {
        ByteBuf frame = SkimFrames.request(ApiKeys.PRODUCE, (short) 9, 1, "c", new ProduceRequestData());
        try {
            frame.setShort(2, 14);
            MalformedFrameException e = assertThrows(MalformedFrameException.class, () -> new ProduceRequestSkim().wrap(frame));
            assertTrue(e.getMessage().contains("v14"), e.getMessage());
            frame.setShort(0, 1);
            assertThrows(IllegalArgumentException.class, () -> new ProduceRequestSkim().wrap(frame));
        } finally {
            frame.release();
        }
    }

    @Test
    void skimAllocatesNothingProportionalToPartitionsOnceWarm() {
        // Not a benchmark: a guard that re-wrapping reuses the skim's arrays (JMH proves allocation).
        Random random = new Random(3);
        ProduceRequestData data = ProduceCases.request(random, (short) 12);
        while (ProduceCases.flatten(data).size() < 12) {
            data = ProduceCases.request(random, (short) 12);
        }
        ByteBuf pooled = SkimFrames.request(ApiKeys.PRODUCE, (short) 12, 1, "c", data);
        // a plain heap copy: PARANOID leak tracking records (and allocates for) every access to tracked buffers
        ByteBuf frame = io.netty.buffer.Unpooled.wrappedBuffer(io.netty.buffer.ByteBufUtil.getBytes(pooled));
        pooled.release();
        try {
            ProduceRequestSkim skim = new ProduceRequestSkim();
            skim.wrap(frame);
            com.sun.management.ThreadMXBean threads =
                    (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
            long tid = Thread.currentThread().threadId();
            for (int warm = 0; warm < 20_000; warm++) {
                skim.wrap(frame);
            }
            long before = threads.getThreadAllocatedBytes(tid);
            for (int k = 0; k < 10_000; k++) {
                skim.wrap(frame);
            }
            long perWrap = (threads.getThreadAllocatedBytes(tid) - before) / 10_000;
            assertTrue(perWrap < 64, "bytes allocated per wrap: " + perWrap);
        } finally {
            frame.release();
        }
    }
}
