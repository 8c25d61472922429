package dev.weft.proxy.testing;

import dev.weft.proxy.config.ConfigException;
import dev.weft.proxy.config.ConfigLoader;
import dev.weft.proxy.gateway.GatewayBindException;
import dev.weft.proxy.net.FreePorts;
import dev.weft.proxy.server.WeftProxy;
import dev.weft.testkit.KafkaCluster;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Node;

/**
 * The clusters of one test class, started once, and one proxy per {@link VirtualClusterKind} in front
 * of them, started when a case of that kind first asks and kept until {@link #close}: cases of every
 * kind share the clusters (topics and groups are named per kind, {@link VirtualClusterKind#name}).
 *
 * <ul>
 *   <li>the <em>primary</em> cluster is the suite's own (any brokers, listeners, relays in front); it is
 *       the cluster behind {@link VirtualClusterKind#PASS_THROUGH} and {@link VirtualClusterKind#COLLAPSED},
 *       and route 0 ("primary", cluster c0) of {@link VirtualClusterKind#TOPIC_WOVEN} and
 *       {@link VirtualClusterKind#BRANCHED};</li>
 *   <li>the <em>side</em> cluster, one broker, is started only when the woven or branched kind is first
 *       used: route 1 ("side", cluster c1) of the weave, the branch of the branch router.</li>
 * </ul>
 *
 * Every proxy has one virtual cluster "main", two event loops, an admin endpoint on a free port and the
 * suite's extra {@code server:} settings; it is returned once it knows its clusters' brokers.
 */
public final class VirtualClusterFixture implements AutoCloseable {

    /** Virtual node ids a woven gateway gives a port: brokers 0..7 of each of the two routes, and room. */
    private static final int WOVEN_NODE_IDS = 8 * 2 + 8;
    private static final Duration READY = Duration.ofSeconds(60);
    /**
     * The branched kind's copies go to this prefix + the topic's name on the side cluster, which the
     * woven kind also serves: the same name on both of its routes would be a collision there.
     */
    public static final String BRANCH_PREFIX = "copy.";

    private final KafkaCluster primary;
    private final String primaryBootstrap;
    private final String serverSettings;
    private final UnaryOperator<KafkaCluster.Builder> sideSettings;
    private final Map<VirtualClusterKind, WeftProxy> proxies = new EnumMap<>(VirtualClusterKind.class);
    private KafkaCluster side;

    private VirtualClusterFixture(Builder b) {
        this.primary = b.primary;
        this.primaryBootstrap = b.primaryBootstrap != null ? b.primaryBootstrap : b.primary.bootstrapServers();
        this.serverSettings = b.serverSettings;
        this.sideSettings = b.sideSettings;
    }

    /** A fixture over {@code primary}, a started cluster the fixture closes last. */
    public static Builder over(KafkaCluster primary) {
        return new Builder(primary);
    }

    /** How the fixture's proxies are set up. */
    public static final class Builder {
        private final KafkaCluster primary;
        private String primaryBootstrap;
        private String serverSettings = "";
        private UnaryOperator<KafkaCluster.Builder> sideSettings = UnaryOperator.identity();

        private Builder(KafkaCluster primary) {
            this.primary = primary;
        }

        /** The primary cluster's bootstrap as the proxies are given it (default: its PLAINTEXT listener). */
        public Builder bootstrap(String bootstrapServers) {
            this.primaryBootstrap = bootstrapServers;
            return this;
        }

        /** More {@code server:} entries with a leading comma, e.g. {@code ", maxFrameBytes: 1MiB"}. */
        public Builder serverSettings(String extra) {
            this.serverSettings = extra;
            return this;
        }

        /** Broker settings of the woven kind's side cluster (one broker). */
        public Builder side(UnaryOperator<KafkaCluster.Builder> settings) {
            this.sideSettings = settings;
            return this;
        }

        public VirtualClusterFixture build() {
            return new VirtualClusterFixture(this);
        }
    }

    public KafkaCluster primary() {
        return primary;
    }

    /** The woven kind's second cluster (started on first use). */
    public synchronized KafkaCluster side() {
        if (side == null) {
            side = sideSettings.apply(KafkaCluster.builder().brokers(1)).build();
            side.start();
        }
        return side;
    }

    /** The proxy of {@code kind}, started on first use and kept until {@link #close}. */
    public synchronized WeftProxy proxy(VirtualClusterKind kind) {
        WeftProxy p = proxies.get(kind);
        if (p == null) {
            p = start(kind, primaryBootstrap);
            proxies.put(kind, p);
        }
        return p;
    }

    /**
     * Another proxy of {@code kind} over the primary (reached at {@code primaryBootstrapServers}) and,
     * woven, the side cluster; the caller closes it.
     */
    public WeftProxy startAnother(VirtualClusterKind kind, String primaryBootstrapServers) {
        return start(kind, primaryBootstrapServers);
    }

