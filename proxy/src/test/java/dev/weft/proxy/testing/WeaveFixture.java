package dev.weft.proxy.testing;

import dev.weft.proxy.config.ConfigLoader;
import dev.weft.proxy.net.FreePorts;
import dev.weft.proxy.server.WeftProxy;
import dev.weft.testkit.KafkaCluster;
import java.util.List;

/**
 * Starts Weft with one virtual cluster "main" woven by a topic-weave router "weave" from test clusters
 * named {@code c0, c1, ...} (route names as given), on free ports; retries if a port is taken meanwhile.
 */
public final class WeaveFixture {

    private WeaveFixture() {
    }

    /**
     * @param clusters the clusters, route k targets cluster k
     * @param routes one YAML route entry per cluster without its target, e.g. {@code "name: us"} or
     *     {@code "name: eu, naming: { prefix: \"eu.\" }"}
     * @param routerSettings more router keys (collisions, groups, transactions, placement) as YAML lines
     *     indented by 4 spaces, or ""
     */
    public static WeftProxy start(List<KafkaCluster> clusters, List<String> routes, String routerSettings) {
        return start("topic-weave", clusters, routes, routerSettings);
    }

    /** {@link #start(List, List, String)} with a router of another type (still named "weave"). */
    public static WeftProxy start(String routerType, List<KafkaCluster> clusters, List<String> routes, String routerSettings) {
        int nodeIds = nodeIdCount(clusters);
        RuntimeException last = null;
        for (int attempt = 0; attempt < 5; attempt++) {
            int start = FreePorts.randomRange(1 + nodeIds);
            try {
                return start(routerType, clusters, routes, routerSettings, "127.0.0.1", "127.0.0.1", start);
            } catch (dev.weft.proxy.gateway.GatewayBindException e) {
                last = e;
            }
        }
        throw last;
    }

    /** How many virtual node ids (and broker ports) the gateway serves: brokers 0..7 of every route. */
    public static int nodeIdCount(List<KafkaCluster> clusters) {
        return 8 * clusters.size() + 8; // brokers 0..7 of every route, interleaved (b × N + k)
    }

    /**
     * Like {@link #start(List, List, String)} on given addresses, without retrying: the gateway binds
     * {@code bindHost} from port {@code startPort} (bootstrap) on ({@link #nodeIdCount} broker ports
     * follow) and tells clients to connect to {@code advertisedHost} on the same ports (a load
     * balancer's frontends, for a proxy fleet).
     *
     * @throws dev.weft.proxy.gateway.GatewayBindException when a port is taken
     */
    public static WeftProxy start(List<KafkaCluster> clusters, List<String> routes, String routerSettings,
            String bindHost, String advertisedHost, int startPort) {
        return start("topic-weave", clusters, routes, routerSettings, bindHost, advertisedHost, startPort);
    }

    private static WeftProxy start(String routerType, List<KafkaCluster> clusters, List<String> routes, String routerSettings,
            String bindHost, String advertisedHost, int startPort) {
        StringBuilder clusterYaml = new StringBuilder();
        StringBuilder routeYaml = new StringBuilder();
        for (int k = 0; k < clusters.size(); k++) {
            clusterYaml.append("  c").append(k).append(": { bootstrap: \"").append(clusters.get(k).bootstrapServers()).append("\" }\n");
            routeYaml.append("      - { ").append(routes.get(k)).append(", target: { cluster: c").append(k).append(" } }\n");
        }
        int nodeIds = nodeIdCount(clusters);
        String yaml = "server: { eventLoops: 2 }\n"
                + "admin: { bind: \"127.0.0.1:0\" }\n"
                + "clusters:\n" + clusterYaml
                + "routers:\n  weave:\n    type: " + routerType + "\n    routes:\n" + routeYaml + routerSettings
                + "virtualClusters:\n  main:\n    target: { router: weave }\n    gateways:\n"
                + "      - { name: plain, bind: \"" + bindHost + ":" + startPort + "\", advertisedHost: \"" + advertisedHost
                + "\", brokerPorts: { start: " + (startPort + 1) + ", nodeIds: \"0-" + (nodeIds - 1) + "\" } }\n";
        try {
            return WeftProxy.start(ConfigLoader.parse(yaml, "weave test config"));
        } catch (dev.weft.proxy.config.ConfigException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }
}
