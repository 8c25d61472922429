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
