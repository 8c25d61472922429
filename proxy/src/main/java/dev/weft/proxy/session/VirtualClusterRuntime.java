package dev.weft.proxy.session;

import dev.weft.iocore.EventLoops;
import dev.weft.iocore.buffer.BufferPolicy;
import dev.weft.protocol.skim.NodeEndpointRewriter;
import dev.weft.proxy.config.WeftConfig.GatewayConfig;
import dev.weft.proxy.config.WeftConfig.VirtualClusterConfig;
import dev.weft.proxy.gateway.BrokerAddressBook;
import dev.weft.proxy.gateway.Gateway;
import dev.weft.proxy.rewrite.GatewayEndpoints;
import dev.weft.proxy.rewrite.NodeEndpointForwarder;



import dev.weft.protocol.ApiKeyTable;
import dev.weft.proxy.rewrite.ApiVersionsClamp;
import dev.weft.proxy.rewrite.BrokerAddressRewriter;
import dev.weft.proxy.security.SaslTermination;
import dev.weft.proxy.security.SaslTerminationSettings;
import dev.weft.proxy.upstream.UpstreamCluster;
import dev.weft.proxy.upstream.UpstreamRequestCounters;
import dev.weft.routing.api.ApiRoute;
import dev.weft.routing.api.HotCatalog;
import dev.weft.proxy.gateway.CollapsedGateway;
import dev.weft.proxy.rewrite.CollapsedEndpoints;
import dev.weft.routing.node.CollapsedNodes;
import dev.weft.routing.topology.PartitionLeadership;
import org.apache.kafka.common.protocol.ApiKeys;
import dev.weft.routing.Router;
import dev.weft.routing.TopicCollision;
import dev.weft.routing.TopicRouting;
import dev.weft.routing.dag.RoutingProblem;
import dev.weft.routing.node.NodeIdMapping;
import dev.weft.routing.topology.BrokerEndpoint;
import io.netty.channel.ChannelHandler;
import io.netty.handler.ssl.SslContext;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.MetadataResponseData;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One virtual cluster, whatever serves it (DESIGN §3): its router (the identity router for a single
 * cluster, a topic-weave router, a nested DAG flattened to its leaves), one upstream cluster per route,
 * the node-id mapping over the routes, the topic catalog when the router decides by topic
 * ({@link CatalogKeeper}), the producer-id translation, the per-API dispatch the router chose, and
 * the gateways. Sessions ({@link Session}) read its snapshots; nothing here is per connection.
 */
