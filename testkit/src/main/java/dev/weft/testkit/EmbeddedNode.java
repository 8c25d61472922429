package dev.weft.testkit;

import kafka.server.BrokerServer;
import kafka.server.ControllerServer;
import kafka.server.FaultHandlerFactory;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import kafka.server.Server;
import kafka.server.SharedServer;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.bootstrap.BootstrapMetadata;
import org.apache.kafka.metadata.properties.MetaPropertiesEnsemble;
import org.apache.kafka.raft.QuorumConfig;
import org.apache.kafka.server.ServerSocketFactory;
import org.apache.kafka.storage.internals.checkpoint.CleanShutdownFileHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A KRaft node running in this JVM, assembled the way {@code kafka.server.KafkaRaftServer} assembles
 * one ({@link SharedServer} plus a {@link ControllerServer} and/or a {@link BrokerServer}), with two
 * differences: listening sockets come from a {@link ServerSocketFactory} (so reserved ports are used
 * without a bind race) and faults are reported through a {@link FaultHandlerFactory} instead of halting
 * the JVM.
 *
 * <p>The node's configuration always carries {@code controlled.shutdown.enable=false}: this class runs
 * the controlled-shutdown handshake itself in {@link #stop(Duration)} when asked to, which is what lets
 * {@link #kill()} skip it.
 */
final class EmbeddedNode implements KafkaNode {

    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedNode.class);

    private final int nodeId;
    private final Map<String, String> serverProperties;
    private final FaultHandlerFactory faultHandlers;
    private final ServerSocketFactory socketFactory;

    private SharedServer shared;
    private ControllerServer controller;
    private BrokerServer broker;
    private Metrics metrics;
    /** Bytes each listener sent before the current start (a start makes new metrics). */
    private final Map<String, Long> bytesSentBefore = new java.util.HashMap<>();
    private boolean running;

    EmbeddedNode(int nodeId, Map<String, String> serverProperties, FaultHandlerFactory faultHandlers,
                 ServerSocketFactory socketFactory) {
        this.nodeId = nodeId;
        this.serverProperties = Map.copyOf(serverProperties);
        this.faultHandlers = faultHandlers;
        this.socketFactory = socketFactory;
    }

    @Override
    public int nodeId() {
        return nodeId;
    }

    @Override
    public synchronized void start(Duration timeout) {
        if (running) {
            throw new IllegalStateException("node " + nodeId + " is already running");
        }
        // server.max.startup.time.ms (set by KafkaCluster from the same timeout) bounds the broker's wait.
        KafkaConfig config = new KafkaConfig(serverProperties, false);
        var logDirs = KafkaRaftServer.initializeLogDirs(config, LOG, "[testkit node " + nodeId + "] ");
        MetaPropertiesEnsemble ensemble = logDirs._1();
        BootstrapMetadata bootstrap = logDirs._2();
        metrics = Server.initializeMetrics(config, Time.SYSTEM, ensemble.clusterId().orElseThrow());
        shared = new SharedServer(config, ensemble, Time.SYSTEM, metrics,
            CompletableFuture.completedFuture(QuorumConfig.parseVoterConnections(config.quorumConfig().voters())),
            QuorumConfig.parseBootstrapServers(config.quorumConfig().bootstrapServers()),
            faultHandlers, socketFactory);
        try {
            if (serverProperties.get("process.roles").contains(NodeRole.CONTROLLER.processRole())) {
                controller = new ControllerServer(shared, KafkaRaftServer.configSchema(), bootstrap);
            }
            if (serverProperties.get("process.roles").contains(NodeRole.BROKER.processRole())) {
                broker = new BrokerServer(shared);
            }
            // Same order as KafkaRaftServer: the controller first, so the broker finds its endpoints.
            if (controller != null) {
                controller.startup();
            }
            if (broker != null) {
                broker.startup();
            }
            running = true;
        } catch (RuntimeException | Error e) {
            shutdownParts();
            throw e;
        }
    }

    @Override
    public synchronized void stop(Duration controlledShutdownTimeout) {
        if (!running) {
            return;
        }
        if (broker != null && controlledShutdownTimeout.isPositive()) {
            controlledShutdown(controlledShutdownTimeout);
        }
        shutdownParts();
    }

    /**
     * As abrupt as an in-JVM node can go: the socket servers stop first, so every client and peer
     * connection drops at once; the broker then shuts down without telling the controller (which
     * fences it when its heartbeats stop arriving, as for a crash); finally the clean-shutdown
     * markers are deleted, so the next start recovers the logs as after a crash.
     */
    @Override
    public synchronized void kill() {
        if (!running) {
            return;
        }
        if (broker != null) {
            swallow("stop broker socket server", () -> broker.socketServer().stopProcessingRequests());
        }
        if (controller != null) {
            swallow("stop controller socket server", () -> controller.socketServer().stopProcessingRequests());
        }
        shutdownParts();
        deleteCleanShutdownMarkers();
    }

    @Override
    public synchronized boolean isRunning() {
        return running;
    }

    @Override
    public OptionalLong pid() {
        return OptionalLong.empty();
    }

    /** The same handshake BrokerServer.shutdown runs when controlled.shutdown.enable is true. */
    private void controlledShutdown(Duration timeout) {
        try {
            broker.replicaManager().beginControlledShutdown();
            broker.lifecycleManager().beginControlledShutdown();
            broker.lifecycleManager().controlledShutdownFuture().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            LOG.warn("Node {}: the controller did not approve controlled shutdown within {}; shutting down anyway",
                nodeId, timeout);
        } catch (ExecutionException | RuntimeException e) {
            LOG.warn("Node {}: controlled shutdown failed; shutting down anyway", nodeId, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            LOG.warn("Node {}: interrupted during controlled shutdown; shutting down anyway", nodeId);
        }
    }

    @Override
    public synchronized long bytesSent(String listener) {
        return bytesSentBefore.getOrDefault(listener, 0L) + bytesSentSinceStart(listener);
    }

    /** The node's own socket-server metric: bytes written to every connection of {@code listener}. */
    private long bytesSentSinceStart(String listener) {
        return (long) socketServerMetric(listener, "outgoing-byte-total");
    }

    @Override
    public synchronized double socketServerMetric(String listener, String metric) {
        if (metrics == null) {
            return 0;
        }
        double sum = 0;
        for (var e : metrics.metrics().entrySet()) {
            MetricName name = e.getKey();
            if (name.name().equals(metric) && name.group().equals("socket-server-metrics")
                    && listener.equals(name.tags().get("listener"))) {
                sum += ((Number) e.getValue().metricValue()).doubleValue();
            }
        }
        return sum;
    }

    /** Broker before controller, as KafkaRaftServer does: the raft client must outlive the broker. */
    private void shutdownParts() {
        if (metrics != null) {
            for (String listener : listenersWithBytes()) {
                bytesSentBefore.merge(listener, bytesSentSinceStart(listener), Long::sum);
            }
        }
        if (broker != null) {
            BrokerServer b = broker;
            swallow("broker shutdown", b::shutdown);
            swallow("broker await shutdown", b::awaitShutdown);
            broker = null;
        }
        if (controller != null) {
            ControllerServer c = controller;
            swallow("controller shutdown", c::shutdown);
            swallow("controller await shutdown", c::awaitShutdown);
            controller = null;
        }
        shared = null;
        metrics = null; // SharedServer closed it
        running = false;
    }

    private java.util.Set<String> listenersWithBytes() {
        java.util.Set<String> out = new java.util.HashSet<>();
        for (MetricName name : metrics.metrics().keySet()) {
            if (name.group().equals("socket-server-metrics") && name.tags().containsKey("listener")) {
                out.add(name.tags().get("listener"));
            }
        }
        return out;
    }

    private void deleteCleanShutdownMarkers() {
        List<String> dirs = new ArrayList<>(List.of(serverProperties.get("log.dirs").split(",")));
        dirs.add(serverProperties.get("metadata.log.dir"));
        for (String dir : dirs) {
            Path marker = Path.of(dir.trim(), CleanShutdownFileHandler.CLEAN_SHUTDOWN_FILE_NAME);
            try {
                Files.deleteIfExists(marker);
            } catch (IOException e) {
                LOG.warn("Node {}: cannot delete {}; the next start will not run crash recovery", nodeId, marker, e);
            }
        }
    }

    private void swallow(String what, Runnable action) {
        try {
            action.run();
        } catch (RuntimeException e) {
            LOG.warn("Node {}: {} failed", nodeId, what, e);
        }
    }

    @Override
    public String toString() {
        return "EmbeddedNode[" + nodeId + (running ? ", running]" : ", stopped]");
    }
}
