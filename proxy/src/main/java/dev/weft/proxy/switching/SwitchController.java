package dev.weft.proxy.switching;

import dev.weft.routing.switching.SwitchRouter;
import dev.weft.routing.switching.SwitchState;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One switch of this proxy: runs its cutovers one at a time on a thread of its own and keeps what the
 * metrics and the admin endpoint report (active route, switches, last cutover per phase, fenced time).
 */
public final class SwitchController implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(SwitchController.class);

    private final SwitchGroup group;
    private final Function<String, Map<String, Object>> clientConfigOfCluster;
    private final ExecutorService thread;
    private final AtomicBoolean running = new AtomicBoolean();
    private final AtomicLong switches = new AtomicLong();
    private final AtomicLong aborts = new AtomicLong();
    private final AtomicLong fencedNanos = new AtomicLong();
    private volatile CutoverOutcome last;

    private final SwitchStore store;
    /** Null without {@code failover}. */
    private final FailoverWatch failover;

    /**
     * @param replicaId this proxy process, named in the fleet's switch records
     * @param startTimeout how long to wait for the fleet's switch records before serving nothing through it
     */
    SwitchController(SwitchGroup group, Function<String, Map<String, Object>> clientConfigOfCluster, String replicaId,
            Duration startTimeout) {
        this.group = group;
        this.clientConfigOfCluster = clientConfigOfCluster;
        String stateCluster = group.primary().settings().stateCluster();
        if (stateCluster == null) {
            this.store = new LocalSwitchStore(group);
        } else {
            FleetSwitchStore fleet = new FleetSwitchStore(group, stateCluster, clientConfigOfCluster.apply(stateCluster), replicaId);
            fleet.start(startTimeout.compareTo(group.primary().settings().stateLease().multipliedBy(3)) < 0 ? startTimeout
                    : group.primary().settings().stateLease().multipliedBy(3));
            this.store = fleet;
        }
        LOG.info("switch '{}': at '{}', {}", name(), group.primary().routeName(group.primary().state().active()), store.describe());
        this.failover = group.primary().settings().failover() == null ? null
                : new FailoverWatch(this, group.primary(), clientConfigOfCluster);
        this.thread = Executors.newSingleThreadExecutor(Thread.ofPlatform().name("weft-switch-" + group.primary().name())
                .daemon(true).factory());
    }

    public String name() {
        return group.primary().name();
    }

    /** Why a cutover cannot start: the operator's request names something that does not exist, or one runs. */
    public static final class RefusedException extends Exception {
        private final boolean conflict;

        RefusedException(String message, boolean conflict) {
            super(message);
            this.conflict = conflict;
        }

        /** True when another cutover runs (HTTP 409), false for a bad request (400). */
        public boolean conflict() {
            return conflict;
        }
    }

    /**
     * Starts moving the switch to route {@code toRoute}.
     *
     * @param force skip the replication catch-up (the old cluster is down, or the operator accepts losing
     *     what MirrorMaker 2 has not copied yet)
     * @param progress told one line per step, on the switch's thread
     * @return completes with the outcome; never exceptionally for an abort (the outcome says it)
     * @throws RefusedException when the route does not exist, is already active, or a cutover runs
     */
    public CompletableFuture<CutoverOutcome> switchTo(String toRoute, boolean force, Consumer<String> progress)
            throws RefusedException {
        SwitchRouter primary = group.primary();
        int to = primary.routeIndex(toRoute);
        if (to < 0) {
            throw new RefusedException("switch '" + name() + "' has no route named '" + toRoute + "' (routes: "
                    + String.join(", ", primary.routes().stream().map(r -> r.name()).toList()) + ")", false);
        }
        if (!running.compareAndSet(false, true)) {
            throw new RefusedException("switch '" + name() + "' is already switching; wait for that cutover to end", true);
        }
        if (primary.state().active() == to) {
            running.set(false);
            throw new RefusedException("switch '" + name() + "' already points at '" + toRoute + "'", false);
        }
        return CompletableFuture.supplyAsync(() -> run(new Cutover(group, store, to, force, clientConfigOfCluster, progress)), thread);
    }

    private CutoverOutcome run(Cutover cutover) {
        long fencedAt = System.nanoTime();
        CutoverOutcome outcome;
        try {
            outcome = cutover.run();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            outcome = new CutoverOutcome(false, "switch '" + name() + "': the cutover was interrupted (the proxy stops);"
                    + " the old route stays active, unfenced", Map.of());
        } catch (RuntimeException e) {
            LOG.error("switch '{}': the cutover failed", name(), e);
            outcome = new CutoverOutcome(false, "switch '" + name() + "': the cutover failed: " + e, Map.of());
        } finally {
            fencedNanos.addAndGet(System.nanoTime() - fencedAt);
            running.set(false);
        }
        if (outcome.switched()) {
            switches.incrementAndGet();
            LOG.info("{}", outcome.message());
        } else {
            aborts.incrementAndGet();
            LOG.error("{}", outcome.message());
        }
        last = outcome;
        return outcome;
    }

    /** What the metrics and {@code GET /switches} report. */
    public record Status(String name, String activeRoute, java.util.List<String> routes, long epoch, boolean fenced,
            boolean switching, long switches, long aborts, Duration fencedTotal, CutoverOutcome last) {
    }

    public Status status() {
        SwitchRouter primary = group.primary();
        SwitchState s = primary.state();
        return new Status(name(), primary.routeName(s.active()), primary.routes().stream().map(r -> r.name()).toList(),
                s.epoch(), s.fenced(), running.get(), switches.get(), aborts.get(), Duration.ofNanos(fencedNanos.get()), last);
    }

    @Override
    public void close() {
        if (failover != null) {
            failover.close();
        }
        thread.shutdownNow();
        store.close();
    }
}
