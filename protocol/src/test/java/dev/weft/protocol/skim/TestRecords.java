package dev.weft.protocol.skim;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * Real record batches written by kafka-clients' {@link MemoryRecordsBuilder}: every compression codec,
 * plain, idempotent and transactional producers, LogAppendTime, control batches (transaction
 * markers) and fields of several batches. Built once (deterministically) and shared by the tests.
 */
public final class TestRecords {

    public record Variant(String name, MemoryRecords records) {
        @Override
        public String toString() {
            return name + " (" + records.sizeInBytes() + " bytes)";
        }
    }

    public static final List<Variant> VARIANTS = build();

    private TestRecords() {
    }

    /** A random variant, sometimes {@link MemoryRecords#EMPTY}. */
    public static MemoryRecords random(Random random) {
        if (random.nextInt(12) == 0) {
            return MemoryRecords.EMPTY;
        }
        return VARIANTS.get(random.nextInt(VARIANTS.size())).records();
    }

    public static List<Compression> compressions() {
        return List.of(Compression.NONE, Compression.gzip().build(), Compression.snappy().build(),
                Compression.lz4().build(), Compression.zstd().build());
    }

    private static List<Variant> build() {
        Random random = new Random(20261130L);
        List<Variant> out = new ArrayList<>();
        long baseOffset = 0;
        for (Compression compression : compressions()) {
            String codec = compression.type().name;
            out.add(new Variant(codec + " plain", batch(random, compression, TimestampType.CREATE_TIME, baseOffset,
                    RecordBatch.NO_PRODUCER_ID, RecordBatch.NO_PRODUCER_EPOCH, RecordBatch.NO_SEQUENCE, false, 1 + random.nextInt(20))));
            out.add(new Variant(codec + " idempotent", batch(random, compression, TimestampType.CREATE_TIME, baseOffset += 100,
                    4000 + random.nextInt(1000), (short) random.nextInt(50), random.nextInt(10000), false, 1 + random.nextInt(20))));
            out.add(new Variant(codec + " transactional", batch(random, compression, TimestampType.CREATE_TIME, baseOffset += 100,
                    9000 + random.nextInt(1000), (short) random.nextInt(50), random.nextInt(10000), true, 1 + random.nextInt(20))));
        }
        out.add(new Variant("none log-append-time", batch(random, Compression.NONE, TimestampType.LOG_APPEND_TIME, 77,
                RecordBatch.NO_PRODUCER_ID, RecordBatch.NO_PRODUCER_EPOCH, RecordBatch.NO_SEQUENCE, false, 3)));
        out.add(new Variant("none large values", batch(random, Compression.NONE, TimestampType.CREATE_TIME, 5000,
                123, (short) 4, 0, false, 2, 20_000)));
        out.add(new Variant("commit marker", MemoryRecords.withEndTransactionMarker(900L, 1_700_000_000_000L, 7, 9001L,
                (short) 3, new EndTransactionMarker(ControlRecordType.COMMIT, 11))));
        out.add(new Variant("abort marker", MemoryRecords.withEndTransactionMarker(950L, 1_700_000_000_500L, 8, 9002L,
                (short) 5, new EndTransactionMarker(ControlRecordType.ABORT, 12))));
        int singles = out.size();
        for (int k = 0; k < 3; k++) {
            List<MemoryRecords> parts = new ArrayList<>();
            int n = 2 + random.nextInt(3);
            StringBuilder name = new StringBuilder("multi[");
            for (int b = 0; b < n; b++) {
                Variant v = out.get(random.nextInt(singles));
                parts.add(v.records());
                name.append(b == 0 ? "" : ", ").append(v.name());
            }
            out.add(new Variant(name.append(']').toString(), concat(parts)));
        }
        return List.copyOf(out);
    }

    public static MemoryRecords batch(Random random, Compression compression, TimestampType timestampType, long baseOffset,
                                      long producerId, short producerEpoch, int baseSequence, boolean transactional,
                                      int count) {
        return batch(random, compression, timestampType, baseOffset, producerId, producerEpoch, baseSequence,
                transactional, count, 40);
    }

    public static MemoryRecords batch(Random random, Compression compression, TimestampType timestampType, long baseOffset,
                                      long producerId, short producerEpoch, int baseSequence, boolean transactional,
                                      int count, int valueBytes) {
        long now = 1_700_000_000_000L + random.nextInt(1_000_000);
        MemoryRecordsBuilder builder = MemoryRecords.builder(ByteBuffer.allocate(1024), RecordBatch.CURRENT_MAGIC_VALUE,
                compression, timestampType, baseOffset,
                timestampType == TimestampType.LOG_APPEND_TIME ? now : RecordBatch.NO_TIMESTAMP,
                producerId, producerEpoch, baseSequence, transactional, random.nextInt(20));
        for (int i = 0; i < count; i++) {
            byte[] key = ("key-" + random.nextInt(1000)).getBytes(StandardCharsets.UTF_8);
            byte[] value = new byte[random.nextInt(valueBytes + 1)];
            if (random.nextBoolean()) {
                random.nextBytes(value); // incompressible
            } else {
                for (int b = 0; b < value.length; b++) {
                    value[b] = (byte) ('a' + (b % 7));
                }
            }
            Header[] headers = random.nextInt(4) == 0
                    ? new Header[] {new RecordHeader("h", new byte[] {(byte) i})} : new Header[0];
            builder.append(now + i, key, random.nextInt(10) == 0 ? null : value, headers);
        }
        return builder.build();
    }

    public static MemoryRecords concat(List<MemoryRecords> parts) {
        int size = parts.stream().mapToInt(MemoryRecords::sizeInBytes).sum();
        ByteBuffer all = ByteBuffer.allocate(size);
        for (MemoryRecords part : parts) {
            all.put(part.buffer());
        }
        all.flip();
        return MemoryRecords.readableRecords(all);
    }
}
