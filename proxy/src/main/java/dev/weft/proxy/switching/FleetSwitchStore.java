package dev.weft.proxy.switching;

import dev.weft.proxy.fleet.SwitchLog;
import dev.weft.proxy.fleet.SwitchRecord;
import dev.weft.routing.switching.SwitchRouter;
import dev.weft.routing.switching.SwitchState;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A switch whose replicas agree through the fleet's switch records ({@link SwitchLog} on
 * {@code state.cluster}). Every replica, the one running a cutover included, puts in force only what it
 * reads there, in log order; the records of a cutover epoch count only when written by the replica that
 * wrote the epoch's first one.
 *
 * <p>The safety argument (README "Connection switching"): a replica serves through the switch only while
 * it has read every record within the last {@code state.leaseMs}; otherwise it serves nothing. A cutover
 * writes its fence record and then waits the lease (plus a check interval and the drain timeout) before
 * it reads the old cluster's end offsets, so by then every replica has read the fence or stopped
 * serving, and finished its in-flight produce. The re-point record comes after that wait, and a replica
 * serves the new cluster only once it has read it: no two replicas serve produce to different clusters at
 * the same time.
 */
final class FleetSwitchStore implements SwitchStore {

    private static final Logger LOG = LoggerFactory.getLogger(FleetSwitchStore.class);
    private static final Duration WATCH_INTERVAL = Duration.ofMillis(250);
    private static final Duration APPLIED_TIMEOUT = Duration.ofSeconds(30);

    private final SwitchGroup group;
    private final String replicaId;
    private final Duration lease;
    private final SwitchLog log;
    private final ScheduledExecutorService watchdog;
    // guarded by this: what the records decided, and whether this replica may serve it
    private SwitchState decided;
    private String epochOwner;
    private boolean serving;

