package dev.weft.routing.branch.transform;

import dev.weft.routing.dag.RoutingProblem;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The transforms of one branch route, in config order: record steps (redact, sample), at most one
 * derive step, and record steps that then work on the derived records. Built once from config by
 * {@link #parse}; owned and driven by a single branch writer thread.
 */
public final class TransformChain {

    private final List<RecordStep> beforeDerive;
    /** Null when the chain does not derive: the batch's own records go out. */
    private final DeriveStep derive;
    private final List<RecordStep> afterDerive;
    private final TransformCounters counters;
    /** Reused per batch so a deriving chain allocates no lists per batch. */
    private final List<BranchRecord> reached = new ArrayList<>();
    private final List<BranchRecord> derived = new ArrayList<>();

    TransformChain(List<RecordStep> beforeDerive, DeriveStep derive, List<RecordStep> afterDerive, TransformCounters counters) {
        this.beforeDerive = List.copyOf(beforeDerive);
        this.derive = derive;
        this.afterDerive = List.copyOf(afterDerive);
        this.counters = counters;
    }

    /**
     * Reads a branch route's {@code transforms} value.
     *
     * @param path the config path of the {@code transforms} key, e.g. {@code routers.shadow.routes[1].transforms}
     * @param raw the value as the YAML reader gives it: a list of single-key mappings, or null for no transforms
     * @param replicaId names this proxy replica in the records {@code count} derives
     * @param problems gets one problem per config error
     * @return the chain (an identity chain when {@code raw} is null or empty), or null when there were problems
     */
    public static TransformChain parse(String path, Object raw, String replicaId, List<RoutingProblem> problems) {
        return ChainReader.read(path, raw, replicaId, problems);
    }

    /** True when the chain passes every record through unchanged. */
    public boolean isIdentity() {
        return beforeDerive.isEmpty() && derive == null;
    }

    /**
     * Runs one acknowledged batch through the chain. Never throws for a bad record: a step that throws
     * costs that record (counted in {@link TransformCounters#transformErrors()}), not the batch.
     *
     * @param records the batch's records in offset order
     * @param out gets the records to produce to the branch, in order
     */
    public void apply(BatchContext batch, List<BranchRecord> records, Consumer<BranchRecord> out) {
        counters.countRecordsIn(records.size());
        if (derive == null) {
            for (BranchRecord record : records) {
                emit(through(beforeDerive, record), out);
            }
            return;
        }
        reached.clear();
        for (BranchRecord record : records) {
            BranchRecord kept = through(beforeDerive, record);
            if (kept != null) {
                reached.add(kept);
            }
        }
        derived.clear();
        try {
            derive.onBatch(batch, reached, derived);
        } catch (RuntimeException e) {
            // What it derived before failing (e.g. windows it flushed) is still right; the batch's own share is lost.
            counters.countTransformError(e);
        }
        reached.clear();
        emitDerived(out);
    }

    /**
     * Lets time-driven steps emit (a {@code count} window that has ended). Cheap when nothing is due, so
     * the writer may call it on every duty cycle.
     *
     * @param nowMs the writer's clock, the same one batch times come from
     */
    public void tick(long nowMs, Consumer<BranchRecord> out) {
        if (derive == null) {
            return;
        }
        derived.clear();
        try {
            derive.tick(nowMs, derived);
        } catch (RuntimeException e) {
            counters.countTransformError(e);
        }
        emitDerived(out);
    }

    /**
     * True when the chain derives a stream (audit, count): what it emits are new records, not the batch's
     * own, so a writer partitions them by key instead of keeping the client's partition.
     */
    public boolean derives() {
        return derive != null;
    }

    public TransformCounters counters() {
        return counters;
    }

    private void emitDerived(Consumer<BranchRecord> out) {
        for (int i = 0; i < derived.size(); i++) {
            emit(through(afterDerive, derived.get(i)), out);
        }
        derived.clear();
    }

    private void emit(BranchRecord record, Consumer<BranchRecord> out) {
        if (record != null) {
            counters.countRecordOut();
            out.accept(record);
        }
    }

    /** The record after {@code steps}, or null when one dropped it or threw on it. */
    private BranchRecord through(List<RecordStep> steps, BranchRecord record) {
        BranchRecord current = record;
        for (int i = 0; i < steps.size() && current != null; i++) {
            try {
                current = steps.get(i).apply(current);
            } catch (RuntimeException e) {
                counters.countTransformError(e);
                return null;
            }
        }
        return current;
    }
}
