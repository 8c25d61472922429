package dev.weft.jmh.codec;

import dev.weft.protocol.fetch.FetchRequestBuilder;
import dev.weft.protocol.fetch.FetchRequestSkim;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchRequestData.FetchPartition;
import org.apache.kafka.common.message.FetchRequestData.FetchTopic;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
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
 * Fetch request: Weft's skim against kafka-clients' full parse, and a split (half the partitions,
 * sessionless) built by {@link FetchRequestBuilder} against the same split re-encoded through
 * kafka-clients. A Fetch request carries no records, so only the partition count matters here (the
 * batch size is a property of the response: {@link FetchResponseBenchmark}).
 */
@State(Scope.Thread)
@Fork(value = 1, jvmArgsAppend = {"-Dio.netty.leakDetection.level=disabled", "--sun-misc-unsafe-memory-access=allow",
        "-Djmh.executor=CUSTOM", "-Djmh.executor.class=dev.weft.jmh.EventLoopThreadsExecutor"})
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class FetchRequestBenchmark {

    private static final ByteBufAllocator POOLED = PooledByteBufAllocator.DEFAULT;

    @Param({"1", "10", "100", "1000"})
    public int partitions;

    /** Fetch version: 17 is what kafka-clients 4.x consumers send (topic ids; flexible). */
    @Param({"17"})
    public short version;

    private ByteBuf frame;
    private short headerVersion;
    private final FetchRequestSkim skim = new FetchRequestSkim();
    private final FetchRequestSkim splitSkim = new FetchRequestSkim();
    private final FetchRequestBuilder builder = new FetchRequestBuilder().session(0, -1);
    private int[] routeOf;
    private RequestHeaderData splitHeader;
    private FetchRequestData splitData;

    @Setup(Level.Trial)
    public void setUp() {
        FetchRequestData data = FetchFrames.request(version, partitions);
        frame = FetchFrames.requestFrame(POOLED, version, 42, data);
        headerVersion = ApiKeys.FETCH.requestHeaderVersion(version);
        routeOf = CodecFrames.alternatingRoutes(partitions);
        splitSkim.wrap(frame);
        splitHeader = FetchFrames.header(version, 7);
        splitData = FetchFrames.subset(data, i -> routeOf[i] == 0);
        // sanity: the skim sees what was written, and the split asks for every other partition
        if (splitSkim.partitionCount() != partitions || splitSkim.fetchOffset(partitions - 1)
                != data.topics().getLast().partitions().getLast().fetchOffset()) {
            throw new IllegalStateException("skim disagrees with the frame written");
        }
        ByteBuf part = builder.build(splitSkim, routeOf, 0, 7, POOLED);
        try {
            int expected = (partitions + 1) / 2;
            if (new FetchRequestSkim().wrap(part.skipBytes(4)).partitionCount() != expected) {
                throw new IllegalStateException("split does not hold " + expected + " partitions");
            }
        } finally {
            part.release();
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        frame.release();
    }

    /** Weft hot path: skim the request, reading every partition's index, fetch offset and max bytes. */
    @Benchmark
    public long skim() {
        FetchRequestSkim s = skim.wrap(frame);
        long sum = s.maxWaitMs() + s.sessionEpoch();
        for (int i = 0, n = s.partitionCount(); i < n; i++) {
            sum += s.partitionIndex(i) + s.fetchOffset(i) + s.partitionMaxBytes(i);
        }
        return sum;
    }

    /**
     * kafka-clients: parse header and body into {@code RequestHeaderData} + {@code FetchRequestData}
     * (what a broker or a Data-object proxy does), reading the same fields.
     */
    @Benchmark
    public long fullParse(Blackhole bh) {
        ByteBufferAccessor accessor = new ByteBufferAccessor(frame.nioBuffer(frame.readerIndex(), frame.readableBytes()));
        bh.consume(new RequestHeaderData(accessor, headerVersion));
        FetchRequestData data = new FetchRequestData(accessor, version);
        long sum = data.maxWaitMs() + data.sessionEpoch();
        for (FetchTopic topic : data.topics()) {
            for (FetchPartition p : topic.partitions()) {
                sum += p.partition() + p.fetchOffset() + p.partitionMaxBytes();
            }
        }
        return sum;
    }

    /**
     * Weft split: build the sessionless sub-request for route 0 (every other partition) from the
     * (already skimmed) request, then release it.
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
     * body, into a heap buffer with the generated {@code write} methods.
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
