package dev.weft.proxy.upstream;

import dev.weft.routing.topology.BrokerEndpoint;
import dev.weft.routing.topology.ClusterTopology;
import dev.weft.routing.topology.TopologyHolder;
import io.netty.handler.ssl.SslContext;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.TopicListing;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.Uuid;
import dev.weft.routing.RealTopic;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One real Kafka cluster behind the proxy: its bootstrap addresses and the topology the proxy knows.
 *
 * <p>The topology is filled from the Metadata responses clients receive through the proxy, and
 * refreshed on demand (at start, when a client asks for a broker the snapshot does not know, when a
 * broker cannot be reached) with an Admin {@code describeCluster} on kafka-clients' own thread: a
 * cold path that never runs on an event loop. Addresses are resolved there too, so event loops never
 * block on DNS.
 */
public final class UpstreamCluster implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(UpstreamCluster.class);

    private final String name;
    private final List<InetSocketAddress> bootstrap;
    private final TopologyHolder topology;
    private final dev.weft.iocore.time.AtMostEvery leaderRefresh = new dev.weft.iocore.time.AtMostEvery(Duration.ofSeconds(1));
    private final Map<String, Object> clientProperties;
    private final SslContext tls;
    private final dev.weft.proxy.config.WeftConfig.SaslCredentials sasl;
    /** The proxy's own: TLS and SASL of every link no principal has its own identity for. */
    private final Identity own;
    private final Map<String, Identity> principals;
    /** At most one WARN line every 10 s for this cluster's failed link authentications. */
    private final dev.weft.iocore.time.AtMostEvery saslWarnings = new dev.weft.iocore.time.AtMostEvery(Duration.ofSeconds(10));
    private final AtomicInteger roundRobin = new AtomicInteger();
    private final AtomicReference<CompletableFuture<ClusterTopology>> refreshing = new AtomicReference<>();
    private final Object adminLock = new Object();
    private Admin admin; // guarded by adminLock: created on first refresh, cold path only
    private volatile boolean closed; // written by close(), read by refresh callbacks

    /**
     * @param name the cluster's name in the config
     * @param bootstrap the configured bootstrap addresses (resolved here, at start)
     * @param clientProperties extra kafka-clients properties for the discovery client (security, timeouts)
     * @param tls TLS for connections to the brokers, or null for plaintext
     */
    public UpstreamCluster(String name, List<InetSocketAddress> bootstrap, Map<String, Object> clientProperties,
            SslContext tls) {
        this(name, bootstrap, clientProperties, tls, null, Map.of());
    }

    /**
     * Who a link is to the brokers: its TLS (client certificate included) and its SASL login, either
     * null. Compared by identity: one instance per principal and one for the proxy.
     */
    public record Identity(SslContext tls, dev.weft.proxy.config.WeftConfig.SaslCredentials sasl) {
    }

    /**
     * @param sasl the credentials every connection the proxy opens to the brokers authenticates with
     *     ({@code clusters.NAME.sasl}), or null; the discovery client's are in {@code clientProperties}
     * @param principals who the connections of a client principal (by user name) are in place of the
     *     proxy ({@code clusters.NAME.principals}): a null part of one is the proxy's {@code tls} or {@code sasl}
     */
    public UpstreamCluster(String name, List<InetSocketAddress> bootstrap, Map<String, Object> clientProperties,
            SslContext tls, dev.weft.proxy.config.WeftConfig.SaslCredentials sasl, Map<String, Identity> principals) {
        if (bootstrap.isEmpty()) {
            throw new IllegalArgumentException("cluster '" + name + "' has no bootstrap address");
        }
        this.name = name;
        this.bootstrap = List.copyOf(bootstrap);
        this.topology = new TopologyHolder(name);
        this.clientProperties = Map.copyOf(clientProperties);
        this.tls = tls;
        this.sasl = sasl;
        this.own = new Identity(tls, sasl);
        Map<String, Identity> filled = new java.util.HashMap<>();
        principals.forEach((user, id) -> filled.put(user, new Identity(id.tls() != null ? id.tls() : tls,
                id.sasl() != null ? id.sasl() : sasl)));
        this.principals = Map.copyOf(filled);
    }

    /**
     * The credentials the proxy's own connections to this cluster's brokers authenticate with, or null
     * (their password is read when a connection is made, so a rotated {@code file:} secret is picked up).
     */
    public dev.weft.proxy.config.WeftConfig.SaslCredentials sasl() {
        return sasl;
    }

    /**
     * Who the connections of a client authenticated as {@code user} are: its own identity
     * ({@code clusters.NAME.principals.USER}), else the proxy's. Null user: the proxy's.
     */
    public Identity identityFor(String user) {
        if (user == null || principals.isEmpty()) {
            return own;
        }
        return principals.getOrDefault(user, own);
    }

    /** Gates the WARN lines of failed link authentications: at most one every 10 s for the cluster. */
    dev.weft.iocore.time.AtMostEvery saslWarnings() {
        return saslWarnings;
    }

    /** TLS for connections to this cluster's brokers, or null for plaintext. */
    public SslContext tls() {
        return tls;
    }

    public String name() {
        return name;
    }

    public TopologyHolder topology() {
        return topology;
    }

    public List<InetSocketAddress> bootstrap() {
        return bootstrap;
    }

    /**
     * A broker to send a bootstrap connection to: round-robin over the known brokers, or over the
     * configured bootstrap addresses while the topology is still empty.
     */
    public InetSocketAddress anyBroker() {
        ClusterTopology now = topology.current();
        int turn = Math.floorMod(roundRobin.getAndIncrement(), Integer.MAX_VALUE);
        if (!now.isEmpty()) {
            List<BrokerEndpoint> brokers = List.copyOf(now.brokers());
            BrokerEndpoint b = brokers.get(turn % brokers.size());
            return resolvedAddress(b);
        }
        return bootstrap.get(turn % bootstrap.size());
    }

    /** Calls back with the address of real broker {@code nodeId}, refreshing the topology first when unknown. */
    public void resolveBroker(int nodeId, BiConsumer<InetSocketAddress, Throwable> callback) {
        BrokerEndpoint known = topology.current().broker(nodeId);
        if (known != null) {
            callback.accept(resolvedAddress(known), null);
            return;
        }
        refresh().whenComplete((snapshot, error) -> {
            if (error != null) {
                callback.accept(null, new IllegalStateException("cannot discover the brokers of cluster '" + name
                        + "': " + error.getMessage(), error));
                return;
            }
            BrokerEndpoint b = snapshot.broker(nodeId);
            if (b == null) {
                callback.accept(null, new IllegalStateException("cluster '" + name + "' has no broker with node id "
                        + nodeId + " (it has " + snapshot.brokers().stream().map(x -> Integer.toString(x.nodeId())).toList() + ")"));
            } else {
                callback.accept(resolvedAddress(b), null);
            }
        });
    }

    /**
     * What an operator can act on: kafka-clients says "Timed out waiting for a node assignment. Call:
     * listNodes" when no bootstrap broker answered, and logs each failed connection attempt itself at
     * WARN, which logback.xml keeps quiet (NetworkClient at ERROR, where authentication failures are).
     */
    String whyDiscoveryFailed(Throwable error) {
        Throwable cause = error instanceof java.util.concurrent.CompletionException && error.getCause() != null ? error.getCause() : error;
        if (cause instanceof org.apache.kafka.common.errors.TimeoutException) {
            return "no broker answered within 10 s (bootstrap " + bootstrap.stream().map(a -> a.getHostString() + ":" + a.getPort())
                    .collect(java.util.stream.Collectors.joining(",")) + "): is the cluster up and reachable from this host,"
                    + " and does its listener speak what clusters." + name + " configures (tls, sasl)? (" + cause.getMessage() + ")";
        }
        return cause.getClass().getSimpleName() + ": " + cause.getMessage();
    }

    private static InetSocketAddress resolvedAddress(BrokerEndpoint b) {
        // Already resolved by the discovery thread when it could; InetSocketAddress caches the result.
        return new InetSocketAddress(b.host(), b.port());
    }

    /** Re-reads the broker list with an Admin client; concurrent callers share one request. */
    public CompletableFuture<ClusterTopology> refresh() {
        CompletableFuture<ClusterTopology> mine = new CompletableFuture<>();
        CompletableFuture<ClusterTopology> running = refreshing.compareAndExchange(null, mine);
        if (running != null) {
            return running;
        }
        try {
            DescribeClusterResult result = admin().describeCluster(new DescribeClusterOptions().timeoutMs(10_000));
            result.clusterId().toCompletionStage().thenCombine(result.nodes().toCompletionStage(), (clusterId, nodes) -> {
                List<BrokerEndpoint> brokers = new ArrayList<>();
                for (Node n : nodes) {
                    brokers.add(new BrokerEndpoint(n.id(), n.host(), n.port(), n.rack()));
                }
                return topology.offer(clusterId, brokers);
            }).whenComplete((snapshot, error) -> {
                refreshing.set(null);
                if (error != null) {
                    if (!closed) {
                        LOG.warn("cluster '{}': broker discovery failed: {}", name, whyDiscoveryFailed(error));
                    }
                    mine.completeExceptionally(error);
                } else {
                    LOG.debug("cluster '{}': brokers {}", name, snapshot.brokers());
                    mine.complete(snapshot);
                }
            });
        } catch (RuntimeException e) {
            refreshing.set(null);
            mine.completeExceptionally(e);
        }
        return mine;
    }

    /**
     * Reads every topic's partition leaders, replicas and ISRs (discovery Admin client, off the event
     * loops) into the topology cache, unless that ran in the last second. For routes no client asks
     * Metadata of (a branch's cluster), whose leaders the cache would otherwise never learn.
     *
     * @return completes when this refresh is in the cache (at once, when one ran in the last second);
     *     never completes exceptionally: a failure is logged and the cache keeps what it knew
     */
    public CompletableFuture<Void> refreshLeadersSoon() {
        if (!leaderRefresh.tryPass()) {
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<Void> done = new CompletableFuture<>();
        try {
            Admin a = admin();
            a.listTopics(new ListTopicsOptions().timeoutMs(10_000)).names()
                    .thenApply(names -> a.describeTopics(names.stream().filter(n -> !n.startsWith("__")).toList()))
                    .whenComplete((described, error) -> {
                        if (error != null) {
                            LOG.warn("cluster '{}': cannot list its topics to learn their leaders: {}", name, error.toString());
                            done.complete(null);
                            return;
                        }
                        described.allTopicNames().whenComplete((topics, e) -> {
                            if (e != null) {
                                LOG.warn("cluster '{}': cannot describe its topics to learn their leaders: {}", name, e.toString());
                            } else {
                                topology.offerPartitions(asMetadata(topics.values()));
                            }
                            done.complete(null);
                        });
                    });
        } catch (RuntimeException e) {
            LOG.warn("cluster '{}': cannot read its partition leaders: {}", name, e.toString());
            done.complete(null);
        }
        return done;
    }

    /** Topic descriptions as the Metadata answer the topology cache merges (leader epochs unknown: -1). */
    private static org.apache.kafka.common.message.MetadataResponseData asMetadata(
            java.util.Collection<org.apache.kafka.clients.admin.TopicDescription> topics) {
        var out = new org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopicCollection();
        for (var t : topics) {
            List<org.apache.kafka.common.message.MetadataResponseData.MetadataResponsePartition> partitions = new ArrayList<>();
            for (var p : t.partitions()) {
                partitions.add(new org.apache.kafka.common.message.MetadataResponseData.MetadataResponsePartition()
                        .setPartitionIndex(p.partition()).setLeaderId(p.leader() == null ? -1 : p.leader().id()).setLeaderEpoch(-1)
                        .setReplicaNodes(p.replicas().stream().map(Node::id).toList())
                        .setIsrNodes(p.isr().stream().map(Node::id).toList()));
            }
            out.add(new org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic().setName(t.name())
                    .setTopicId(t.topicId() == null ? Uuid.ZERO_UUID : t.topicId()).setPartitions(partitions));
        }
        return new org.apache.kafka.common.message.MetadataResponseData().setTopics(out);
    }

    /**
     * The cluster's topics (names and ids; internal topics left out), read with the discovery Admin
     * client on its own thread: the topic catalog of a woven virtual cluster is built from these.
     *
     * @param countPartitions also describe every topic listed, for its partition count (one more Metadata
     *     request; the topology cache learns the leaders it shows too)
     */
    public CompletableFuture<List<RealTopic>> listTopics(boolean countPartitions) {
        CompletableFuture<List<RealTopic>> out = new CompletableFuture<>();
        try {
            Admin a = admin();
            a.listTopics(new ListTopicsOptions().timeoutMs(10_000)).listings().whenComplete((listings, error) -> {
                if (error != null) {
                    out.completeExceptionally(error);
                    return;
                }
                if (!countPartitions || listings.isEmpty()) {
                    List<RealTopic> topics = new ArrayList<>(listings.size());
                    for (TopicListing l : listings) {
                        topics.add(new RealTopic(l.name(), l.topicId() == null ? Uuid.ZERO_UUID : l.topicId()));
                    }
                    out.complete(topics);
                    return;
                }
                a.describeTopics(listings.stream().map(TopicListing::name).toList(),
                        new org.apache.kafka.clients.admin.DescribeTopicsOptions().timeoutMs(10_000))
                        .allTopicNames().whenComplete((described, e) -> {
                            if (e != null) {
                                out.completeExceptionally(e);
                                return;
                            }
                            topology.offerPartitions(asMetadata(described.values()));
                            List<RealTopic> topics = new ArrayList<>(described.size());
                            for (var d : described.values()) {
                                topics.add(new RealTopic(d.name(), d.topicId() == null ? Uuid.ZERO_UUID : d.topicId(),
                                        d.partitions().size()));
                            }
                            out.complete(topics);
                        });
            });
        } catch (RuntimeException e) {
            out.completeExceptionally(e);
        }
        return out;
    }

    /**
     * kafka-clients settings for a client of this cluster the proxy runs itself (a branch writer's
     * producer): the bootstrap servers and the cluster's extra client properties (security, timeouts).
     */
    public Map<String, Object> clientConfig() {
        Map<String, Object> config = new java.util.HashMap<>(clientProperties);
        config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, String.join(",",
                bootstrap.stream().map(a -> a.getHostString() + ":" + a.getPort()).toList()));
        return config;
    }

    private Admin admin() {
        synchronized (adminLock) {
            if (closed) {
                throw new IllegalStateException("cluster '" + name + "' is closed");
            }
            if (admin == null) {
                Properties props = new Properties();
                props.putAll(clientProperties);
                props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, String.join(",",
                        bootstrap.stream().map(a -> a.getHostString() + ":" + a.getPort()).toList()));
                props.putIfAbsent(AdminClientConfig.CLIENT_ID_CONFIG, "weft-discovery-" + name);
                props.putIfAbsent(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
                props.putIfAbsent(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 15_000);
                props.putIfAbsent(AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 1_000);
                admin = Admin.create(props);
            }
            return admin;
        }
    }

    @Override
    public void close() {
        Admin toClose;
        synchronized (adminLock) {
            closed = true;
            toClose = admin;
            admin = null;
        }
        if (toClose != null) {
            toClose.close(Duration.ofSeconds(5));
        }
    }
}
