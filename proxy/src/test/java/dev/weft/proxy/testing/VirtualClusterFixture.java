package dev.weft.proxy.testing;

import dev.weft.proxy.config.ConfigException;
import dev.weft.proxy.config.ConfigLoader;
import dev.weft.proxy.gateway.GatewayBindException;
import dev.weft.proxy.net.FreePorts;
import dev.weft.proxy.server.WeftProxy;
import dev.weft.proxy.session.VirtualClusterStartException;
import dev.weft.testkit.KafkaCluster;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.EnumMap;
import java.util.LinkedHashMap;
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
 *       and route 0 ("primary", cluster c0) of {@link VirtualClusterKind#TOPIC_WOVEN},
 *       {@link VirtualClusterKind#PARTITION_WOVEN}, {@link VirtualClusterKind#BRANCHED} and
 *       {@link VirtualClusterKind#SWITCHED} (its active route);</li>
 *   <li>the <em>side</em> cluster, one broker, is started only when a two-route kind is first used: route 1
 *       ("side", cluster c1) of the weaves, the branch of the branch router, the switch's standby.</li>
 * </ul>
 *
 * Every proxy has one virtual cluster "main", two event loops, an admin endpoint on a free port and the
 * suite's extra {@code server:} settings; it is returned once it knows its clusters' brokers.
 *
 * <p><b>The partition-woven kind's topics are in its config.</b> A {@code partition-weave} router shows
 * only the logical topics its config lists, each over a physical topic that must exist (with enough
 * partitions) when the proxy starts. So every topic made through this fixture for that kind
 * ({@link #createTopic}, {@link #createSideTopic}) and every topic a suite made on the primary itself
 * ({@link #declareWovenTopic}) is declared here, and the kind's proxy starts with every topic declared so
 * far. Declaring a new one once it runs restarts it on the same ports (bootstrap, broker ports and admin
 * port stay valid) the next time it is asked for ({@link #proxy}, {@link #bootstrap}, and the topic
 * helpers, which ask): a suite must take {@link #proxy} again after declaring, or better declare its
 * topics before it first takes the proxy. A primary topic of {@code n >= 2} partitions is woven as two
 * segments in rotated order (virtual {@code 0..n-k-1} are physical {@code k..n-1}, {@code k = n / 2}, then
 * the rest), so renumbering is real while every partition stays on the primary;
 * {@link #physicalPartition} maps a virtual partition to the primary's.
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
    private final String virtualClusterSettings;
    private final Map<String, Object> clientSettings;
    private final UnaryOperator<KafkaCluster.Builder> sideSettings;
    private final Map<VirtualClusterKind, WeftProxy> proxies = new EnumMap<>(VirtualClusterKind.class);
    private KafkaCluster side;
    /** The partition-woven kind's logical topics: name to its segments, as YAML flow mappings. */
    private final Map<String, List<String>> wovenTopics = new LinkedHashMap<>();
    /** Whether a logical topic was declared after the partition-woven proxy started (it then restarts). */
    private boolean wovenStale;
    /** The partition-woven proxy's bootstrap port and admin port, chosen at its first start (0: not yet). */
    private int wovenPortStart;
    private int wovenAdminPort;
    /** The topic the partition-woven kind shows when a suite declared none (a router needs one). */
    private final Map<VirtualClusterKind, String> configs = new java.util.EnumMap<>(VirtualClusterKind.class);
    private volatile String lastConfig;
    static final String WOVEN_PLACEHOLDER = "weft-woven-placeholder";

    private VirtualClusterFixture(Builder b) {
        this.primary = b.primary;
        this.primaryBootstrap = b.primaryBootstrap != null ? b.primaryBootstrap : b.primary.bootstrapServers();
        this.serverSettings = b.serverSettings;
        this.virtualClusterSettings = b.virtualClusterSettings;
        this.clientSettings = b.clientSettings;
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
        private String virtualClusterSettings = "";
        private Map<String, Object> clientSettings = Map.of();
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

        /**
         * More keys of virtual cluster "main" in every kind's config, as YAML lines indented by four
         * spaces (e.g. {@code "    authentication: { sasl: { ... } }\n"}).
         */
        public Builder virtualClusterSettings(String lines) {
            this.virtualClusterSettings = lines;
            return this;
        }

        /** Settings of the fixture's own clients of the proxies (SASL, when the virtual cluster authenticates clients). */
        public Builder clientSettings(Map<String, Object> settings) {
            this.clientSettings = Map.copyOf(settings);
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

    /**
     * The proxy of {@code kind}, started on first use and kept until {@link #close}; the partition-woven
     * one is restarted (same ports) when topics were declared since it started, so take it again after
     * declaring one rather than keeping the old object.
     */
    public synchronized WeftProxy proxy(VirtualClusterKind kind) {
        WeftProxy p = proxies.get(kind);
        if (p != null && kind == VirtualClusterKind.PARTITION_WOVEN && wovenStale) {
            proxies.remove(kind);
            p.close();
            p = null;
        }
        if (p == null) {
            p = kind == VirtualClusterKind.PARTITION_WOVEN ? startPartitionWoven() : start(kind, primaryBootstrap);
            proxies.put(kind, p);
            configs.put(kind, lastConfig);
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
            case TOPIC_WOVEN, PARTITION_WOVEN, BRANCHED -> primary.brokerIds().size() + side().brokerIds().size();
            case SWITCHED -> primary.brokerIds().size(); // the standby serves no one
            case COLLAPSED -> 1;
        };
    }

    /** The name of the primary cluster in {@code kind}'s config (its {@code clusters:} key). */
    public static String primaryClusterName(VirtualClusterKind kind) {
        return switch (kind) {
            case TOPIC_WOVEN, PARTITION_WOVEN, BRANCHED, SWITCHED -> "c0";
            case PASS_THROUGH, COLLAPSED -> "upstream";
        };
    }

    /**
     * The primary's partition behind virtual partition {@code virtualPartition} of a topic of
     * {@code partitions} partitions made by {@link #createTopic} (or declared by {@link #declareWovenTopic}):
     * itself, except partition-woven, whose segments are rotated by {@code k = partitions / 2}.
     */
    public static int physicalPartition(VirtualClusterKind kind, int virtualPartition, int partitions) {
        if (kind != VirtualClusterKind.PARTITION_WOVEN || partitions < 2) {
            return virtualPartition;
        }
        int k = partitions / 2;
        return virtualPartition < partitions - k ? virtualPartition + k : virtualPartition - (partitions - k);
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
            case TOPIC_WOVEN, PARTITION_WOVEN, BRANCHED, SWITCHED -> brokerId * 2;
            case COLLAPSED -> throw new IllegalArgumentException("a collapsed virtual cluster has no per-broker ports");
        };
        return new InetSocketAddress(b.getHostString(), b.getPort() + 1 + offset);
    }

    /** How many port-per-broker ports follow the bootstrap port of {@code kind}'s gateway (collapsed: none). */
    public int brokerPortCount(VirtualClusterKind kind) {
        return switch (kind) {
            case PASS_THROUGH -> primary.brokerIds().stream().mapToInt(Integer::intValue).max().orElseThrow()
                    - primary.brokerIds().stream().mapToInt(Integer::intValue).min().orElseThrow() + 3;
            case TOPIC_WOVEN, PARTITION_WOVEN, BRANCHED, SWITCHED -> WOVEN_NODE_IDS;
            case COLLAPSED -> 0;
        };
    }

    /**
     * Creates a topic on the primary cluster and makes {@code kind}'s proxy see it: its catalog read
     * again, and the topic's partition 0 asked for through the proxy until it has a leader (a client's
     * Metadata, which also teaches a collapsed proxy the leaders). Partition-woven: declared as a logical
     * topic of the same name over the primary's partitions in rotated order ({@link #physicalPartition});
     * a running proxy of that kind is restarted with it (same ports).
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
        if (kind == VirtualClusterKind.PARTITION_WOVEN) {
            declareWovenTopic(name, partitions);
        }
        refreshCatalog(kind);
        awaitVisible(kind, name);
    }

    /**
     * Creates a one-replica topic where it exercises the kind most: woven on the side cluster (so the
     * traffic crosses the weave to the second cluster; partition-woven: a logical topic of the same name,
     * one segment over all of the side topic's partitions), otherwise on the primary (the only one).
     */
    public void createSideTopic(VirtualClusterKind kind, String name, int partitions) {
        if (kind == VirtualClusterKind.TOPIC_WOVEN) {
            side().createTopic(name, partitions, 1);
        } else if (kind == VirtualClusterKind.PARTITION_WOVEN) {
            side().createTopic(name, partitions, 1);
            declare(name, List.of(segment("side", name, 0, partitions - 1)));
        } else {
            primary.createTopic(name, partitions, 1);
        }
        refreshCatalog(kind);
        awaitVisible(kind, name);
    }

    /** Asks {@code kind}'s proxy for {@code topic} (as a client's Metadata) until every partition has a leader. */
    public void awaitVisible(VirtualClusterKind kind, String topic) {
        try (Admin admin = Admin.create(clientConfig(kind))) {
            Poll.untilNoThrow(Duration.ofSeconds(30), topic + " with leaders through the " + kind + " proxy",
                    () -> admin.describeTopics(List.of(topic)).allTopicNames().get(10, TimeUnit.SECONDS).get(topic)
                            .partitions().stream().allMatch(p -> p.leader() != null && !p.leader().isEmpty()));
        }
    }

    /**
     * Declares {@code name}, a topic of {@code partitions} partitions that already exists on the primary
     * (a suite made it itself), as a logical topic of the partition-woven kind, rotated as
     * {@link #createTopic} does; once that kind's proxy runs, it is restarted with it when next asked for.
     * Declaring a name again changes nothing.
     */
    public void declareWovenTopic(String name, int partitions) {
        if (partitions < 2) {
            declare(name, List.of(segment("primary", name, 0, partitions - 1)));
        } else {
            int k = partitions / 2;
            declare(name, List.of(segment("primary", name, k, partitions - 1), segment("primary", name, 0, k - 1)));
        }
    }

    private synchronized void declare(String name, List<String> segments) {
        List<String> before = wovenTopics.putIfAbsent(name, segments);
        if (before != null) {
            if (!before.equals(segments)) {
                throw new IllegalArgumentException("logical topic " + name + " is already declared as " + before);
            }
            return;
        }
        if (proxies.containsKey(VirtualClusterKind.PARTITION_WOVEN)) {
            wovenStale = true;
        }
    }

    private static String segment(String route, String topic, int first, int last) {
        return "{ route: " + route + ", topic: \"" + topic + "\", partitions: \"" + (first == last ? first : first + "-" + last)
                + "\" }";
    }

    /** Has the kind's proxy read its clusters' topics again (the kinds that keep a topic catalog). */
    public void refreshCatalog(VirtualClusterKind kind) {
        WeftProxy p;
        synchronized (this) {
            p = proxies.get(kind);
            if (kind == VirtualClusterKind.PARTITION_WOVEN && wovenStale) {
                return; // restarted with its new topics when next asked for
            }
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
        try (Admin admin = Admin.create(clientConfig(kind))) {
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
            // the admin port is the run's last, outside the ephemeral range like the gateway's: restarts reuse both
            case PARTITION_WOVEN -> withFreePorts(2 + WOVEN_NODE_IDS,
                    start -> partitionWeave(bootstrapServers, start, start + 1 + WOVEN_NODE_IDS));
            case COLLAPSED -> collapsed(bootstrapServers);
            case BRANCHED -> twoRoutes("branch", bootstrapServers);
            case SWITCHED -> twoRoutes("switch", bootstrapServers);
        };
        return awaitReady(kind, p);
    }

    private static WeftProxy awaitReady(VirtualClusterKind kind, WeftProxy p) {
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
            return ProxyFixture.startInFrontOf(bootstrapServers, first, last, serverSettings, this::withVirtualClusterSettings);
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

    /**
     * The fixture's partition-woven proxy: on free ports the first time, then on the same ports (gateway
     * and admin) on every restart, retried while a port is still being let go of or a just-created
     * physical topic is not yet listed by every broker (the router refuses to start without it).
     */
    private WeftProxy startPartitionWoven() {
        RuntimeException last = null;
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (wovenPortStart == 0) {
            try {
                WeftProxy p = start(VirtualClusterKind.PARTITION_WOVEN, primaryBootstrap);
                wovenPortStart = address(ProxyFixture.bootstrap(p)).getPort();
                wovenAdminPort = p.adminAddress().orElseThrow().getPort();
                wovenStale = false;
                return p;
            } catch (VirtualClusterStartException e) {
                last = e; // a just-created physical topic a broker does not list yet
                if (System.nanoTime() - deadline >= 0) {
                    throw e;
                }
                java.util.concurrent.locks.LockSupport.parkNanos(Duration.ofMillis(200).toNanos()); // then again
            }
        }
        do {
            String config = withVirtualClusterSettings(partitionWeave(primaryBootstrap, wovenPortStart, wovenAdminPort));
            WeftProxy p;
            try {
                p = WeftProxy.start(ConfigLoader.parse(config, "virtual cluster fixture config"));
            } catch (ConfigException e) {
                throw new IllegalArgumentException(e.getMessage() + "\n" + config, e);
            } catch (RuntimeException e) {
                last = e; // a port not let go of yet, or a physical topic a broker does not list yet
                java.util.concurrent.locks.LockSupport.parkNanos(Duration.ofMillis(200).toNanos()); // then again
                continue;
            }
            wovenStale = false;
            return awaitReady(VirtualClusterKind.PARTITION_WOVEN, p);
        } while (System.nanoTime() - deadline < 0);
        throw new IllegalStateException("the partition-woven proxy did not restart on ports " + wovenPortStart
                + " and admin " + wovenAdminPort, last);
    }

    /**
     * A partition-weave router over route "primary" (c0, the suite's cluster) and route "side" (c1),
     * port-per-broker like {@link #twoRoutes}, showing every logical topic declared so far (a placeholder
     * on the primary when none is: the router needs one); the admin endpoint on {@code adminPort} (0: free).
     */
    private String partitionWeave(String bootstrapServers, int start, int adminPort) {
        String sideBootstrap = side().bootstrapServers();
        Map<String, List<String>> topics;
        synchronized (this) {
            if (wovenTopics.isEmpty()) {
                try {
                    if (!primary.admin().listTopics().names().get(30, TimeUnit.SECONDS).contains(WOVEN_PLACEHOLDER)) {
                        primary.createTopic(WOVEN_PLACEHOLDER, 1, 1);
                    }
                } catch (Exception e) {
                    throw new IllegalStateException("cannot make the partition-woven placeholder topic", e);
                }
                wovenTopics.put(WOVEN_PLACEHOLDER, List.of(segment("primary", WOVEN_PLACEHOLDER, 0, 0)));
            }
            topics = new LinkedHashMap<>(wovenTopics);
        }
        StringBuilder yaml = new StringBuilder();
        topics.forEach((name, segments) -> {
            yaml.append("      \"").append(name).append("\":\n");
            segments.forEach(s -> yaml.append("        - ").append(s).append('\n'));
        });
        return """
                server: { eventLoops: 2 %s }
                admin: { bind: "127.0.0.1:%d" }
                clusters:
                  c0: { bootstrap: "%s" }
                  c1: { bootstrap: "%s" }
                routers:
                  weave:
                    type: partition-weave
                    routes:
                      - { name: primary, target: { cluster: c0 } }
                      - { name: side, target: { cluster: c1 } }
                    topics:
                %s
                virtualClusters:
                  main:
                    target: { router: weave }
                    gateways:
                      - { name: plain, bind: "127.0.0.1:%d", brokerPorts: { start: %d, nodeIds: "0-%d" } }
                """.formatted(serverSettings, adminPort, bootstrapServers, sideBootstrap, yaml.toString().stripTrailing(),
                start, start + 1, WOVEN_NODE_IDS - 1);
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
    private WeftProxy withFreePorts(int ports, java.util.function.IntFunction<String> yaml) {
        return ProxyFixture.startOnFreePorts(ports, start -> withVirtualClusterSettings(yaml.apply(start)));
    }

    /** What the fixture's own clients of {@code kind}'s proxy connect with. */
    private Map<String, Object> clientConfig(VirtualClusterKind kind) {
        Map<String, Object> config = new java.util.HashMap<>(clientSettings);
        config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap(kind));
        return config;
    }

    /** {@code yaml} with the builder's extra keys of virtual cluster "main". */
    private String withVirtualClusterSettings(String yaml) {
        String out = virtualClusterSettings.isEmpty() ? yaml : yaml.replace("\n  main:\n", "\n  main:\n" + virtualClusterSettings);
        lastConfig = out; // the last one asked for is the one that started (each start is synchronous)
        return out;
    }

    /** The config text {@code kind}'s proxy runs from (to reload it changed). */
    public synchronized String configText(VirtualClusterKind kind) {
        proxy(kind);
        return configs.get(kind);
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
