package dev.weft.jmh.codec;

import dev.weft.protocol.produce.ProduceRequestSkim;
import dev.weft.protocol.produce.ProduceResponseMerger;
import dev.weft.protocol.produce.ProduceResponseSkim;
import dev.weft.protocol.skim.NodeEndpointRewriter;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.message.ProduceResponseData.TopicProduceResponse;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
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
 * Produce response: Weft's skim against kafka-clients' full parse, and the merge of the two upstream
 * responses of a request split in two (every other partition per route). Produce responses carry no
 * records, so only the partition count matters here.
 */
@State(Scope.Thread)
@Fork(value = 1, jvmArgsAppend = {"-Dio.netty.leakDetection.level=disabled", "--sun-misc-unsafe-memory-access=allow",
        "-Djmh.executor=CUSTOM", "-Djmh.executor.class=dev.weft.jmh.EventLoopThreadsExecutor"})
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class ProduceResponseBenchmark {

    private static final ByteBufAllocator POOLED = PooledByteBufAllocator.DEFAULT;

    @Param({"1", "10", "100", "1000"})
    public int partitions;

    @Param({"13"})
    public short version;

    private ByteBuf requestFrame;
    private ByteBuf responseFrame;
    private ByteBuf[] halves;
    private short headerVersion;
    private int[] routeOf;
    private final ProduceRequestSkim request = new ProduceRequestSkim();
    private final ProduceResponseSkim skim = new ProduceResponseSkim();
    private final ProduceResponseSkim[] upstream = {new ProduceResponseSkim(), new ProduceResponseSkim()};
    private final ProduceResponseMerger merger = new ProduceResponseMerger();

    @Setup(Level.Trial)
    public void setUp() {
        ProduceRequestData data = ProduceFrames.request(version, partitions, CodecFrames.batch(1024, 1));
        requestFrame = ProduceFrames.requestFrame(POOLED, version, 42, data);
        request.wrap(requestFrame);
        routeOf = CodecFrames.alternatingRoutes(partitions);
        responseFrame = ProduceFrames.responseFrame(POOLED, version, 42, ProduceFrames.response(version, data, i -> true));
        halves = new ByteBuf[2];
        for (int r = 0; r < 2; r++) {
            int route = r;
            halves[r] = ProduceFrames.responseFrame(POOLED, version, 100 + r,
                    ProduceFrames.response(version, data, i -> routeOf[i] == route));
        }
        headerVersion = ApiKeys.PRODUCE.responseHeaderVersion(version);
        if (skim.wrap(responseFrame, version).partitionCount() != partitions) {
            throw new IllegalStateException("response skim disagrees with the frame written");
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        requestFrame.release();
        responseFrame.release();
        halves[0].release();
        halves[1].release();
    }

    /** Weft: skim the response, reading every partition's error code and base offset. */
    @Benchmark
    public long skim() {
        ProduceResponseSkim s = skim.wrap(responseFrame, version);
        long sum = s.throttleTimeMs();
        for (int i = 0, n = s.partitionCount(); i < n; i++) {
            sum += s.partitionIndex(i) + s.errorCode(i) + s.baseOffset(i);
        }
        return sum;
    }

    /** kafka-clients: parse into {@code ResponseHeaderData} + {@code ProduceResponseData}, reading the same fields. */
    @Benchmark
    public long fullParse(Blackhole bh) {
        ByteBufferAccessor accessor = new ByteBufferAccessor(
                responseFrame.nioBuffer(responseFrame.readerIndex(), responseFrame.readableBytes()));
        bh.consume(new ResponseHeaderData(accessor, headerVersion));
        ProduceResponseData data = new ProduceResponseData(accessor, version);
        long sum = data.throttleTimeMs();
        for (TopicProduceResponse topic : data.responses()) {
            for (PartitionProduceResponse p : topic.partitionResponses()) {
                sum += p.index() + p.errorCode() + p.baseOffset();
            }
        }
        return sum;
    }

    /** Weft: skim both upstream responses and merge them into the client's response, then release it. */
    @Benchmark
    public int merge() {
        upstream[0].wrap(halves[0], version);
        upstream[1].wrap(halves[1], version);
        ByteBuf merged = merger.merge(request, routeOf, upstream, ProduceResponseMerger.NOT_LEADER_OR_FOLLOWER,
                NodeEndpointRewriter.IDENTITY, POOLED);
        int size = merged.readableBytes();
        merged.release();
        return size;
    }
}
