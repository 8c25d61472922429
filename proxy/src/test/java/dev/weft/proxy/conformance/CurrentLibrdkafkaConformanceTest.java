package dev.weft.proxy.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.proxy.server.WeftProxy;
import dev.weft.proxy.testing.ProxyFixture;
import dev.weft.proxy.testing.WeaveFixture;
import dev.weft.testkit.KafkaCluster;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A current librdkafka (2.15, bundled by npm {@code @confluentinc/kafka-javascript} and built from
 * source by {@code npm ci} in {@code src/test/rdkafka-js}; Debian's kcat and python confluent_kafka are
 * librdkafka 2.0) through every kind of virtual cluster ({@link Topology}): an idempotent acks=all
 * producer writes records to topics of the virtual cluster, then a consumer group reads them back.
 * Every record must arrive exactly once, byte-identical, in send order per partition, at the offsets the
 * producer was acknowledged and that the brokers hold (read there directly), and the group's offsets
 * must be committed to the end of every partition, on the real cluster that owns it.
 *
 * <p>Issue 9: librdkafka 2.x asks for all topics at Metadata v9+ with 3 bytes after the message (a
 * 4-byte count reserved, a 1-byte null written). The broker ignores them; Weft closed every woven
 * connection over them, so this test fails on a topic-woven virtual cluster without the fix.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class CurrentLibrdkafkaConformanceTest {

    private static final Duration TOOL_TIMEOUT = Duration.ofSeconds(120);

    /**
     * The kinds of virtual cluster a client may be given. A new kind is one more constant: what it
     * starts, and where each topic a client sees lives.
     */
    enum Topology {
        /** One real cluster of 3 brokers behind a virtual cluster that targets it (pass-through). */
        SINGLE_CLUSTER {
            @Override
            Deployment start() throws Exception {
                KafkaCluster kafka = KafkaCluster.builder().brokers(3).build();
                Deployment d = new Deployment(List.of(kafka));
                try {
                    kafka.start();
                    kafka.createTopic("rdkafka-single", 6, 3);
                    d.topics.add(new PlacedTopic("rdkafka-single", kafka, "rdkafka-single", 6));
                    d.proxy = ProxyFixture.startInFrontOf(kafka);
                    return d;
                } catch (Exception | Error e) {
                    d.close();
                    throw e;
                }
            }
        },
        /**
         * Two real clusters woven into one virtual cluster by a topic-weave router: "east" (route 0,
         * names as they are, the group's home) and "west" (route 1, every topic prefixed {@code w.}), one
         * topic on each, both produced to and consumed by one group.
         */
        TOPIC_WOVEN {
            @Override
            Deployment start() throws Exception {
                KafkaCluster east = KafkaCluster.builder().brokers(1).build();
                KafkaCluster west = KafkaCluster.builder().brokers(1).build();
                Deployment d = new Deployment(List.of(east, west));
                try {
                    east.start();
                    west.start();
                    east.createTopic("rdkafka-orders", 3, 1);
                    west.createTopic("rdkafka-payments", 4, 1);
                    d.topics.add(new PlacedTopic("rdkafka-orders", east, "rdkafka-orders", 3));
                    d.topics.add(new PlacedTopic("w.rdkafka-payments", west, "rdkafka-payments", 4));
                    d.proxy = WeaveFixture.start(List.of(east, west),
                            List.of("name: east", "name: west, naming: { prefix: \"w.\" }"), "");
                    return d;
                } catch (Exception | Error e) {
                    d.close();
                    throw e;
                }
            }
        },
        /**
         * One real cluster of 3 brokers behind a collapsed virtual cluster with one proxy node: the
         * client sees one broker (the proxy), which splits every Produce and Fetch by real leader.
         */
        COLLAPSED {
            @Override
            Deployment start() throws Exception {
                KafkaCluster kafka = KafkaCluster.builder().brokers(3).build();
                Deployment d = new Deployment(List.of(kafka));
                try {
                    kafka.start();
                    kafka.createTopic("rdkafka-collapsed", 6, 3);
                    d.topics.add(new PlacedTopic("rdkafka-collapsed", kafka, "rdkafka-collapsed", 6));
                    int port = dev.weft.proxy.net.FreePorts.randomRange(1);
                    d.proxyNodes = 1;
                    d.proxy = dev.weft.proxy.server.WeftProxy.start(dev.weft.proxy.config.ConfigLoader.parse("""
                            server: { eventLoops: 2 }
                            admin: { bind: "127.0.0.1:0" }
                            clusters:
                              upstream: { bootstrap: "%s" }
                            virtualClusters:
                              main:
                                target: { cluster: upstream }
                                topology: collapsed
                                nodes: [ { id: 0, address: "127.0.0.1:%d" } ]
                                gateways: [ { name: n0, bind: "127.0.0.1:%d" } ]
                            """.formatted(kafka.bootstrapServers(), port, port), "collapsed conformance config"));
                    return d;
                } catch (Exception | Error e) {
                    d.close();
                    throw e;
                }
            }
        };

        /** Starts the real clusters, creates the topics on them, and starts Weft in front. */
        abstract Deployment start() throws Exception;
    }

    /** A topic as clients see it ({@code name}) and where it really is. */
    record PlacedTopic(String name, KafkaCluster cluster, String realName, int partitions) {
    }

    /** What a {@link Topology} started: the real clusters, the topics on them, and the proxy. */
    static final class Deployment implements AutoCloseable {
        final List<KafkaCluster> clusters;
        final List<PlacedTopic> topics = new ArrayList<>();
        WeftProxy proxy;

        Deployment(List<KafkaCluster> clusters) {
            this.clusters = clusters;
        }

        String bootstrap() {
            return ProxyFixture.bootstrap(proxy);
        }

        /** Proxy nodes a collapsed virtual cluster lists (0: mirrored, one virtual broker per real one). */
        int proxyNodes;

        /** How many brokers the client's Metadata lists. */
        int brokerCount() {
            return proxyNodes > 0 ? proxyNodes : clusters.stream().mapToInt(c -> c.brokerIds().size()).sum();
        }

        @Override
        public void close() {
            try {
                if (proxy != null) {
                    proxy.close();
                }
            } finally {
                clusters.forEach(KafkaCluster::close);
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Topology.class)
    void idempotentProducerThenGroupConsumerSeeEveryRecordOnce(Topology topology, @TempDir Path scratch) throws Exception {
        Path project = Prerequisites.rdkafkaJsProject();
        String node = Prerequisites.node().toString();
        try (Deployment d = topology.start()) {
            String bootstrap = d.bootstrap();
            Map<String, Dataset> data = new LinkedHashMap<>();
            List<String> inputs = new ArrayList<>();
            long seed = 900 + topology.ordinal() * 10L;
            int total = 0;
            for (PlacedTopic t : d.topics) {
                Dataset set = Dataset.binary(t.name(), 2_400 / d.topics.size(), seed++, 2_048);
                data.put(t.name(), set);
                inputs.add(t.name() + "=" + set.writeTsv(scratch.resolve(t.realName() + ".tsv"), true));
                total += set.size();
            }

            ExternalProcess.Result produced = ExternalProcess.run(List.of(node, "rdkafka_client.js", "produce", bootstrap,
                    String.join(",", inputs)), project, Map.of(), null, TOOL_TIMEOUT, scratch)
                    .assertSucceeded(topology + ": rdkafka_client.js produce");
            String librdkafka = librdkafkaVersion(produced);
            System.out.println(topology + ": librdkafka " + librdkafka + " (@confluentinc/kafka-javascript)");
            assertTrue(produced.stdout().contains("sent " + total + "\n"), produced::describe);
            assertProxyNodes(d, produced);
            Map<String, Map<Integer, List<Long>>> acks = acks(produced);
            List<String> summaries = new ArrayList<>();
            summaries.add("acknowledged out of offset order in " + acks.values().stream().flatMap(m -> m.values().stream())
                    .filter(o -> !o.equals(o.stream().sorted().toList())).count() + " partition(s) (see Verify.endOf)");
            for (PlacedTopic t : d.topics) {
                List<Arrived> onBrokers = readDirect(t);
                Verify.Summary s = Verify.exactlyOnce(data.get(t.name()), onBrokers,
                        () -> t.name() + " read from its real cluster as " + t.realName() + produced.describe());
                Verify.sameOffsets(acks.getOrDefault(t.name(), Map.of()), onBrokers, () -> t.name() + produced.describe());
                summaries.add(t.name() + " produced: " + s);
            }

            String group = "rdkafka-" + topology.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
            List<String> names = d.topics.stream().map(PlacedTopic::name).toList();
            ExternalProcess.Result consumed = ExternalProcess.run(List.of(node, "rdkafka_client.js", "consume-topics",
                    bootstrap, String.join(",", names), group, Integer.toString(total), "90"),
                    project, Map.of(), null, TOOL_TIMEOUT, scratch).assertSucceeded(topology + ": rdkafka_client.js consume-topics");
            Map<String, List<Arrived>> arrived = Arrived.parseTopicTsv("rdkafka", consumed.stdout(), true);
            assertEquals(new TreeSet<>(names), arrived.keySet(), consumed::describe);
            for (PlacedTopic t : d.topics) {
                Verify.Summary s = Verify.exactlyOnce(data.get(t.name()), arrived.get(t.name()),
                        () -> t.name() + consumed.describe());
                Verify.sameOffsets(acks.get(t.name()), arrived.get(t.name()), () -> t.name() + consumed.describe());
                summaries.add(t.name() + " consumed by " + group + ": " + s);
            }
            assertCommittedToTheEnd(d, group, acks);
            System.out.println(topology + ": librdkafka " + librdkafka + ", produce " + produced.took().toMillis()
                    + " ms, consume " + consumed.took().toMillis() + " ms; " + String.join("; ", summaries));
        }
    }

    private static String librdkafkaVersion(ExternalProcess.Result result) {
        return result.stdout().lines().filter(l -> l.startsWith("librdkafka ")).map(l -> l.substring("librdkafka ".length()))
                .findFirst().orElseThrow(() -> new AssertionError("no librdkafka version printed" + result.describe()));
    }

    /** Every broker the client was told of is at one of the proxy's ports, none at a real broker's. */
    private static void assertProxyNodes(Deployment d, ExternalProcess.Result result) {
        List<String> nodes = result.stdout().lines().filter(l -> l.startsWith("node ")).toList();
        assertEquals(d.brokerCount(), nodes.size(), () -> "brokers in the client's metadata" + result.describe());
        Set<Integer> realPorts = d.clusters.stream().flatMap(c -> c.usedPorts().stream()).collect(Collectors.toSet());
        for (String line : nodes) {
            String[] f = line.split(" ");
            int port = Integer.parseInt(f[3]);
            assertEquals("127.0.0.1", f[2], () -> line + result.describe());
            assertFalse(realPorts.contains(port), () -> "broker " + f[1] + " at a real broker's port " + port + result.describe());
        }
    }

    /** The producer's acknowledgements: offsets by partition, in acknowledgement order, by topic. */
    private static Map<String, Map<Integer, List<Long>>> acks(ExternalProcess.Result result) {
        Map<String, Map<Integer, List<Long>>> acked = new TreeMap<>();
        result.stdout().lines().filter(l -> l.startsWith("ack ")).forEach(l -> {
            String[] f = l.split(" ");
            acked.computeIfAbsent(f[1], t -> new TreeMap<>())
                    .computeIfAbsent(Integer.parseInt(f[2]), p -> new ArrayList<>()).add(Long.parseLong(f[3]));
        });
        return acked;
    }

    /** Oracle: every record of {@code t} on its real cluster, under its real name, never through the proxy. */
    private static List<Arrived> readDirect(PlacedTopic t) {
        Map<String, Object> config = new HashMap<>();
        config.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, t.cluster().bootstrapServers());
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, IsolationLevel.READ_UNCOMMITTED.toString());
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        return ConformanceEnvironment.readAll(config, t.realName(), "oracle");
    }


    /**
     * The group's committed offsets are one past the last acknowledged offset of every partition: on
     * the real cluster that owns the partition (real topic name), and read back the same through the
     * proxy (virtual name).
     */
    private static void assertCommittedToTheEnd(Deployment d, String group, Map<String, Map<Integer, List<Long>>> acks)
            throws Exception {
        Map<String, Long> viaProxyWant = new TreeMap<>();
        for (KafkaCluster cluster : d.clusters) {
            Map<String, Long> want = new TreeMap<>();
            for (PlacedTopic t : d.topics) {
                if (t.cluster() == cluster) {
                    acks.get(t.name()).forEach((p, o) -> {
                        want.put(t.realName() + "-" + p, Verify.endOf(o));
                        viaProxyWant.put(t.name() + "-" + p, Verify.endOf(o));
                    });
                }
            }
            if (want.isEmpty()) {
                continue;
            }
            Map<TopicPartition, OffsetAndMetadata> committed = cluster.admin().listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata().get(60, TimeUnit.SECONDS); // the cluster's own admin: not closed
            Map<String, Long> got = new TreeMap<>();
            committed.forEach((tp, o) -> got.put(tp.toString(), o.offset()));
            assertEquals(want, got, "offsets of " + group + " committed on the cluster at " + cluster.bootstrapServers());
        }
        try (Admin admin = Admin.create(Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, d.bootstrap()))) {
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata().get(60, TimeUnit.SECONDS);
            Map<String, Long> got = new TreeMap<>();
            committed.forEach((tp, o) -> got.put(tp.toString(), o.offset()));
            assertEquals(viaProxyWant, got, "offsets of " + group + " read through the proxy");
        }
    }
}
