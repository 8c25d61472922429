package dev.weft.jmh.codec;

import dev.weft.protocol.fetch.FetchRequestSkim;
import dev.weft.protocol.fetch.FetchResponseMerger;
import dev.weft.protocol.fetch.FetchResponseSkim;
import dev.weft.protocol.skim.NodeEndpointRewriter;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.FetchResponseData.FetchableTopicResponse;
import org.apache.kafka.common.message.FetchResponseData.PartitionData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
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
 * Fetch response: Weft's skim (taking every partition's records as a retained slice) against
 * kafka-clients' full parse, and the merge of the two upstream responses of a request split in two
 * (every other partition per route) into the client's response, records carried as slices.
 *
 * <p>{@code shape} is {@code <partitions>x<batchBytes>}, one batch per partition, with the same rule
 * as {@link ProduceRequestBenchmark}: combinations whose records total more than 128 MiB are left out
 * (1000 × 1 MiB). Frames live in pooled direct buffers; {@code gc.alloc.rate.norm} counts heap bytes only.
 */
@State(Scope.Thread)
@Fork(value = 1, jvmArgsAppend = {"-Dio.netty.leakDetection.level=disabled", "--sun-misc-unsafe-memory-access=allow",
        "-Djmh.executor=CUSTOM", "-Djmh.executor.class=dev.weft.jmh.EventLoopThreadsExecutor"})
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class FetchResponseBenchmark {

    private static final ByteBufAllocator POOLED = PooledByteBufAllocator.DEFAULT;

    @Param({"1x1024", "1x65536", "1x1048576",
            "10x1024", "10x65536", "10x1048576",
            "100x1024", "100x65536", "100x1048576",
            "1000x1024", "1000x65536"})
    public String shape;

    /** Fetch version: 17 is what kafka-clients 4.x consumers send (topic ids; flexible). */
    @Param({"17"})
    public short version;

    private ByteBuf requestFrame;
    private ByteBuf responseFrame;
    private ByteBuf[] halves;
    private short headerVersion;
    private int[] routeOf;
    private final FetchRequestSkim request = new FetchRequestSkim();
    private final FetchResponseSkim skim = new FetchResponseSkim();
    private final FetchResponseSkim[] upstream = {new FetchResponseSkim(), new FetchResponseSkim()};
    private final FetchResponseMerger merger = new FetchResponseMerger();

    @Setup(Level.Trial)
    public void setUp() {
        CodecFrames.Shape s = CodecFrames.Shape.parse(shape);
        int partitions = s.partitions();
        MemoryRecords records = CodecFrames.batch(s.batchBytes(), s.batchBytes());
        FetchRequestData data = FetchFrames.request(version, partitions);
        requestFrame = FetchFrames.requestFrame(POOLED, version, 42, data);
        request.wrap(requestFrame);
        routeOf = CodecFrames.alternatingRoutes(partitions);
        responseFrame = FetchFrames.responseFrame(POOLED, version, 42, FetchFrames.response(data, i -> true, records));
        halves = new ByteBuf[2];
        for (int r = 0; r < 2; r++) {
            int route = r;
            halves[r] = FetchFrames.responseFrame(POOLED, version, 100 + r,
                    FetchFrames.response(data, i -> routeOf[i] == route, records));
        }
        headerVersion = ApiKeys.FETCH.responseHeaderVersion(version);
        // sanity: the skim sees every partition's batch, and the merge gives the client all of them back
        long recordsBytes = (long) partitions * records.sizeInBytes();
        if (skim.wrap(responseFrame, version).partitionCount() != partitions || skim.recordsBytes() != recordsBytes) {
            throw new IllegalStateException("response skim disagrees with the frame written");
        }
        ByteBuf merged = merge0();
        try {
            FetchResponseSkim m = new FetchResponseSkim().wrap(merged.skipBytes(4), version);
            if (m.partitionCount() != partitions || m.recordsBytes() != recordsBytes || m.errorCode(partitions - 1) != 0) {
                throw new IllegalStateException("merged response lost partitions or records");
            }
        } finally {
            merged.release();
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        requestFrame.release();
        responseFrame.release();
        halves[0].release();
        halves[1].release();
    }

    /**
     * Weft hot path: skim the response and take every partition's records as a retained slice
     * (reading the first batch's base offset through it), then release the slice.
     */
    @Benchmark
    public long skim() {
        FetchResponseSkim s = skim.wrap(responseFrame, version);
        long sum = s.sessionId();
        for (int i = 0, n = s.partitionCount(); i < n; i++) {
            ByteBuf records = s.records(i);
            sum += s.partitionIndex(i) + s.errorCode(i) + s.highWatermark(i)
                    + records.getLong(records.readerIndex()) + records.readableBytes();
            records.release();
        }
        return sum;
    }

    /** The same walk reading the records' first bytes at the offsets the skim found, without slices. */
    @Benchmark
    public long skimOffsetsOnly() {
        FetchResponseSkim s = skim.wrap(responseFrame, version);
        long sum = s.sessionId();
        for (int i = 0, n = s.partitionCount(); i < n; i++) {
            sum += s.partitionIndex(i) + s.errorCode(i) + s.highWatermark(i)
                    + responseFrame.getLong(s.recordsOffset(i)) + s.recordsLength(i);
        }
        return sum;
    }

    /**
     * kafka-clients: parse into {@code ResponseHeaderData} + {@code FetchResponseData} (what a consumer
     * or a Data-object proxy does), reading the same fields and every partition's records the same way.
     */
    @Benchmark
    public long fullParse(Blackhole bh) {
        ByteBufferAccessor accessor = new ByteBufferAccessor(
                responseFrame.nioBuffer(responseFrame.readerIndex(), responseFrame.readableBytes()));
        bh.consume(new ResponseHeaderData(accessor, headerVersion));
        FetchResponseData data = new FetchResponseData(accessor, version);
        long sum = data.sessionId();
        for (FetchableTopicResponse topic : data.responses()) {
            for (PartitionData p : topic.partitions()) {
                ByteBuffer records = ((MemoryRecords) p.records()).buffer();
                sum += p.partitionIndex() + p.errorCode() + p.highWatermark()
                        + records.getLong(records.position()) + records.remaining();
            }
        }
        return sum;
    }

    /**
     * Weft: skim both upstream responses and merge them into the client's response (records as
     * retained slices of the upstream frames), then release it.
     */
    @Benchmark
    public int merge() {
        ByteBuf merged = merge0();
        int size = merged.readableBytes();
        merged.release();
        return size;
    }

    private ByteBuf merge0() {
        upstream[0].wrap(halves[0], version);
        upstream[1].wrap(halves[1], version);
        return merger.merge(request, routeOf, upstream, FetchResponseMerger.NOT_LEADER_OR_FOLLOWER, 0,
                NodeEndpointRewriter.IDENTITY, POOLED);
    }
}
