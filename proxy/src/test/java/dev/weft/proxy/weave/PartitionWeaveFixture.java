package dev.weft.proxy.weave;

import dev.weft.proxy.config.ConfigException;
import dev.weft.proxy.config.ConfigLoader;
import dev.weft.proxy.gateway.GatewayBindException;
import dev.weft.proxy.net.FreePorts;
import dev.weft.proxy.server.WeftProxy;
import dev.weft.proxy.testing.Poll;
import dev.weft.testkit.KafkaCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Configs and direct reads for the partition-weave end-to-end tests ({@link PartitionWeaveTest}): Weft
 * started on free ports with a partition-weave router {@code orders-weave} (routes {@code east}, {@code
 * west}) serving logical topic {@code orders} = east {@code orders} 0-2 (virtual 0-2) + west {@code
 * orders-eu} 0-1 (virtual 3-4), in the mirrored (port per broker) or collapsed topology, alone or under a
 * topic-weave router next to a third cluster.
 */
final class PartitionWeaveFixture {

    /** Mirrored gateways serve node ids 0..NODE_IDS-1. */
    static final int NODE_IDS = 32;

    private PartitionWeaveFixture() {
    }

    /** One segment of the logical topic: virtual partition {@code virtual} is {@code topic}-{@code partition} on {@code route}. */
    record Physical(int route, String topic, int partition) {
    }

    /** The physical partition behind virtual partition {@code p} of {@code orders} (the fixture's segments). */
    static Physical physical(int p) {
        if (p < 0 || p > 4) {
            throw new IllegalArgumentException("no virtual partition " + p);
        }
        return p < 3 ? new Physical(0, "orders", p) : new Physical(1, "orders-eu", p - 3);
    }

    /**
     * {@code clusters:} (east, west) and the {@code orders-weave} router: logical topic {@code orders} of east's
     * {@code orders} 0-2 followed by {@code westSegment} (a YAML flow map, normally {@link #WEST_SEGMENT}).
     */
    static String clustersAndRouter(KafkaCluster east, KafkaCluster west, String westSegment) {
        return "clusters:\n"
                + "  east: { bootstrap: \"" + east.bootstrapServers() + "\" }\n"
                + "  west: { bootstrap: \"" + west.bootstrapServers() + "\" }\n"
                + "routers:\n"
                + "  orders-weave:\n"
                + "    type: partition-weave\n"
                + "    routes:\n"
                + "      - { name: east, target: { cluster: east } }\n"
                + "      - { name: west, target: { cluster: west } }\n"
                + "    topics:\n"
                + "      orders:\n"
                + "        - { route: east, topic: orders, partitions: 0-2 }\n"
                + "        - " + westSegment + "\n";
    }

    static final String WEST_SEGMENT = "{ route: west, topic: orders-eu, partitions: 0-1 }";

    /** The mirrored config (default topology) of virtual cluster {@code main} over {@code orders-weave}. */
    static String mirroredYaml(KafkaCluster east, KafkaCluster west, String westSegment, int port) {
        return "server: { eventLoops: 2 }\n"
                + "admin: { bind: \"127.0.0.1:0\" }\n"
                + clustersAndRouter(east, west, westSegment)
                + "virtualClusters:\n"
                + "  main:\n"
                + "    target: { router: orders-weave }\n"
                + "    gateways:\n"
                + "      - { name: plain, bind: \"127.0.0.1:" + port + "\", brokerPorts: { start: " + (port + 1)
                + ", nodeIds: \"0-" + (NODE_IDS - 1) + "\" } }\n";
    }

    /** The collapsed config: {@code nodes} proxy nodes with ids from 100 at {@code port}, {@code port + 1}, ... */
    static String collapsedYaml(KafkaCluster east, KafkaCluster west, int nodes, int port) {
        StringBuilder y = new StringBuilder("server: { eventLoops: 2 }\n")
                .append("admin: { bind: \"127.0.0.1:0\" }\n")
                .append(clustersAndRouter(east, west, WEST_SEGMENT))
                .append("virtualClusters:\n  main:\n    target: { router: orders-weave }\n    topology: collapsed\n    nodes:\n");
        for (int i = 0; i < nodes; i++) {
            y.append("      - { id: ").append(100 + i).append(", address: \"127.0.0.1:").append(port + i).append("\" }\n");
        }
        y.append("    gateways:\n");
        for (int i = 0; i < nodes; i++) {
            y.append("      - { name: n").append(100 + i).append(", bind: \"127.0.0.1:").append(port + i).append("\" }\n");
        }
        return y.toString();
    }