    /** Bootstrap address ({@code host:port}) of {@code kind}'s virtual cluster "main". */
    public String bootstrap(VirtualClusterKind kind) {
        return ProxyFixture.bootstrap(proxy(kind));
    }

    public InetSocketAddress bootstrapAddress(VirtualClusterKind kind) {
        return address(bootstrap(kind));
    }

    /**
     * How many brokers a client of {@code kind} is shown: the primary's (pass-through), both clusters'
     * (woven: node ids of every route), the proxy nodes (collapsed: one).
     */
    public int visibleBrokers(VirtualClusterKind kind) {
        return switch (kind) {
            case PASS_THROUGH -> primary.brokerIds().size();
            case TOPIC_WOVEN, BRANCHED -> primary.brokerIds().size() + side().brokerIds().size();
            case COLLAPSED -> 1;
        };
    }

    /** The name of the primary cluster in {@code kind}'s config (its {@code clusters:} key). */
    public static String primaryClusterName(VirtualClusterKind kind) {
        return kind == VirtualClusterKind.TOPIC_WOVEN || kind == VirtualClusterKind.BRANCHED ? "c0" : "upstream";
    }

    /**
     * The port-per-broker client port of the primary's broker {@code brokerId} on {@code proxy} (one of
     * this fixture's proxies of {@code kind}): bootstrap port + 1 + virtual node id (pass-through: the
     * broker's id minus the lowest; woven: {@code id × 2 + 0}, DESIGN §4). Collapsed has no broker ports.
     */
    public InetSocketAddress brokerAddress(VirtualClusterKind kind, WeftProxy proxy, int brokerId) {
        InetSocketAddress b = address(ProxyFixture.bootstrap(proxy));
        int first = primary.brokerIds().stream().mapToInt(Integer::intValue).min().orElseThrow();
        int offset = switch (kind) {
            case PASS_THROUGH -> brokerId - first;
            case TOPIC_WOVEN, BRANCHED -> brokerId * 2;
            case COLLAPSED -> throw new IllegalArgumentException("a collapsed virtual cluster has no per-broker ports");
        };
        return new InetSocketAddress(b.getHostString(), b.getPort() + 1 + offset);
    }

    /** How many port-per-broker ports follow the bootstrap port of {@code kind}'s gateway (collapsed: none). */
    public int brokerPortCount(VirtualClusterKind kind) {
        return switch (kind) {
            case PASS_THROUGH -> primary.brokerIds().stream().mapToInt(Integer::intValue).max().orElseThrow()
                    - primary.brokerIds().stream().mapToInt(Integer::intValue).min().orElseThrow() + 3;
            case TOPIC_WOVEN, BRANCHED -> WOVEN_NODE_IDS;
            case COLLAPSED -> 0;
        };
    }

    /**
     * Creates a topic on the primary cluster and makes {@code kind}'s proxy see it: its catalog read
     * again, and the topic's partition 0 asked for through the proxy until it has a leader (a client's
     * Metadata, which also teaches a collapsed proxy the leaders).
     */
    public void createTopic(VirtualClusterKind kind, String name, int partitions, int replicationFactor) {
        createTopic(kind, name, partitions, replicationFactor, Map.of());
    }

    public void createTopic(VirtualClusterKind kind, String name, int partitions, int replicationFactor,
            Map<String, String> configs) {
        primary.createTopic(name, partitions, replicationFactor, configs);
        if (kind == VirtualClusterKind.BRANCHED) {
            side().createTopic(BRANCH_PREFIX + name, partitions, 1); // where the branch's copies go
        }
        refreshCatalog(kind);
        awaitVisible(kind, name);
    }

    /**
     * Creates a one-replica topic where it exercises the kind most: woven on the side cluster (so the
     * traffic crosses the weave to the second cluster), otherwise on the primary (the only one).
     */
    public void createSideTopic(VirtualClusterKind kind, String name, int partitions) {
        if (kind == VirtualClusterKind.TOPIC_WOVEN) {
            side().createTopic(name, partitions, 1);
        } else {
            primary.createTopic(name, partitions, 1);
        }
        refreshCatalog(kind);
        awaitVisible(kind, name);
    }

