package dev.weft.proxy.conformance;

import dev.weft.proxy.testing.Poll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.proxy.server.WeftProxy;
import dev.weft.proxy.testing.ProxyFixture;
import dev.weft.testkit.KafkaCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * One real KRaft cluster with Weft in front of it, for one test class; plus oracle clients that talk
 * to the brokers directly (never through the proxy) to write what a client under test will consume
 * and to read back what a client under test produced.
 */
public final class ConformanceEnvironment implements AutoCloseable {

    static final Duration ORACLE_TIMEOUT = Duration.ofSeconds(60);

    private final KafkaCluster kafka;
    private final WeftProxy proxy;
    private final String bootstrap;
    private final Set<Integer> proxyPorts;

    private ConformanceEnvironment(KafkaCluster kafka, WeftProxy proxy) {
        this.kafka = kafka;
        this.proxy = proxy;
        this.bootstrap = proxy.bootstrapAddresses("main").get(0);
        int bootstrapPort = Integer.parseInt(bootstrap.substring(bootstrap.lastIndexOf(':') + 1));
        int first = kafka.brokerIds().stream().mapToInt(Integer::intValue).min().orElseThrow();
        int last = kafka.brokerIds().stream().mapToInt(Integer::intValue).max().orElseThrow() + 2;
        Set<Integer> ports = new HashSet<>();
        for (int p = bootstrapPort; p <= bootstrapPort + 1 + last - first; p++) {
            ports.add(p);
        }
        this.proxyPorts = Set.copyOf(ports);
    }

    /** Starts {@code brokers} brokers with {@code brokerProperties}, and Weft in front of them. */
    static ConformanceEnvironment start(int brokers, Map<String, String> brokerProperties) throws Exception {
        KafkaCluster kafka = KafkaCluster.builder().brokers(brokers).brokerProperties(brokerProperties).build();
        try {
            kafka.start();
            return new ConformanceEnvironment(kafka, ProxyFixture.startInFrontOf(kafka, kafka.brokerIds()));
        } catch (Exception | Error e) {
            kafka.close();
            throw e;
        }
    }

    /** The proxy's bootstrap address, {@code host:port}: what every client under test is given. */
    String bootstrap() {
        return bootstrap;
    }

    String upstreamBootstrap() {
        return kafka.bootstrapServers();
    }

    KafkaCluster kafka() {
        return kafka;
    }

    Set<Integer> proxyPorts() {
        return proxyPorts;
    }

    /** Fails unless {@code host:port}, handed to a client for a broker, is the proxy's and no broker's. */
    void assertProxyAddress(String host, int port, String what) {
        assertEquals("127.0.0.1", host, what + ": host");
        assertTrue(proxyPorts.contains(port), () -> what + ": port " + port + " is not one of the proxy's " + proxyPorts);
        assertFalse(kafka.usedPorts().contains(port), () -> what + ": port " + port + " is a real broker's");
    }

    /** Creates a topic on the brokers directly and waits for its leaders. */
    void createTopic(String name, int partitions, int replicationFactor) {
        kafka.createTopic(name, partitions, replicationFactor);
    }

    /**
     * Oracle: writes {@code data} to {@code topic} on the brokers directly, idempotently, in send order.
     *
     * @return the offsets given to the records, by partition, in send order
     */
    Map<Integer, List<Long>> produceDirect(String topic, Dataset data) throws Exception {
        return produceDirect(upstreamBootstrap(), topic, data);
    }

    /**
     * Oracle: writes {@code data} to {@code topic} on the brokers at {@code brokers} (never a proxy),
     * idempotently, in send order.
     *
     * @return the offsets given to the records, by partition, in send order
     */
    public static Map<Integer, List<Long>> produceDirect(String brokers, String topic, Dataset data) throws Exception {
        Map<String, Object> config = new HashMap<>();
        config.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, brokers);
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        // Test data written straight to the brokers, one batch in flight: on a loaded 2-core machine the
        // 4.4 idempotent producer was seen looping on OUT_OF_ORDER_SEQUENCE_NUMBER with 5 in flight
        // (directly against the brokers, no proxy involved) until its delivery timeout.
        config.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
        Map<Integer, List<Long>> offsets = new TreeMap<>();
        try (KafkaProducer<byte[], byte[]> producer =
                     new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer())) {
            List<Future<RecordMetadata>> acks = new ArrayList<>(data.size());
            for (Dataset.Entry e : data.entries()) {
                acks.add(producer.send(new ProducerRecord<>(topic, e.keyBytes(), e.value())));
            }
            producer.flush();
            for (Future<RecordMetadata> ack : acks) {
                RecordMetadata md = ack.get(ORACLE_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
                offsets.computeIfAbsent(md.partition(), p -> new ArrayList<>()).add(md.offset());
            }
        }
        return offsets;
    }

    /** Oracle: every record of {@code topic} on the brokers, read directly, from the start to the end. */
    List<Arrived> readDirect(String topic, IsolationLevel isolation) {
        Map<String, Object> config = new HashMap<>();
        config.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, upstreamBootstrap());
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation.toString());
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        return readAll(config, topic, "oracle");
    }

    /**
     * Reads every record of {@code topic} with a group-less consumer built from {@code config}: assigns
     * all partitions, starts at the beginning and stops at the end offsets (the last stable offsets
     * under read_committed).
     */
    public static List<Arrived> readAll(Map<String, Object> config, String topic, String member) {
        List<Arrived> arrived = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer =
                     new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<PartitionInfo> infos = consumer.partitionsFor(topic, ORACLE_TIMEOUT);
            List<TopicPartition> partitions = infos.stream()
                    .map(i -> new TopicPartition(topic, i.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions, ORACLE_TIMEOUT);
            Poll.until(ORACLE_TIMEOUT, "reading " + topic + " to its end " + end, () -> {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
                    arrived.add(Arrived.of(member, r));
                }
                return partitions.stream().allMatch(tp -> consumer.position(tp) >= end.get(tp));
            }, () -> "positions " + partitions.stream().collect(Collectors.toMap(tp -> tp, consumer::position))
                    + ", " + arrived.size() + " records so far");
        }
        return arrived;
    }

    @Override
    public void close() {
        try {
            proxy.close();
        } finally {
            kafka.close();
        }
    }
}
