package dev.weft.proxy.exchange;

import dev.weft.protocol.frame.KafkaFrameDecoder;
import dev.weft.protocol.produce.ProduceRequestBuilder;
import dev.weft.protocol.produce.ProduceRequestSkim;
import dev.weft.protocol.produce.ProduceResponseSkim;
import dev.weft.protocol.record.RecordBatchView;
import dev.weft.protocol.skim.UpstreamPartitions;
import dev.weft.protocol.skim.UpstreamTopicKeys;
import dev.weft.proxy.branch.BranchBatch;
import dev.weft.proxy.branch.BranchLane;
import dev.weft.proxy.branch.BranchWriter;
import dev.weft.proxy.exchange.BranchCounters.Outcome;
import dev.weft.proxy.upstream.UpstreamLink;
import dev.weft.routing.VisibleTopic;
import dev.weft.routing.api.RoutePlan;
import dev.weft.routing.branch.transform.BatchContext;
import dev.weft.routing.topicweave.CatalogHotPlanner;
import io.netty.buffer.ByteBuf;
import java.util.Arrays;
import org.apache.kafka.common.protocol.Errors;

/**
 * The BRANCH step of a Produce (DESIGN §3): once the primary's answers are merged into the client's,
 * each side target of the plan gets one Produce carrying the copies of the partitions the primary
 * acknowledged (error NONE), built like any split part from retained slices of the client's batches
 * and sent over the connection's side link to that broker. Nothing of it reaches the client: the
 * answer is counted ({@link BranchCounters}), never merged, and a branch never slows the primary —
 * a side link does not pause the client's reads, and past {@link #MAX_IN_FLIGHT_BYTES} of copies not yet
 * answered (written or still waiting in the side link's outbound buffer) copies are dropped and counted.
 * That bound alone decides: the link's writability does not, since one copy of a busy Produce passes
 * Netty's 64 KiB high-water mark by itself and the next would be dropped until the loop flushed
 * (16 % of copies dropped to a healthy branch at 20 MB/s, perf-reports/load-branch-2026-12-02.md).
 *
 * <p>Each copied batch is detached from its producer in place (no producer id, epoch or sequence: the
 * branch cluster does not know the producer) after the primary answered, so the primary's bytes were
 * already written. Transactional batches are never copied (their transaction may still abort) but by a
 * branch whose writer holds them until the transaction ends ({@code transactional: hold}); acks=0
 * Produce is never acknowledged, so it is not copied either. One per session, event loop only.
 */
final class BranchCopies implements UpstreamLink.Exchange {

    /** Record bytes of copies one connection may have sent and not had answered. */
    static final long MAX_IN_FLIGHT_BYTES = 8L << 20;

    private static final int PREFIX = KafkaFrameDecoder.SIZE_PREFIX_BYTES;
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(BranchCopies.class);
    private static final byte UNSEEN = 0;
    private static final byte COPYABLE = 1;
    private static final byte NOT_ACKED = 2;
    private static final byte TRANSACTIONAL = 3;

    private final ExchangeHost host;
    private final ProduceRequestBuilder builder = new ProduceRequestBuilder();
    private final ProduceResponseSkim merged = new ProduceResponseSkim();
    private final ProduceResponseSkim sideAnswer = new ProduceResponseSkim();
    private final RecordBatchView batch = new RecordBatchView();
    /** Per client partition: what the primary's answer and its batches allow (reset per request). */
    private byte[] state = new byte[16];
    /** One side target's part: which partitions go (0) or not (-1), under which key and partition there. */
    private int[] routeOf = new int[16];
    private byte[][] keys = new byte[16][];
    private int[] partitions = new int[16];
    private final UpstreamTopicKeys partKeys = new UpstreamTopicKeys() {
        @Override
        public byte[] upstreamKey(int t) {
            return null;
        }

        @Override
        public byte[] upstreamKey(int t, int i) {
            return keys[i];
        }

        @Override
        public boolean keysPerPartition() {
            return true;
        }
    };
    private final UpstreamPartitions partPartitions = i -> partitions[i];
    /** Copies sent and not answered: per tag, its route, copy count, record bytes and request version. */
    private int[] pendingRoute = new int[8];
    private int[] pendingCopies = new int[8];
    private long[] pendingBytes = new long[8];
    private short[] pendingVersion = new short[8];
    private int[] freeTags = new int[8];
    private int freeCount;
    private int tagCount;
    private long inFlightBytes;

    BranchCopies(ExchangeHost host) {
        this.host = host;
        builder.topicKeys(partKeys).partitions(partPartitions);
    }

    /**
     * Counts what the plan's copies cannot become: unplaced ones (and has the branches' leaders read
     * again), and every copy of an acks=0 Produce.
     */
    void planned(RoutePlan plan, boolean acksZero) {
        BranchCounters counters = host.branchCounters();
        long routes = plan.unplacedRoutes();
        while (routes != 0) {
            int r = Long.numberOfTrailingZeros(routes);
            routes &= routes - 1;
            counters.count(r, Outcome.DROPPED_UNPLACED, plan.unplacedCopies(r));
            host.cluster(r).refreshLeadersSoon();
        }
        if (acksZero) {
            for (int c = 0; c < plan.copyCount(); c++) {
                counters.count(plan.sideLeaf(plan.copySide(c)), Outcome.SKIPPED_ACKS0, 1);
            }
        }
    }

