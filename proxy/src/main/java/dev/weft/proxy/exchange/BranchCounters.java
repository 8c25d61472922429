package dev.weft.proxy.exchange;

import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * What became of a virtual cluster's branch copies (the BRANCH plan kind), per branch route and
 * outcome; a copy is one partition's records of one client Produce bound for one branch. Counting is one
 * {@link LongAdder} increment; read by the exporter as {@code weft_branch_copies_total} and
 * {@code weft_branch_copy_bytes_total}.
 */
public final class BranchCounters {

    /** The outcomes of a copy, as the metric's {@code outcome} label says them. */
    public enum Outcome {
        /** The branch's broker acknowledged it. */
        ACKED("acked"),
        /** The branch's broker answered an error for it, or its connection failed before answering. */
        FAILED("failed"),
        /** Not sent: the branch topic, or its partition's leader on the branch cluster, is not known yet. */
        DROPPED_UNPLACED("dropped_unplaced"),
        /** Not sent: the connection's copies already in flight reached their bound, or the branch link is backed up. */
        DROPPED_BACKLOG("dropped_backlog"),
        /** Not sent: transactional records (a branch must never see what a transaction may still abort). */
        SKIPPED_TRANSACTIONAL("skipped_transactional"),
        /** Not sent: an acks=0 Produce, which the primary never acknowledges. */
        SKIPPED_ACKS0("skipped_acks0");

        private final String label;

        Outcome(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }
    }

    private static final Outcome[] OUTCOMES = Outcome.values();

    private final String virtualCluster;
    private final List<String> routeNames;
    /** [route][outcome]; routes that are not branches simply stay at zero and are not exported. */
    private final LongAdder[][] copies;
    private final LongAdder[] bytesSent;
    private final boolean[] used;

    public BranchCounters(String virtualCluster, List<String> routeNames) {
        this.virtualCluster = virtualCluster;
        this.routeNames = List.copyOf(routeNames);
        copies = new LongAdder[routeNames.size()][OUTCOMES.length];
        bytesSent = new LongAdder[routeNames.size()];
        used = new boolean[routeNames.size()];
        for (int r = 0; r < copies.length; r++) {
            for (int o = 0; o < OUTCOMES.length; o++) {
                copies[r][o] = new LongAdder();
            }
            bytesSent[r] = new LongAdder();
        }
    }

    public String virtualCluster() {
        return virtualCluster;
    }

    void count(int route, Outcome outcome, int n) {
        used[route] = true; // benign race: only ever set to true, read by the exporter
        copies[route][outcome.ordinal()].add(n);
    }

    void sent(int route, long recordBytes) {
        used[route] = true;
        bytesSent[route].add(recordBytes);
    }

    /** Calls {@code out} for every branch route that has had a copy, and each outcome. */
    public void forEach(Visitor out) {
        for (int r = 0; r < copies.length; r++) {
            if (!used[r]) {
                continue;
            }
            for (Outcome o : OUTCOMES) {
                out.copies(routeNames.get(r), o.label(), copies[r][o.ordinal()].sum());
            }
        }
    }

    /** Calls {@code out} with the record bytes sent to every branch route that has had a copy. */
    public void forEachBytes(BytesVisitor out) {
        for (int r = 0; r < copies.length; r++) {
            if (used[r]) {
                out.bytes(routeNames.get(r), bytesSent[r].sum());
            }
        }
    }

    @FunctionalInterface
    public interface Visitor {
        void copies(String branch, String outcome, long count);
    }

    @FunctionalInterface
    public interface BytesVisitor {
        void bytes(String branch, long bytes);
    }
}
