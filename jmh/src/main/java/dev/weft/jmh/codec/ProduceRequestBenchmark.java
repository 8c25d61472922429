package dev.weft.jmh.codec;

import dev.weft.protocol.produce.ProduceRequestBuilder;
import dev.weft.protocol.produce.ProduceRequestSkim;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceRequestData.PartitionProduceData;
import org.apache.kafka.common.message.ProduceRequestData.TopicProduceData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
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
import org.openjdk.jmh.infra.Blackhole;

/**
 * Produce request: Weft's skim against kafka-clients' full parse, and a split (half the partitions)
 * built from slices against the same split re-encoded through kafka-clients.
 *
 * <p>{@code shape} is {@code <partitions>x<batchBytes>}: every combination of partitions
 * {1, 10, 100, 1000} and batch size {1 KiB, 64 KiB, 1 MiB} whose records total at most 128 MiB
 * (so 1000 × 1 MiB, a 1 GiB frame, is left out; 100 × 1 MiB and 1000 × 64 KiB are in).
 *
 * <p>The frame lives in a pooled direct buffer (what the decoder hands over). {@code gc.alloc.rate.norm}
 * counts heap bytes only: pooled direct memory handed out by the allocator is not in it.
 */
@State(Scope.Thread)
@Fork(value = 1, jvmArgsAppend = {"-Dio.netty.leakDetection.level=disabled", "--sun-misc-unsafe-memory-access=allow",
        "-Djmh.executor=CUSTOM", "-Djmh.executor.class=dev.weft.jmh.EventLoopThreadsExecutor"})
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class ProduceRequestBenchmark {

    private static final ByteBufAllocator POOLED = PooledByteBufAllocator.DEFAULT;

    @Param({"1x1024", "1x65536", "1x1048576",
            "10x1024", "10x65536", "10x1048576",
            "100x1024", "100x65536", "100x1048576",
            "1000x1024", "1000x65536"})
    public String shape;

    /** Produce version: 13 (topic ids) is what kafka-clients 4.x sends; 9–12 use topic names. */
    @Param({"13"})
    public short version;

    private ByteBuf frame;
    private short headerVersion;
    private final ProduceRequestSkim skim = new ProduceRequestSkim();
    private final ProduceRequestSkim splitSkim = new ProduceRequestSkim();
    private final ProduceRequestBuilder builder = new ProduceRequestBuilder();
    private int[] routeOf;
    private RequestHeaderData splitHeader;
    private ProduceRequestData splitData;

    @Setup(Level.Trial)
    public void setUp() {
        CodecFrames.Shape s = CodecFrames.Shape.parse(shape);
        int partitions = s.partitions();
        MemoryRecords records = CodecFrames.batch(s.batchBytes(), s.batchBytes());
        ProduceRequestData data = ProduceFrames.request(version, partitions, records);
        frame = ProduceFrames.requestFrame(POOLED, version, 42, data);
        headerVersion = ApiKeys.PRODUCE.requestHeaderVersion(version);
        routeOf = CodecFrames.alternatingRoutes(partitions);
        splitSkim.wrap(frame);
        splitHeader = ProduceFrames.header(version, 7);
        splitData = ProduceFrames.subset(data, i -> routeOf[i] == 0);
        // sanity: the skim sees what was written
        if (splitSkim.partitionCount() != partitions || splitSkim.recordsLength(0) != records.sizeInBytes()) {
            throw new IllegalStateException("skim disagrees with the frame written");
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        frame.release();
    }

    /**
     * Weft hot path: skim the request and take every partition's records as a retained slice (reading
     * the first batch's base offset through it), then release the slice.
     */
    @Benchmark
    public long skim() {
        ProduceRequestSkim s = skim.wrap(frame);
        long sum = s.acks();
        for (int i = 0, n = s.partitionCount(); i < n; i++) {
            ByteBuf records = s.records(i);
            sum += s.partitionIndex(i) + records.getLong(records.readerIndex()) + records.readableBytes();
            records.release();
        }
        return sum;
    }

    /**
     * The skim alone: the same walk reading the records' first bytes through the frame at the offsets
     * the skim found, without taking slices (isolates the cost of Netty's retained slices).
     */
    @Benchmark
    public long skimOffsetsOnly() {
        ProduceRequestSkim s = skim.wrap(frame);
        long sum = s.acks();
        for (int i = 0, n = s.partitionCount(); i < n; i++) {
            sum += s.partitionIndex(i) + frame.getLong(s.recordsOffset(i)) + s.recordsLength(i);
        }
        return sum;
    }

    /**
     * kafka-clients: parse header and body into {@code RequestHeaderData} + {@code ProduceRequestData}
     * (what a broker or a Data-object proxy does), reading every partition's records the same way.
     */
    @Benchmark
    public long fullParse(Blackhole bh) {
        ByteBufferAccessor accessor = new ByteBufferAccessor(frame.nioBuffer(frame.readerIndex(), frame.readableBytes()));
        RequestHeaderData header = new RequestHeaderData(accessor, headerVersion);
        ProduceRequestData data = new ProduceRequestData(accessor, version);
        bh.consume(header);
        long sum = data.acks();
        for (TopicProduceData topic : data.topicData()) {
            for (PartitionProduceData p : topic.partitionData()) {
                ByteBuffer records = ((MemoryRecords) p.records()).buffer();
                sum += p.index() + records.getLong(records.position()) + records.remaining();
            }
        }
        return sum;
    }

    /**
     * Weft split: build the sub-request for route 0 (every other partition) from the (already skimmed)
     * request — new header and counts, retained slices of the records — then release it.
     */
    @Benchmark
    public int split() {
        ByteBuf part = builder.build(splitSkim, routeOf, 0, 7, POOLED);
        int size = part.readableBytes();
        part.release();
        return size;
    }

    /**
     * The same split through kafka-clients: serialize the (already parsed) half request, header and
     * body, into a heap buffer with the generated {@code write} methods. Records are copied.
     */
    @Benchmark
    public int splitFullEncode() {
        ObjectSerializationCache cache = new ObjectSerializationCache();
        int size = splitHeader.size(cache, headerVersion) + splitData.size(cache, version);
        ByteBuffer out = ByteBuffer.allocate(4 + size);
        out.putInt(size);
        ByteBufferAccessor accessor = new ByteBufferAccessor(out);
        splitHeader.write(accessor, cache, headerVersion);
        splitData.write(accessor, cache, version);
        return out.position();
    }
}
