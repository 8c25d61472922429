package dev.weft.testkit;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;

/**
 * What a {@link KafkaCluster.Builder} decided, frozen.
 *
 * @param nodeProperties     server properties for every node
 * @param perNodeProperties  server properties by node id, applied last
 * @param listeners          client-facing broker listeners, the default one first
 * @param baseDirectoryParent where the cluster directory is created; null for {@code java.io.tmpdir}
 * @param clusterId          a fixed cluster id, or null for a random one
 */
record ClusterSettings(
    int brokers,
    int dedicatedControllers,
    IntFunction<String> rack,
    Map<String, String> nodeProperties,
    Map<Integer, Map<String, String>> perNodeProperties,
    List<ListenerDefinition> listeners,
    String interBrokerListener,
    boolean forked,
    ForkOptions forkOptions,
    Path baseDirectoryParent,
    boolean deleteOnClose,
    Duration startTimeout,
    Duration controlledShutdownTimeout,
    String clusterId) {

    ClusterSettings {
        nodeProperties = Map.copyOf(nodeProperties);
        perNodeProperties = Map.copyOf(perNodeProperties);
        listeners = List.copyOf(listeners);
    }

    ListenerDefinition defaultListener() {
        return listeners.getFirst();
    }
}
