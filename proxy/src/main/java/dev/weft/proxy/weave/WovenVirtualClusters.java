package dev.weft.proxy.weave;

import dev.weft.proxy.config.WeftConfig;
import dev.weft.proxy.config.WeftConfig.ClusterConfig;
import dev.weft.proxy.config.WeftConfig.VirtualClusterConfig;
import dev.weft.proxy.pid.ProducerIdClaims;
import dev.weft.proxy.pid.ProducerIdClaimsConfig;
import dev.weft.proxy.tls.DiscoveryClientSecurity;
import dev.weft.proxy.upstream.UpstreamCluster;
import dev.weft.routing.Router;
import dev.weft.routing.RouterRegistry;
import dev.weft.routing.dag.ClusterTarget;
import dev.weft.routing.dag.RouteSpec;
import dev.weft.routing.dag.RouterSpec;
import dev.weft.routing.dag.RoutingProblem;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * Starts the runtime of a virtual cluster that targets a router: checks what this version serves, sets
 * up the producer-id fleet state on the first route's cluster, and builds the first topic catalog.
 */
public final class WovenVirtualClusters {

    /** How often every route's topic list is read again. */
    private static final Duration CATALOG_REFRESH = Duration.ofSeconds(10);
    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

    private WovenVirtualClusters() {
    }

    /**
     * @param replicaId this proxy process, for the fleet state's log lines
     * @throws WeaveStartException naming the virtual cluster and what is not supported or not reachable
     */
    public static WeaveRuntime start(WeftConfig config, VirtualClusterConfig vc, Map<String, UpstreamCluster> clusters,
            String replicaId) {
        RouterSpec spec = config.routers().get(vc.targetRouter());
        String where = config.source() + ": routers." + spec.name();
        List<UpstreamCluster> routes = new ArrayList<>();
        List<String> routeClusters = new ArrayList<>();
        for (RouteSpec r : spec.routes()) {
            if (!(r.target() instanceof ClusterTarget c)) {
                throw new WeaveStartException(where + ".routes." + r.name() + ": route '" + r.name()
                        + "' targets another router; this version serves topic weaving over clusters directly (one router"
                        + " level): nested routers are validated but not served yet", null);
            }
            ClusterConfig cc = config.clusters().get(c.cluster());
            if (cc.sasl() != null) {
                throw new WeaveStartException(config.source() + ": clusters." + cc.name() + ".sasl: cluster '" + cc.name()
                        + "' is behind router '" + spec.name() + "', and a woven virtual cluster opens its own broker"
                        + " connections, which do not authenticate with SASL yet; use a TLS or plaintext listener", null);
            }
            routes.add(clusters.get(c.cluster()));
            routeClusters.add(c.cluster());
        }
        List<RoutingProblem> problems = new ArrayList<>();
        Router router = RouterRegistry.standard().create(spec, problems);
        if (router == null) {
            throw new WeaveStartException(where + ": " + problems, null);
        }
        ClusterConfig home = config.clusters().get(routeClusters.getFirst());
        UpstreamCluster homeCluster = routes.getFirst();
        String homeBootstrap = String.join(",", homeCluster.bootstrap().stream()
                .map(a -> a.getHostString() + ":" + a.getPort()).toList());
        ProducerIdClaims claims = new ProducerIdClaims(ProducerIdClaimsConfig.of(routeClusters, homeBootstrap,
                DiscoveryClientSecurity.of(home.tls(), home.sasl()), replicaId));
        claims.start();
        WeaveRuntime runtime;
        try {
            runtime = new WeaveRuntime(vc, router, routes, rt -> new ClaimsTranslator(claims));
        } catch (RuntimeException e) {
            claims.close();
            throw e;
        }
        try {
            runtime.start(START_TIMEOUT, CATALOG_REFRESH);
        } catch (RuntimeException e) {
            runtime.close();
            throw e;
        }
        return runtime;
    }

    /** The fleet state as the sessions use it. */
    private record ClaimsTranslator(ProducerIdClaims claims) implements ProducerIdTranslator, AutoCloseable {
        @Override
        public long cached(long virtualPid, int route) {
            return claims.cached(virtualPid, route);
        }

        @Override
        public CompletableFuture<Long> claim(long virtualPid, int route, Supplier<CompletableFuture<Long>> allocate) {
            return claims.claim(virtualPid, route, allocate);
        }

        @Override
        public void close() {
            claims.close();
        }
    }
}
