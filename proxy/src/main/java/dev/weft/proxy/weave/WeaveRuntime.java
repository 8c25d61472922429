package dev.weft.proxy.weave;

import dev.weft.iocore.EventLoops;
import dev.weft.iocore.buffer.BufferPolicy;
import dev.weft.protocol.skim.NodeEndpointRewriter;
import dev.weft.proxy.config.WeftConfig.GatewayConfig;
import dev.weft.proxy.config.WeftConfig.VirtualClusterConfig;
import dev.weft.proxy.gateway.BrokerAddressBook;
import dev.weft.proxy.gateway.Gateway;
import dev.weft.proxy.rewrite.GatewayEndpoints;
import dev.weft.proxy.rewrite.NodeEndpointForwarder;
import dev.weft.proxy.session.ResponseRewriter;
import dev.weft.proxy.session.SessionSettings;
import dev.weft.proxy.session.SessionTarget;
import dev.weft.proxy.upstream.UpstreamCluster;
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
 * One virtual cluster woven from several clusters by a router (topic weaving, DESIGN §1/§5): the
 * router, one upstream cluster per route, the node-id bijection over the routes, the topic catalog
 * ({@link CatalogKeeper}), the producer-id translation and the gateways. Sessions ({@link WovenSession})
 * read its snapshots; nothing here is per connection.
 */
