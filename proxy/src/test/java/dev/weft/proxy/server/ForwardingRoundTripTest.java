package dev.weft.proxy.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.weft.iocore.transport.Transport;
import dev.weft.proxy.testing.ProxyFixture;
import dev.weft.testkit.KafkaCluster;
import io.netty.channel.uring.IoUring;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The first forwarding slice end to end: real KRaft brokers, real kafka-clients, Weft in between.
 */
class ForwardingRoundTripTest {

    private static final int RECORDS = 10_000;
    private static final int PARTITIONS = 6;

    private static KafkaCluster kafka;
    private static WeftProxy proxy;
    private static String bootstrap;
    private static Set<Integer> proxyPorts;

    @BeforeAll
    static void start() throws Exception {
        kafka = KafkaCluster.builder().brokers(3).build();
        kafka.start();
        Collection<Integer> ids = kafka.brokerIds();
        proxy = ProxyFixture.startInFrontOf(kafka, ids);
        bootstrap = proxy.bootstrapAddresses("main").get(0);
        proxyPorts = new HashSet<>();
        int bootstrapPort = Integer.parseInt(bootstrap.substring(bootstrap.lastIndexOf(':') + 1));
        for (int p = bootstrapPort; p < bootstrapPort + 16; p++) {
            proxyPorts.add(p);
        }
    }

    @AfterAll
    static void stop() throws Exception {
        if (proxy != null) {
            proxy.close();
        }
        if (kafka != null) {
            kafka.close();
        }
    }

    @Test
    void ioUringIsTheTransportWhereTheKernelHasIt() {
        assumeTrue(IoUring.isAvailable(), () -> "io_uring unavailable here: " + IoUring.unavailabilityCause());
        assertEquals(Transport.IO_URING, proxy.transport());
    }

    @Test
    void clientsSeeOnlyTheProxyAddresses() throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            Collection<Node> nodes = admin.describeCluster().nodes().get(30, TimeUnit.SECONDS);
            assertEquals(kafka.brokerIds().size(), nodes.size());
            for (Node n : nodes) {
                assertEquals("127.0.0.1", n.host());
                assertTrue(proxyPorts.contains(n.port()), () -> "broker " + n + " is not at a proxy port " + proxyPorts);
                assertTrue(kafka.brokerIds().contains(n.id()), "mirrored topology keeps node ids with one upstream");
            }
            Node controller = admin.describeCluster().controller().get(30, TimeUnit.SECONDS);
            assertTrue(proxyPorts.contains(controller.port()));
        }
    }

    @Test
    void idempotentProducerAndConsumerGroupRoundTripEveryRecordOnceInOrder() throws Exception {
        String topic = "roundtrip";
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            admin.createTopics(List.of(new NewTopic(topic, PARTITIONS, (short) 3))).all().get(60, TimeUnit.SECONDS);
        }

        // Produce: idempotent, acks=all, values of varied sizes that identify themselves.
        Map<String, byte[]> sent = new HashMap<>();
        Map<Integer, List<Long>> producedOffsets = new HashMap<>();
        Random random = new Random(42);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(producerProps())) {
            List<Future<RecordMetadata>> acks = new ArrayList<>(RECORDS);
            for (int i = 0; i < RECORDS; i++) {
                String key = "key-" + i;
                byte[] value = new byte[8 + random.nextInt(2048)];
                random.nextBytes(value);
                ByteBuffer.wrap(value).putInt(i);
                sent.put(key, value);
                acks.add(producer.send(new ProducerRecord<>(topic, key.getBytes(), value)));
            }
            producer.flush();
            for (Future<RecordMetadata> ack : acks) {
                RecordMetadata md = ack.get(60, TimeUnit.SECONDS);
                producedOffsets.computeIfAbsent(md.partition(), p -> new ArrayList<>()).add(md.offset());
            }
        }
        assertEquals(PARTITIONS, producedOffsets.size(), "every partition got records");

        // Consume in a group of two members, through the proxy.
        Map<TopicPartition, List<ConsumerRecord<byte[], byte[]>>> received = new ConcurrentHashMap<>();
        AtomicInteger total = new AtomicInteger();
        ExecutorService members = Executors.newFixedThreadPool(2);
        try {
            List<Future<?>> running = new ArrayList<>();
            for (int m = 0; m < 2; m++) {
                running.add(members.submit(() -> {
                    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(consumerProps("roundtrip-group"))) {
                        consumer.subscribe(List.of(topic));
                        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
                        while (total.get() < RECORDS && System.nanoTime() - deadline < 0) {
                            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                                received.computeIfAbsent(new TopicPartition(r.topic(), r.partition()),
                                        tp -> java.util.Collections.synchronizedList(new ArrayList<>())).add(r);
                                total.incrementAndGet();
                            }
                            consumer.commitSync();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : running) {
                f.get(120, TimeUnit.SECONDS);
            }
        } finally {
            members.shutdownNow();
        }

        assertEquals(RECORDS, total.get(), "every record arrives exactly once");
        Set<String> seenKeys = new HashSet<>();
        for (Map.Entry<TopicPartition, List<ConsumerRecord<byte[], byte[]>>> e : received.entrySet()) {
            List<ConsumerRecord<byte[], byte[]>> records = e.getValue();
            List<Long> offsets = records.stream().map(ConsumerRecord::offset).toList();
            assertEquals(producedOffsets.get(e.getKey().partition()), offsets,
                    "partition " + e.getKey() + ": consumed in produced order, no gap, no duplicate");
            int lastIndex = -1;
            for (ConsumerRecord<byte[], byte[]> r : records) {
                String key = new String(r.key());
                assertTrue(seenKeys.add(key), "duplicate " + key);
                assertArrayEquals(sent.get(key), r.value(), "value of " + key + " is byte-identical");
                int index = ByteBuffer.wrap(r.value()).getInt();
                assertTrue(index > lastIndex, "per-partition order follows send order");
                lastIndex = index;
            }
        }
        assertEquals(RECORDS, seenKeys.size());

        // The group's coordinator is reached through the proxy too.
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            ConsumerGroupDescription group = admin.describeConsumerGroups(List.of("roundtrip-group"))
                    .describedGroups().get("roundtrip-group").get(30, TimeUnit.SECONDS);
            assertTrue(proxyPorts.contains(group.coordinator().port()), "coordinator " + group.coordinator());
            long committed = admin.listConsumerGroupOffsets("roundtrip-group").partitionsToOffsetAndMetadata()
                    .get(30, TimeUnit.SECONDS).values().stream().mapToLong(o -> o.offset()).sum();
            assertEquals(RECORDS, committed, "committed offsets cover every record");
        }
        assertNotEquals(kafka.bootstrapServers(), bootstrap);
    }

    private static Properties producerProps() {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        return p;
    }

    private static Properties consumerProps(String group) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        return p;
    }
}