    /**
     * Composition: topic-weave router {@code top} with route {@code woven} (router {@code orders-weave})
     * and route {@code plain} (cluster {@code third}), mirrored.
     */
    static String composedYaml(KafkaCluster east, KafkaCluster west, KafkaCluster third, int port) {
        String base = clustersAndRouter(east, west, WEST_SEGMENT);
        base = base.replace("routers:\n", "  third: { bootstrap: \"" + third.bootstrapServers() + "\" }\n"
                + "routers:\n"
                + "  top:\n"
                + "    type: topic-weave\n"
                + "    routes:\n"
                + "      - { name: woven, target: { router: orders-weave } }\n"
                + "      - { name: plain, target: { cluster: third } }\n");
        return "server: { eventLoops: 2 }\n"
                + "admin: { bind: \"127.0.0.1:0\" }\n"
                + base
                + "virtualClusters:\n"
                + "  main:\n"
                + "    target: { router: top }\n"
                + "    gateways:\n"
                + "      - { name: plain, bind: \"127.0.0.1:" + port + "\", brokerPorts: { start: " + (port + 1)
                + ", nodeIds: \"0-" + (NODE_IDS - 1) + "\" } }\n";
    }

    /** How a config is made from its first port. */
    interface Config {
        String yaml(int port);
    }

    /** Starts Weft with {@code config} on a free range of {@code ports} ports; retried on a port taken meanwhile. */
    static WeftProxy start(Config config, int ports) {
        RuntimeException last = null;
        for (int attempt = 0; attempt < 5; attempt++) {
            int port = FreePorts.randomRange(ports);
            String yaml = config.yaml(port);
            try {
                return WeftProxy.start(ConfigLoader.parse(yaml, "partition-weave test config"));
            } catch (GatewayBindException e) {
                last = e;
            } catch (ConfigException e) {
                throw new AssertionError("Weft refused the config:\n" + yaml + "\n" + e.getMessage(), e);
            }
        }
        throw last;
    }

    static WeftProxy startMirrored(KafkaCluster east, KafkaCluster west) {
        return start(port -> mirroredYaml(east, west, WEST_SEGMENT, port), NODE_IDS + 1);
    }

    /** Earliest and latest offsets of a partition read directly on {@code cluster}: [earliest, latest]. */
    static long[] watermarks(KafkaCluster cluster, String topic, int partition) throws Exception {
        Admin admin = cluster.admin(); // the cluster's own client: not to be closed
        TopicPartition tp = new TopicPartition(topic, partition);
        long earliest = admin.listOffsets(Map.of(tp, OffsetSpec.earliest())).partitionResult(tp).get(30, TimeUnit.SECONDS).offset();
        long latest = admin.listOffsets(Map.of(tp, OffsetSpec.latest())).partitionResult(tp).get(30, TimeUnit.SECONDS).offset();
        return new long[] {earliest, latest};
    }

    static KafkaConsumer<String, String> plainConsumer(String bootstrap, Map<String, Object> extra) {
        Properties c = new Properties();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        c.put(ConsumerConfig.METADATA_MAX_AGE_CONFIG, 2000);
        c.putAll(extra);
        return new KafkaConsumer<>(c, new StringDeserializer(), new StringDeserializer());
    }

    /**
     * Every record of partitions {@code partitions} of {@code topic} at {@code bootstrap} (a cluster's own
     * bootstrap, or the proxy's), from the beginning to the end as it is now: assign() + seekToBeginning.
     *
     * @return offset → record, by partition
     */
    static Map<Integer, TreeMap<Long, ConsumerRecord<String, String>>> readPartitions(String bootstrap, String topic,
            List<Integer> partitions) {
        Map<Integer, TreeMap<Long, ConsumerRecord<String, String>>> out = new TreeMap<>();
        try (KafkaConsumer<String, String> c = plainConsumer(bootstrap, Map.of())) {
            List<TopicPartition> tps = new ArrayList<>();
            for (int p : partitions) {
                tps.add(new TopicPartition(topic, p));
                out.put(p, new TreeMap<>());
            }
            c.assign(tps);
            c.seekToBeginning(tps);
            Map<TopicPartition, Long> end = c.endOffsets(tps, Duration.ofSeconds(30));
            Map<TopicPartition, Long> position = new HashMap<>();
            Poll.until(Duration.ofSeconds(60), "reading " + topic + " " + partitions + " at " + bootstrap
                    + " to " + end, () -> {
                        for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(100))) {
                            out.get(r.partition()).put(r.offset(), r);
                        }
                        for (TopicPartition tp : tps) {
                            position.put(tp, c.position(tp, Duration.ofSeconds(10)));
                        }
                        return tps.stream().allMatch(tp -> position.get(tp) >= end.get(tp));
                    }, () -> "positions " + position);
        }
        return out;
    }

    /** The values of one physical partition, read directly on its cluster, in offset order. */
    static List<String> valuesDirectly(KafkaCluster cluster, String topic, int partition) {
        return readPartitions(cluster.bootstrapServers(), topic, List.of(partition)).get(partition).values().stream()
                .map(ConsumerRecord::value).toList();
    }
}