public final class WeaveRuntime implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(WeaveRuntime.class);
    /** The route whose cluster allocates virtual producer ids and holds the fleet state topic. */
    static final int PRODUCER_ID_HOME_ROUTE = 0;

    private final VirtualClusterConfig config;
    private final Router router;
    private final List<UpstreamCluster> routes;
    private final NodeIdMapping bijection;
    private final String virtualClusterId;
    private final ProducerIdTranslator producerIds;
    private final ApiVersionsAnswer apiVersions = new ApiVersionsAnswer(this);
    private final MetadataPlanner metadataPlanner = new MetadataPlanner(this);
    private final ScheduledExecutorService timer;
    private final CatalogKeeper catalogs;
    private final List<Gateway> gateways = new ArrayList<>();
    private final Map<BrokerAddressBook, NodeEndpointRewriter[]> endpoints = new IdentityHashMap<>();
    private final Map<BrokerAddressBook, NodeEndpointForwarder[]> forwarders = new IdentityHashMap<>();
    private final AtomicLong collisionErrors = new AtomicLong();
    private final java.util.Set<String> missingPorts = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /**
     * @param router the virtual cluster's router; for a nested DAG, the flattened one whose routes are the leaves
     * @param nodeIds virtual node ids of (route, real broker id), composed per router level
     * @param routes the cluster behind each route of {@code router}, in route order
     * @param producerIds the fleet-wide producer-id translation (home: route 0's cluster)
     */
    public WeaveRuntime(VirtualClusterConfig config, Router router, NodeIdMapping nodeIds, List<UpstreamCluster> routes,
            ProducerIdTranslatorFactory producerIds) {
        this.config = config;
        this.router = router;
        this.routes = List.copyOf(routes);
        this.bijection = nodeIds;
        UUID u = UUID.nameUUIDFromBytes(("weft-virtual-cluster:" + config.name()).getBytes(StandardCharsets.UTF_8));
        this.virtualClusterId = new Uuid(u.getMostSignificantBits(), u.getLeastSignificantBits()).toString();
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "weft-catalog-" + config.name());
            t.setDaemon(true);
            return t;
        });
        this.catalogs = new CatalogKeeper(config.name(), router, routes, timer, this::onNewCollision);
        this.producerIds = producerIds.create(this);
    }

    /** Builds the producer-id translation once the runtime exists (it may need its clusters). */
    @FunctionalInterface
    public interface ProducerIdTranslatorFactory {
        ProducerIdTranslator create(WeaveRuntime runtime);
    }

    /**
     * Builds the first topic catalog; refuses to start (naming every collision) when the collision
     * policy is {@code reject} and names already collide.
     *
     * @throws WeaveStartException with every problem found
     */
    public void start(Duration timeout, Duration refreshInterval) {
        TopicRouting first;
        try {
            first = catalogs.start(timeout, refreshInterval);
        } catch (RuntimeException e) {
            throw new WeaveStartException("virtual cluster '" + config.name() + "': cannot list the topics of its clusters "
                    + names() + ": " + e.getMessage(), e);
        }
        List<RoutingProblem> problems = first.startupProblems("routers." + router.name());
        if (!problems.isEmpty()) {
            throw new WeaveStartException("virtual cluster '" + config.name() + "' refuses to start: "
                    + String.join("; ", first.collisions().stream().filter(c -> c.outcome().isError())
                            .map(c -> "routers." + router.name() + ": " + describe(c)).toList()), null);
        }
        LOG.info("virtual cluster '{}': router '{}' over {} shows {} topic(s){}", config.name(), router.name(), names(),
                first.visibleTopics().size(), first.collisions().isEmpty() ? "" : ", " + first.collisions().size()
                        + " name collision(s) settled by policy");
        // each collision settled by policy was logged (WARN) once when the first snapshot was built
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

    public void bind(EventLoops loops, BufferPolicy buffers, SessionSettings sessions) {
        for (int i = 0; i < config.gateways().size(); i++) {
            GatewayConfig g = config.gateways().get(i);
            Gateway gateway = Gateway.create(config.name(), g, "virtualClusters." + config.name() + ".gateways[" + i + "]");
            NodeEndpointRewriter[] e = new NodeEndpointRewriter[routes.size()];
            NodeEndpointForwarder[] f = new NodeEndpointForwarder[routes.size()];
            for (int k = 0; k < routes.size(); k++) {
                e[k] = new GatewayEndpoints(gateway, bijection, k);
                f[k] = new NodeEndpointForwarder(gateway, bijection, k);
            }
            endpoints.put(gateway, e);
            forwarders.put(gateway, f);
            gateway.bind(loops, buffers, sessions, new Target(gateway, -1), virtualId -> new Target(gateway, virtualId));
            gateways.add(gateway);
        }
    }

    public String name() {
        return config.name();
    }

    public List<Gateway> gateways() {
        return gateways;
    }

    /** Collisions found after start that hide topics (policy reject, or a qualified name taken). */
    public long collisionErrors() {
        return collisionErrors.get();
    }

    Router router() {
        return router;
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

    WeaveCatalog catalog() {
        return catalogs.current();
    }

    CatalogKeeper catalogs() {
        return catalogs;
    }

    ApiVersionsAnswer apiVersions() {
        return apiVersions;
    }

    MetadataPlanner metadataPlanner() {
        return metadataPlanner;
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

    /** Brokers a route's Metadata answer named: its topology cache learns them (no Admin round trip). */
    void learnBrokers(int route, MetadataResponseData data) {
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

    @Override
    public void close() {
        for (Gateway g : gateways) {
            g.close();
        }
        timer.shutdownNow();
        if (producerIds instanceof AutoCloseable c) {
            try {
                c.close();
            } catch (Exception e) {
                LOG.warn("virtual cluster '{}': closing the producer-id state failed: {}", config.name(), e.toString());
            }
        }
    }

    /** Bootstrap connections ({@code virtualId < 0}) and broker connections of one gateway. */
    private final class Target implements SessionTarget {
        private final Gateway gateway;
        private final int virtualId;

        Target(Gateway gateway, int virtualId) {
            this.gateway = gateway;
            this.virtualId = virtualId;
        }

        @Override
        public ChannelHandler newSession(SessionSettings settings) {
            return new WovenSession(WeaveRuntime.this, settings, gateway, virtualId);
        }

        @Override
        public void resolve(BiConsumer<InetSocketAddress, Throwable> callback) {
            if (virtualId < 0) {
                callback.accept(routes.get(0).anyBroker(), null);
            } else {
                routes.get(bijection.routeOf(virtualId)).resolveBroker(bijection.realNodeId(virtualId), callback);
            }
        }

        @Override
        public String virtualCluster() {
            return config.name();
        }

        @Override
        public String describe() {
            return (virtualId < 0 ? "bootstrap" : "node " + virtualId) + " of '" + config.name() + "'";
        }

        @Override
        public ResponseRewriter rewriterFor(short apiKey) {
            return null; // woven sessions rewrite per API themselves
        }

        @Override
        public SslContext upstreamTls() {
            return routes.get(virtualId < 0 ? 0 : bijection.routeOf(virtualId)).tls();
        }

        @Override
        public void reportUnreachable(InetSocketAddress address, Throwable cause) {
            routes.get(virtualId < 0 ? 0 : bijection.routeOf(virtualId)).refresh();
        }
    }
}
