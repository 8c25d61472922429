package dev.weft.testkit;

import kafka.server.FaultHandlerFactory;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.server.fault.FaultHandler;
import org.apache.kafka.server.fault.FaultHandlerException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * A real Apache Kafka cluster in KRaft mode, for tests, the demo and benchmarks.
 *
 * <pre>{@code
 * try (KafkaCluster cluster = KafkaCluster.builder()
 *         .brokers(3)
 *         .rack(id -> "az" + (id % 2))
 *         .brokerProperty("auto.create.topics.enable", "false")
 *         .build()
 *         .start()) {
 *     cluster.createTopic("orders", 6, 3);
 *     try (var producer = new KafkaProducer<>(cluster.producerConfig(), new StringSerializer(), new StringSerializer())) {
 *         ...
 *     }
 * }
 * }</pre>
 *
 * <h2>Nodes</h2>
 * Brokers get node ids {@code 0..brokers-1}, and {@code broker.rack} from {@link Builder#rack}. By default
 * the controllers are combined with brokers: the first three nodes (the first one when there are fewer
 * than three brokers, since a quorum of two cannot lose a voter) run {@code process.roles=broker,controller}
 * and form a static quorum, the others are broker-only. With
 * {@link Builder#dedicatedControllers(int)} the quorum runs on controller-only nodes with ids from
 * {@value #FIRST_DEDICATED_CONTROLLER_ID}. {@link #addBroker()} adds broker-only nodes and
 * {@link #removeBroker(int)} removes them; quorum voters are fixed for the cluster's life.
 *
 * <h2>Modes</h2>
 * In-JVM (default): every node runs in this JVM. Forked ({@link Builder#forked(boolean)}): every node
 * runs in a JVM of its own, started from this JVM's class path with the JDK that runs this JVM; see
 * {@link ForkedClusterMain}. Both modes offer the same API; {@link #killBroker(int)} is a SIGKILL in
 * forked mode and the most abrupt in-JVM stop otherwise.
 *
 * <h2>Resources</h2>
 * Every listener gets a free port chosen at {@link #start()}; a restarted node keeps its ports. All node
 * directories live under one temporary directory, formatted with Kafka's own storage formatter and a
 * fresh cluster id, and deleted by {@link #close()}, which also stops every node and every thread this
 * class started.
 *
 * <p>Listeners: {@value #DEFAULT_LISTENER} ({@code PLAINTEXT} on 127.0.0.1) unless others are declared
 * with {@link Builder#listener}; the first declared one is the default for {@link #bootstrapServers()}
 * and the client configurations. Controllers talk on {@value #CONTROLLER_LISTENER} (PLAINTEXT).
 *
 * <p>Thread-safe: lifecycle operations are serialised per cluster.
 */
public final class KafkaCluster implements AutoCloseable {

    /** Name of the default client listener. */
    public static final String DEFAULT_LISTENER = "PLAINTEXT";
    /** Name of the controller listener (PLAINTEXT). */
    public static final String CONTROLLER_LISTENER = "CONTROLLER";
    /** Node id of the first dedicated controller. */
    public static final int FIRST_DEDICATED_CONTROLLER_ID = 3000;

    static final String HOST = "127.0.0.1";
    private static final String DIRECTORY_PREFIX = "weft-kafka-";
    /** Holds the pid of the JVM that owns a cluster directory. */
    private static final String OWNER_FILE = "owner.pid";
    private static final int MAX_COMBINED_VOTERS = 3;
    private static final Pattern LISTENER_NAME = Pattern.compile("[A-Z][A-Z0-9_]*");
    private static final Logger LOG = LoggerFactory.getLogger(KafkaCluster.class);

    private enum State { NEW, RUNNING, CLOSED }

    private final ClusterSettings settings;
    /** Current members by node id. Guarded by this. */
    private final Map<Integer, Member> members = new TreeMap<>();
    private final List<String> fatalFaults = new CopyOnWriteArrayList<>();

    private State state = State.NEW;
    private String clusterId;
    private Path baseDirectory;
    private PortReservations ports;
    private String quorumVoters;
    private int nextBrokerId;
    private Admin admin;

    private KafkaCluster(ClusterSettings settings) {
        this.settings = settings;
    }

    public static Builder builder() {
        return new Builder();
    }

    // ------------------------------------------------------------------------------------------------
    // Lifecycle

    /**
     * Formats and starts every node, and returns once every broker is registered, unfenced and visible
     * to clients. On failure everything started so far is torn down again.
     *
     * @return this cluster
     * @throws IllegalStateException if the cluster was started before or does not come up in time
     */
    public synchronized KafkaCluster start() {
        if (state != State.NEW) {
            throw new IllegalStateException("a cluster can be started once; this one is " + state);
        }
        state = State.RUNNING;
        long startNanos = System.nanoTime();
        try {
            baseDirectory = settings.baseDirectoryParent() == null
                ? Files.createTempDirectory(DIRECTORY_PREFIX)
                : Files.createTempDirectory(Files.createDirectories(settings.baseDirectoryParent()), DIRECTORY_PREFIX);
            Files.writeString(baseDirectory.resolve(OWNER_FILE), Long.toString(ProcessHandle.current().pid()));
            deleteOrphans(baseDirectory.getParent());
            clusterId = settings.clusterId() != null ? settings.clusterId() : Uuid.randomUuid().toString();
            ports = new PortReservations(HOST, !settings.forked());

            List<Integer> brokerIds = new ArrayList<>();
            for (int id = 0; id < settings.brokers(); id++) {
                brokerIds.add(id);
            }
            List<Integer> voterIds = new ArrayList<>();
            if (settings.dedicatedControllers() > 0) {
                for (int i = 0; i < settings.dedicatedControllers(); i++) {
                    voterIds.add(FIRST_DEDICATED_CONTROLLER_ID + i);
                }
            } else {
                // An odd quorum: two voters would stop the cluster when either of them dies.
                voterIds.addAll(brokerIds.subList(0, brokerIds.size() >= MAX_COMBINED_VOTERS ? MAX_COMBINED_VOTERS : 1));
            }
            Map<Integer, Integer> controllerPorts = new TreeMap<>();
            for (int id : voterIds) {
                controllerPorts.put(id, ports.reserve(id, CONTROLLER_LISTENER));
            }
            quorumVoters = controllerPorts.entrySet().stream()
                .map(e -> e.getKey() + "@" + HOST + ":" + e.getValue())
                .collect(Collectors.joining(","));

            List<Member> initial = new ArrayList<>();
            for (int id : brokerIds) {
                EnumSet<NodeRole> roles = voterIds.contains(id)
                    ? EnumSet.of(NodeRole.BROKER, NodeRole.CONTROLLER)
                    : EnumSet.of(NodeRole.BROKER);
                initial.add(plan(id, roles, controllerPorts.get(id)));
            }
            for (int id : voterIds) {
                if (!brokerIds.contains(id)) {
                    initial.add(plan(id, EnumSet.of(NodeRole.CONTROLLER), controllerPorts.get(id)));
                }
            }
            initial.forEach(m -> members.put(m.nodeId, m));
            nextBrokerId = settings.brokers();

            inParallel("start", initial, m -> m.node.start(settings.startTimeout()));
            awaitBrokers("brokers " + brokerIds + " to be visible to clients",
                visible -> visible.containsAll(brokerIds), false);
            LOG.info("Kafka cluster {} started in {} ms: {} node(s), bootstrap {}{}", clusterId,
                millisSince(startNanos), members.size(), bootstrapServers(),
                settings.forked() ? " (forked)" : "");
            return this;
        } catch (Exception | Error e) {
            try {
                close();
            } catch (RuntimeException closeFailure) {
                e.addSuppressed(closeFailure);
            }
            if (e instanceof Error error) {
                throw error;
            }
            throw new IllegalStateException("cannot start Kafka cluster: " + e.getMessage(), e);
        }
    }

    /**
     * Stops every node (brokers first, then dedicated controllers; no controlled shutdown, since
     * everything goes), closes the {@link #admin()} client, releases every port and deletes the cluster's
     * directory unless told to keep it. Idempotent.
     *
     * <p>With a quorum of three voters this takes about 5 s: Kafka's raft client gives a resigning
     * leader a fixed 5 s to see a successor elected, and nobody is left to be one. A single voter (one
     * broker, or {@link Builder#dedicatedControllers(int) dedicatedControllers(1)}) closes at once.
     *
     * @throws UncheckedIOException if the directory cannot be deleted
     */
    @Override
    public synchronized void close() {
        if (state == State.CLOSED) {
            return;
        }
        state = State.CLOSED;
        long startNanos = System.nanoTime();
        if (admin != null) {
            try {
                admin.close(Duration.ofSeconds(10));
            } catch (RuntimeException e) {
                LOG.warn("Closing the testkit admin client failed", e);
            }
            admin = null;
        }
        List<Member> brokers = members.values().stream().filter(Member::isBroker).toList();
        List<Member> controllers = members.values().stream().filter(m -> !m.isBroker()).toList();
        stopQuietly(brokers);
        stopQuietly(controllers);
        if (ports != null) {
            ports.close();
        }
        if (!fatalFaults.isEmpty()) {
            LOG.warn("Kafka cluster {} reported fatal faults: {}", clusterId, fatalFaults);
        }
        LOG.info("Kafka cluster {} stopped in {} ms", clusterId, millisSince(startNanos));
        if (baseDirectory != null) {
            if (settings.deleteOnClose()) {
                try {
                    Utils.delete(baseDirectory.toFile());
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot delete " + baseDirectory, e);
                }
            } else {
                LOG.info("Kafka cluster {} kept its files in {}", clusterId, baseDirectory);
            }
        }
    }

    /**
     * Deletes cluster directories whose owning JVM no longer exists: one killed before it could close
     * its cluster (a SIGKILLed or timed-out test JVM) leaves its directory behind, and the next cluster
     * started in the same place cleans it up. A directory whose owner cannot be read is left alone.
     */
    private static void deleteOrphans(Path parent) {
        try (var candidates = Files.newDirectoryStream(parent, DIRECTORY_PREFIX + "*")) {
            for (Path candidate : candidates) {
                Path owner = candidate.resolve(OWNER_FILE);
                long pid;
                try {
                    pid = Long.parseLong(Files.readString(owner).trim());
                } catch (IOException | NumberFormatException e) {
                    continue;
                }
                if (ProcessHandle.of(pid).isEmpty()) {
                    LOG.info("Deleting {}, left behind by process {} which no longer runs", candidate, pid);
                    Utils.delete(candidate.toFile());
                }
            }
        } catch (IOException e) {
            LOG.warn("Cannot look for abandoned cluster directories in {}", parent, e);
        }
    }

    private void stopQuietly(List<Member> group) {
        try {
            inParallel("stop", group, m -> m.node.stop(Duration.ZERO));
        } catch (RuntimeException e) {
            LOG.warn("Stopping nodes {} failed", group.stream().map(m -> m.nodeId).toList(), e);
        }
    }

    public synchronized boolean isClosed() {
        return state == State.CLOSED;
    }

    // ------------------------------------------------------------------------------------------------
    // Faults and scaling

    /**
     * Shuts node {@code nodeId} down cleanly: with a controlled shutdown (leadership moves away first)
     * unless {@code controlled.shutdown.enable=false} was configured for it. For a combined node this
     * stops its controller too.
     */
    public synchronized void stopBroker(int nodeId) {
        requireRunning();
        Member member = member(nodeId);
        long startNanos = System.nanoTime();
        member.node.stop(member.controlledShutdown ? settings.controlledShutdownTimeout() : Duration.ZERO);
        LOG.info("Node {} stopped in {} ms", nodeId, millisSince(startNanos));
    }

    /**
     * Stops node {@code nodeId} as abruptly as the mode allows. Forked: SIGKILL. In-JVM: every connection
     * of the node drops at once, the controller is not told (it fences the broker when heartbeats stop),
     * and the next start recovers the logs as after a crash.
     */
    public synchronized void killBroker(int nodeId) {
        requireRunning();
        long startNanos = System.nanoTime();
        member(nodeId).node.kill();
        LOG.info("Node {} killed in {} ms", nodeId, millisSince(startNanos));
    }

    /**
     * Starts node {@code nodeId} again with the same id, directories and ports, after stopping it cleanly
     * if it still runs; returns once a broker is visible to clients again.
     */
    public synchronized void restartBroker(int nodeId) {
        requireRunning();
        Member member = member(nodeId);
        long startNanos = System.nanoTime();
        if (member.node.isRunning()) {
            member.node.stop(member.controlledShutdown ? settings.controlledShutdownTimeout() : Duration.ZERO);
        }
        try {
            member.node.start(settings.startTimeout());
        } catch (Exception e) {
            throw new IllegalStateException("cannot restart node " + nodeId + ": " + e.getMessage(), e);
        }
        if (member.isBroker()) {
            awaitBrokers("broker " + nodeId + " to be visible again", visible -> visible.contains(nodeId), false);
        }
        LOG.info("Node {} restarted in {} ms", nodeId, millisSince(startNanos));
    }

    /**
     * Adds a broker-only node to the running cluster and returns its node id once it is visible to
     * clients. Its rack and per-node properties follow the builder's settings for that id.
     */
    public synchronized int addBroker() {
        requireRunning();
        int nodeId = nextBrokerId++;
        Member member = plan(nodeId, EnumSet.of(NodeRole.BROKER), null);
        members.put(nodeId, member);
        try {
            member.node.start(settings.startTimeout());
        } catch (Exception e) {
            member.node.kill();
            forget(member);
            throw new IllegalStateException("cannot add broker " + nodeId + ": " + e.getMessage(), e);
        }
        awaitBrokers("new broker " + nodeId + " to be visible", visible -> visible.contains(nodeId), false);
        return nodeId;
    }

    /**
     * Removes broker-only node {@code nodeId}: controlled shutdown, then unregistration from the
     * controller (so it is gone from the cluster metadata, fenced or not), then deletion of its files.
     * Quorum voters cannot be removed.
     */
    public synchronized void removeBroker(int nodeId) {
        requireRunning();
        Member member = member(nodeId);
        if (!member.isBroker() || member.roles.contains(NodeRole.CONTROLLER)) {
            throw new IllegalArgumentException("node " + nodeId + " is a controller (quorum voter); only broker-only "
                + "nodes can be removed. Controllers: " + controllerIds() + ", brokers: " + brokerIds());
        }
        member.node.stop(member.controlledShutdown ? settings.controlledShutdownTimeout() : Duration.ZERO);
        try {
            admin().unregisterBroker(nodeId).all().get(settings.startTimeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("cannot unregister broker " + nodeId + ": " + e.getMessage(), e);
        }
        awaitBrokers("broker " + nodeId + " to leave the cluster metadata", visible -> !visible.contains(nodeId), true);
        forget(member);
    }

    private void forget(Member member) {
        members.remove(member.nodeId);
        ports.release(member.nodeId);
        try {
            Utils.delete(member.directory.toFile());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + member.directory, e);
        }
    }

    // ------------------------------------------------------------------------------------------------
    // Addresses and identity

    public synchronized String clusterId() {
        requireStarted();
        return clusterId;
    }

    /** {@code 127.0.0.1:p1,127.0.0.1:p2,...}: the bound addresses of every broker's default listener. */
    public String bootstrapServers() {
        return bootstrapServers(settings.defaultListener().name());
    }

    /** The bound addresses of every broker (running or not) for {@code listener}. */
    public synchronized String bootstrapServers(String listener) {
        requireStarted();
        String name = listenerDefinition(listener).name();
        return members.values().stream()
            .filter(Member::isBroker)
            .map(m -> HOST + ":" + m.ports.get(name))
            .collect(Collectors.joining(","));
    }

    /** Node ids of the brokers that are members of the cluster (running or stopped), ascending. */
    public synchronized List<Integer> brokerIds() {
        return members.values().stream().filter(Member::isBroker).map(m -> m.nodeId).toList();
    }

    /** Node ids of the controller quorum's voters, ascending. */
    public synchronized List<Integer> controllerIds() {
        return members.values().stream()
            .filter(m -> m.roles.contains(NodeRole.CONTROLLER))
            .map(m -> m.nodeId)
            .toList();
    }

    /** Number of nodes: brokers plus dedicated controllers. */
    public synchronized int nodeCount() {
        return members.size();
    }

    public synchronized boolean isRunning(int nodeId) {
        return member(nodeId).node.isRunning();
    }

    /** {@code 127.0.0.1:port} of broker {@code nodeId}'s default listener. */
    public String brokerAddress(int nodeId) {
        return brokerAddress(nodeId, settings.defaultListener().name());
    }

    /** {@code 127.0.0.1:port} that broker {@code nodeId} binds for {@code listener}. */
    public synchronized String brokerAddress(int nodeId, String listener) {
        Member member = member(nodeId);
        Integer port = member.ports.get(listenerDefinition(listener).name());
        if (port == null) {
            throw new IllegalArgumentException("node " + nodeId + " is not a broker");
        }
        return HOST + ":" + port;
    }

    /** {@code 127.0.0.1:port} of the controller listener of voter {@code nodeId}. */
    public synchronized String controllerAddress(int nodeId) {
        Integer port = member(nodeId).ports.get(CONTROLLER_LISTENER);
        if (port == null) {
            throw new IllegalArgumentException("node " + nodeId + " is not a controller");
        }
        return HOST + ":" + port;
    }

    /** The operating-system process id of a running forked node; empty in-JVM or when stopped. */
    public synchronized OptionalLong pid(int nodeId) {
        return member(nodeId).node.pid();
    }

    /**
     * Bytes broker {@code nodeId} has written to clients on {@code listener} since the cluster started, as
     * the broker's own socket-server metrics count them (kept across restarts); in-JVM clusters only.
     * Give clients a listener of their own ({@link Builder#listener}, {@link Builder#interBrokerListener})
     * to leave replication out.
     */
    public synchronized long bytesSent(int nodeId, String listener) {
        return member(nodeId).node.bytesSent(listener);
    }

    /**
     * One of broker {@code nodeId}'s socket-server metrics for {@code listener}, summed over its network
     * processors, since the broker last started: {@code successful-reauthentication-total} (KIP-368),
     * {@code expired-connections-killed-count} (connections closed because their session expired), and
     * the others Kafka documents for that group; in-JVM clusters only.
     */
    public synchronized double socketServerMetric(int nodeId, String listener, String metric) {
        return member(nodeId).node.socketServerMetric(listener, metric);
    }

    /** Every port any node of this cluster was given, including nodes since removed. */
    public synchronized Set<Integer> usedPorts() {
        return ports == null ? Set.of() : ports.allPorts();
    }

    /** The directory holding every node's files; deleted by {@link #close()}. */
    public synchronized Path baseDirectory() {
        requireStarted();
        return baseDirectory;
    }

    public boolean isForked() {
        return settings.forked();
    }

    /**
     * Fatal faults reported by in-JVM nodes. A real broker halts its process on these; an in-JVM node
     * logs them, records them here and carries on, so a test can assert there were none.
     */
    public List<String> fatalFaults() {
        return List.copyOf(fatalFaults);
    }

    // ------------------------------------------------------------------------------------------------
    // Clients

    /**
     * Client settings for the default listener: {@code bootstrap.servers} and {@code security.protocol}.
     * A fresh mutable map each call.
     */
    public Map<String, Object> clientConfig() {
        return clientConfig(settings.defaultListener().name());
    }

    /** Client settings for {@code listener}: {@code bootstrap.servers} and {@code security.protocol}. */
    public Map<String, Object> clientConfig(String listener) {
        Map<String, Object> config = new HashMap<>();
        config.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers(listener));
        config.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, listenerDefinition(listener).protocol().name);
        return config;
    }

    public Map<String, Object> adminConfig() {
        return clientConfig();
    }

    public Map<String, Object> producerConfig() {
        return clientConfig();
    }

    /** Consumer settings without a group: reads from the earliest offset. */
    public Map<String, Object> consumerConfig() {
        Map<String, Object> config = clientConfig();
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        return config;
    }

    /** Consumer settings for group {@code groupId}, reading from the earliest offset. */
    public Map<String, Object> consumerConfig(String groupId) {
        Map<String, Object> config = consumerConfig();
        config.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
        return config;
    }

    /** An admin client owned by this cluster (do not close it); closed by {@link #close()}. */
    public synchronized Admin admin() {
        requireRunning();
        if (admin == null) {
            Map<String, Object> config = adminConfig();
            config.put(AdminClientConfig.CLIENT_ID_CONFIG, "weft-testkit-admin-" + clusterId);
            config.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
            config.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30_000);
            admin = Admin.create(config);
        }
        return admin;
    }

    /** Creates a topic and returns once every partition has a leader. */
    public void createTopic(String name, int partitions, int replicationFactor) {
        createTopic(name, partitions, replicationFactor, Map.of());
    }

    /** Creates a topic with topic-level configs and returns once every partition has a leader. */
    public void createTopic(String name, int partitions, int replicationFactor, Map<String, String> configs) {
        Admin client = admin();
        NewTopic topic = new NewTopic(name, partitions, (short) replicationFactor).configs(configs);
        try {
            client.createTopics(List.of(topic)).all().get(settings.startTimeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new IllegalStateException("cannot create topic " + name + ": " + e.getCause().getMessage(), e.getCause());
        } catch (Exception e) {
            throw new IllegalStateException("cannot create topic " + name + ": " + e.getMessage(), e);
        }
        awaitLeaders(name, partitions);
    }

    /** Returns once topic {@code name} has {@code partitions} partitions, each with a leader. */
    public void awaitLeaders(String name, int partitions) {
        Admin client = admin();
        Await.until(settings.startTimeout(), "leaders for every partition of " + name, () -> {
            TopicDescription description = client.describeTopics(List.of(name)).allTopicNames()
                .get(10, TimeUnit.SECONDS).get(name);
            List<TopicPartitionInfo> infos = description.partitions();
            return infos.size() == partitions
                && infos.stream().allMatch(p -> p.leader() != null && !p.leader().isEmpty());
        });
        // Admin asked one broker; make sure every running broker knows the topic before callers use it
        // through any of them (plaintext default listener only; other listeners keep the check above).
        if (settings.defaultListener().protocol() == org.apache.kafka.common.security.auth.SecurityProtocol.PLAINTEXT) {
            Await.until(settings.startTimeout(), "every broker to know " + name, () -> {
                for (int id : brokerIds()) {
                    if (isRunning(id) && !BrokerMetadataProbe.knows(brokerAddress(id), name, partitions)) {
                        return false;
                    }
                }
                return true;
            });
        }
    }

    private void awaitBrokers(String what, Predicate<Set<Integer>> condition, boolean includeFenced) {
        Admin client = admin();
        DescribeClusterOptions options = new DescribeClusterOptions().includeFencedBrokers(includeFenced);
        Await.until(settings.startTimeout(), what, () -> {
            Collection<Node> nodes = client.describeCluster(options).nodes().get(10, TimeUnit.SECONDS);
            return condition.test(nodes.stream().map(Node::id).collect(Collectors.toSet()));
        });
    }

    // ------------------------------------------------------------------------------------------------
    // Node planning

    /** Reserves ports, writes the configuration, formats the directories and creates the node handle. */
    private Member plan(int nodeId, EnumSet<NodeRole> roles, Integer controllerPort) {
        Map<String, Integer> nodePorts = new LinkedHashMap<>();
        if (roles.contains(NodeRole.BROKER)) {
            for (ListenerDefinition listener : settings.listeners()) {
                nodePorts.put(listener.name(), ports.reserve(nodeId, listener.name()));
            }
        }
        if (roles.contains(NodeRole.CONTROLLER)) {
            nodePorts.put(CONTROLLER_LISTENER, controllerPort);
        }
        Path directory = baseDirectory.resolve("node-" + nodeId);
        Map<String, String> props = NodeConfigs.serverProperties(settings, quorumVoters, nodeId, roles, directory,
            nodePorts);
        boolean controlledShutdown = Boolean.parseBoolean(props.getOrDefault("controlled.shutdown.enable", "true"));
        props.put("controlled.shutdown.enable", "false");
        try {
            NodeConfigs.format(clusterId, nodeId, props);
            KafkaNode node = settings.forked()
                ? new ForkedNode(nodeId, NodeConfigs.writeProperties(directory, props), settings.forkOptions())
                : new EmbeddedNode(nodeId, props, faultHandlers(nodeId), ports.socketFactory(nodeId));
            return new Member(nodeId, roles, directory, Map.copyOf(nodePorts), controlledShutdown, node);
        } catch (Exception e) {
            throw new IllegalStateException("cannot prepare node " + nodeId + ": " + e.getMessage(), e);
        }
    }

    /** In-JVM fault handling: log, record fatal faults, never halt the JVM. */
    private FaultHandlerFactory faultHandlers(int nodeId) {
        return (name, fatal, action) -> new FaultHandler() {
            @Override
            public RuntimeException handleFault(String message, Throwable cause) {
                String text = "node " + nodeId + " (" + name + "): " + message;
                if (fatal) {
                    fatalFaults.add(text);
                    LOG.error("Fatal fault in {}; a real broker would halt here", text, cause);
                } else {
                    LOG.error("Fault in {}", text, cause);
                }
                try {
                    action.run();
                } catch (RuntimeException e) {
                    LOG.warn("Fault action of {} failed", name, e);
                }
                return new FaultHandlerException(text, cause);
            }
        };
    }

    // ------------------------------------------------------------------------------------------------
    // Helpers

    @FunctionalInterface
    private interface NodeAction {
        void apply(Member member) throws Exception;
    }

    /** Runs {@code action} on every member at once and rethrows the first failure. */
    private static void inParallel(String what, List<Member> group, NodeAction action) {
        if (group.isEmpty()) {
            return;
        }
        ExecutorService executor = Executors.newFixedThreadPool(group.size(),
            Thread.ofPlatform().name("weft-testkit-" + what + "-", 0).factory());
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (Member member : group) {
                futures.add(executor.submit(() -> {
                    action.apply(member);
                    return null;
                }));
            }
            Exception failure = null;
            for (int i = 0; i < futures.size(); i++) {
                try {
                    futures.get(i).get();
                } catch (ExecutionException e) {
                    Exception cause = e.getCause() instanceof Exception ex ? ex : e;
                    IllegalStateException wrapped = new IllegalStateException(
                        what + " node " + group.get(i).nodeId + ": " + cause.getMessage(), cause);
                    if (failure == null) {
                        failure = wrapped;
                    } else {
                        failure.addSuppressed(wrapped);
                    }
                }
            }
            if (failure != null) {
                throw (IllegalStateException) failure;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted during " + what, e);
        } finally {
            executor.shutdownNow();
            try {
                if (!executor.awaitTermination(1, TimeUnit.MINUTES)) {
                    LOG.warn("Node {} threads did not finish", what);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static long millisSince(long startNanos) {
        return Duration.ofNanos(System.nanoTime() - startNanos).toMillis();
    }

    private Member member(int nodeId) {
        Member member = members.get(nodeId);
        if (member == null) {
            throw new IllegalArgumentException("no node " + nodeId + " in this cluster; nodes: " + members.keySet());
        }
        return member;
    }

    private ListenerDefinition listenerDefinition(String name) {
        String normalised = name.toUpperCase(Locale.ROOT);
        return settings.listeners().stream()
            .filter(l -> l.name().equals(normalised))
            .findFirst()
            .orElseThrow(() -> new IllegalArgumentException("no listener " + name + "; listeners: "
                + settings.listeners().stream().map(ListenerDefinition::name).toList()));
    }

    private void requireRunning() {
        if (state != State.RUNNING) {
            throw new IllegalStateException("the cluster is " + state + ", not RUNNING");
        }
    }

    private void requireStarted() {
        if (state == State.NEW) {
            throw new IllegalStateException("the cluster has not been started");
        }
    }

    @Override
    public synchronized String toString() {
        return "KafkaCluster[" + (clusterId == null ? "not started" : clusterId) + ", " + state
            + ", nodes " + members.keySet() + (settings.forked() ? ", forked]" : "]");
    }

    /** A node of the cluster and what was decided for it at planning time. */
    private static final class Member {
        final int nodeId;
        final Set<NodeRole> roles;
        final Path directory;
        /** Listener name to port. */
        final Map<String, Integer> ports;
        /** Whether {@link #stopBroker} runs a controlled shutdown (the node's controlled.shutdown.enable). */
        final boolean controlledShutdown;
        final KafkaNode node;

        Member(int nodeId, Set<NodeRole> roles, Path directory, Map<String, Integer> ports,
               boolean controlledShutdown, KafkaNode node) {
            this.nodeId = nodeId;
            this.roles = Set.copyOf(roles);
            this.directory = directory;
            this.ports = ports;
            this.controlledShutdown = controlledShutdown;
            this.node = node;
        }

        boolean isBroker() {
            return roles.contains(NodeRole.BROKER);
        }
    }

    /** The {@code host:port} a broker advertises for a listener. */
    @FunctionalInterface
    public interface AdvertisedAddress {
        /**
         * @param nodeId    the broker's node id
         * @param boundPort the port the broker binds for the listener (on 127.0.0.1)
         * @return {@code host:port} to advertise
         */
        String hostPort(int nodeId, int boundPort);
    }

    /** Builds a {@link KafkaCluster}; {@link #build()} only validates, {@link KafkaCluster#start()} starts. */
    public static final class Builder {
        private int brokers = 1;
        private int dedicatedControllers;
        private IntFunction<String> rack;
        private final Map<String, String> nodeProperties = new LinkedHashMap<>();
        private final Map<Integer, Map<String, String>> perNodeProperties = new HashMap<>();
        private final Map<String, SecurityProtocol> listeners = new LinkedHashMap<>();
        private final Map<String, AdvertisedAddress> advertised = new HashMap<>();
        private String interBrokerListener;
        private boolean forked;
        private String heap = "512m";
        private final List<String> jvmArgs = new ArrayList<>();
        private String classPath;
        private Path baseDirectoryParent;
        private boolean deleteOnClose = true;
        private Duration startTimeout = Duration.ofMinutes(2);
        private Duration controlledShutdownTimeout = Duration.ofSeconds(30);
        private String clusterId;

        private Builder() {
        }

        /** Number of brokers at start (node ids {@code 0..count-1}); default 1. */
        public Builder brokers(int count) {
            if (count < 1) {
                throw new IllegalArgumentException("brokers must be at least 1, got " + count);
            }
            this.brokers = count;
            return this;
        }

        /**
         * Runs the controller quorum on {@code count} controller-only nodes (ids from
         * {@value #FIRST_DEDICATED_CONTROLLER_ID}) instead of combining it with the first brokers.
         * 0 (the default) means combined.
         */
        public Builder dedicatedControllers(int count) {
            if (count < 0) {
                throw new IllegalArgumentException("dedicatedControllers must not be negative, got " + count);
            }
            this.dedicatedControllers = count;
            return this;
        }

        /** {@code broker.rack} of each broker by node id (brokers added later too); null means none. */
        public Builder rack(IntFunction<String> rackOfBroker) {
            this.rack = rackOfBroker;
            return this;
        }

        /**
         * A server property for every node (controllers included, so listener and security settings stay
         * consistent); overrides the testkit's defaults.
         */
        public Builder brokerProperty(String key, String value) {
            nodeProperties.put(key, value);
            return this;
        }

        /** {@link #brokerProperty(String, String)} for each entry. */
        public Builder brokerProperties(Map<String, String> properties) {
            nodeProperties.putAll(properties);
            return this;
        }

        /** A server property for node {@code nodeId} only; overrides everything else. */
        public Builder brokerProperty(int nodeId, String key, String value) {
            perNodeProperties.computeIfAbsent(nodeId, id -> new LinkedHashMap<>()).put(key, value);
            return this;
        }

        /**
         * Adds a client-facing broker listener bound on 127.0.0.1 with a free port. The first listener
         * added is the default one; without any, the cluster has {@value #DEFAULT_LISTENER} (PLAINTEXT).
         * Security settings such as {@code listener.name.<name>.sasl.enabled.mechanisms} go through
         * {@link #brokerProperty(String, String)}.
         */
        public Builder listener(String name, SecurityProtocol protocol) {
            String normalised = name.toUpperCase(Locale.ROOT);
            if (!LISTENER_NAME.matcher(normalised).matches() || normalised.equals(CONTROLLER_LISTENER)) {
                throw new IllegalArgumentException("invalid listener name " + name);
            }
            if (listeners.put(normalised, protocol) != null) {
                throw new IllegalArgumentException("listener " + name + " declared twice");
            }
            return this;
        }

        /**
         * Makes each broker advertise {@code address.hostPort(nodeId, boundPort)} for {@code listener}
         * instead of its bound address: for a proxy placed in front of the brokers, say
         * {@code (id, port) -> "proxy.local:" + (19092 + id)}.
         */
        public Builder advertisedAddress(String listener, AdvertisedAddress address) {
            advertised.put(listener.toUpperCase(Locale.ROOT), address);
            return this;
        }

        /** The listener brokers replicate over; default: the first listener. */
        public Builder interBrokerListener(String name) {
            this.interBrokerListener = name.toUpperCase(Locale.ROOT);
            return this;
        }

        /** Runs every node in a JVM of its own (see {@link ForkedClusterMain}); default false. */
        public Builder forked(boolean forked) {
            this.forked = forked;
            return this;
        }

        /** {@code -Xmx} of each forked node, such as {@code 1g}; default {@code 512m}. */
        public Builder heap(String maxHeap) {
            if (!maxHeap.matches("\\d+[kKmMgG]?")) {
                throw new IllegalArgumentException("heap must look like 512m or 2g, got " + maxHeap);
            }
            this.heap = maxHeap;
            return this;
        }

        /** Extra JVM options for forked nodes. */
        public Builder jvmArgs(String... args) {
            jvmArgs.addAll(List.of(args));
            return this;
        }

        /** Class path of forked nodes; default: this JVM's {@code java.class.path}. */
        public Builder classPath(String classPath) {
            this.classPath = classPath;
            return this;
        }

        /** Where the cluster's temporary directory is created; default: {@code java.io.tmpdir}. */
        public Builder baseDirectory(Path parent) {
            this.baseDirectoryParent = parent;
            return this;
        }

        /** Whether {@link KafkaCluster#close()} deletes the cluster's files (default true). */
        public Builder deleteOnClose(boolean delete) {
            this.deleteOnClose = delete;
            return this;
        }

        /** Bound on starting nodes, waiting for brokers and topic leaders; default 2 minutes. */
        public Builder startTimeout(Duration timeout) {
            this.startTimeout = timeout;
            return this;
        }

        /** How long {@code stopBroker}/{@code removeBroker} wait for controlled shutdown; default 30 s. */
        public Builder controlledShutdownTimeout(Duration timeout) {
            this.controlledShutdownTimeout = timeout;
            return this;
        }

        /** A fixed cluster id (22-character base64 UUID); default: a fresh random one. */
        public Builder clusterId(String id) {
            Uuid.fromString(id);
            this.clusterId = id;
            return this;
        }

        /** Validates the settings and returns an unstarted cluster. */
        public KafkaCluster build() {
            Map<String, SecurityProtocol> declared = new LinkedHashMap<>(listeners);
            if (declared.isEmpty()) {
                declared.put(DEFAULT_LISTENER, SecurityProtocol.PLAINTEXT);
            }
            for (String name : advertised.keySet()) {
                if (!declared.containsKey(name)) {
                    throw new IllegalArgumentException("advertisedAddress for unknown listener " + name
                        + "; listeners: " + declared.keySet());
                }
            }
            String interBroker = interBrokerListener == null ? declared.keySet().iterator().next() : interBrokerListener;
            if (!declared.containsKey(interBroker)) {
                throw new IllegalArgumentException("inter-broker listener " + interBroker + " is not a listener; "
                    + "listeners: " + declared.keySet());
            }
            List<ListenerDefinition> definitions = declared.entrySet().stream()
                .map(e -> new ListenerDefinition(e.getKey(), e.getValue(), advertised.get(e.getKey())))
                .toList();
            Map<Integer, Map<String, String>> perNode = new HashMap<>();
            perNodeProperties.forEach((id, props) -> perNode.put(id, Map.copyOf(props)));
            ForkOptions forkOptions = new ForkOptions(ForkOptions.currentJavaCommand(),
                classPath != null ? classPath : System.getProperty("java.class.path"), heap, jvmArgs);
            return new KafkaCluster(new ClusterSettings(brokers, dedicatedControllers, rack,
                nodeProperties, perNode, definitions, interBroker, forked,
                forkOptions, baseDirectoryParent, deleteOnClose, startTimeout, controlledShutdownTimeout,
                clusterId));
        }
    }
}
