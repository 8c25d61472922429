package dev.weft.proxy.session;

import dev.weft.proxy.config.WeftConfig;
import dev.weft.proxy.config.WeftConfig.ClusterConfig;
import dev.weft.proxy.config.WeftConfig.VirtualClusterConfig;
import dev.weft.proxy.pid.ProducerIdClaims;
import dev.weft.proxy.pid.ProducerIdClaimsConfig;
import dev.weft.proxy.tls.DiscoveryClientSecurity;
import dev.weft.proxy.security.CredentialFileException;
import dev.weft.proxy.security.FailedAuthentications;
import dev.weft.proxy.security.FileCredentialStore;
import dev.weft.proxy.security.OAuthBearerValidation;
import dev.weft.proxy.security.SaslCounters;
import dev.weft.proxy.security.SaslServers;
import dev.weft.proxy.security.SaslTerminationSettings;
import dev.weft.proxy.upstream.UpstreamCluster;
import dev.weft.routing.Router;
import dev.weft.routing.RouterRegistry;
import dev.weft.routing.compose.LeafRouter;
import dev.weft.routing.plan.IdempotentProducerIds;
import dev.weft.routing.node.NodeIdMapping;
import dev.weft.routing.dag.InvalidRoutingException;
import dev.weft.routing.dag.RouteTarget;
import dev.weft.routing.dag.RoutingGraph;
import java.util.LinkedHashMap;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Starts the runtime of a virtual cluster, whatever it targets, in one way: the routing DAG says
 * which router serves it ({@link LeafRouter#of}: the identity router for a mirrored cluster, a
 * one-route weave for a collapsed one, a router's own or its DAG's leaves; node ids composed per level). Sets up the
 * producer-id fleet state on the first leaf's cluster when the leaves span several clusters, and builds
 * the first topic catalog when the router uses one.
 */
public final class VirtualClusters {

    /** How often every route's topic list is read again. */
    private static final Duration CATALOG_REFRESH = Duration.ofSeconds(10);
    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

    private VirtualClusters() {
    }

    /**
     * @param replicaId this proxy process, for the fleet state's log lines
     * @throws VirtualClusterStartException naming the virtual cluster and what is not supported or not reachable
     */
    public static VirtualClusterRuntime start(WeftConfig config, VirtualClusterConfig vc, Map<String, UpstreamCluster> clusters,
            String replicaId) {
        return start(config, vc, clusters, replicaId, null);
    }

    /**
     * @param sameAuthentication the runtime this one replaces in a config reload when the virtual cluster's
     *     {@code authentication} did not change: its SASL termination (credential file watcher, token
     *     validator, counters) is shared, so connections authenticated there stay so; null: its own
     */
    public static VirtualClusterRuntime start(WeftConfig config, VirtualClusterConfig vc, Map<String, UpstreamCluster> clusters,
            String replicaId, VirtualClusterRuntime sameAuthentication) {
        Map<String, RouteTarget> targets = new LinkedHashMap<>();
        config.virtualClusters().forEach((name, v) -> targets.put(name, v.target()));
        RoutingGraph graph;
        Map<String, Router> routers;
        try {
            graph = RoutingGraph.build(config.routers(), config.clusters().keySet(), targets);
            routers = RouterRegistry.standard().createAll(graph);
        } catch (InvalidRoutingException e) {
            throw new VirtualClusterStartException(config.source() + ": " + e.getMessage(), e);
        }
        Router router = dev.weft.routing.rack.RackAwareRouter.over(
                LeafRouter.of(graph, routers, vc.name(), vc.topology() == WeftConfig.Topology.MIRRORED, vc.authorization() != null),
                vc.rack());
        if (vc.authorization() != null) {
            String why = unauthorizable(router);
            if (why != null) {
                throw new VirtualClusterStartException(config.source() + ": virtualClusters." + vc.name()
                        + ".authorization: " + why, null);
            }
        }
        NodeIdMapping nodeIds = graph.nodeIds(vc.name());
        List<UpstreamCluster> leaves = new ArrayList<>();
        List<String> distinctClusters = new ArrayList<>();
        int[] claimRoute = new int[router.routes().size()];
        for (int leaf = 0; leaf < router.routes().size(); leaf++) {
            String cluster = router.routes().get(leaf).target().name();
            leaves.add(clusters.get(cluster));
            if (!router.clientFacing(leaf)) {
                claimRoute[leaf] = -1; // no producer's batches go there as they are (branch copies carry no producer id)
                continue;
            }
            if (!distinctClusters.contains(cluster)) {
                distinctClusters.add(cluster);
            }
            claimRoute[leaf] = distinctClusters.indexOf(cluster);
        }
        VirtualClusterRuntime runtime;
        if (distinctClusters.size() == 1) {
            // One cluster reached by clients: its producer ids mean what they say; nothing to translate or agree on.
            runtime = new VirtualClusterRuntime(vc, router, reachable(graph, routers, vc.target()), nodeIds, leaves,
                    rt -> ProducerIdTranslator.IDENTITY);
        } else {
            // the claims live where the router says its fleet state outlives a cluster's outage, else on the first cluster
            String stateCluster = router.fleetStateCluster() != null ? router.fleetStateCluster() : distinctClusters.getFirst();
            ClusterConfig home = config.clusters().get(stateCluster);
            UpstreamCluster homeCluster = clusters.get(stateCluster);
            String homeBootstrap = String.join(",", homeCluster.bootstrap().stream()
                    .map(a -> a.getHostString() + ":" + a.getPort()).toList());
            ProducerIdClaims claims = new ProducerIdClaims(ProducerIdClaimsConfig.of(distinctClusters, stateCluster, homeBootstrap,
                    DiscoveryClientSecurity.of(home.tls(), home.sasl()), replicaId));
            claims.start();
            try {
                runtime = new VirtualClusterRuntime(vc, router, reachable(graph, routers, vc.target()), nodeIds, leaves,
                        rt -> new ClaimsTranslator(claims, claimRoute));
            } catch (RuntimeException e) {
                claims.close();
                throw e;
            }
        }
        try {
            if (vc.authentication() != null && sameAuthentication != null) {
                runtime.shareClientAuthentication(sameAuthentication);
            } else if (vc.authentication() != null) {
                authenticateClients(config, vc, runtime);
            }
            if (vc.authorization() != null) {
                try {
                    runtime.authorize(new dev.weft.routing.access.AccessViewCache(vc.authorization(),
                            router.routes().stream().map(dev.weft.routing.dag.RouteSpec::name).toList()));
                } catch (IllegalArgumentException e) {
                    throw new VirtualClusterStartException(config.source() + ": virtualClusters." + vc.name()
                            + ".authorization." + e.getMessage(), e);
                }
            }
            runtime.start(START_TIMEOUT, CATALOG_REFRESH);
        } catch (RuntimeException e) {
            runtime.close();
            throw e;
        }
        return runtime;
    }

    /**
     * Why requests through {@code router} cannot be authorized per principal, or null: every request
     * must be planned through a topic view, so a router that forwards any API as the client sent it, or
     * decides without a topic catalog, cannot enforce what a principal may see.
     */
    private static String unauthorizable(Router router) {
        if (!router.usesTopicCatalog()) {
            return "router '" + router.name() + "' (" + router.type() + ") decides without a topic catalog, so it cannot"
                    + " show each principal only its topics";
        }
        for (org.apache.kafka.common.protocol.ApiKeys api : org.apache.kafka.common.protocol.ApiKeys.values()) {
            if (router.apiRoute(api.id) == dev.weft.routing.api.ApiRoute.FORWARD) {
                return "router '" + router.name() + "' (" + router.type() + ") forwards " + api.name
                        + " as the client sent it, so it cannot be authorized per principal";
            }
        }
        return null;
    }

    /**
     * SASL termination at the virtual cluster's gateways, over its credential file (watched for changes)
     * and, with OAUTHBEARER, kafka-clients' JWT validator over its JWKS (one per virtual cluster).
     */
    private static void authenticateClients(WeftConfig config, VirtualClusterConfig vc, VirtualClusterRuntime runtime) {
        WeftConfig.ClientAuthentication a = vc.authentication();
        FileCredentialStore store = null;
        if (a.credentials() != null) {
            try {
                store = FileCredentialStore.open(a.credentials());
            } catch (CredentialFileException e) {
                throw new VirtualClusterStartException(config.source() + ": virtualClusters." + vc.name()
                        + ".authentication.sasl.credentials: " + e.getMessage(), e);
            }
        }
        OAuthBearerValidation oauthBearer = null;
        if (a.oauthBearer() != null) {
            try {
                oauthBearer = OAuthBearerValidation.open(a.oauthBearer());
            } catch (RuntimeException e) {
                if (store != null) {
                    store.close();
                }
                throw new VirtualClusterStartException(config.source() + ": virtualClusters." + vc.name()
                        + ".authentication.sasl.oauthbearer: " + e.getMessage(), e);
            }
        }
        // PLAIN passwords are salted and hashed like SCRAM's (milliseconds each): off the event loops, on
        // two threads of the virtual cluster's own, so a flood of attempts cannot stall any traffic
        // (at most 1024 waiting: past that an attempt is refused rather than queued without bound)
        java.util.concurrent.ExecutorService passwordChecks = new java.util.concurrent.ThreadPoolExecutor(2, 2, 0, TimeUnit.SECONDS,
                new java.util.concurrent.ArrayBlockingQueue<>(1024),
                Thread.ofPlatform().daemon().name("weft-password-checks-" + vc.name() + "-", 0).factory());
        FileCredentialStore credentials = store;
        OAuthBearerValidation tokens = oauthBearer;
        runtime.authenticateClients(new SaslTerminationSettings(vc.name(), a.mechanisms(), new SaslServers(store, oauthBearer),
                a.sessionLifetimeMs(),
                new FailedAuthentications(a.maxFailures(), TimeUnit.MILLISECONDS.toNanos(a.failureWindowMs()), System::nanoTime),
                new SaslCounters(), System::nanoTime, passwordChecks), () -> {
                    passwordChecks.shutdownNow();
                    if (credentials != null) {
                        credentials.close();
                    }
                    if (tokens != null) {
                        tokens.close();
                    }
                });
    }

    /** The routers a virtual cluster's target leads to, by name, down the DAG. */
    private static Map<String, Router> reachable(RoutingGraph graph, Map<String, Router> routers, RouteTarget target) {
        Map<String, Router> out = new LinkedHashMap<>();
        java.util.ArrayDeque<RouteTarget> todo = new java.util.ArrayDeque<>(List.of(target));
        while (!todo.isEmpty()) {
            if (todo.pop() instanceof dev.weft.routing.dag.RouterTarget rt && out.putIfAbsent(rt.router(), routers.get(rt.router())) == null) {
                graph.router(rt.router()).routes().forEach(r -> todo.push(r.target()));
            }
        }
        return out;
    }

    /** The fleet state as the sessions use it; two leaves on one cluster share that cluster's ids. */
    private record ClaimsTranslator(ProducerIdClaims claims, int[] claimRoute) implements ProducerIdTranslator, AutoCloseable {
        @Override
        public long cached(long virtualPid, int route) {
            return allocatedHere(virtualPid, route) ? IdempotentProducerIds.allocatedId(virtualPid)
                    : claims.cached(virtualPid, claimRoute[route]);
        }

        @Override
        public CompletableFuture<Long> claim(long virtualPid, int route, Supplier<CompletableFuture<Long>> allocate) {
            return allocatedHere(virtualPid, route) ? CompletableFuture.completedFuture(IdempotentProducerIds.allocatedId(virtualPid))
                    : claims.claim(virtualPid, claimRoute[route], allocate);
        }

        /** Whether {@code route}'s cluster allocated {@code virtualPid} (a route that is not route 0: ids carry it). */
        private boolean allocatedHere(long virtualPid, int route) {
            int allocator = IdempotentProducerIds.allocatingRoute(virtualPid);
            return allocator > 0 && allocator < claimRoute.length && claimRoute[allocator] == claimRoute[route];
        }

        @Override
        public void close() {
            claims.close();
        }
    }
}