    /**
     * Sends the copies of {@code plan} whose partitions the primary acknowledged in {@code answer} (the
     * client's merged answer, size prefix included; borrowed). {@code skim} is wrapped on the client's
     * request frame, which is still held.
     */
    void send(RoutePlan plan, ProduceRequestSkim skim, ByteBuf answer) {
        try {
            sendCopies(plan, skim, answer);
        } catch (RuntimeException e) {
            // The client's answer is the primary's and is already made: a copy that cannot be built is
            // lost on the side only.
            LOG.warn("virtual cluster '{}': cannot send branch copies of a Produce: {}", host.virtualClusterName(), e.toString());
            for (int c = 0; c < plan.copyCount(); c++) {
                host.branchCounters().count(plan.sideLeaf(plan.copySide(c)), Outcome.FAILED, 1);
            }
        }
    }

    private void sendCopies(RoutePlan plan, ProduceRequestSkim skim, ByteBuf answer) {
        int n = skim.partitionCount();
        if (state.length < n) {
            int size = Math.max(n, state.length * 2);
            state = new byte[size];
            routeOf = new int[size];
            keys = new byte[size][];
            partitions = new int[size];
        }
        Arrays.fill(state, 0, n, UNSEEN);
        merged.wrap(answer, answer.readerIndex() + PREFIX, answer.writerIndex(), skim.version());
        BranchCounters counters = host.branchCounters();
        String clientId = null;
        for (int side = 0; side < plan.sideTargetCount(); side++) {
            int route = plan.sideLeaf(side);
            BranchWriter writer = host.branchWriter(route);
            if (writer != null) {
                if (clientId == null) {
                    clientId = skim.header().clientId();
                }
                handOver(plan, skim, side, route, writer, clientId);
                continue;
            }
            Arrays.fill(routeOf, 0, n, -1);
            int copies = 0;
            long bytes = 0;
            for (int c = 0; c < plan.copyCount(); c++) {
                if (plan.copySide(c) != side) {
                    continue;
                }
                int i = plan.copyPartition(c);
                byte s = copyable(skim, i);
                if (s == COPYABLE) {
                    routeOf[i] = 0;
                    keys[i] = plan.copyKey(c);
                    partitions[i] = plan.copyUpstreamPartition(c);
                    copies++;
                    bytes += skim.recordsLength(i);
                } else if (s == TRANSACTIONAL) {
                    counters.count(route, Outcome.SKIPPED_TRANSACTIONAL, 1);
                }
            }
            if (copies == 0) {
                continue;
            }
            UpstreamLink link = host.links().side(route, plan.sideBroker(side));
            if (inFlightBytes + bytes > MAX_IN_FLIGHT_BYTES) {
                counters.count(route, Outcome.DROPPED_BACKLOG, copies);
                continue;
            }
            ByteBuf part = builder.build(skim, routeOf, 0, 0, host.alloc());
            int tag = pending(route, copies, bytes, skim.version());
            inFlightBytes += bytes;
            counters.sent(route, bytes);
            link.send(part, this, tag);
        }
    }

    /**
     * A transforming branch: each acknowledged partition's batches go to the branch's writer, off the
     * event loop, as a retained slice with the primary's base offset; the lane of this event loop drops
     * and counts when full. Copies of a transforming branch are keyed by the branch topic's name.
     */
    private void handOver(RoutePlan plan, ProduceRequestSkim skim, int side, int route, BranchWriter writer, String clientId) {
        BranchLane lane = writer.lane(host.eventLoop());
        long now = System.currentTimeMillis();
        for (int c = 0; c < plan.copyCount(); c++) {
            if (plan.copySide(c) != side) {
                continue;
            }
            int i = plan.copyPartition(c);
            byte s = copyable(skim, i);
            long heldFor = BranchBatch.NOT_HELD;
            if (s == TRANSACTIONAL) {
                if (!writer.holdsTransactions()) {
                    host.branchCounters().count(route, Outcome.SKIPPED_TRANSACTIONAL, 1);
                    continue;
                }
                heldFor = producerId(skim.buffer(), skim.recordsOffset(i), skim.recordsOffset(i) + skim.recordsLength(i));
            } else if (s != COPYABLE) {
                continue;
            }
            int from = skim.recordsOffset(i);
            int length = skim.recordsLength(i);
            VisibleTopic topic = CatalogHotPlanner.visibleTopic(skim, skim.partitionTopic(i), host.hotContext().catalog(), plan);
            BatchContext context = new BatchContext(host.virtualClusterName(), topic == null ? "" : topic.virtualName(),
                    skim.partitionIndex(i), merged.baseOffset(i), recordCount(skim.buffer(), from, from + length), clientId,
                    host.principal(), now);
            String target = new String(plan.copyKey(c), java.nio.charset.StandardCharsets.UTF_8);
            if (lane.offer(new BranchBatch(skim.buffer().retainedSlice(from, length), context, target,
                    plan.copyUpstreamPartition(c), heldFor))) {
                host.branchCounters().sent(route, length);
            } else {
                host.branchCounters().count(route, Outcome.DROPPED_BACKLOG, 1);
            }
        }
    }

