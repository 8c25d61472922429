package dev.weft.routing.branch.transform;

import dev.weft.routing.dag.RoutingProblem;
import java.util.ArrayList;
import java.util.List;

/**
 * How the copies bound for one side route are transformed before they are written there: the route's
 * {@code transforms} as configured (checked at start) and the one topic everything goes to, if set. The
 * proxy builds one {@link TransformChain} per writer from it ({@link #newChain}): a chain keeps state
 * (sampling draws, count windows) and belongs to one thread.
 *
 * @param path the config path of the {@code transforms} key, for the chain's own messages
 * @param raw the {@code transforms} value as read from the config
 * @param fixedTopic the topic every record of the route goes to (partitioned by key), or null: each copy
 *     to its own topic on the branch, in the client's partition
 * @param holdsTransactions whether transactional batches are held until their transaction ends (written
 *     once it committed, dropped when it aborted) instead of skipped ({@code transactional: hold}); a
 *     branch that holds has a writer even without transforms (then an identity chain)
 */
public record TransformSpec(String path, Object raw, String fixedTopic, boolean holdsTransactions) {

    /** A spec that skips transactional batches (the default). */
    public TransformSpec(String path, Object raw, String fixedTopic) {
        this(path, raw, fixedTopic, false);
    }

    /** A new chain for one writer; {@code replicaId} names this proxy replica in derived records. */
    public TransformChain newChain(String replicaId) {
        List<RoutingProblem> problems = new ArrayList<>();
        TransformChain chain = TransformChain.parse(path, raw, replicaId, problems);
        if (chain == null) {
            throw new IllegalStateException("transforms were checked at start and now fail: " + problems);
        }
        return chain;
    }
}
