package dev.weft.jmh.codec;

import dev.weft.protocol.record.RecordBatchView;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Producer-id translation: rewrite producer_id and producer_epoch of one record batch in place and
 * recompute its CRC-32C (DESIGN §3), on a pooled direct buffer. The time grows with the batch (the
 * CRC reads every byte); the allocation must not.
 */
@State(Scope.Thread)
@Fork(value = 1, jvmArgsAppend = {"-Dio.netty.leakDetection.level=disabled", "--sun-misc-unsafe-memory-access=allow",
        "-Djmh.executor=CUSTOM", "-Djmh.executor.class=dev.weft.jmh.EventLoopThreadsExecutor"})
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class RecordBatchRewriteBenchmark {

    @Param({"1024", "65536", "1048576"})
    public int batchBytes;

    private ByteBuf batch;
    private final RecordBatchView view = new RecordBatchView();
    private long producerId = 1;

    @Setup(Level.Trial)
    public void setUp() {
        MemoryRecords records = CodecFrames.batch(batchBytes, batchBytes);
        batch = PooledByteBufAllocator.DEFAULT.directBuffer(records.sizeInBytes());
        batch.writeBytes(records.buffer().duplicate());
        if (!view.wrap(batch).crcValid()) {
            throw new IllegalStateException("batch CRC invalid before the benchmark");
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        if (!view.wrap(batch).crcValid()) {
            throw new IllegalStateException("batch CRC invalid after the rewrites");
        }
        batch.release();
    }

    @Benchmark
    public long rewriteProducerIdAndCrc() {
        producerId++;
        return view.wrap(batch).producerIdAndEpoch(producerId, (short) (producerId & 0x7fff)).crc();
    }
}