    /** Asks {@code kind}'s proxy for {@code topic} (as a client's Metadata) until every partition has a leader. */
    public void awaitVisible(VirtualClusterKind kind, String topic) {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap(kind)))) {
            Poll.untilNoThrow(Duration.ofSeconds(30), topic + " with leaders through the " + kind + " proxy",
                    () -> admin.describeTopics(List.of(topic)).allTopicNames().get(10, TimeUnit.SECONDS).get(topic)
                            .partitions().stream().allMatch(p -> p.leader() != null && !p.leader().isEmpty()));
        }
    }

    /** Has the kind's proxy read its clusters' topics again (the kinds that keep a topic catalog). */
    public void refreshCatalog(VirtualClusterKind kind) {
        WeftProxy p;
        synchronized (this) {
            p = proxies.get(kind);
        }
        if (p == null) {
            return; // it reads the catalog when it starts
        }
        try {
            p.virtualCluster("main").refreshCatalog().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("the " + kind + " proxy did not read its clusters' topics again", e);
        }
    }

    /**
     * The address {@code kind}'s proxy gives clients for the leader of {@code topic}'s {@code partition}
     * (asked through the proxy, as a client would): a broker port, or the proxy node serving it.
     */
    public InetSocketAddress leaderAddress(VirtualClusterKind kind, String topic, int partition) {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap(kind)))) {
            Node leader = admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic)
                    .partitions().get(partition).leader();
            return new InetSocketAddress(leader.host(), leader.port());
        } catch (Exception e) {
            throw new IllegalStateException("cannot find the leader of " + topic + "-" + partition + " through the "
                    + kind + " proxy", e);
        }
    }

    private WeftProxy start(VirtualClusterKind kind, String bootstrapServers) {
        WeftProxy p = switch (kind) {
            case PASS_THROUGH -> passThrough(bootstrapServers);
            case TOPIC_WOVEN -> twoRoutes("topic-weave", bootstrapServers);
            case COLLAPSED -> collapsed(bootstrapServers);
            case BRANCHED -> twoRoutes("branch", bootstrapServers);
        };
        try {
            Poll.until(READY, "the " + kind + " proxy to know its clusters' brokers", () -> p.readiness().isReady(),
                    () -> p.readiness().reasons().toString());
        } catch (RuntimeException | AssertionError e) {
            p.close();
            throw e;
        }
        return p;
    }

    private WeftProxy passThrough(String bootstrapServers) {
        int first = primary.brokerIds().stream().mapToInt(Integer::intValue).min().orElseThrow();
        int last = primary.brokerIds().stream().mapToInt(Integer::intValue).max().orElseThrow() + 2; // room to scale
        try {
            return ProxyFixture.startInFrontOf(bootstrapServers, first, last, serverSettings);
        } catch (ConfigException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }

    /** A router of {@code type} over route "primary" (c0, the suite's cluster) and route "side" (c1). */
    private WeftProxy twoRoutes(String type, String bootstrapServers) {
        String sideBootstrap = side().bootstrapServers();
        return withFreePorts(1 + WOVEN_NODE_IDS, start -> """
                server: { eventLoops: 2 %s }
                admin: { bind: "127.0.0.1:0" }
                clusters:
                  c0: { bootstrap: "%s" }
                  c1: { bootstrap: "%s" }
                routers:
                  weave:
                    type: %s
                    routes:
                      - { name: primary, target: { cluster: c0 } }
                      - { name: side, target: { cluster: c1 }%s }
                virtualClusters:
                  main:
                    target: { router: weave }
                    gateways:
                      - { name: plain, bind: "127.0.0.1:%d", brokerPorts: { start: %d, nodeIds: "0-%d" } }
                """.formatted(serverSettings, bootstrapServers, sideBootstrap, type,
                type.equals("branch") ? ", naming: { prefix: \"" + BRANCH_PREFIX + "\" }" : "", start, start + 1, WOVEN_NODE_IDS - 1));
    }

    private WeftProxy collapsed(String bootstrapServers) {
        return withFreePorts(1, port -> """
                server: { eventLoops: 2 %s }
                admin: { bind: "127.0.0.1:0" }
                clusters:
                  upstream: { bootstrap: "%s" }
                virtualClusters:
                  main:
                    target: { cluster: upstream }
                    topology: collapsed
                    nodes: [ { id: 0, address: "127.0.0.1:%d" } ]
                    gateways: [ { name: n0, bind: "127.0.0.1:%d" } ]
                """.formatted(serverSettings, bootstrapServers, port, port));
    }

    /** Starts the config {@code yaml} builds from a first free port of {@code ports}; retries when one was taken meanwhile. */
    private static WeftProxy withFreePorts(int ports, java.util.function.IntFunction<String> yaml) {
        GatewayBindException last = null;
        for (int attempt = 0; attempt < 5; attempt++) {
            String config = yaml.apply(FreePorts.randomRange(ports));
            try {
                return WeftProxy.start(ConfigLoader.parse(config, "virtual cluster fixture config"));
            } catch (GatewayBindException e) {
                last = e; // a port taken between the check and the bind
            } catch (ConfigException e) {
                throw new IllegalArgumentException(e.getMessage() + "\n" + config, e);
            }
        }
        throw last;
    }

    static InetSocketAddress address(String hostPort) {
        int colon = hostPort.lastIndexOf(':');
        return new InetSocketAddress(hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1)));
    }

    /** Stops every proxy, then the side cluster, then the primary. */
    @Override
    public synchronized void close() {
        RuntimeException first = null;
        for (WeftProxy p : proxies.values()) {
            try {
                p.close();
            } catch (RuntimeException e) {
                first = first == null ? e : first;
            }
        }
        proxies.clear();
        if (side != null) {
            side.close();
        }
        if (primary != null) {
            primary.close();
        }
        if (first != null) {
            throw first;
        }
    }
}
