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

    private final WeftConfig config;
    private final List<KafkaCluster> embedded = new ArrayList<>();
    private final Map<String, UpstreamCluster> clusters = new LinkedHashMap<>();
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
            String where = "clusters." + c.name() + ".tls";
            clusters.put(c.name(), new UpstreamCluster(c.name(), bootstrapOf(c), DiscoveryClientSecurity.of(c.tls(), c.sasl()),
                    c.tls() == null ? null : TlsContexts.client(c.tls(), where), c.sasl()));
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
        BufferPolicy buffers = BufferPolicy.defaults();
        metrics = new ProxyMetrics(config.virtualClusters().values().stream().map(VirtualClusterConfig::name).toList(), loops);
        startAdmin();
        SessionSettings sessions = new SessionSettings(loops, buffers, server.maxFrameBytes(),
                server.connectTimeoutMillis(), MAX_PENDING_FRAMES, server.partialFrameTimeoutMillis(),
                server.idleTimeoutMillis(), metrics, registry, server.maxInflightRequests(),
                partialFrames = dev.weft.proxy.session.PartialFrameBudgets.of(loops, server.maxPartialFrameBytesPerConnection(),
                        server.maxPartialFrameBytesPerCore(), server.partialFrameTimeoutMillis()));
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
        admin = AdminServer.start(config.admin().bind(), "admin.bind", registry, this::readiness);
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