    FleetSwitchStore(SwitchGroup group, String stateCluster, Map<String, Object> stateClientConfig, String replicaId) {
        this.group = group;
        this.replicaId = replicaId;
        this.lease = group.primary().settings().stateLease();
        this.decided = group.primary().state();
        this.log = new SwitchLog(stateCluster, stateClientConfig, this::onRecord);
        this.watchdog = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform()
                .name("weft-switch-lease-" + group.primary().name()).daemon(true).factory());
    }

    /** Serves nothing through the switch until the records are read (at most {@code timeout} waited for here). */
    void start(Duration timeout) {
        group.apply(decided.unknown(), null);
        if (!log.start(timeout)) {
            LOG.error("switch '{}': cannot read its records ({}) within {} ms: this replica serves nothing through it until it"
                    + " can (clients get retriable errors)", name(), log.where(), timeout.toMillis());
        }
        watch();
        watchdog.scheduleWithFixedDelay(this::watch, WATCH_INTERVAL.toMillis(), WATCH_INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
    }

    private String name() {
        return group.primary().name();
    }

    private synchronized void onRecord(SwitchRecord r) {
        if (!r.switchName().equals(name())) {
            return;
        }
        SwitchRouter primary = group.primary();
        int route = primary.routeIndex(r.active());
        if (route < 0) {
            LOG.warn("switch '{}': a record names route '{}', which it does not have; skipped", name(), r.active());
            return;
        }
        if (r.epoch() < decided.epoch()) {
            return; // an older cutover's
        }
        if (r.epoch() > decided.epoch()) {
            epochOwner = r.by();
        } else if (epochOwner != null && !epochOwner.equals(r.by())) {
            return; // another replica lost the race for this epoch
        }
        SwitchState previous = decided;
        decided = new SwitchState(route, r.fenced(), r.epoch(), true);
        notifyAll();
        if (serving) {
            putInForce(previous, decided);
        }
    }

    private void putInForce(SwitchState previous, SwitchState next) {
        SwitchRouter primary = group.primary();
        String reason = null;
        if (next.active() != previous.active()) {
            reason = "switch '" + name() + "' moved from '" + primary.routeName(previous.active()) + "' to '"
                    + primary.routeName(next.active()) + "' (epoch " + next.epoch() + ", by " + epochOwner + ")";
        } else if (next.fenced() && !previous.fenced()) {
            reason = "switch '" + name() + "' fences produce on '" + primary.routeName(next.active()) + "' for a cutover (epoch "
                    + next.epoch() + ", by " + epochOwner + ")";
        }
        group.applyAsync(next, reason);
    }

    /** The lease: serve what the records say only while they were all read within it. */
    private synchronized void watch() {
        boolean read = log.readWithin(lease);
        if (serving && !read) {
            serving = false;
            LOG.error("switch '{}': has not read its records ({}) for {} ms: this replica serves nothing through it until"
                    + " it can (clients get retriable errors)", name(), log.where(), lease.toMillis());
            group.applyAsync(decided.unknown(), "switch '" + name() + "' cannot read the fleet state");
        } else if (!serving && read) {
            serving = true;
            LOG.info("switch '{}': serving '{}' (epoch {}{}) as its records ({}) say", name(),
                    group.primary().routeName(decided.active()), decided.epoch(), decided.fenced() ? ", fenced" : "", log.where());
            group.applyAsync(decided, null);
        }
    }

    @Override
    public SwitchState fence(SwitchState from, String reason) throws SwitchController.RefusedException, InterruptedException {
        long epoch;
        synchronized (this) {
            if (!serving) {
                throw new SwitchController.RefusedException("switch '" + name() + "': this replica cannot read the fleet state ("
                        + log.where() + "); a cutover needs it", true);
            }
            if (decided.fenced()) {
                throw new SwitchController.RefusedException("switch '" + name() + "': replica '" + epochOwner + "' is running a"
                        + " cutover (epoch " + decided.epoch() + ")", true);
            }
            epoch = decided.epoch() + 1;
        }
        append(new SwitchRecord(name(), epoch, group.primary().routeName(from.active()), true, replicaId));
        SwitchState fenced = awaitDecided(s -> s.epoch() >= epoch, "its fence record");
        synchronized (this) {
            if (fenced.epoch() != epoch || !replicaId.equals(epochOwner)) {
                throw new SwitchController.RefusedException("switch '" + name() + "': replica '" + epochOwner
                        + "' began a cutover (epoch " + fenced.epoch() + ") first", true);
            }
        }
        // every other replica has read the fence, or its lease ran out and it stopped serving; either way its
        // drain of in-flight produce had the drain timeout to finish
        Thread.sleep(lease.plus(WATCH_INTERVAL.multipliedBy(2)).plus(group.primary().settings().drainTimeout()).toMillis());
        return fenced;
    }

    @Override
    public void unfence(SwitchState fenced) throws InterruptedException {
        append(new SwitchRecord(name(), fenced.epoch(), group.primary().routeName(fenced.active()), false, replicaId));
        awaitDecided(s -> s.epoch() > fenced.epoch() || !s.fenced(), "its unfence record");
    }

    @Override
    public void repoint(SwitchState fenced, int route, String reason) throws InterruptedException {
        append(new SwitchRecord(name(), fenced.epoch(), group.primary().routeName(route), false, replicaId));
        awaitDecided(s -> s.epoch() > fenced.epoch() || s.active() == route && !s.fenced(), "its re-point record");
    }

    private void append(SwitchRecord r) {
        try {
            log.append(r);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("cannot write the switch record (" + log.where() + "): "
                    + (e.getCause() != null ? e.getCause() : e), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while writing the switch record", e);
        }
    }

    private synchronized SwitchState awaitDecided(Predicate<SwitchState> done, String what) throws InterruptedException {
        long deadline = System.nanoTime() + APPLIED_TIMEOUT.toNanos();
        while (!done.test(decided)) {
            long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            if (left <= 0) {
                throw new IllegalStateException("switch '" + name() + "': " + what + " was written but not read back from "
                        + log.where() + " within " + APPLIED_TIMEOUT.toMillis() + " ms");
            }
            wait(left);
        }
        return decided;
    }

    @Override
    public String describe() {
        return "agreed through " + log.where() + " (lease " + lease.toMillis() + " ms)";
    }

    @Override
    public void close() {
        watchdog.shutdownNow();
        log.close();
    }
}
