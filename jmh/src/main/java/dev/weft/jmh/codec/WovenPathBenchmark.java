package dev.weft.jmh.codec;

import dev.weft.protocol.fetch.FetchRequestBuilder;
import dev.weft.protocol.fetch.FetchRequestSkim;
import dev.weft.protocol.fetch.FetchResponseMerger;
import dev.weft.protocol.fetch.FetchResponseSkim;
import dev.weft.protocol.produce.ProduceRequestBuilder;
import dev.weft.protocol.produce.ProduceRequestSkim;
import dev.weft.protocol.produce.ProduceResponseMerger;
import dev.weft.protocol.produce.ProduceResponseSkim;
import dev.weft.protocol.skim.NodeEndpointRewriter;
import dev.weft.protocol.skim.PartitionSkim;
import dev.weft.protocol.skim.UpstreamTopicKeys;
import dev.weft.routing.api.RoutePlan;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchRequestData.FetchTopic;
import org.apache.kafka.common.message.ProduceRequestData;
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
 * The woven Produce and Fetch path (topic weaving, {@code dev.weft.proxy.session.HotProduce} /
 * {@code HotFetch}): a connection bound to one real broker, every topic of the request living behind
 * it under another name or id, so the request is rebuilt around retained slices with the upstream keys
 * ({@code ProduceRequestBuilder}/{@code FetchRequestBuilder.topicKeys}) and the broker's answer is
 * merged back under the client's keys ({@code ProduceResponseMerger}/{@code FetchResponseMerger} with
 * keys). Exactly the calls the hot path makes, with every partition routed to the connection's broker
 * (route 0); the topic lookup in the catalog ({@code TopicPlacement.place}) is not in it (proxy
 * internal), its per-topic keys are precomputed as the catalog does.
 *
 * <p>{@code keys}: {@code ids} = Produce v13 / Fetch v17 (what kafka-clients 4.x sends) with an upstream
 * topic id that differs from the virtual one (16-byte keys); {@code names} = Produce v12 / Fetch v12,
 * topic names renamed ({@code bench-topic-N} → {@code upstream.bench-topic-N}). Frames, batches and
 * layout are the codec benchmarks' ({@link CodecFrames}, {@link ProduceFrames}, {@link FetchFrames}).
 * {@code gc.alloc.rate.norm} counts heap bytes only (the rebuilt metadata lives in pooled direct memory).
 *
 * <p>Partition weaving (issue #12): the {@code *Renumbered} variants do the same four operations on the
 * same client frames, but instead of renaming every topic ({@code topicKeys} with per-topic keys) every
 * partition is renumbered under a per-partition key through a real {@link RoutePlan}
 * ({@link RoutePlan#renumber}, the plan passed as both {@code topicKeys} and {@code partitions} of the
 * builders and mergers, as {@code HotProduce}/{@code HotFetch} do): each client topic is cut into
 * segments of 5 partitions alternating between two physical topics, virtual partition p of a segment
 * being physical partition p - (segment's first) ({@link PartitionWeave}); the broker's answers are
 * under those physical keys and indexes. The plan is filled once per trial (planning is the router's,
 * not measured).
 */
@State(Scope.Thread)
@Fork(value = 1, jvmArgsAppend = {"-Dio.netty.leakDetection.level=disabled", "--sun-misc-unsafe-memory-access=allow",
        "-Djmh.executor=CUSTOM", "-Djmh.executor.class=dev.weft.jmh.EventLoopThreadsExecutor"})
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class WovenPathBenchmark {

    private static final ByteBufAllocator POOLED = PooledByteBufAllocator.DEFAULT;
    private static final int OWN = 0;

    @Param({"1x1024", "1x65536", "10x1024", "10x65536", "100x1024", "100x65536"})
    public String shape;

    @Param({"ids", "names"})
    public String keys;

    /**
     * Partition weaving's segment size ({@link PartitionWeave}): 5 cuts each 10-partition client topic into
     * two physical topics (twice the topic entries upstream); 10 keeps it one (every index shifted).
     */
    @Param({"5", "10"})
    public int segment;

    private int partitions;
    private int[] routeOf;

    private ByteBuf produceRequest;
    private ByteBuf produceResponse;
    private UpstreamTopicKeys produceKeys;
    private final ProduceRequestSkim produceSkim = new ProduceRequestSkim();
    private final ProduceResponseSkim[] produceUpstream = {new ProduceResponseSkim()};
    private final ProduceRequestBuilder produceBuilder = new ProduceRequestBuilder();
    private final ProduceResponseMerger produceMerger = new ProduceResponseMerger();

    private ByteBuf fetchRequest;
    private ByteBuf fetchResponse;
    private UpstreamTopicKeys fetchKeys;
    private final FetchRequestSkim fetchSkim = new FetchRequestSkim();
    private final FetchResponseSkim[] fetchUpstream = {new FetchResponseSkim()};
    private final FetchRequestBuilder fetchBuilder = new FetchRequestBuilder().session(0, -1).keepForgottenTopics(false);
    private final FetchResponseMerger fetchMerger = new FetchResponseMerger();

    // partition weaving: the same client frames, the plan renumbering every partition under a per-partition key
    private PartitionWeave produceWeave;
    private RoutePlan producePlan;
    private ByteBuf produceResponseWoven;
    private final ProduceResponseSkim[] produceUpstreamWoven = {new ProduceResponseSkim()};
    private final ProduceRequestBuilder produceBuilderWoven = new ProduceRequestBuilder();
    private PartitionWeave fetchWeave;
    private RoutePlan fetchPlan;
    private ByteBuf fetchResponseWoven;
    private final FetchResponseSkim[] fetchUpstreamWoven = {new FetchResponseSkim()};
    private final FetchRequestBuilder fetchBuilderWoven = new FetchRequestBuilder().session(0, -1).keepForgottenTopics(false);
    // the renamed baseline of the same upstream shape: a client request already cut as the weave cuts it
    private ByteBuf fetchRequestCut;
    private final FetchRequestBuilder fetchBuilderCut = new FetchRequestBuilder().session(0, -1).keepForgottenTopics(false);

    @Setup(Level.Trial)
    public void setUp() {
        CodecFrames.Shape s = CodecFrames.Shape.parse(shape);
        partitions = s.partitions();
        boolean ids = switch (keys) {
            case "ids" -> true;
            case "names" -> false;
            default -> throw new IllegalArgumentException("keys is ids or names");
        };
        short produceVersion = ids ? (short) 13 : (short) 12;
        short fetchVersion = ids ? (short) 17 : (short) 12;
        routeOf = new int[partitions];
        Arrays.fill(routeOf, OWN);
        MemoryRecords records = CodecFrames.batch(s.batchBytes(), s.batchBytes());

        ProduceRequestData produce = ProduceFrames.request(produceVersion, partitions, records);
        ProduceRequestData produceUp = ProduceFrames.upstream(produce);
        produceRequest = ProduceFrames.requestFrame(POOLED, produceVersion, 42, produce);
        produceResponse = ProduceFrames.responseFrame(POOLED, produceVersion, 7,
                ProduceFrames.response(produceVersion, produceUp, i -> true));
        produceKeys = UpstreamTopicKeys.of(ProduceFrames.upstreamKeys(produce, produceVersion));
        produceBuilder.topicKeys(produceKeys);

        FetchRequestData fetch = FetchFrames.request(fetchVersion, partitions);
        FetchRequestData fetchUp = FetchFrames.upstream(fetch);
        fetchRequest = FetchFrames.requestFrame(POOLED, fetchVersion, 42, fetch);
        fetchResponse = FetchFrames.responseFrame(POOLED, fetchVersion, 7, FetchFrames.response(fetchUp, i -> true, records));
        fetchKeys = UpstreamTopicKeys.of(FetchFrames.upstreamKeys(fetch, fetchVersion));
        fetchBuilder.topicKeys(fetchKeys);

        produceWeave = PartitionWeave.of(produce, ids, segment);
        producePlan = produceWeave.plan(produceSkim.wrap(produceRequest));
        produceResponseWoven = ProduceFrames.responseFrame(POOLED, produceVersion, 7,
                ProduceFrames.response(produceVersion, PartitionWeave.upstream(produce, ids, segment), i -> true));
        produceBuilderWoven.topicKeys(producePlan).partitions(producePlan);

        fetchWeave = PartitionWeave.of(fetch, ids, segment);
        fetchPlan = fetchWeave.plan(fetchSkim.wrap(fetchRequest));
        fetchResponseWoven = FetchFrames.responseFrame(POOLED, fetchVersion, 7,
                FetchFrames.response(PartitionWeave.upstream(fetch, ids, segment), i -> true, records));
        fetchBuilderWoven.topicKeys(fetchPlan).partitions(fetchPlan);
        FetchRequestData cut = PartitionWeave.upstream(fetch, ids, segment);
        fetchRequestCut = FetchFrames.requestFrame(POOLED, fetchVersion, 42, cut);
        byte[][] cutKeys = new byte[cut.topics().size()][];
        for (int t = 0; t < cutKeys.length; t++) {
            FetchTopic topic = cut.topics().get(t);
            cutKeys[t] = ids ? UpstreamTopicKeys.topicIdKey(topic.topicId()) : UpstreamTopicKeys.nameKey(topic.topic());
        }
        fetchBuilderCut.topicKeys(UpstreamTopicKeys.of(cutKeys));

        check(records);
        checkRenumbered(records);
    }

    /** Sanity: the rebuilt requests carry the upstream keys, the merged answers the client's, nothing is lost. */
    private void check(MemoryRecords records) {
        ByteBuf out = produceRequest0();
        try {
            ProduceRequestSkim up = new ProduceRequestSkim().wrap(out.skipBytes(4));
            sameTopics(up, ProduceFrames.upstream(ProduceFrames.request(produceSkim.version(), partitions, records)), true);
            if (up.recordsLength(partitions - 1) != records.sizeInBytes()) {
                throw new IllegalStateException("rebuilt Produce lost records");
            }
        } finally {
            out.release();
        }
        out = produceResponse0();
        try {
            ProduceResponseSkim merged = new ProduceResponseSkim().wrap(out.skipBytes(4), produceSkim.version());
            sameKeys(merged, produceSkim);
            for (int i = 0; i < partitions; i++) {
                if (merged.errorCode(i) != 0) {
                    throw new IllegalStateException("merged Produce response: partition " + i + " error " + merged.errorCode(i));
                }
            }
        } finally {
            out.release();
        }
        out = fetchRequest0();
        try {
            FetchRequestSkim up = new FetchRequestSkim().wrap(out.skipBytes(4));
            if (up.partitionCount() != partitions) {
                throw new IllegalStateException("rebuilt Fetch lost partitions");
            }
            for (int t = 0; t < up.topicCount(); t++) {
                byte[] key = fetchKeys.upstreamKey(t);
                byte[] sent = new byte[key.length];
                up.buffer().getBytes(up.topicNameOffset(t), sent);
                if (!Arrays.equals(key, sent)) {
                    throw new IllegalStateException("rebuilt Fetch: topic " + t + " not renamed");
                }
            }
        } finally {
            out.release();
        }
        out = fetchResponse0();
        try {
            FetchResponseSkim merged = new FetchResponseSkim().wrap(out.skipBytes(4), fetchSkim.version());
            sameKeys(merged, fetchSkim);
            if (merged.recordsBytes() != (long) partitions * records.sizeInBytes() || merged.errorCode(partitions - 1) != 0) {
                throw new IllegalStateException("merged Fetch response lost records");
            }
        } finally {
            out.release();
        }
    }

    /** Sanity for the renumbered variants: the weave's keys and indexes upstream, the client's back, nothing lost. */
    private void checkRenumbered(MemoryRecords records) {
        if (!producePlan.renumbers() || !producePlan.keysPerPartition() || producePlan.passThrough(partitions)) {
            throw new IllegalStateException("the Produce plan does not renumber");
        }
        ByteBuf out = produceRequestRenumbered0();
        try {
            ProduceRequestSkim up = new ProduceRequestSkim().wrap(out.skipBytes(4));
            produceWeave.checkRebuilt(up, "rebuilt Produce");
            for (int j = 0; j < up.partitionCount(); j++) {
                if (up.recordsLength(j) != records.sizeInBytes()) {
                    throw new IllegalStateException("rebuilt Produce lost records");
                }
            }
        } finally {
            out.release();
        }
        out = produceResponseRenumbered0();
        try {
            ProduceResponseSkim merged = new ProduceResponseSkim().wrap(out.skipBytes(4), produceSkim.version());
            sameKeys(merged, produceSkim);
            for (int i = 0; i < partitions; i++) {
                if (merged.errorCode(i) != 0 || merged.partitionIndex(i) != produceSkim.partitionIndex(i)) {
                    throw new IllegalStateException("merged Produce response: partition " + i + " not matched back");
                }
            }
        } finally {
            out.release();
        }
        out = fetchRequestRenumbered0();
        try {
            fetchWeave.checkRebuilt(new FetchRequestSkim().wrap(out.slice().skipBytes(4)), "rebuilt Fetch");
            fetchSkim.wrap(fetchRequestCut);
            ByteBuf cut = fetchBuilderCut.build(fetchSkim, routeOf, OWN, 7, POOLED);
            try {
                if (!io.netty.buffer.ByteBufUtil.equals(out, cut)) {
                    throw new IllegalStateException("the renamed cut request is not the renumbered one's upstream request");
                }
            } finally {
                cut.release();
            }
        } finally {
            out.release();
        }
        out = fetchResponseRenumbered0();
        try {
            FetchResponseSkim merged = new FetchResponseSkim().wrap(out.skipBytes(4), fetchSkim.version());
            sameKeys(merged, fetchSkim);
            for (int i = 0; i < partitions; i++) {
                if (merged.errorCode(i) != 0 || merged.partitionIndex(i) != fetchSkim.partitionIndex(i)) {
                    throw new IllegalStateException("merged Fetch response: partition " + i + " not matched back");
                }
            }
            if (merged.recordsBytes() != (long) partitions * records.sizeInBytes()) {
                throw new IllegalStateException("merged Fetch response lost records");
            }
        } finally {
            out.release();
        }
    }

    private static void sameTopics(ProduceRequestSkim up, ProduceRequestData expected, boolean renamed) {
        if (up.partitionCount() != expected.topicData().stream().mapToInt(t -> t.partitionData().size()).sum()) {
            throw new IllegalStateException("rebuilt Produce lost partitions");
        }
        int t = 0;
        for (var topic : expected.topicData()) {
            boolean same = up.usesTopicIds() ? up.topicId(t).equals(topic.topicId()) : up.topicName(t).equals(topic.name());
            if (!same) {
                throw new IllegalStateException("rebuilt Produce: topic " + t + " not renamed");
            }
            t++;
        }
    }

    private static void sameKeys(PartitionSkim merged, PartitionSkim client) {
        if (merged.partitionCount() != client.partitionCount() || merged.topicCount() != client.topicCount()) {
            throw new IllegalStateException("merged response lost partitions");
        }
        for (int t = 0; t < client.topicCount(); t++) {
            boolean same = client.usesTopicIds() ? merged.topicId(t).equals(client.topicId(t))
                    : merged.topicName(t).equals(client.topicName(t));
            if (!same) {
                throw new IllegalStateException("merged response: topic " + t + " not under the client's key");
            }
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        produceRequest.release();
        produceResponse.release();
        fetchRequest.release();
        fetchResponse.release();
        produceResponseWoven.release();
        fetchResponseWoven.release();
        fetchRequestCut.release();
    }

    /**
     * HotProduce, request: skim the client's Produce and rebuild it for the connection's broker under
     * the upstream keys (new metadata + retained slices of every batch), then release it.
     */
    @Benchmark
    public int produceRequest() {
        ByteBuf out = produceRequest0();
        int size = out.readableBytes();
        out.release();
        return size;
    }

    /**
     * HotProduce, response: skim the client's request again and the broker's answer (upstream keys),
     * merge it under the client's keys, then release it.
     */
    @Benchmark
    public int produceResponse() {
        ByteBuf out = produceResponse0();
        int size = out.readableBytes();
        out.release();
        return size;
    }

    /** HotFetch, request: skim the client's Fetch and rebuild it sessionless under the upstream keys; release. */
    @Benchmark
    public int fetchRequest() {
        ByteBuf out = fetchRequest0();
        int size = out.readableBytes();
        out.release();
        return size;
    }

    /**
     * HotFetch, response: skim the client's request again and the broker's answer (every partition's
     * records), merge it under the client's keys (records as retained slices), then release it.
     */
    @Benchmark
    public int fetchResponse() {
        ByteBuf out = fetchResponse0();
        int size = out.readableBytes();
        out.release();
        return size;
    }

    /** {@link #produceRequest}, every partition renumbered under its physical topic's key (partition weaving). */
    @Benchmark
    public int produceRequestRenumbered() {
        ByteBuf out = produceRequestRenumbered0();
        int size = out.readableBytes();
        out.release();
        return size;
    }

    /** {@link #produceResponse}, the broker's answer under the physical keys and indexes, merged back by the plan. */
    @Benchmark
    public int produceResponseRenumbered() {
        ByteBuf out = produceResponseRenumbered0();
        int size = out.readableBytes();
        out.release();
        return size;
    }

    /**
     * {@link #fetchRequest} of a client request already cut as the weave cuts its topics (the upstream
     * request {@link #fetchRequestRenumbered} writes, as the client's), every topic renamed: renaming
     * with the same topic entries upstream, the baseline renumbering is compared with when segments
     * cut a topic in two.
     */
    @Benchmark
    public int fetchRequestRenamedCut() {
        fetchSkim.wrap(fetchRequestCut);
        ByteBuf out = fetchBuilderCut.build(fetchSkim, routeOf, OWN, 7, POOLED);
        int size = out.readableBytes();
        out.release();
        return size;
    }

    /** {@link #fetchRequest}, every partition renumbered under its physical topic's key. */
    @Benchmark
    public int fetchRequestRenumbered() {
        ByteBuf out = fetchRequestRenumbered0();
        int size = out.readableBytes();
        out.release();
        return size;
    }

    /** {@link #fetchResponse}, the broker's answer under the physical keys and indexes, merged back by the plan. */
    @Benchmark
    public int fetchResponseRenumbered() {
        ByteBuf out = fetchResponseRenumbered0();
        int size = out.readableBytes();
        out.release();
        return size;
    }

    private ByteBuf produceRequest0() {
        produceSkim.wrap(produceRequest);
        return produceBuilder.build(produceSkim, routeOf, OWN, 7, POOLED);
    }

    private ByteBuf produceResponse0() {
        produceSkim.wrap(produceRequest);
        produceUpstream[0].wrap(produceResponse, produceSkim.version());
        return produceMerger.merge(produceSkim, routeOf, produceUpstream, produceKeys,
                ProduceResponseMerger.NOT_LEADER_OR_FOLLOWER, NodeEndpointRewriter.IDENTITY, POOLED);
    }

    private ByteBuf fetchRequest0() {
        fetchSkim.wrap(fetchRequest);
        return fetchBuilder.build(fetchSkim, routeOf, OWN, 7, POOLED);
    }

    private ByteBuf fetchResponse0() {
        fetchSkim.wrap(fetchRequest);
        fetchUpstream[0].wrap(fetchResponse, fetchSkim.version());
        return fetchMerger.merge(fetchSkim, routeOf, fetchUpstream, fetchKeys, FetchResponseMerger.NOT_LEADER_OR_FOLLOWER, 0,
                NodeEndpointRewriter.IDENTITY, POOLED);
    }

    private ByteBuf produceRequestRenumbered0() {
        produceSkim.wrap(produceRequest);
        return produceBuilderWoven.build(produceSkim, producePlan.targetOf(), OWN, 7, POOLED);
    }

    private ByteBuf produceResponseRenumbered0() {
        produceSkim.wrap(produceRequest);
        produceUpstreamWoven[0].wrap(produceResponseWoven, produceSkim.version());
        return produceMerger.merge(produceSkim, producePlan.targetOf(), produceUpstreamWoven, producePlan, producePlan,
                ProduceResponseMerger.NOT_LEADER_OR_FOLLOWER, NodeEndpointRewriter.IDENTITY, POOLED);
    }

    private ByteBuf fetchRequestRenumbered0() {
        fetchSkim.wrap(fetchRequest);
        return fetchBuilderWoven.build(fetchSkim, fetchPlan.targetOf(), OWN, 7, POOLED);
    }

    private ByteBuf fetchResponseRenumbered0() {
        fetchSkim.wrap(fetchRequest);
        fetchUpstreamWoven[0].wrap(fetchResponseWoven, fetchSkim.version());
        return fetchMerger.merge(fetchSkim, fetchPlan.targetOf(), fetchUpstreamWoven, fetchPlan, fetchPlan,
                FetchResponseMerger.NOT_LEADER_OR_FOLLOWER, FetchResponseMerger.NOT_LEADER_OR_FOLLOWER, 0,
                NodeEndpointRewriter.IDENTITY, POOLED);
    }
}
