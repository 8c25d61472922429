package dev.weft.jmh.codec;

import dev.weft.iocore.buffer.BufferPolicy;
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
import dev.weft.routing.api.RoutePlan;
import dev.weft.routing.api.TopicNameCache;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.message.FetchRequestData;
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
 * A Produce and a Fetch split across {@code upstreams} targets and merged back (issue #9): the calls
 * {@code dev.weft.proxy.session.HotProduce} / {@code HotFetch} / {@code SplitAnswer} make on the hot path
 * when a {@link RoutePlan} sends a request's partitions to several (cluster, broker) targets. The plan is
 * a real {@code RoutePlan} (built once per trial: planning is the router's cost, not measured here) whose
 * targets are distinct (leaf, broker) pairs and whose partitions go round-robin to them
 * ({@code i % upstreams}); it is also the builders' and mergers' topic keys (all null: no rename), as on
 * the hot path. {@code upstreams = 1} is the same rebuild with every partition on one target (a plan that
 * is not a pass-through: another broker or cluster than the connection's), the baseline.
 *
 * <ul>
 *   <li>{@code produceSplit} / {@code fetchSplit}: skim the client's request, build one sub-request per
 *       target ({@code ProduceRequestBuilder}/{@code FetchRequestBuilder.build(skim, targetOf, t, 0, alloc)};
 *       Fetch sessionless, {@code session(0, -1)}, no forgotten topics), all of them alive at once as before
 *       they are written, then release them.</li>
 *   <li>{@code produceMerge} / {@code fetchMerge}: skim the client's request again and each target's answer
 *       and merge them into the client's answer ({@code ProduceResponseMerger}/{@code FetchResponseMerger}
 *       with the plan as keys, refusal NOT_LEADER_OR_FOLLOWER, session id 0), then release it.</li>
 * </ul>
 *
 * <p>Parameters: {@code partitions} ∈ {3, 30, 99} (topics of at most 10 partitions, {@link CodecFrames}),
 * {@code batchBytes} ∈ {1 KiB, 64 KiB, 1 MiB} (one batch per partition; a Fetch request carries none, so
 * {@code fetchSplit} has no such parameter), {@code version}: Produce 9 (names, flexible) and 13 (ids),
 * Fetch 12 (names) and 17 (ids); {@code fetchSplit} also {@code partitionsPerTopic} (the layout: 10, the
 * default, as above; e.g. {@code -p partitionsPerTopic=99} puts up to 99 partitions in one topic, so every
 * part of a round-robin split has one topic entry instead of one per topic). The allocator is the
 * proxy's ({@link BufferPolicy#sharedPooledDirect()}); node ids go through {@link NodeEndpointRewriter#IDENTITY} (the answers carry no leader hints or
 * endpoints). {@code gc.alloc.rate.norm} counts heap bytes only. Every trial checks the results once
 * (partitions, records bytes, no synthesized error) and at its end that every retained slice was released
 * (the client's and upstream frames are back to one reference), so nothing leaks.
 */
@Fork(value = 1, jvmArgsAppend = {"-Dio.netty.leakDetection.level=disabled", "--sun-misc-unsafe-memory-access=allow",
        "-Djmh.executor=CUSTOM", "-Djmh.executor.class=dev.weft.jmh.EventLoopThreadsExecutor"})
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class SplitPathBenchmark {

    static final ByteBufAllocator POOLED = BufferPolicy.sharedPooledDirect();

    /** A plan sending partition {@code i} of {@code skim} to target {@code i % upstreams}, targets (leaf r, broker 100 + r). */
    static RoutePlan roundRobin(PartitionSkim skim, int upstreams) {
        RoutePlan plan = new RoutePlan(new TopicNameCache()).reset(skim);
        for (int r = 0; r < upstreams; r++) {
            if (plan.target(r, 100 + r) != r) {
                throw new IllegalStateException("targets out of order");
            }
        }
        for (int i = 0; i < skim.partitionCount(); i++) {
            plan.send(i, i + 1, i % upstreams);
        }
        if (plan.passThrough(skim.partitionCount()) || plan.targetCount() != upstreams) {
            throw new IllegalStateException("the plan must split");
        }
        return plan;
    }

    static void released(ByteBuf frame, String what) {
        if (frame.refCnt() != 1) {
            throw new IllegalStateException(what + " has " + frame.refCnt() + " references after the trial: a slice leaked");
        }
    }

    /** Produce: the client's request, the targets' answers, the plan. */
    @State(Scope.Thread)
    public static class ProduceState {
        @Param({"9", "13"})
        public short version;
        @Param({"1", "3"})
        public int upstreams;
        @Param({"3", "30", "99"})
        public int partitions;
        @Param({"1024", "65536", "1048576"})
        public int batchBytes;

        ByteBuf request;
        ByteBuf[] responses;
        RoutePlan plan;
        ByteBuf[] out;
        final ProduceRequestSkim skim = new ProduceRequestSkim();
        ProduceResponseSkim[] responseSkims;
        ProduceResponseSkim[] in;
        final ProduceRequestBuilder builder = new ProduceRequestBuilder();
        final ProduceResponseMerger merger = new ProduceResponseMerger();

        @Setup(Level.Trial)
        public void setUp() {
            MemoryRecords records = CodecFrames.batch(batchBytes, batchBytes);
            ProduceRequestData data = ProduceFrames.request(version, partitions, records);
            request = ProduceFrames.requestFrame(POOLED, version, 42, data);
            plan = roundRobin(skim.wrap(request), upstreams);
            int[] targetOf = plan.targetOf();
            responses = new ByteBuf[upstreams];
            responseSkims = new ProduceResponseSkim[upstreams];
            in = new ProduceResponseSkim[upstreams];
            out = new ByteBuf[upstreams];
            for (int r = 0; r < upstreams; r++) {
                int t = r;
                responses[r] = ProduceFrames.responseFrame(POOLED, version, 100 + r,
                        ProduceFrames.response(version, data, i -> targetOf[i] == t));
                responseSkims[r] = new ProduceResponseSkim();
            }
            check(records);
        }

        private void check(MemoryRecords records) {
            split();
            int seen = 0;
            long bytes = 0;
            for (int r = 0; r < upstreams; r++) {
                ProduceRequestSkim sub = new ProduceRequestSkim().wrap(out[r].skipBytes(4));
                if (sub.partitionCount() != (partitions - r + upstreams - 1) / upstreams || sub.version() != version) {
                    throw new IllegalStateException("Produce sub-request " + r + " has " + sub.partitionCount() + " partitions");
                }
                seen += sub.partitionCount();
                bytes += sub.recordsBytes();
            }
            releaseOut();
            if (seen != partitions || bytes != (long) partitions * records.sizeInBytes()) {
                throw new IllegalStateException("Produce split lost partitions or records");
            }
            ByteBuf merged = merge();
            try {
                ProduceResponseSkim m = new ProduceResponseSkim().wrap(merged.skipBytes(4), version);
                if (m.partitionCount() != partitions) {
                    throw new IllegalStateException("merged Produce response lost partitions");
                }
                for (int i = 0; i < partitions; i++) {
                    if (m.errorCode(i) != 0 || m.baseOffset(i) < 0) {
                        throw new IllegalStateException("merged Produce response: partition " + i + " not matched");
                    }
                }
            } finally {
                merged.release();
            }
        }

        /** HotProduce.handle: skim, then one sub-request per target (all held until written). */
        void split() {
            skim.wrap(request);
            builder.topicKeys(plan);
            for (int t = 0; t < plan.targetCount(); t++) {
                out[t] = builder.build(skim, plan.targetOf(), t, 0, POOLED);
            }
        }

        int releaseOut() {
            int bytes = 0;
            for (int t = 0; t < out.length; t++) {
                bytes += out[t].readableBytes();
                out[t].release();
                out[t] = null;
            }
            return bytes;
        }

        /** ProduceMerge.merge → HotProduce.merge: skim the request again and every answer, merge. */
        ByteBuf merge() {
            skim.wrap(request);
            for (int t = 0; t < upstreams; t++) {
                in[t] = responseSkims[t].wrap(responses[t], version);
            }
            try {
                return merger.merge(skim, plan.targetOf(), in, plan, ProduceResponseMerger.NOT_LEADER_OR_FOLLOWER,
                        NodeEndpointRewriter.IDENTITY, POOLED);
            } finally {
                java.util.Arrays.fill(in, null);
            }
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            released(request, "the Produce request");
            request.release();
            for (ByteBuf r : responses) {
                released(r, "a Produce response");
                r.release();
            }
        }
    }

    /** Fetch request split: the client's request and the plan (no records in a Fetch request). */
    @State(Scope.Thread)
    public static class FetchRequestState {
        @Param({"12", "17"})
        public short version;
        @Param({"1", "3"})
        public int upstreams;
        @Param({"3", "30", "99"})
        public int partitions;
        /**
         * The layout: topics of at most this many partitions. 10 is the layout of every codec benchmark
         * ({@link CodecFrames#PARTITIONS_PER_TOPIC}; with round robin a 3-way split repeats every topic in
         * every part); 99 puts up to 99 partitions in one topic (every part then has one topic entry).
         */
        @Param({"10"})
        public int partitionsPerTopic;

        ByteBuf request;
        RoutePlan plan;
        ByteBuf[] out;
        final FetchRequestSkim skim = new FetchRequestSkim();
        final FetchRequestBuilder builder = new FetchRequestBuilder().session(0, -1).keepForgottenTopics(false);

        @Setup(Level.Trial)
        public void setUp() {
            request = FetchFrames.requestFrame(POOLED, version, 42, FetchFrames.request(version, partitions, partitionsPerTopic));
            int topics = (partitions + partitionsPerTopic - 1) / partitionsPerTopic;
            if (skim.wrap(request).topicCount() != topics) {
                throw new IllegalStateException("the Fetch request has " + skim.topicCount() + " topics, not " + topics);
            }
            plan = roundRobin(skim, upstreams);
            out = new ByteBuf[upstreams];
            split();
            int seen = 0;
            int entries = 0;
            for (int r = 0; r < upstreams; r++) {
                FetchRequestSkim sub = new FetchRequestSkim().wrap(out[r].skipBytes(4));
                if (sub.partitionCount() != (partitions - r + upstreams - 1) / upstreams || sub.sessionEpoch() != -1) {
                    throw new IllegalStateException("Fetch sub-request " + r + " has " + sub.partitionCount() + " partitions");
                }
                seen += sub.partitionCount();
                entries += sub.topicCount();
            }
            // Round robin: a part holds a topic iff one of the topic's partitions i has i % upstreams == part.
            int expected = 0;
            for (int t = 0, first = 0; t < topics; t++) {
                int size = Math.min(partitionsPerTopic, partitions - first);
                expected += Math.min(size, upstreams);
                first += size;
            }
            if (entries != expected) {
                throw new IllegalStateException("Fetch sub-requests hold " + entries + " topic entries, not " + expected);
            }
            releaseOut();
            if (seen != partitions) {
                throw new IllegalStateException("Fetch split lost partitions");
            }
        }

        /** HotFetch.handle: skim, then one sessionless sub-request per target (all held until written). */
        void split() {
            skim.wrap(request);
            builder.topicKeys(plan);
            for (int t = 0; t < plan.targetCount(); t++) {
                out[t] = builder.build(skim, plan.targetOf(), t, 0, POOLED);
            }
        }

        int releaseOut() {
            int bytes = 0;
            for (int t = 0; t < out.length; t++) {
                bytes += out[t].readableBytes();
                out[t].release();
                out[t] = null;
            }
            return bytes;
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            released(request, "the Fetch request");
            request.release();
        }
    }

    /** Fetch answers: the client's request, each target's answer (one batch per partition), the plan. */
    @State(Scope.Thread)
    public static class FetchResponseState {
        @Param({"12", "17"})
        public short version;
        @Param({"1", "3"})
        public int upstreams;
        @Param({"3", "30", "99"})
        public int partitions;
        @Param({"1024", "65536", "1048576"})
        public int batchBytes;

        ByteBuf request;
        ByteBuf[] responses;
        RoutePlan plan;
        final FetchRequestSkim skim = new FetchRequestSkim();
        FetchResponseSkim[] responseSkims;
        FetchResponseSkim[] in;
        final FetchResponseMerger merger = new FetchResponseMerger();

        @Setup(Level.Trial)
        public void setUp() {
            MemoryRecords records = CodecFrames.batch(batchBytes, batchBytes);
            FetchRequestData data = FetchFrames.request(version, partitions);
            request = FetchFrames.requestFrame(POOLED, version, 42, data);
            plan = roundRobin(skim.wrap(request), upstreams);
            int[] targetOf = plan.targetOf();
            responses = new ByteBuf[upstreams];
            responseSkims = new FetchResponseSkim[upstreams];
            in = new FetchResponseSkim[upstreams];
            for (int r = 0; r < upstreams; r++) {
                int t = r;
                responses[r] = FetchFrames.responseFrame(POOLED, version, 100 + r,
                        FetchFrames.response(data, i -> targetOf[i] == t, records));
                responseSkims[r] = new FetchResponseSkim();
            }
            ByteBuf merged = merge();
            try {
                FetchResponseSkim m = new FetchResponseSkim().wrap(merged.skipBytes(4), version);
                if (m.partitionCount() != partitions || m.recordsBytes() != (long) partitions * records.sizeInBytes()) {
                    throw new IllegalStateException("merged Fetch response lost partitions or records");
                }
                for (int i = 0; i < partitions; i++) {
                    if (m.errorCode(i) != 0) {
                        throw new IllegalStateException("merged Fetch response: partition " + i + " not matched");
                    }
                }
            } finally {
                merged.release();
            }
        }

        /** FetchMerge.merge → HotFetch.merge: skim the request again and every answer, merge (session id 0). */
        ByteBuf merge() {
            skim.wrap(request);
            for (int t = 0; t < upstreams; t++) {
                in[t] = responseSkims[t].wrap(responses[t], version);
            }
            try {
                return merger.merge(skim, plan.targetOf(), in, plan, FetchResponseMerger.NOT_LEADER_OR_FOLLOWER, 0,
                        NodeEndpointRewriter.IDENTITY, POOLED);
            } finally {
                java.util.Arrays.fill(in, null);
            }
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            released(request, "the Fetch request");
            request.release();
            for (ByteBuf r : responses) {
                released(r, "a Fetch response");
                r.release();
            }
        }
    }

    /** (a) Produce split: skim + one sub-request per target (retained slices of the batches); release. */
    @Benchmark
    public int produceSplit(ProduceState s) {
        s.split();
        return s.releaseOut();
    }

    /** (b) Produce merge: skim the request and every target's answer, merge into the client's; release. */
    @Benchmark
    public int produceMerge(ProduceState s) {
        ByteBuf merged = s.merge();
        int size = merged.readableBytes();
        merged.release();
        return size;
    }

    /** (a) Fetch split: skim + one sessionless sub-request per target; release. */
    @Benchmark
    public int fetchSplit(FetchRequestState s) {
        s.split();
        return s.releaseOut();
    }

    /** (b) Fetch merge: skim the request and every target's answer, merge (records as retained slices); release. */
    @Benchmark
    public int fetchMerge(FetchResponseState s) {
        ByteBuf merged = s.merge();
        int size = merged.readableBytes();
        merged.release();
        return size;
    }
}
