package dev.weft.routing.api;

import dev.weft.protocol.skim.PartitionSkim;

/**
 * Plans a skimmed Produce or Fetch (hot path): for every partition, which route (leaf) serves it, under
 * which upstream topic key, on which broker — or that the proxy answers it with an error. Called on the
 * session's event loop for every Produce and Fetch: implementations read immutable snapshots and the
 * plan's reused arrays, and allocate nothing once warm.
 */
@FunctionalInterface
public interface HotPlanner {

    /**
     * Fills {@code out} (already {@link RoutePlan#reset reset} for {@code skim}) for every partition of
     * {@code skim}.
     */
    void plan(PartitionSkim skim, HotContext ctx, RoutePlan out);
}
