package dev.weft.proxy.switching;

import dev.weft.routing.dag.ClusterTarget;
import dev.weft.routing.switching.SwitchRouter;
import dev.weft.routing.switching.SwitchSettings;
import dev.weft.routing.switching.SwitchState;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Automatic failover ({@code failover: { to, afterMs }}): asks the active route's cluster for its brokers
 * every second; once it has not answered for {@code afterMs}, moves the switch to the standby with a
 * forced cutover (no replication catch-up: the old cluster cannot be read, so what MirrorMaker 2 had not
 * copied yet is not on the standby). It never moves back by itself. In a fleet every replica watches; the
 * fleet state lets one cutover run, the others are refused and log it.
 */
final class FailoverWatch implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(FailoverWatch.class);
    private static final Duration PROBE_INTERVAL = Duration.ofSeconds(1);
    private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(2);

    private final SwitchController controller;
    private final SwitchRouter primary;
    private final SwitchSettings.Failover failover;
    private final Function<String, Map<String, Object>> clientConfigOfCluster;
    private final ScheduledExecutorService probes;
    private final Map<Integer, Admin> admins = new HashMap<>();
    private long unreachableSinceNanos;
    private volatile boolean triggered;

    FailoverWatch(SwitchController controller, SwitchRouter primary, Function<String, Map<String, Object>> clientConfigOfCluster) {
        this.controller = controller;
        this.primary = primary;
        this.failover = primary.settings().failover();
        this.clientConfigOfCluster = clientConfigOfCluster;
        this.probes = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().name("weft-failover-" + primary.name())
                .daemon(true).factory());
        probes.scheduleWithFixedDelay(this::probe, PROBE_INTERVAL.toMillis(), PROBE_INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
        LOG.info("switch '{}': fails over to '{}' after its active route has been unreachable for {} ms", primary.name(),
                primary.routeName(failover.standby()), failover.after().toMillis());
    }

    private void probe() {
        SwitchState s = primary.state();
        if (s.active() == failover.standby() || !s.known() || s.fenced() || controller.status().switching()) {
            unreachableSinceNanos = 0;
            triggered = false;
            return;
        }
        long started = System.nanoTime();
        if (reachable(s.active())) {
            if (unreachableSinceNanos != 0) {
                LOG.info("switch '{}': '{}' answers again", primary.name(), primary.routeName(s.active()));
            }
            unreachableSinceNanos = 0;
            return;
        }
        if (unreachableSinceNanos == 0) {
            unreachableSinceNanos = started;
            LOG.warn("switch '{}': '{}' does not answer; failing over to '{}' if it stays so for {} ms", primary.name(),
                    primary.routeName(s.active()), primary.routeName(failover.standby()), failover.after().toMillis());
        }
        if (!triggered && System.nanoTime() - unreachableSinceNanos >= failover.after().toNanos()) {
            triggered = true;
            String line = "switch '" + primary.name() + "': '" + primary.routeName(s.active()) + "' has been unreachable for "
                    + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - unreachableSinceNanos) + " ms: failing over to '"
                    + primary.routeName(failover.standby()) + "'";
            LOG.error(line);
            try {
                controller.switchTo(primary.routeName(failover.standby()), true, progress -> { })
                        .whenComplete((outcome, error) -> triggered = false);
            } catch (SwitchController.RefusedException e) {
                LOG.info("switch '{}': failover not started: {}", primary.name(), e.getMessage());
                triggered = false;
            }
        }
    }

    private boolean reachable(int route) {
        if (!(primary.routes().get(route).target() instanceof ClusterTarget c)) {
            return true; // a router behind the route: its own clusters' health is not one answer
        }
        Admin admin = admins.computeIfAbsent(route, r -> {
            Map<String, Object> config = new HashMap<>(clientConfigOfCluster.apply(c.cluster()));
            config.put(AdminClientConfig.CLIENT_ID_CONFIG, "weft-failover-" + primary.name());
            config.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) PROBE_TIMEOUT.toMillis());
            config.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) PROBE_TIMEOUT.toMillis());
            return Admin.create(config);
        });
        try {
            return !admin.describeCluster(new DescribeClusterOptions().timeoutMs((int) PROBE_TIMEOUT.toMillis())).nodes()
                    .get(PROBE_TIMEOUT.toMillis() + 500, TimeUnit.MILLISECONDS).isEmpty();
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return true;
        }
    }

    @Override
    public void close() {
        probes.shutdownNow();
        try {
            probes.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        admins.values().forEach(a -> a.close(Duration.ofSeconds(1)));
    }
}
