package dev.weft.protocol.record;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.protocol.produce.ProduceRequestSkim;
import dev.weft.protocol.skim.SkimFrames;
import dev.weft.protocol.skim.TestRecords;
import dev.weft.protocol.wire.MalformedFrameException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** {@link RecordBatchView} against batches written and checked by kafka-clients' DefaultRecordBatch. */
class RecordBatchViewTest {

    static Stream<TestRecords.Variant> variants() {
        return TestRecords.VARIANTS.stream();
    }

    enum Layout { POOLED_DIRECT, HEAP, COMPOSITE }

    /** The variant's bytes in a buffer of the given kind; caller releases. */
    static ByteBuf copy(MemoryRecords records, Layout layout, Random random) {
        byte[] bytes = new byte[records.sizeInBytes()];
        records.buffer().get(bytes);
        return switch (layout) {
            case POOLED_DIRECT -> SkimFrames.ALLOC.directBuffer(bytes.length).writeBytes(bytes);
            case HEAP -> Unpooled.wrappedBuffer(bytes);
            case COMPOSITE -> {
                // 3 pieces cut at random points: the CRC runs over several NIO buffers
                CompositeByteBuf composite = SkimFrames.ALLOC.compositeDirectBuffer(8);
                int a = random.nextInt(bytes.length + 1);
                int b = a + random.nextInt(bytes.length - a + 1);
                int[] cuts = {0, a, b, bytes.length};
                for (int k = 0; k < 3; k++) {
                    composite.addComponent(true, SkimFrames.ALLOC.directBuffer(cuts[k + 1] - cuts[k] + 1)
                            .writeBytes(bytes, cuts[k], cuts[k + 1] - cuts[k]));
                }
                yield composite;
            }
        };
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("variants")
    void fieldsMatchDefaultRecordBatch(TestRecords.Variant variant) {
        ByteBuf buf = copy(variant.records(), Layout.POOLED_DIRECT, new Random(1));
        try {
            RecordBatchView view = new RecordBatchView().wrap(buf);
            int batches = 0;
            for (MutableRecordBatch batch : variant.records().batches()) {
                assertTrue(view.hasBatch(), "batch " + batches);
                assertEquals(batch.baseOffset(), view.baseOffset());
                assertEquals(batch.sizeInBytes(), view.sizeInBytes());
                assertEquals(batch.partitionLeaderEpoch(), view.partitionLeaderEpoch());
                assertEquals(batch.magic(), view.magic());
                assertEquals(batch.checksum(), view.crc());
                assertEquals(batch.compressionType().id, view.compressionType());
                assertEquals(batch.timestampType() == TimestampType.LOG_APPEND_TIME, view.isLogAppendTime());
                assertEquals(batch.isTransactional(), view.isTransactional());
                assertEquals(batch.isControlBatch(), view.isControlBatch());
                assertEquals(batch.deleteHorizonMs().isPresent(), view.hasDeleteHorizon());
                assertEquals(batch.lastOffset(), view.lastOffset());
                assertEquals(batch.lastOffset() - batch.baseOffset(), view.lastOffsetDelta());
                assertEquals(batch.maxTimestamp(), view.maxTimestamp());
                assertEquals(batch.producerId(), view.producerId());
                assertEquals(batch.producerEpoch(), view.producerEpoch());
                assertEquals(batch.baseSequence(), view.baseSequence());
                assertEquals(batch.countOrNull(), view.recordCount());
                assertEquals(batch.producerId(), RecordBatchView.producerId(buf, view.offset()));
                assertTrue(view.crcValid());
                view.next();
                batches++;
            }
            assertFalse(view.hasBatch());
            assertEquals(0, view.partialTrailingBytes());
        } finally {
            buf.release();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("variants")
    void producerIdRewriteKeepsEveryBatchValid(TestRecords.Variant variant) {
        Random random = new Random(variant.name().hashCode());
        RecordBatchView view = new RecordBatchView();
        for (Layout layout : Layout.values()) {
            ByteBuf buf = copy(variant.records(), layout, random);
            try {
                List<long[]> written = new ArrayList<>();
                for (view.wrap(buf); view.hasBatch(); view.next()) {
                    long pid = random.nextLong() >>> 1;
                    short epoch = (short) random.nextInt(Short.MAX_VALUE);
                    view.producerIdAndEpoch(pid, epoch);
                    assertTrue(view.crcValid(), layout + ": CRC recomputed in place");
                    written.add(new long[] {pid, epoch});
                }
                byte[] after = ByteBufUtil.getBytes(buf);
                MemoryRecords rewritten = MemoryRecords.readableRecords(ByteBuffer.wrap(after));
                Iterator<MutableRecordBatch> original = variant.records().batches().iterator();
                int k = 0;
                int position = 0;
                for (MutableRecordBatch batch : rewritten.batches()) {
                    MutableRecordBatch before = original.next();
                    batch.ensureValid();
                    assertTrue(batch.isValid(), layout + ": kafka-clients accepts batch " + k);
                    assertEquals(written.get(k)[0], batch.producerId());
                    assertEquals((short) written.get(k)[1], batch.producerEpoch());
                    assertUnchangedBesidesPidEpochCrc(variant.records(), position, after, before.sizeInBytes());
                    assertSameRecords(before, batch);
                    position += batch.sizeInBytes();
                    k++;
                }
                assertEquals(written.size(), k);
            } finally {
                buf.release();
            }
        }
    }

    /** A branch copy: every batch with a producer loses it (id, epoch, sequence), stays valid, keeps its records. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("variants")
    void detachProducerLeavesPlainValidBatches(TestRecords.Variant variant) {
        RecordBatchView view = new RecordBatchView();
        ByteBuf buf = Unpooled.wrappedBuffer(variant.records().buffer().duplicate());
        buf = Unpooled.copiedBuffer(buf);
        try {
            int withProducer = 0;
            boolean transactional = false;
            for (MutableRecordBatch b : variant.records().batches()) {
                withProducer += b.hasProducerId() ? 1 : 0;
                transactional |= b.isTransactional();
            }
            assertEquals(transactional, view.anyTransactional(buf, 0, buf.writerIndex()));
            assertEquals(withProducer, view.detachProducer(buf, 0, buf.writerIndex()));
            MemoryRecords after = MemoryRecords.readableRecords(ByteBuffer.wrap(ByteBufUtil.getBytes(buf)));
            Iterator<MutableRecordBatch> original = variant.records().batches().iterator();
            for (MutableRecordBatch batch : after.batches()) {
                batch.ensureValid();
                assertEquals(RecordBatch.NO_PRODUCER_ID, batch.producerId());
                assertEquals(RecordBatch.NO_PRODUCER_EPOCH, batch.producerEpoch());
                assertEquals(RecordBatch.NO_SEQUENCE, batch.baseSequence());
                assertSameRecords(original.next(), batch);
            }
            assertFalse(original.hasNext());
        } finally {
            buf.release();
        }
    }

    /** Everything outside crc, producer_id and producer_epoch is byte-identical: compressed payloads untouched. */
    private static void assertUnchangedBesidesPidEpochCrc(MemoryRecords original, int position, byte[] after, int size) {
        byte[] before = new byte[size];
        ByteBuffer source = original.buffer();
        source.position(position);
        source.get(before);
        byte[] now = java.util.Arrays.copyOfRange(after, position, position + size);
        for (int at : new int[] {RecordBatchView.CRC_OFFSET, RecordBatchView.PRODUCER_ID_OFFSET}) {
            int len = at == RecordBatchView.CRC_OFFSET ? RecordBatchView.CRC_LENGTH
                    : RecordBatchView.PRODUCER_ID_LENGTH + RecordBatchView.PRODUCER_EPOCH_LENGTH;
            java.util.Arrays.fill(before, at, at + len, (byte) 0);
            java.util.Arrays.fill(now, at, at + len, (byte) 0);
        }
        assertArrayEquals(before, now);
    }

    private static void assertSameRecords(RecordBatch before, RecordBatch after) {
        Iterator<Record> a = before.iterator();
        Iterator<Record> b = after.iterator();
        while (a.hasNext()) {
            Record x = a.next();
            Record y = b.next();
            assertEquals(x.offset(), y.offset());
            assertEquals(x.timestamp(), y.timestamp());
            assertEquals(x.key(), y.key());
            assertEquals(x.value(), y.value());
            assertArrayEquals(x.headers(), y.headers());
        }
        assertFalse(b.hasNext());
    }

    @Test
    void singleFieldRewritesRecomputeTheCrc() {
        MemoryRecords records = TestRecords.VARIANTS.get(1).records(); // none idempotent
        ByteBuf buf = copy(records, Layout.POOLED_DIRECT, new Random(2));
        try {
            RecordBatchView view = new RecordBatchView().wrap(buf);
            long crc = view.crc();
            view.producerId(123_456_789L);
            assertTrue(view.crcValid());
            assertTrue(view.crc() != crc);
            view.producerEpoch((short) 77);
            assertTrue(view.crcValid());
            buf.setByte(view.offset() + RecordBatchView.RECORDS_OFFSET, buf.getByte(view.offset() + RecordBatchView.RECORDS_OFFSET) ^ 1);
            assertFalse(view.crcValid(), "a flipped payload bit is caught");
            buf.setByte(view.offset() + RecordBatchView.RECORDS_OFFSET, buf.getByte(view.offset() + RecordBatchView.RECORDS_OFFSET) ^ 1);
            MutableRecordBatch batch = MemoryRecords.readableRecords(ByteBuffer.wrap(ByteBufUtil.getBytes(buf))).batches().iterator().next();
            batch.ensureValid();
            assertEquals(123_456_789L, batch.producerId());
            assertEquals(77, batch.producerEpoch());
        } finally {
            buf.release();
        }
    }

    @Test
    void truncatedTrailingBatchIsNotABatch() {
        TestRecords.Variant multi = TestRecords.VARIANTS.get(TestRecords.VARIANTS.size() - 1);
        ByteBuf buf = copy(multi.records(), Layout.POOLED_DIRECT, new Random(3));
        try {
            int cut = buf.writerIndex() - 7;
            RecordBatchView view = new RecordBatchView().wrap(buf, 0, cut);
            int whole = 0;
            while (view.hasBatch()) {
                view.next();
                whole++;
            }
            int batches = 0;
            for (MutableRecordBatch ignored : multi.records().batches()) {
                batches++;
            }
            assertEquals(batches - 1, whole);
            assertTrue(view.partialTrailingBytes() > 0);
            assertThrows(MalformedFrameException.class, view::next);
            assertThrows(MalformedFrameException.class, view::updateCrc);
        } finally {
            buf.release();
        }
    }

    @Test
    void rewriteProducerRefusesPartialBatches() {
        ByteBuf buf = copy(TestRecords.VARIANTS.get(1).records(), Layout.POOLED_DIRECT, new Random(5));
        try {
            RecordBatchView view = new RecordBatchView();
            assertThrows(MalformedFrameException.class,
                    () -> view.rewriteProducer(buf, 0, buf.writerIndex() - 1, 1L, (short) 1));
            assertEquals(1, view.rewriteProducer(buf, 0, buf.writerIndex(), 1L, (short) 1));
            assertTrue(view.wrap(buf).crcValid());
        } finally {
            buf.release();
        }
    }

    /** Producer-ID translation where it happens: in place, inside the client's Produce frame. */
    @Test
    void rewriteInsideAProduceRequestFrame() {
        Random random = new Random(4);
        ProduceRequestData data = new ProduceRequestData().setAcks((short) -1).setTimeoutMs(1000)
                .setTransactionalId("txn");
        for (int t = 0; t < 3; t++) {
            ProduceRequestData.TopicProduceData topic = new ProduceRequestData.TopicProduceData().setName("t" + t);
            for (int p = 0; p < 3; p++) {
                topic.partitionData().add(new ProduceRequestData.PartitionProduceData().setIndex(p)
                        .setRecords(TestRecords.VARIANTS.get(random.nextInt(TestRecords.VARIANTS.size())).records()));
            }
            data.topicData().add(topic);
        }
        ByteBuf frame = SkimFrames.request(ApiKeys.PRODUCE, (short) 11, 1, "p", data);
        try {
            ProduceRequestSkim skim = new ProduceRequestSkim().wrap(frame);
            RecordBatchView view = new RecordBatchView();
            int rewritten = 0;
            int untouched = 0;
            for (int i = 0; i < skim.partitionCount(); i++) {
                int from = skim.recordsOffset(i);
                int to = from + skim.recordsLength(i);
                if (i % 2 == 0) {
                    for (view.wrap(frame, from, to); view.hasBatch(); view.next()) {
                        view.producerIdAndEpoch(424_242L, (short) 9);
                        rewritten++;
                    }
                } else {
                    int n = view.rewriteProducer(frame, from, to, 424_242L, (short) 9);
                    for (view.wrap(frame, from, to); view.hasBatch(); view.next()) {
                        untouched += view.producerId() == RecordBatchView.NO_PRODUCER_ID ? 1 : 0;
                        rewritten++;
                    }
                    assertTrue(n <= rewritten);
                }
            }
            ByteBuffer bytes = ByteBuffer.wrap(ByteBufUtil.getBytes(frame));
            org.apache.kafka.common.protocol.ByteBufferAccessor accessor = new org.apache.kafka.common.protocol.ByteBufferAccessor(bytes);
            new org.apache.kafka.common.message.RequestHeaderData(accessor, ApiKeys.PRODUCE.requestHeaderVersion((short) 11));
            ProduceRequestData parsed = new ProduceRequestData(accessor, (short) 11);
            int seen = 0;
            for (ProduceRequestData.TopicProduceData topic : parsed.topicData()) {
                for (ProduceRequestData.PartitionProduceData partition : topic.partitionData()) {
                    for (MutableRecordBatch batch : ((MemoryRecords) partition.records()).batches()) {
                        batch.ensureValid();
                        if (batch.producerId() == RecordBatch.NO_PRODUCER_ID) {
                            untouched--; // rewriteProducer leaves non-idempotent batches alone
                        } else {
                            assertEquals(424_242L, batch.producerId());
                            assertEquals(9, batch.producerEpoch());
                        }
                        seen++;
                    }
                }
            }
            assertEquals(rewritten, seen);
            assertEquals(0, untouched, "exactly the batches without a producer id were left alone");
            assertTrue(seen >= 9);
        } finally {
            frame.release();
        }
    }
}
