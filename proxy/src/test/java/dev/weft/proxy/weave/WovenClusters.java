package dev.weft.proxy.weave;

import dev.weft.proxy.server.WeftProxy;
import dev.weft.proxy.testing.ProxyFixture;
import dev.weft.proxy.testing.WeaveFixture;
import dev.weft.testkit.KafkaCluster;
import java.util.ArrayList;
import java.util.List;

/**
 * Real one-broker clusters c0, c1, ... with Weft weaving them into virtual cluster "main" (router
 * "weave", route k → cluster ck): what most topic-weaving tests start in {@code @BeforeAll} and close
 * in {@code @AfterAll}. Closing stops the proxy first, then every cluster.
 */
final class WovenClusters implements AutoCloseable {

    private final List<KafkaCluster> clusters = new ArrayList<>();
    private WeftProxy proxy;
    /** What {@link #routeWithTargets} last started, for {@link #restartProxy}. */
    private String routedType;
    private List<String> routedWithTargets;

    /** Starts {@code count} clusters (no proxy yet: create topics, then {@link #weave}). */
    static WovenClusters start(int count) {
        WovenClusters w = new WovenClusters();
        try {
            for (int i = 0; i < count; i++) {
                KafkaCluster k = KafkaCluster.builder().brokers(1).build();
                w.clusters.add(k);
                k.start();
            }
        } catch (RuntimeException e) {
            w.close();
            throw e;
        }
        return w;
    }

    /** Creates a topic directly on cluster {@code i}. */
    WovenClusters topic(int i, String name, int partitions) {
        clusters.get(i).createTopic(name, partitions, 1);
        return this;
    }

    /** Starts Weft over the clusters; see {@link WeaveFixture#start} for the arguments. */
    WovenClusters weave(List<String> routes, String routerSettings) {
        proxy = WeaveFixture.start(clusters, routes, routerSettings);
        return this;
    }

    /** Starts Weft over the clusters with a router of {@code type} (named "weave"); routes as {@link #weave}. */
    WovenClusters route(String type, List<String> routes) {
        proxy = WeaveFixture.start(type, clusters, routes, "");
        return this;
    }

    /**
     * Starts Weft with a router of {@code type} (named "weave") whose routes name their own targets, so
     * several routes may target one cluster (e.g. branches of a {@code type: branch} router): each entry is
     * the body of one YAML flow map, e.g. {@code "name: audit, target: { cluster: c1 }, transforms: [ ... ]"}.
     * Retries on another port range when a port is taken meanwhile.
     */
    WovenClusters routeWithTargets(String type, List<String> routes) {
        routedType = type;
        routedWithTargets = List.copyOf(routes);
        StringBuilder yaml = new StringBuilder("server: { eventLoops: 2 }\nadmin: { bind: \"127.0.0.1:0\" }\nclusters:\n");
        for (int k = 0; k < clusters.size(); k++) {
            yaml.append("  c").append(k).append(": { bootstrap: \"").append(clusters.get(k).bootstrapServers()).append("\" }\n");
        }
        yaml.append("routers:\n  weave:\n    type: ").append(type).append("\n    routes:\n");
        for (String route : routes) {
            yaml.append("      - { ").append(route).append(" }\n");
        }
        int nodeIds = WeaveFixture.nodeIdCount(clusters);
        RuntimeException last = null;
        for (int attempt = 0; attempt < 5; attempt++) {
            int start = dev.weft.proxy.net.FreePorts.randomRange(1 + nodeIds);
            String config = yaml + "virtualClusters:\n  main:\n    target: { router: weave }\n    gateways:\n"
                    + "      - { name: plain, bind: \"127.0.0.1:" + start + "\", advertisedHost: \"127.0.0.1\","
                    + " brokerPorts: { start: " + (start + 1) + ", nodeIds: \"0-" + (nodeIds - 1) + "\" } }\n";
            try {
                proxy = WeftProxy.start(dev.weft.proxy.config.ConfigLoader.parse(config, "weave test config"));
                return this;
            } catch (dev.weft.proxy.gateway.GatewayBindException e) {
                last = e;
            } catch (dev.weft.proxy.config.ConfigException e) {
                throw new IllegalArgumentException(e.getMessage(), e);
            }
        }
        throw last;
    }

    /**
     * Stops Weft and starts a new instance with the config {@link #routeWithTargets} last started (new ports,
     * new writers, counters from zero); the clusters keep running.
     */
    WovenClusters restartProxy() {
        if (routedType == null) {
            throw new IllegalStateException("restartProxy() follows routeWithTargets()");
        }
        proxy.close();
        proxy = null;
        return routeWithTargets(routedType, routedWithTargets);
    }

    KafkaCluster cluster(int i) {
        return clusters.get(i);
    }

    WeftProxy proxy() {
        return proxy;
    }

    /** The virtual cluster's bootstrap address. */
    String bootstrap() {
        return ProxyFixture.bootstrap(proxy);
    }

    @Override
    public void close() {
        if (proxy != null) {
            proxy.close();
        }
        for (KafkaCluster k : clusters) {
            k.close();
        }
    }
}
