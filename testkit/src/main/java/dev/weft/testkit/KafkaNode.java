package dev.weft.testkit;

import java.time.Duration;
import java.util.OptionalLong;

/**
 * One KRaft node (broker, controller or both) of a {@link KafkaCluster}, running either in this JVM
 * ({@link EmbeddedNode}) or in a JVM of its own ({@link ForkedNode}). A node can be started again after
 * it was stopped or killed; it keeps its id, directories and ports.
 *
 * <p>Not thread-safe on its own: {@link KafkaCluster} serialises calls per cluster.
 */
sealed interface KafkaNode permits EmbeddedNode, ForkedNode {

    int nodeId();

    /** Starts the node and returns once it serves requests (a broker is registered and unfenced). */
    void start(Duration timeout) throws Exception;

    /**
     * Shuts the node down cleanly. A positive {@code controlledShutdownTimeout} first asks the
     * controller to move partition leadership away (controlled shutdown) and waits up to that long for
     * it; {@link Duration#ZERO} skips that step, which is what closing a whole cluster wants.
     */
    void stop(Duration controlledShutdownTimeout);

    /** Stops the node as abruptly as the mode allows: SIGKILL for a forked node. */
    void kill();

    boolean isRunning();

    /**
     * Bytes the node has written to the connections of client listener {@code listener} since it was
     * first started (the broker's own {@code socket-server-metrics outgoing-byte-total}, summed over its
     * network threads and kept across restarts): what the node served to clients on it, replication
     * excluded when replication uses another listener.
     *
     * @throws UnsupportedOperationException for a forked node (its metrics live in its own JVM)
     */
    long bytesSent(String listener);

    /**
     * One of the node's socket-server metrics for {@code listener}, summed over its network processors,
     * since it last started ({@code successful-reauthentication-total}, {@code expired-connections-killed-count}).
     */
    double socketServerMetric(String listener, String metric);

    /** The operating-system process id of a forked node while it runs; empty for an in-JVM node. */
    OptionalLong pid();
}