    /** The producer id of the first batch in [{@code from}, {@code to}) (a Produce partition carries one producer's batches). */
    private long producerId(ByteBuf buf, int from, int to) {
        batch.wrap(buf, from, to);
        return batch.producerId();
    }

    private int recordCount(ByteBuf buf, int from, int to) {
        int records = 0;
        for (batch.wrap(buf, from, to); batch.hasBatch(); batch.next()) {
            records += batch.recordCount();
        }
        return records;
    }

    /** Whether partition {@code i}'s records may be copied; the first time, detaches its batches. */
    private byte copyable(ProduceRequestSkim skim, int i) {
        if (state[i] != UNSEEN) {
            return state[i];
        }
        int from = skim.recordsOffset(i);
        int to = from + Math.max(0, skim.recordsLength(i));
        byte s;
        if (i >= merged.partitionCount() || merged.errorCode(i) != Errors.NONE.code() || to == from) {
            s = NOT_ACKED;
        } else if (batch.anyTransactional(skim.buffer(), from, to)) {
            s = TRANSACTIONAL;
        } else {
            batch.detachProducer(skim.buffer(), from, to);
            s = COPYABLE;
        }
        state[i] = s;
        return s;
    }

    private int pending(int route, int copies, long bytes, short version) {
        int tag;
        if (freeCount > 0) {
            tag = freeTags[--freeCount];
        } else {
            tag = tagCount++;
            if (tag == pendingRoute.length) {
                int size = tag * 2;
                pendingRoute = Arrays.copyOf(pendingRoute, size);
                pendingCopies = Arrays.copyOf(pendingCopies, size);
                pendingBytes = Arrays.copyOf(pendingBytes, size);
                pendingVersion = Arrays.copyOf(pendingVersion, size);
                freeTags = Arrays.copyOf(freeTags, size);
            }
        }
        pendingRoute[tag] = route;
        pendingCopies[tag] = copies;
        pendingBytes[tag] = bytes;
        pendingVersion[tag] = version;
        return tag;
    }

    private void done(int tag) {
        inFlightBytes -= pendingBytes[tag];
        freeTags[freeCount++] = tag;
    }

    @Override
    public void onResponse(ByteBuf response, int tag) {
        int route = pendingRoute[tag];
        BranchCounters counters = host.branchCounters();
        try {
            sideAnswer.wrap(response, response.readerIndex() + PREFIX, response.writerIndex(), pendingVersion[tag]);
            int failed = 0;
            for (int i = 0; i < sideAnswer.partitionCount(); i++) {
                short error = sideAnswer.errorCode(i);
                if (error != Errors.NONE.code()) {
                    failed++;
                    warnSometimes(route, sideAnswer, i, error);
                }
            }
            counters.count(route, Outcome.ACKED, pendingCopies[tag] - failed);
            if (failed > 0) {
                counters.count(route, Outcome.FAILED, failed);
                host.cluster(route).refreshLeadersSoon(); // most errors of a copy are a moved leader or a missing topic
            }
        } catch (RuntimeException e) {
            counters.count(route, Outcome.FAILED, pendingCopies[tag]);
            warnSometimes("cannot read branch route {}'s answer to copies: {}", route, e.toString());
        } finally {
            response.release();
            done(tag);
        }
    }

    /** At most one line a second per process: a branch that refuses everything must not flood the log. */
    private static final dev.weft.iocore.time.AtMostEvery WARN = new dev.weft.iocore.time.AtMostEvery(java.time.Duration.ofSeconds(1));

    private void warnSometimes(int route, ProduceResponseSkim answer, int i, short error) {
        int t = answer.partitionTopic(i);
        warnSometimes("branch route {} (cluster '{}') refused a copy of {} partition {}: {}", route, host.cluster(route).name(),
                answer.usesTopicIds() ? answer.topicId(t) : answer.topicName(t), answer.partitionIndex(i), Errors.forCode(error));
    }

    private void warnSometimes(String what, Object... args) {
        if (WARN.tryPass()) {
            LOG.warn("virtual cluster '" + host.virtualClusterName() + "': " + what
                    + " (counted in weft_branch_copies_total; the primary is not affected)", args);
        }
    }

    @Override
    public void onFailure(Errors error, String reason, int tag) {
        int route = pendingRoute[tag];
        warnSometimes("copies to branch route {} (cluster '{}') failed: {}", route, host.cluster(route).name(), reason);
        host.branchCounters().count(route, Outcome.FAILED, pendingCopies[tag]);
        host.cluster(route).refreshLeadersSoon();
        done(tag);
    }
}
