package dev.weft.proxy.server;

import dev.weft.iocore.EventLoops;
import dev.weft.iocore.EventLoopsConfig;
import dev.weft.iocore.affinity.CpuPinning;
import dev.weft.iocore.buffer.BufferPolicy;
import dev.weft.iocore.transport.Transport;
import dev.weft.iocore.transport.TransportPreference;
import dev.weft.proxy.admin.AdminServer;
import dev.weft.proxy.admin.Readiness;
import dev.weft.proxy.admin.SessionMetricsCollector;
import dev.weft.proxy.admin.TopicCollisionCollector;
import dev.weft.proxy.config.HostPort;
import dev.weft.proxy.config.WeftConfig;
import dev.weft.proxy.config.WeftConfig.ClusterConfig;
import dev.weft.proxy.config.WeftConfig.VirtualClusterConfig;
import dev.weft.proxy.gateway.Gateway;
import dev.weft.proxy.metrics.ProxyMetrics;
import dev.weft.proxy.reload.ConfigChanges;
import dev.weft.proxy.reload.ReloadOutcome;
import dev.weft.proxy.session.SessionRegistry;
import dev.weft.proxy.session.SessionSettings;
import dev.weft.proxy.tls.DiscoveryClientSecurity;
import dev.weft.proxy.tls.TlsContexts;
import dev.weft.proxy.upstream.UpstreamCluster;
import dev.weft.proxy.session.VirtualClusterRuntime;
import dev.weft.proxy.session.VirtualClusters;
import dev.weft.testkit.KafkaCluster;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running Weft: event loops, the upstream clusters (and any embedded ones it started), and the
 * gateways of every virtual cluster. {@link #start} returns once every port is bound; {@link #close}
 * stops accepting, lets in-flight work finish up to the drain timeout, and releases everything.
 */
public final class WeftProxy implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(WeftProxy.class);
    /** Requests a client may pipeline before its upstream connection is up (clients send 1–2). */
    private static final int MAX_PENDING_FRAMES = 64;

    /** The config in force: the one started with, then each applied reload's (server and admin stay as started). */
    private volatile WeftConfig config;
    private final List<KafkaCluster> embedded = new java.util.concurrent.CopyOnWriteArrayList<>();
    /** Replaced whole by a reload (read by the admin thread's readiness checks). */
    private volatile Map<String, UpstreamCluster> clusters = new LinkedHashMap<>();
    private final dev.weft.proxy.reload.ReloadCounters reloads = new dev.weft.proxy.reload.ReloadCounters();
    private BufferPolicy buffers;
    private SessionSettings sessions;
    private final Map<String, VirtualClusterRuntime> virtualClusters = new java.util.concurrent.ConcurrentHashMap<>();
    private EventLoops loops;
    private final SessionRegistry registry = new SessionRegistry();
    private ProxyMetrics metrics;
    private dev.weft.proxy.session.PartialFrameBudgets partialFrames;
    private AdminServer admin;
    /** The switches of the virtual clusters; null until they run (read by the admin thread). */
    private volatile dev.weft.proxy.switching.Switches switches;
    // Written by the starting thread and by close(); read by readiness() on the admin thread.
    private volatile boolean gatewaysBound;
    private volatile boolean closing;

    /** How long a switch with {@code state.cluster} waits for its records at start before it serves nothing. */
    private static final Duration SWITCH_STATE_START_TIMEOUT = Duration.ofSeconds(30);
    /** This proxy instance in the fleet's switch records: unique even for two proxies in one process. */
    private final String instanceId = replicaId() + "/" + Long.toHexString(java.util.concurrent.ThreadLocalRandom.current().nextLong() & 0xffffffL);

    private WeftProxy(WeftConfig config) {
        this.config = config;
    }

    /** Starts everything the config describes; on any failure, stops what was started and rethrows. */
    public static WeftProxy start(WeftConfig config) {
        WeftProxy proxy = new WeftProxy(config);
        try {
            proxy.startUp();
            return proxy;
        } catch (RuntimeException | Error e) {
            proxy.close();
            throw e;
        }
    }

    private void startUp() {
        for (ClusterConfig c : config.clusters().values()) {
            clusters.put(c.name(), upstream(c));
        }
        WeftConfig.ServerSettings server = config.server();
        EventLoopsConfig loopsConfig = EventLoopsConfig.defaults()
                .withTransport(TransportPreference.parse(server.transport()))
                .withPinning(server.pinThreads() ? CpuPinning.allowedCpus() : CpuPinning.off())
                .withZeroCopySendThreshold(server.zeroCopySendThresholdBytes());
        if (server.eventLoops() > 0) {
            loopsConfig = loopsConfig.withLoopCount(server.eventLoops());
        }
        loops = EventLoops.start(loopsConfig);
        buffers = BufferPolicy.defaults();
        metrics = new ProxyMetrics(config.virtualClusters().values().stream().map(VirtualClusterConfig::name).toList(), loops);
        startAdmin();
        sessions = new SessionSettings(loops, buffers, server.maxFrameBytes(),
                server.connectTimeoutMillis(), MAX_PENDING_FRAMES, server.partialFrameTimeoutMillis(),
                server.idleTimeoutMillis(), metrics, registry, server.maxInflightRequests(),
                partialFrames = dev.weft.proxy.session.PartialFrameBudgets.of(loops, server.maxPartialFrameBytesPerConnection(),
                        server.maxPartialFrameBytesPerCore(), server.partialFrameTimeoutMillis()),
                new dev.weft.proxy.session.ConnectionsPerIp(server.maxConnectionsPerIp(), server.maxConnectionsPerIpOverrides()));
        for (VirtualClusterConfig vc : config.virtualClusters().values()) {
            // One runtime and one session class for every kind of virtual cluster; the router decides.
            VirtualClusterRuntime runtime = VirtualClusters.start(config, vc, clusters, replicaId());
            virtualClusters.put(vc.name(), runtime);
        }
        // Before any gateway opens: a switch agreed through the fleet state serves what its records say.
        try {
            switches = dev.weft.proxy.switching.Switches.of(
                    virtualClusters.values().stream().map(VirtualClusterRuntime::routersOfDag).toList(),
                    name -> clusters.get(name).clientConfig(), clusters.keySet(), instanceId, SWITCH_STATE_START_TIMEOUT);
        } catch (IllegalArgumentException e) {
            throw new dev.weft.proxy.config.StartupException(config.source() + ": " + e.getMessage(), e);
        }
        if (admin != null) {
            admin.serveSwitches(() -> switches);
        }
        for (VirtualClusterRuntime runtime : virtualClusters.values()) {
            runtime.bind(loops, buffers, sessions);
        }
        gatewaysBound = true;
        for (UpstreamCluster c : clusters.values()) {
            c.refresh().whenComplete((topology, error) -> {
                if (error == null) {
                    LOG.info("cluster '{}' ({}): brokers {}", c.name(), topology.clusterId(),
                            topology.brokers().stream().map(b -> b.nodeId() + "@" + b.hostPort()
                                    + (b.rack() != null ? " rack " + b.rack() : "")).toList());
                }
            });
        }
    }

    private UpstreamCluster upstream(ClusterConfig c) {
        String where = "clusters." + c.name() + ".tls";
        Map<String, UpstreamCluster.Identity> principals = new LinkedHashMap<>();
        c.principals().forEach((user, id) -> principals.put(user, new UpstreamCluster.Identity(
                id.tls() == null ? null : TlsContexts.client(id.tls(), "clusters." + c.name() + ".principals." + user + ".tls"), id.sasl())));
        return new UpstreamCluster(c.name(), bootstrapOf(c), DiscoveryClientSecurity.of(c.tls(), c.sasl()),
                c.tls() == null ? null : TlsContexts.client(c.tls(), where), c.sasl(), principals);
    }

    private List<InetSocketAddress> bootstrapOf(ClusterConfig c) {
        List<HostPort> addresses = c.bootstrap();
        if (c.isEmbedded()) {
            LOG.info("cluster '{}': starting an embedded Kafka cluster of {} broker(s)", c.name(), c.embedded().brokers());
            KafkaCluster kafka = KafkaCluster.builder().brokers(c.embedded().brokers()).build();
            embedded.add(kafka);
            kafka.start();
            addresses = new ArrayList<>();
            for (String part : kafka.bootstrapServers().split(",")) {
                addresses.add(HostPort.parse(part, false));
            }
            LOG.info("cluster '{}': embedded Kafka running at {}", c.name(), kafka.bootstrapServers());
        }
        List<InetSocketAddress> resolved = new ArrayList<>();
        for (HostPort hp : addresses) {
            resolved.add(new InetSocketAddress(hp.host(), hp.port()));
        }
        return resolved;
    }

    /**
     * Reads the config file this proxy was started from again and applies what changed ({@link #reload(WeftConfig)});
     * a file that does not validate is refused with the errors {@code weft validate} gives.
     */
    public ReloadOutcome reload() {
        WeftConfig next;
        try {
            next = dev.weft.proxy.config.ConfigLoader.load(java.nio.file.Path.of(config.source()));
        } catch (dev.weft.proxy.config.ConfigException e) {
            return finish(ReloadOutcome.refused(e.problems()));
        }
        return reload(next);
    }

    /**
     * Applies a new config without a restart, with the least disruption ({@link ConfigChanges}):
     * virtual clusters it adds start and bind; those it removes stop accepting, drain (in-flight requests
     * finish, up to {@code server.drainTimeoutMs}) and close; a changed one gets a new runtime that takes
     * over the unchanged gateways' listening sockets and the client connections (each moves once it has
     * nothing in flight, still connected: {@code VirtualClusterRuntime.takeOver}); unchanged ones are not
     * touched. Every TLS gateway reads its certificate files again, for new handshakes. Everything new is
     * started before anything old is changed, so a reload that cannot start (a cluster unreachable, a
     * certificate unreadable, a name collision) is refused whole and the old config keeps serving.
     */
    public synchronized ReloadOutcome reload(WeftConfig next) {
        if (closing) {
            return ReloadOutcome.refused(List.of("the proxy is shutting down"));
        }
        WeftConfig before = config;
        ConfigChanges changes = ConfigChanges.between(before, next);
        List<String> refusals = switchesTouched(changes, next);
        if (!refusals.isEmpty()) {
            return finish(ReloadOutcome.refused(refusals));
        }
        // 1. Prepare: read certificates, start new clusters and runtimes; nothing serves them yet.
        List<Runnable> tls = new ArrayList<>();
        Map<String, UpstreamCluster> nextClusters = new LinkedHashMap<>();
        List<UpstreamCluster> started = new ArrayList<>();
        Map<String, VirtualClusterRuntime> startedRuntimes = new LinkedHashMap<>();
        try {
            virtualClusters.forEach((name, rt) -> {
                if (!changes.removed().contains(name)) {
                    tls.add(rt.prepareTlsReload());
                }
            });
            for (ClusterConfig c : next.clusters().values()) {
                if (changes.clusters().contains(c.name())) {
                    UpstreamCluster u = upstream(c);
                    started.add(u);
                    nextClusters.put(c.name(), u);
                } else {
                    nextClusters.put(c.name(), clusters.get(c.name()));
                }
            }
            for (VirtualClusterConfig vc : next.virtualClusters().values()) {
                if (changes.added().contains(vc.name()) || changes.changed().contains(vc.name())) {
                    VirtualClusterRuntime old = virtualClusters.get(vc.name());
                    boolean sameAuthentication = old != null && vc.authentication() != null && before.fingerprints().authentication()
                            .get(vc.name()).equals(next.fingerprints().authentication().get(vc.name()));
                    startedRuntimes.put(vc.name(), VirtualClusters.start(next, vc, nextClusters, replicaId(),
                            sameAuthentication ? old : null));
                }
            }
        } catch (RuntimeException e) {
            startedRuntimes.values().forEach(VirtualClusterRuntime::close);
            started.forEach(UpstreamCluster::close);
            return finish(ReloadOutcome.refused(List.of(e.getMessage() != null ? e.getMessage() : e.toString())));
        }
        // 2. Commit: from here on nothing is refused; a gateway that cannot bind is reported.
        List<String> lines = new ArrayList<>(changes.restartOnly());
        tls.forEach(Runnable::run);
        long tlsGateways = next.virtualClusters().values().stream().flatMap(v -> v.gateways().stream()).filter(g -> g.tls() != null).count();
        if (tlsGateways > 0) {
            lines.add(tlsGateways + " TLS gateway(s) read their certificate files again: new handshakes use them");
        }
        List<VirtualClusterRuntime> removed = new ArrayList<>();
        for (String name : changes.removed()) {
            VirtualClusterRuntime old = virtualClusters.remove(name);
            old.stopAccepting(); // before its metrics go: no new connection may start on it
            removed.add(old);
        }
        metrics.reconfigure(next.virtualClusters().keySet());
        Map<String, UpstreamCluster> retiredClusters = new LinkedHashMap<>(clusters);
        retiredClusters.values().removeAll(nextClusters.values());
        clusters = nextClusters;
        Duration drain = Duration.ofMillis(before.server().drainTimeoutMillis());
        startedRuntimes.forEach((name, rt) -> {
            VirtualClusterRuntime old = virtualClusters.get(name);
            List<String> problems;
            if (old == null) {
                problems = bindAdded(rt);
            } else {
                problems = rt.takeOver(old, adoptedGateways(before, next, name), loops, buffers, sessions, drain);
            }
            problems.forEach(p -> lines.add("virtual cluster '" + name + "': " + p));
            virtualClusters.put(name, rt);
        });
        for (VirtualClusterRuntime old : removed) {
            Thread.ofVirtual().name("weft-reload-remove-" + old.name()).start(() -> old.remove(drain));
        }
        if (!retiredClusters.isEmpty()) {
            // the runtimes still draining off them are closed within two drain timeouts
            Thread.ofVirtual().name("weft-reload-clusters").start(() -> {
                try {
                    Thread.sleep(drain.multipliedBy(2).plusSeconds(10));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                retiredClusters.values().forEach(UpstreamCluster::close);
            });
        }
        for (UpstreamCluster c : started) {
            c.refresh();
        }
        config = new WeftConfig(next.source(), before.server(), before.admin(), next.routers(), next.clusters(),
                next.virtualClusters(), next.fingerprints());
        lines.add(0, changes.describe());
        return finish(ReloadOutcome.applied(lines));
    }

    private List<String> bindAdded(VirtualClusterRuntime rt) {
        try {
            rt.bind(loops, buffers, sessions);
            return List.of();
        } catch (dev.weft.proxy.config.StartupException e) {
            return List.of(e.getMessage());
        }
    }

    /** Which gateway of the running virtual cluster each of its new gateways is, unchanged (-1: none). */
    private static int[] adoptedGateways(WeftConfig before, WeftConfig next, String virtualCluster) {
        List<String> was = before.fingerprints().gateways().get(virtualCluster);
        List<String> now = next.fingerprints().gateways().get(virtualCluster);
        boolean[] taken = new boolean[was.size()];
        int[] adopted = new int[now.size()];
        for (int j = 0; j < now.size(); j++) {
            adopted[j] = -1;
            for (int i = 0; i < was.size(); i++) {
                if (!taken[i] && was.get(i).equals(now.get(j))) {
                    taken[i] = true;
                    adopted[j] = i;
                    break;
                }
            }
        }
        return adopted;
    }

    /**
     * A switch's cutover state is its controller's (and the fleet's): a reload may not start, replace or
     * remove the virtual clusters that use one (a restart does; moving it is {@code weft switch}).
     */
    private List<String> switchesTouched(ConfigChanges changes, WeftConfig next) {
        List<String> out = new ArrayList<>();
        for (String vc : changes.changed()) {
            names(out, vc, virtualClusters.get(vc).routersOfDag().values().stream()
                    .filter(r -> r instanceof dev.weft.routing.switching.SwitchRouter).map(dev.weft.routing.Router::name).toList());
        }
        for (String vc : changes.removed()) {
            names(out, vc, virtualClusters.get(vc).routersOfDag().values().stream()
                    .filter(r -> r instanceof dev.weft.routing.switching.SwitchRouter).map(dev.weft.routing.Router::name).toList());
        }
        for (String vc : changes.added()) {
            names(out, vc, ConfigChanges.reachableRouters(next, vc).stream()
                    .filter(r -> dev.weft.routing.switching.SwitchFactory.TYPE.equals(next.routers().get(r).type())).toList());
        }
        return out;
    }

    private static void names(List<String> out, String vc, List<String> switchRouters) {
        if (!switchRouters.isEmpty()) {
            out.add("virtualClusters." + vc + ": it uses switch router(s) " + String.join(", ", switchRouters)
                    + ", which a reload cannot start, change or remove (restart the proxy; to move a switch, use weft switch)");
        }
    }

    private ReloadOutcome finish(ReloadOutcome outcome) {
        reloads.count(outcome, System.currentTimeMillis());
        if (outcome.applied()) {
            LOG.info("{} ({})", outcome.describe(), config.source());
        } else {
            LOG.warn("{} ({})", outcome.describe(), config.source());
        }
        return outcome;
    }

    /** The config in force (the last applied reload's, with the server and admin settings it started with). */
    public WeftConfig config() {
        return config;
    }

    /** How the reloads went (exported on /metrics). */
    public dev.weft.proxy.reload.ReloadCounters reloads() {
        return reloads;
    }

    /** Who this process is in the fleet state's log lines: host name and process id. */
    private static String replicaId() {
        String host;
        try {
            host = java.net.InetAddress.getLocalHost().getHostName();
        } catch (java.io.IOException e) {
            host = "localhost";
        }
        return host + "/" + ProcessHandle.current().pid();
    }

    /** The transport the event loops use (io_uring where the kernel allows). */
    public Transport transport() {
        return loops.transport();
    }

    public EventLoops loops() {
        return loops;
    }

    /** The per-core budgets of clients' incomplete frames (each read on its own core's loop only). */
    public dev.weft.proxy.session.PartialFrameBudgets partialFrameBudgets() {
        return partialFrames;
    }

    /** The bootstrap address of each gateway of a virtual cluster, as clients should be given it. */
    public List<String> bootstrapAddresses(String virtualCluster) {
        VirtualClusterRuntime vc = virtualClusters.get(virtualCluster);
        if (vc == null) {
            throw new IllegalArgumentException("no virtual cluster named '" + virtualCluster + "'");
        }
        return vc.gateways().stream().map(Gateway::bootstrapAddress).toList();
    }

    public UpstreamCluster cluster(String name) {
        return clusters.get(name);
    }

    /** The runtime of a virtual cluster (its router, catalog, collision count), or null. */
    public VirtualClusterRuntime virtualCluster(String virtualCluster) {
        return virtualClusters.get(virtualCluster);
    }

    /** The switches of its virtual clusters (empty before they run). */
    public dev.weft.proxy.switching.Switches switches() {
        return switches;
    }

    /** Embedded clusters this proxy started (the demo's), in config order. */
    public List<KafkaCluster> embeddedClusters() {
        return List.copyOf(embedded);
    }

    /** Serves /metrics, /livez and /readyz when {@code admin.enabled}; the clusters map is complete by now. */
    private void startAdmin() {
        if (!config.admin().enabled()) {
            return;
        }
        PrometheusRegistry registry = new PrometheusRegistry();
        registry.register(new SessionMetricsCollector(metrics));
        registry.register(new TopicCollisionCollector(() -> {
            Map<String, Long> counts = new java.util.TreeMap<>();
            virtualClusters.forEach((name, vc) -> counts.put(name, vc.collisionErrors()));
            return counts;
        }, () -> {
            Map<String, Long> counts = new java.util.TreeMap<>();
            virtualClusters.forEach((name, vc) -> counts.put(name, vc.segmentProblems()));
            return counts;
        }));
        registry.register(new dev.weft.proxy.admin.UpstreamRequestsCollector(
                () -> virtualClusters.values().stream().map(VirtualClusterRuntime::upstreamRequests).toList()));
        registry.register(new dev.weft.proxy.admin.BranchCopiesCollector(
                () -> virtualClusters.values().stream().map(VirtualClusterRuntime::branchCounters).toList()));
        registry.register(new dev.weft.proxy.admin.BranchWriterCollector(() -> {
            Map<String, dev.weft.proxy.branch.BranchWriters> all = new java.util.TreeMap<>();
            virtualClusters.forEach((name, vc) -> all.put(name, vc.branchWriters()));
            return all;
        }));
        registry.register(new dev.weft.proxy.admin.SaslCollector(() -> {
            Map<String, dev.weft.proxy.security.SaslCounters> all = new java.util.TreeMap<>();
            virtualClusters.forEach((name, vc) -> {
                if (vc.saslCounters() != null) {
                    all.put(name, vc.saslCounters());
                }
            });
            return all;
        }));
        registry.register(new dev.weft.proxy.admin.BufferPoolCollector(BufferPolicy.sharedPooledDirect()));
        registry.register(new dev.weft.proxy.admin.SwitchCollector(() -> switches == null ? List.of()
                : switches.all().stream().map(dev.weft.proxy.switching.SwitchController::status).toList()));
        registry.register(new dev.weft.proxy.admin.ReloadCollector(reloads));
        admin = AdminServer.start(config.admin().bind(), "admin.bind", registry, this::readiness);
        admin.serveReload(this::reload);
    }

    /** Where the admin endpoint listens (the real port when configured with port 0); empty when disabled. */
    public Optional<InetSocketAddress> adminAddress() {
        return admin == null ? Optional.empty() : Optional.of(admin.address());
    }

    /**
     * Whether this proxy should get traffic: not shutting down, every gateway bound, and the brokers of
     * every upstream cluster discovered. A cluster still unknown gets a discovery attempt (joining one
     * already running), so a proxy started before its cluster becomes ready once the cluster is up
     * while a probe keeps asking. Any thread (the admin endpoint's).
     */
    public Readiness readiness() {
        if (closing) {
            return Readiness.notReady(List.of("shutting down"));
        }
        List<String> reasons = new ArrayList<>();
        if (!gatewaysBound) {
            reasons.add("gateways are not bound yet");
        }
        for (UpstreamCluster c : clusters.values()) {
            if (c.topology().current().isEmpty()) {
                reasons.add("cluster '" + c.name() + "': brokers not discovered yet (bootstrap "
                        + String.join(",", c.bootstrap().stream().map(a -> a.getHostString() + ":" + a.getPort()).toList())
                        + ")");
                c.refresh();
            }
        }
        return reasons.isEmpty() ? Readiness.ready() : Readiness.notReady(reasons);
    }

    @Override
    public void close() {
        closing = true;
        if (switches != null) {
            switches.close(); // a running cutover is interrupted: its old route stays active
        }
        for (VirtualClusterRuntime vc : virtualClusters.values()) {
            vc.close(); // stop accepting first
        }
        Duration drain = Duration.ofMillis(config.server().drainTimeoutMillis());
        int open = registry.openConnections();
        if (open > 0) {
            int cut = registry.drain(drain);
            LOG.info("drained {} client connection(s){}", open,
                    cut > 0 ? "; " + cut + " still had requests in flight after " + drain.toMillis() + " ms (server.drainTimeoutMs) and were closed" : "");
        }
        if (loops != null) {
            loops.shutdownGracefully(Duration.ofMillis(Math.min(200, drain.toMillis())), drain.plusSeconds(5))
                    .awaitUninterruptibly(drain.toMillis() + 10_000, TimeUnit.MILLISECONDS);
        }
        if (admin != null) {
            admin.close();
        }
        for (UpstreamCluster c : clusters.values()) {
            c.close();
        }
        for (KafkaCluster k : embedded) {
            try {
                k.close();
            } catch (Exception e) {
                LOG.warn("stopping an embedded Kafka cluster failed: {}", e.toString());
            }
        }
    }
}
