package dev.weft.proxy.switching;

import dev.weft.routing.switching.SwitchRouter;
import dev.weft.routing.switching.SwitchState;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Every instance of one configured switch in this proxy: each virtual cluster builds its own routers,
 * so a switch that several virtual clusters reach exists once per virtual cluster, and they move together.
 */
record SwitchGroup(List<SwitchRouter> instances) {

    SwitchGroup {
        instances = List.copyOf(instances);
        if (instances.isEmpty()) {
            throw new IllegalArgumentException("a switch group needs an instance");
        }
    }

    /** The instance whose state and settings stand for all (they are built from one config). */
    SwitchRouter primary() {
        return instances.getFirst();
    }

    /** Puts {@code next} in force in every instance; returns once every virtual cluster has it (and drained). */
    void apply(SwitchState next, String drainReason) {
        applyAsync(next, drainReason).join();
    }

    /**
     * Puts {@code next} in force in every instance: every catalog is rebuilt before this returns; the future
     * completes once the drained connections are closed.
     */
    CompletableFuture<Void> applyAsync(SwitchState next, String drainReason) {
        return CompletableFuture.allOf(instances.stream().map(r -> r.apply(next, drainReason)).toArray(CompletableFuture[]::new));
    }
}
