package dev.weft.testkit;

import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.metadata.storage.Formatter;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/** Server properties of a node, its storage formatting, and its properties file for forked mode. */
final class NodeConfigs {

    private NodeConfigs() {
    }

    /**
     * The complete server properties of node {@code nodeId}: testkit defaults, then what its roles,
     * listeners, directories and rack require, then the builder's properties for every node, then those
     * for this node.
     *
     * @param ports listener name to port, for the listeners this node binds
     */
    static Map<String, String> serverProperties(ClusterSettings settings, String quorumVoters, int nodeId,
                                                Set<NodeRole> roles, Path directory, Map<String, Integer> ports) {
        boolean broker = roles.contains(NodeRole.BROKER);
        boolean controller = roles.contains(NodeRole.CONTROLLER);
        Map<String, String> props = new LinkedHashMap<>(fastDefaults(settings.brokers()));
        props.put("process.roles", roles.stream().sorted().map(NodeRole::processRole).collect(Collectors.joining(",")));
        props.put("node.id", Integer.toString(nodeId));
        props.put("controller.quorum.voters", quorumVoters);
        props.put("controller.listener.names", KafkaCluster.CONTROLLER_LISTENER);
        List<String> listeners = new ArrayList<>();
        List<String> advertised = new ArrayList<>();
        List<String> protocols = new ArrayList<>();
        for (ListenerDefinition listener : settings.listeners()) {
            protocols.add(listener.name() + ":" + listener.protocol().name);
            if (broker) {
                int port = ports.get(listener.name());
                listeners.add(listener.name() + "://" + KafkaCluster.HOST + ":" + port);
                advertised.add(listener.name() + "://" + listener.advertisedAddress(nodeId, KafkaCluster.HOST, port));
            }
        }
        protocols.add(KafkaCluster.CONTROLLER_LISTENER + ":" + SecurityProtocol.PLAINTEXT.name);
        if (controller) {
            listeners.add(KafkaCluster.CONTROLLER_LISTENER + "://" + KafkaCluster.HOST + ":"
                + ports.get(KafkaCluster.CONTROLLER_LISTENER));
        }
        props.put("listeners", String.join(",", listeners));
        props.put("listener.security.protocol.map", String.join(",", protocols));
        Path metadataDirectory = directory.resolve("meta");
        props.put("metadata.log.dir", metadataDirectory.toString());
        if (broker) {
            props.put("advertised.listeners", String.join(",", advertised));
            props.put("inter.broker.listener.name", settings.interBrokerListener());
            props.put("log.dirs", directory.resolve("logs").toString());
            String rack = settings.rack() == null ? null : settings.rack().apply(nodeId);
            if (rack != null) {
                props.put("broker.rack", rack);
            }
        } else {
            props.put("log.dirs", metadataDirectory.toString());
        }
        props.put("server.max.startup.time.ms", Long.toString(settings.startTimeout().toMillis()));
        props.putAll(settings.nodeProperties());
        props.putAll(settings.perNodeProperties().getOrDefault(nodeId, Map.of()));
        return props;
    }

    /**
     * Settings that make small clusters start, rebalance and notice failures quickly; every one can be
     * overridden with {@link KafkaCluster.Builder#brokerProperty(String, String)}.
     */
    static Map<String, String> fastDefaults(int brokers) {
        String replicas = Integer.toString(Math.min(3, brokers));
        String minIsr = Integer.toString(Math.min(2, brokers));
        Map<String, String> defaults = new LinkedHashMap<>();
        defaults.put("offsets.topic.replication.factor", replicas);
        defaults.put("offsets.topic.num.partitions", "10");
        defaults.put("transaction.state.log.replication.factor", replicas);
        defaults.put("transaction.state.log.min.isr", minIsr);
        defaults.put("transaction.state.log.num.partitions", "10");
        defaults.put("share.coordinator.state.topic.replication.factor", replicas);
        defaults.put("share.coordinator.state.topic.min.isr", minIsr);
        defaults.put("share.coordinator.state.topic.num.partitions", "10");
        defaults.put("group.initial.rebalance.delay.ms", "0");
        // The cleaner's dedupe buffer is allocated up front: 128 MiB by default, per broker.
        defaults.put("log.cleaner.dedupe.buffer.size", Integer.toString(2 * 1024 * 1024));
        // Notice a dead broker after ~6 s instead of 9, with heartbeats frequent enough not to flap.
        defaults.put("broker.heartbeat.interval.ms", "500");
        defaults.put("broker.session.timeout.ms", "6000");
        return defaults;
    }

    /** Formats the node's directories with Kafka's own storage formatter (what kafka-storage.sh runs). */
    static void format(String clusterId, int nodeId, Map<String, String> props) throws Exception {
        List<String> directories = new ArrayList<>(List.of(props.get("log.dirs").split(",")));
        String metadataDirectory = props.get("metadata.log.dir");
        if (!directories.contains(metadataDirectory)) {
            directories.add(metadataDirectory);
        }
        new Formatter()
            .setPrintStream(new PrintStream(OutputStream.nullOutputStream(), false, StandardCharsets.UTF_8))
            .setNodeId(nodeId)
            .setClusterId(clusterId)
            .setDirectories(directories)
            .setMetadataLogDirectory(metadataDirectory)
            .setControllerListenerName(KafkaCluster.CONTROLLER_LISTENER)
            .run();
    }

    /** Writes {@code props} as {@code server.properties} in {@code directory} and returns the file. */
    static Path writeProperties(Path directory, Map<String, String> props) throws IOException {
        java.util.Properties properties = new java.util.Properties();
        properties.putAll(props);
        Path file = directory.resolve("server.properties");
        try (Writer out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            properties.store(out, "Written by dev.weft.testkit.KafkaCluster");
        }
        return file;
    }
}
