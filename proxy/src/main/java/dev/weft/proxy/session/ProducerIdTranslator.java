package dev.weft.proxy.session;

import dev.weft.routing.plan.IdempotentProducerIds;

import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * Virtual producer id → the producer id another cluster allocated for it (DESIGN §5), agreed across
 * every proxy replica (fleet state). {@link #cached} is asked for every batch bound for a cluster other
 * than the producer-id home; {@link #claim} runs once per (producer, cluster).
 */
public interface ProducerIdTranslator {

    /** Every route is one cluster: a producer id means the same everywhere (once without its route bits). */
    ProducerIdTranslator IDENTITY = new ProducerIdTranslator() {
        @Override
        public long cached(long virtualPid, int route) {
            return IdempotentProducerIds.allocatedId(virtualPid);
        }

        @Override
        public CompletableFuture<Long> claim(long virtualPid, int route, Supplier<CompletableFuture<Long>> allocate) {
            return CompletableFuture.completedFuture(IdempotentProducerIds.allocatedId(virtualPid));
        }
    };

    /** The agreed id of {@code virtualPid} on {@code route}, or -1 when not known yet. Cheap; any thread. */
    long cached(long virtualPid, int route);

    /**
     * Agrees on the id of {@code virtualPid} on {@code route}: uses the known one, or allocates one with
     * {@code allocate} and claims it. Completes on some other thread.
     */
    CompletableFuture<Long> claim(long virtualPid, int route, Supplier<CompletableFuture<Long>> allocate);
}