public final class VirtualClusterRuntime implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(VirtualClusterRuntime.class);
    private static final ApiVersionsClamp API_VERSIONS_CLAMP = new ApiVersionsClamp();

    private final VirtualClusterConfig config;
    private final Router router;
    private final Map<String, Router> routersOfDag;
    private final List<UpstreamCluster> routes;
    private final NodeIdMapping bijection;
    private final String virtualClusterId;
    private final ProducerIdTranslator producerIds;
    /** What the session does per API key, as the router decided once at start. */
    private final ApiRoute[] apiRoutes = new ApiRoute[ApiKeyTable.size()];
    private final ApiVersionsAnswer apiVersions = new ApiVersionsAnswer(this);
    private final dev.weft.routing.plan.KnownPartitions knownPartitions = new dev.weft.routing.plan.KnownPartitions();
    private final ScheduledExecutorService timer;
    private final CatalogKeeper catalogs;
    private final List<Gateway> gateways = new java.util.concurrent.CopyOnWriteArrayList<>();
    /** Which runtime each gateway's new connections go to: this one, until a reload moves them. */
    private final Map<Gateway, GatewayBinding> bindings = new java.util.concurrent.ConcurrentHashMap<>();
    /** The runtime a config reload replaced this one with; null while this one serves. */
    private volatile VirtualClusterRuntime successor;
    private final Map<BrokerAddressBook, NodeEndpointRewriter[]> endpoints = new IdentityHashMap<>();
    /** The proxy fleet of a collapsed virtual cluster; null when mirrored. */
    private final CollapsedNodes collapsed;
    private final UpstreamRequestCounters upstreamRequests;
    private final dev.weft.proxy.exchange.BranchCounters branchCounters;
    /** Writers of the side routes the router transforms (off the event loops); none for exact copies. */
    private final dev.weft.proxy.branch.BranchWriters branchWriters;
    private final Map<BrokerAddressBook, NodeEndpointForwarder[]> forwarders = new IdentityHashMap<>();
    private final Map<BrokerAddressBook, ResponseRewriter[][]> forwardRewriters = new IdentityHashMap<>();
    private final AtomicLong collisionErrors = new AtomicLong();
    private final AtomicLong segmentProblems = new AtomicLong();
    private final java.util.Set<String> missingPorts = java.util.concurrent.ConcurrentHashMap.newKeySet();
    /** This virtual cluster's client connections, drained when its router's state changes. */
    private final SessionRegistry clients = new SessionRegistry();
    /** SASL termination at the gateways (set before they bind), or null; closed with the virtual cluster. */
    private volatile SaslTerminationSettings clientAuthentication;
    /** The principals' topic views and rules, or null when every client may do what the proxy may. */
    private volatile dev.weft.routing.access.AccessViewCache access;
    private AutoCloseable clientCredentials;

    /**
     * @param router the virtual cluster's router; for a nested DAG, the flattened one whose routes are the leaves
     * @param nodeIds virtual node ids of (route, real broker id), composed per router level
     * @param routes the cluster behind each route of {@code router}, in route order
     * @param producerIds the fleet-wide producer-id translation (home: route 0's cluster)
     */
    public VirtualClusterRuntime(VirtualClusterConfig config, Router router, NodeIdMapping nodeIds, List<UpstreamCluster> routes,
            ProducerIdTranslatorFactory producerIds) {
        this(config, router, Map.of(), nodeIds, routes, producerIds);
    }

    /**
     * @param routersOfDag every router reachable from the virtual cluster's target, by name (the ones
     *     {@code router} was composed of), for the parts of the proxy that control routers by name
     */
    public VirtualClusterRuntime(VirtualClusterConfig config, Router router, Map<String, Router> routersOfDag, NodeIdMapping nodeIds,
            List<UpstreamCluster> routes, ProducerIdTranslatorFactory producerIds) {
        this.config = config;
        this.router = router;
        this.routersOfDag = Map.copyOf(routersOfDag);
        this.routes = List.copyOf(routes);
        this.collapsed = config.topology() == dev.weft.proxy.config.WeftConfig.Topology.COLLAPSED
                ? CollapsedNodes.of("virtualClusters." + config.name() + ".nodes", config.nodes()) : null;
        Map<String, dev.weft.routing.topology.TopologyHolder> topologies = new java.util.HashMap<>();
        for (UpstreamCluster c : this.routes) {
            topologies.put(c.name(), c.topology());
        }
        this.upstreamRequests = new UpstreamRequestCounters(config.name(), this.routes.stream().map(UpstreamCluster::name).toList(),
                config.rack(), topologies);
        this.branchCounters = new dev.weft.proxy.exchange.BranchCounters(config.name(),
                router.routes().stream().map(dev.weft.routing.dag.RouteSpec::name).toList());
        this.branchWriters = dev.weft.proxy.branch.BranchWriters.start(config.name(), router, this.routes);
        this.bijection = nodeIds;
        UUID u = UUID.nameUUIDFromBytes(("weft-virtual-cluster:" + config.name()).getBytes(StandardCharsets.UTF_8));
        this.virtualClusterId = new Uuid(u.getMostSignificantBits(), u.getLeastSignificantBits()).toString();
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "weft-catalog-" + config.name());
            t.setDaemon(true);
            return t;
        });
        this.catalogs = router.usesTopicCatalog()
                ? new CatalogKeeper(config.name(), router, routes, timer, this::onNewCollision,
                        this::onNewSegmentProblem) : null;
        for (short k = 0; k < apiRoutes.length; k++) {
            apiRoutes[k] = router.apiRoute(k);
        }
        this.producerIds = producerIds.create(this);
        router.watch(this::routerChanged);
    }

    /**
     * The router's own state changed (a switch fenced or re-pointed): the catalog is built again from the
     * topics last listed, then, with a reason, this virtual cluster's client connections are drained off
     * the event loops (each finishes what it has in flight; clients reconnect and see the new state).
     */
    private java.util.concurrent.CompletableFuture<Void> routerChanged(String drainReason, Duration drainTimeout) {
        if (catalogs != null) {
            catalogs.rebuild();
        }
        if (drainReason == null) {
            return java.util.concurrent.CompletableFuture.completedFuture(null);
        }
        return java.util.concurrent.CompletableFuture.runAsync(() -> {
            int open = clients.openConnections();
            int cut = clients.drain(new SessionRegistry.Drain(drainReason), drainTimeout);
            LOG.info("virtual cluster '{}': {}: drained {} client connection(s){}", config.name(), drainReason, open,
                    cut == 0 ? "" : ", " + cut + " closed with requests still in flight after " + drainTimeout.toMillis() + " ms");
        }, task -> Thread.ofVirtual().name("weft-drain-" + config.name()).start(task));
    }

    /** Builds the producer-id translation once the runtime exists (it may need its clusters). */
    @FunctionalInterface
    public interface ProducerIdTranslatorFactory {
        ProducerIdTranslator create(VirtualClusterRuntime runtime);
    }

    /**
     * Builds the first topic catalog; refuses to start (naming every collision) when the collision
     * policy is {@code reject} and names already collide.
     *
     * @throws VirtualClusterStartException with every problem found
     */
    public void start(Duration timeout, Duration refreshInterval) {
        learnLeadersOfRoutesClientsDoNotAsk(timeout, refreshInterval);
        if (catalogs == null) {
            return;
        }
        TopicRouting first;
        try {
            first = catalogs.start(timeout, refreshInterval);
        } catch (RuntimeException e) {
            throw new VirtualClusterStartException("virtual cluster '" + config.name() + "': cannot list the topics of its clusters "
                    + names() + ": " + e.getMessage(), e);
        }
        List<RoutingProblem> problems = first.startupProblems("routers." + router.name());
        if (!problems.isEmpty()) {
            throw new VirtualClusterStartException("virtual cluster '" + config.name() + "' refuses to start: "
                    + String.join("; ", java.util.stream.Stream.concat(
                            first.collisions().stream().filter(c -> c.outcome().isError()).map(this::describe),
                            first.segmentProblems().stream()).map(p -> "routers." + router.name() + ": " + p).toList()), null);
        }
        LOG.info("virtual cluster '{}': router '{}' over {} shows {} topic(s){}", config.name(), router.name(), names(),
                first.visibleTopics().size(), first.collisions().isEmpty() ? "" : ", " + first.collisions().size()
                        + " name collision(s) settled by policy");
        // each collision settled by policy was logged (WARN) once when the first snapshot was built
    }

    /**
     * Routes that are not client-facing (a branch's) get no client Metadata, whose answers teach the
     * topology cache the leaders: their leaders are read before the gateways open, then every
     * {@code interval} (and sooner when a copy finds none, {@code BranchCopies}). A router that
     * {@linkplain Router#readsReplicas reads replicas} has every route read so: ISRs change without
     * clients asking Metadata.
     */
    private void learnLeadersOfRoutesClientsDoNotAsk(Duration timeout, Duration interval) {
        List<java.util.concurrent.CompletableFuture<Void>> first = new ArrayList<>();
        for (int k = 0; k < routes.size(); k++) {
            if (!router.clientFacing(k) || router.readsReplicas()) {
                UpstreamCluster c = routes.get(k);
                first.add(c.refreshLeadersSoon());
                timer.scheduleWithFixedDelay(c::refreshLeadersSoon, interval.toMillis(), interval.toMillis(),
                        java.util.concurrent.TimeUnit.MILLISECONDS);
            }
        }
        try {
            java.util.concurrent.CompletableFuture.allOf(first.toArray(java.util.concurrent.CompletableFuture[]::new))
                    .get(timeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.TimeoutException | java.util.concurrent.ExecutionException e) {
            LOG.warn("virtual cluster '{}': the leaders of its branch clusters are not known yet; copies wait for them", config.name());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The router's description of a collision plus the cluster behind each claiming route, for operators. */
    private String describe(TopicCollision c) {
        return c.describe() + " (" + String.join(", ", c.claims().stream().map(claim -> "route " + claim.routeName()
                + " is cluster '" + routes.get(claim.route()).name() + "'").toList()) + ")";
    }

    private List<String> names() {
        return routes.stream().map(UpstreamCluster::name).toList();
    }

    private void onNewCollision(TopicCollision c) {
        if (c.outcome().isError()) {
            collisionErrors.incrementAndGet();
            LOG.error("virtual cluster '{}': {}", config.name(), describe(c));
        } else {
            LOG.warn("virtual cluster '{}': {}", config.name(), describe(c));
        }
    }

    /** A partition-woven topic's segment that broke after start (its topic shrank or vanished). */
    private void onNewSegmentProblem(String problem) {
        segmentProblems.incrementAndGet();
        LOG.error("virtual cluster '{}': routers.{}: {}", config.name(), router.name(), problem);
    }

    /** Segment problems of partition-woven topics found after start; 0 without woven topics. */
    public long segmentProblems() {
        return segmentProblems.get();
    }

    /** Binds every gateway of the config (a virtual cluster that starts with the proxy, or a reload adds). */
    public void bind(EventLoops loops, BufferPolicy buffers, SessionSettings sessions) {
        for (int i = 0; i < config.gateways().size(); i++) {
            bindGateway(i, loops, buffers, sessions);
        }
    }

    private Gateway bindGateway(int i, EventLoops loops, BufferPolicy buffers, SessionSettings sessions) {
        GatewayConfig g = config.gateways().get(i);
        String path = "virtualClusters." + config.name() + ".gateways[" + i + "]";
        Gateway gateway = collapsed != null ? new CollapsedGateway(config.name(), g, path, collapsed)
                : Gateway.create(config.name(), g, path);
        GatewayBinding binding = new GatewayBinding(this);
        installRewriters(gateway);
        gateway.bind(loops, buffers, sessions, new Target(gateway, binding, -1), virtualId -> new Target(gateway, binding, virtualId));
        bindings.put(gateway, binding);
        gateways.add(gateway);
        return gateway;
    }

    /** What answers through {@code gateway} are rewritten with, per route. */
    private void installRewriters(Gateway gateway) {
        NodeEndpointRewriter[] e = new NodeEndpointRewriter[routes.size()];
        NodeEndpointForwarder[] f = new NodeEndpointForwarder[routes.size()];
        for (int k = 0; k < routes.size(); k++) {
            e[k] = collapsed != null ? CollapsedEndpoints.INSTANCE : new GatewayEndpoints(gateway, bijection, k);
            f[k] = new NodeEndpointForwarder(gateway, bijection, k);
        }
        endpoints.put(gateway, e);
        forwarders.put(gateway, f);
        forwardRewriters.put(gateway, forwardRewriters(gateway, f));
    }

    /**
     * A config reload replaces {@code from} (the same virtual cluster, as configured before) with this
     * runtime, already started. Gateways whose settings did not change are taken over with their
     * listening sockets (new connections come here from now on); the others are closed and this
     * runtime's own are bound; then each of {@code from}'s client connections moves here on its event
     * loop as soon as it has nothing in flight, keeping the client's TCP connection ({@link Session}),
     * or, when it cannot (its gateway or its broker changed), finishes what it has in flight and closes
     * so the client reconnects. {@code from} is closed when none is left, after at most {@code drainTimeout}.
     *
     * @param adoptedGateway for each of this config's gateways, the index of the unchanged gateway of
     *     {@code from} it takes over, or -1 to bind a new one
     * @return problems binding new gateways (one line each; empty when all bound)
     */
    public List<String> takeOver(VirtualClusterRuntime from, int[] adoptedGateway, EventLoops loops, BufferPolicy buffers,
            SessionSettings sessions, Duration drainTimeout) {
        java.util.Set<Gateway> kept = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
        Gateway[] inOrder = new Gateway[config.gateways().size()];
        for (int j = 0; j < inOrder.length; j++) {
            if (adoptedGateway[j] >= 0) {
                inOrder[j] = from.gateways.get(adoptedGateway[j]);
                kept.add(inOrder[j]);
                installRewriters(inOrder[j]);
            }
        }
        for (Gateway g : from.gateways) {
            if (!kept.contains(g)) {
                g.close(); // its listener changed: its connections drain (whyNotAdopt)
            }
        }
        from.gateways.retainAll(kept);
        List<String> problems = new ArrayList<>();
        for (int j = 0; j < inOrder.length; j++) {
            if (inOrder[j] != null) {
                from.bindings.get(inOrder[j]).runtime = this;
                bindings.put(inOrder[j], from.bindings.get(inOrder[j]));
            } else {
                try {
                    inOrder[j] = bindGateway(j, loops, buffers, sessions);
                } catch (dev.weft.proxy.config.StartupException e) {
                    problems.add(e.getMessage());
                }
            }
        }
        gateways.clear();
        for (Gateway g : inOrder) {
            if (g != null) {
                gateways.add(g);
            }
        }
        from.gateways.clear();
        if (clientAuthentication != null && clientAuthentication == from.clientAuthentication) {
            clientCredentials = from.clientCredentials; // shared since start (authentication unchanged): ours to close now
            from.clientCredentials = null;
        }
        from.successor = this;
        int moving = from.clients.openConnections();
        from.clients.fire(new Successor(this));
        Thread.ofVirtual().name("weft-reload-" + config.name()).start(() -> from.retire(moving, drainTimeout));
        return problems;
    }

    /**
     * After a reload moved its connections away: waits for the last one to move (or close), drains what
     * is still here after {@code drainTimeout} (requests that never let up), and closes.
     */
    private void retire(int moving, Duration drainTimeout) {
        long deadline = System.nanoTime() + drainTimeout.toNanos();
        while (clients.openConnections() > 0 && System.nanoTime() - deadline < 0) {
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        int left = clients.openConnections();
        int cut = left == 0 ? 0 : clients.drain(new SessionRegistry.Drain("the virtual cluster was reconfigured"), drainTimeout);
        LOG.info("virtual cluster '{}': reconfigured; {} client connection(s) moved to the new configuration{}", config.name(),
                moving - left, left == 0 ? "" : ", " + left + " drained and closed (busy past server.drainTimeoutMs"
                        + (cut > 0 ? ", " + cut + " with requests still in flight" : "") + ")");
        close();
    }

    /** The event that moves a session to the runtime that replaced its own (a config reload). */
    record Successor(VirtualClusterRuntime runtime) {
    }

    /** The runtime a reload replaced this one with, or null. Any thread. */
    VirtualClusterRuntime successor() {
        return successor;
    }

    /**
     * Why a connection of {@code from} (through {@code gateway}, for {@code virtualNodeId}; -1: bootstrap)
     * cannot carry on here without the client reconnecting, or null when it can.
     *
     * @param clientSaslForwarded whether the client authenticated with the broker over the connection's link
     */
    String whyNotAdopt(VirtualClusterRuntime from, BrokerAddressBook gateway, int virtualNodeId, boolean clientSaslForwarded) {
        if (!endpoints.containsKey(gateway)) {
            return "its gateway's settings changed";
        }
        if (clientSaslForwarded) {
            return "its broker connection carries the client's own SASL authentication";
        }
        if (from.clientAuthentication != clientAuthentication) {
            return "the virtual cluster's client authentication changed";
        }
        if (virtualNodeId >= 0 && collapsed == null) {
            try {
                int before = from.bijection.routeOf(virtualNodeId);
                int now = bijection.routeOf(virtualNodeId);
                if (!from.routeName(before).equals(routeName(now))
                        || from.bijection.realNodeId(virtualNodeId) != bijection.realNodeId(virtualNodeId)) {
                    return "node id " + virtualNodeId + " is another broker now";
                }
            } catch (RuntimeException e) {
                return "node id " + virtualNodeId + " is no broker now";
            }
        }
        return null;
    }

    /**
     * Shares {@code predecessor}'s SASL termination (its authentication settings did not change in a
     * reload), so connections authenticated there stay authenticated here; call before {@link #start}.
     */
    void shareClientAuthentication(VirtualClusterRuntime predecessor) {
        this.clientAuthentication = predecessor.clientAuthentication;
    }

    /** Closes its gateways' listening sockets; open connections stay (a reload removes the virtual cluster). */
    public void stopAccepting() {
        for (Gateway g : gateways) {
            g.close();
        }
    }

    /** Stops accepting, and drains and closes its connections (a reload removed the virtual cluster). */
    public void remove(Duration drainTimeout) {
        stopAccepting();
        int open = clients.openConnections();
        int cut = clients.drain(new SessionRegistry.Drain("the virtual cluster was removed from the config"), drainTimeout);
        LOG.info("virtual cluster '{}': removed from the config; drained {} client connection(s){}", config.name(), open,
                cut == 0 ? "" : ", " + cut + " closed with requests still in flight after " + drainTimeout.toMillis() + " ms");
        close();
    }

    /** Reads the certificate files of its TLS gateways again; the returned action puts them in force. */
    public Runnable prepareTlsReload() {
        List<Runnable> all = new ArrayList<>();
        for (Gateway g : gateways) {
            all.add(g.prepareTlsReload());
        }
        return () -> all.forEach(Runnable::run);
    }

    /**
     * Per route, per API key: how the answer to a forwarded request is mapped (broker addresses in
     * Metadata, FindCoordinator and DescribeCluster; node endpoints in Produce and Fetch; ApiVersions
     * clamped to what Weft implements), or null to relay it as it is.
     */
    private ResponseRewriter[][] forwardRewriters(Gateway gateway, NodeEndpointForwarder[] endpointForwarders) {
        ResponseRewriter[][] out = new ResponseRewriter[routes.size()][];
        for (int k = 0; k < routes.size(); k++) {
            ResponseRewriter[] byApiKey = new ResponseRewriter[ApiKeyTable.size()];
            BrokerAddressRewriter addresses = new BrokerAddressRewriter(gateway, bijection, k, routes.get(k).topology(),
                    "virtual cluster '" + config.name() + "', gateway '" + gateway.config().name() + "'", router.readsReplicas());
            byApiKey[ApiKeys.METADATA.id] = addresses;
            byApiKey[ApiKeys.FIND_COORDINATOR.id] = addresses;
            byApiKey[ApiKeys.DESCRIBE_CLUSTER.id] = addresses;
            byApiKey[ApiKeys.API_VERSIONS.id] = API_VERSIONS_CLAMP;
            byApiKey[ApiKeys.PRODUCE.id] = endpointForwarders[k];
            byApiKey[ApiKeys.FETCH.id] = endpointForwarders[k];
            out[k] = byApiKey;
        }
        return out;
    }

    public String name() {
        return config.name();
    }

    /** The proxy fleet of a collapsed virtual cluster, or null when mirrored. */
    CollapsedNodes collapsed() {
        return collapsed;
    }

    /** The partition leaders the topology cache knows behind {@code route}. */
    PartitionLeadership leaders(int route) {
        return routes.get(route).topology().partitions();
    }

    /** The brokers (with racks) the topology cache knows behind {@code route}. */
    dev.weft.routing.topology.ClusterTopology brokers(int route) {
        return routes.get(route).topology().current();
    }

    /** Sub-requests sent to each upstream broker, by API (exported on /metrics). */
    public UpstreamRequestCounters upstreamRequests() {
        return upstreamRequests;
    }

    /** What became of the copies of the virtual cluster's branch routes (zero for routers without branches). */
    public dev.weft.proxy.exchange.BranchCounters branchCounters() {
        return branchCounters;
    }

    public dev.weft.proxy.branch.BranchWriters branchWriters() {
        return branchWriters;
    }

    /** What the session does with requests of {@code apiKey} (unknown keys: refused). */
    ApiRoute apiRoute(short apiKey) {
        return apiKey >= 0 && apiKey < apiRoutes.length ? apiRoutes[apiKey] : ApiRoute.REFUSED;
    }

    /** How the answer to a forwarded request of {@code apiKey} is mapped for {@code gateway}, or null. */
    ResponseRewriter forwardRewriter(BrokerAddressBook gateway, int route, short apiKey) {
        return forwardRewriters.get(gateway)[route][apiKey];
    }

    public List<Gateway> gateways() {
        return gateways;
    }

    /** Collisions found after start that hide topics (policy reject, or a qualified name taken); 0 without a catalog. */
    public long collisionErrors() {
        return collisionErrors.get();
    }

    Router router() {
        return router;
    }

    /** Every router reachable from the virtual cluster's target, by name (empty when it targets a cluster). */
    public Map<String, Router> routersOfDag() {
        return routersOfDag;
    }

    int routeCount() {
        return routes.size();
    }

    String routeName(int route) {
        return routes.get(route).name();
    }

    UpstreamCluster cluster(int route) {
        return routes.get(route);
    }

    NodeIdMapping bijection() {
        return bijection;
    }

    /** The current topic catalog; only for routers that {@link Router#usesTopicCatalog() use one}. */
    HotCatalog catalog() {
        return catalogs == null ? null : catalogs.current();
    }

    /** Reads every route's topics again now (tests, operators); completes when the new catalog is in force. */
    public java.util.concurrent.CompletableFuture<?> refreshCatalog() {
        return catalogs == null ? java.util.concurrent.CompletableFuture.completedFuture(null) : catalogs.refresh();
    }

    CatalogKeeper catalogs() {
        return catalogs;
    }

    SessionRegistry clients() {
        return clients;
    }

    ApiVersionsAnswer apiVersions() {
        return apiVersions;
    }

    dev.weft.routing.plan.KnownPartitions knownPartitions() {
        return knownPartitions;
    }

    /** A refresh of the topic catalog soon (rate-limited); nothing for routers without one. */
    void refreshCatalogSoon() {
        if (catalogs != null) {
            catalogs.refreshSoon();
        }
    }

    ProducerIdTranslator producerIds() {
        return producerIds;
    }

    String virtualClusterId() {
        return virtualClusterId;
    }

    NodeEndpointRewriter endpoints(BrokerAddressBook gateway, int route) {
        return endpoints.get(gateway)[route];
    }

    ResponseRewriter forwarder(BrokerAddressBook gateway, int route) {
        return forwarders.get(gateway)[route];
    }

    /**
     * A broker's virtual node id has no port on a gateway (the gateway's node id range is too narrow for
     * the composed ids): clients are sent to the bootstrap port for it; logged once per gateway and id.
     */
    void reportMissingPort(BrokerAddressBook gateway, int virtualNodeId) {
        if (missingPorts.add(System.identityHashCode(gateway) + "/" + virtualNodeId)) {
            LOG.error("virtual cluster '{}': broker node id {} (cluster '{}', real broker {}) has no port ({}): clients are"
                    + " sent to the bootstrap port for it; widen the node id range", config.name(), virtualNodeId,
                    routeName(bijection.routeOf(virtualNodeId)), bijection.realNodeId(virtualNodeId), gateway.describeRange());
        }
    }

    /**
     * What a route's Metadata answer says: its topology cache learns the brokers (no Admin round trip)
     * and the partition leaders (what a collapsed virtual cluster splits by).
     */
    void learnTopology(int route, MetadataResponseData data) {
        routes.get(route).topology().offerPartitions(data);
        learnBrokers(route, data);
    }

    private void learnBrokers(int route, MetadataResponseData data) {
        List<BrokerEndpoint> brokers = new ArrayList<>(data.brokers().size());
        for (MetadataResponseData.MetadataResponseBroker b : data.brokers()) {
            brokers.add(new BrokerEndpoint(b.nodeId(), b.host(), b.port(), b.rack()));
        }
        if (!brokers.isEmpty()) {
            routes.get(route).topology().offer(data.clusterId(), brokers);
        }
    }

    /**
     * A session's connection to a broker of {@code route} failed: the cluster's broker list is read again
     * (concurrent reports share one refresh), so the next connection goes to a broker that exists.
     */
    void reportTrouble(int route, String linkName, String reason) {
        LOG.debug("virtual cluster '{}': {} failed: {}", config.name(), linkName, reason);
        routes.get(route).refresh();
    }

    /**
     * Whether clients' SASL goes to the brokers: the router forwards SaslHandshake and the gateways do
     * not terminate SASL (then a client connection's own broker link must not authenticate itself).
     */
    boolean forwardsClientSasl() {
        return clientAuthentication == null && apiRoute(org.apache.kafka.common.protocol.ApiKeys.SASL_HANDSHAKE.id) == ApiRoute.FORWARD;
    }

    /** Authorizes every request by the client's principal with {@code access}; call before {@link #start}. */
    void authorize(dev.weft.routing.access.AccessViewCache access) {
        this.access = access;
    }

    /** The principals' rules and views, or null when requests are not authorized per principal. */
    dev.weft.routing.access.AccessViewCache access() {
        return access;
    }

    /** The SASL outcomes of the virtual cluster's gateways, or null when it does not authenticate clients. */
    public dev.weft.proxy.security.SaslCounters saslCounters() {
        SaslTerminationSettings sasl = clientAuthentication;
        return sasl == null ? null : sasl.counters();
    }

    /**
     * Makes every gateway connection authenticate with {@code sasl} before its session serves it; call
     * before {@link #start}. {@code credentials} (the store's file watcher) is closed with the virtual cluster.
     */
    void authenticateClients(SaslTerminationSettings sasl, AutoCloseable credentials) {
        this.clientAuthentication = sasl;
        this.clientCredentials = credentials;
    }

    @Override
    public void close() {
        for (Gateway g : gateways) {
            g.close();
        }
        if (clientCredentials != null) {
            try {
                clientCredentials.close();
            } catch (Exception e) {
                LOG.warn("virtual cluster '{}': closing the client credentials failed: {}", config.name(), e.toString());
            }
        }
        timer.shutdownNow();
        branchWriters.close();
        if (producerIds instanceof AutoCloseable c) {
            try {
                c.close();
            } catch (Exception e) {
                LOG.warn("virtual cluster '{}': closing the producer-id state failed: {}", config.name(), e.toString());
            }
        }
    }

    /** The runtime a gateway's new connections go to (a reload points it at the next one). */
    private static final class GatewayBinding {
        volatile VirtualClusterRuntime runtime;

        GatewayBinding(VirtualClusterRuntime runtime) {
            this.runtime = runtime;
        }
    }

    /** Bootstrap connections ({@code virtualId < 0}) and broker connections of one gateway. */
    private static final class Target implements SessionTarget {
        private final Gateway gateway;
        private final GatewayBinding binding;
        private final int virtualId;

        Target(Gateway gateway, GatewayBinding binding, int virtualId) {
            this.gateway = gateway;
            this.binding = binding;
            this.virtualId = virtualId;
        }

        @Override
        public ChannelHandler newSession(SessionSettings settings) {
            return new Session(binding.runtime, settings, gateway, virtualId);
        }

        @Override
        public ChannelHandler newAuthenticator() {
            SaslTerminationSettings sasl = binding.runtime.clientAuthentication;
            return sasl == null ? null : new SaslTermination(sasl, describe());
        }

        @Override
        public String virtualCluster() {
            return binding.runtime.config.name();
        }

        @Override
        public String describe() {
            return (virtualId < 0 ? "bootstrap" : "node " + virtualId) + " of '" + binding.runtime.config.name() + "'";
        }
    }
}
