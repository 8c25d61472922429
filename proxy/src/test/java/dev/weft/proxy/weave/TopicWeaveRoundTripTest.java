package dev.weft.proxy.weave;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.proxy.testing.Poll;
import dev.weft.testkit.KafkaCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Future;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Topic weaving end to end with kafka-clients: two real clusters behind one virtual cluster, the second
 * one's topics shown with a prefix. One idempotent producer writes to both through one connection set,
 * one consumer group (regex subscription) reads everything once, commits, and a new member resumes from
 * the committed offsets on both clusters; each record is also checked directly on its real cluster.
 */
class TopicWeaveRoundTripTest {

    private static WovenClusters woven;

    @BeforeAll
    static void start() throws Exception {
        woven = WovenClusters.start(2).topic(0, "orders", 3).topic(1, "payments", 2)
                .weave(List.of("name: east", "name: west, naming: { prefix: \"w.\" }"), "");
    }

    @AfterAll
    static void stop() throws Exception {
        if (woven != null) {
            woven.close();
        }
    }

    @Test
    void anIdempotentProducerAndAGroupWorkAcrossBothClusters() throws Exception {
        String bootstrap = woven.bootstrap();
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            Set<String> names = new TreeSet<>(admin.listTopics().names().get());
            assertTrue(names.containsAll(Set.of("orders", "w.payments")), names.toString());
            assertTrue(!names.contains("payments"), names.toString());
        }
        int perTopic = 500;
        Map<String, Long> acked = new HashMap<>();
        try (KafkaProducer<String, String> producer = WeaveClients.producer(bootstrap, Map.of())) {
            List<Future<RecordMetadata>> sent = new ArrayList<>();
            for (int i = 0; i < perTopic; i++) {
                sent.add(producer.send(new ProducerRecord<>("orders", "k" + i, "order-" + i)));
                sent.add(producer.send(new ProducerRecord<>("w.payments", "k" + i, "payment-" + i)));
            }
            for (Future<RecordMetadata> f : sent) {
                RecordMetadata m = f.get();
                acked.merge(m.topic(), 1L, Long::sum);
            }
        }
        assertEquals(Map.of("orders", (long) perTopic, "w.payments", (long) perTopic), acked);
        assertEquals(perTopic, countDirectly(woven.cluster(0), "orders"));
        assertEquals(perTopic, countDirectly(woven.cluster(1), "payments"));

        // first member reads half-way and commits, a second one resumes from the commits
        Map<String, Set<String>> seen = new HashMap<>();
        try (KafkaConsumer<String, String> c = WeaveClients.consumer(bootstrap, "weave-group")) {
            c.subscribe(Pattern.compile("orders|w\\..*"));
            Poll.until(Duration.ofSeconds(60), "first member reads 600 records", () -> {
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
                    assertTrue(seen.computeIfAbsent(r.topic(), t -> new TreeSet<>()).add(r.value()), "duplicate " + r.value());
                }
                return seen.values().stream().mapToInt(Set::size).sum() >= 600;
            });
            c.commitSync();
        }
        try (KafkaConsumer<String, String> c = WeaveClients.consumer(bootstrap, "weave-group")) {
            c.subscribe(Pattern.compile("orders|w\\..*"));
            Poll.until(Duration.ofSeconds(60), "second member reads the rest", () -> {
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
                    assertTrue(seen.computeIfAbsent(r.topic(), t -> new TreeSet<>()).add(r.value()), "duplicate " + r.value());
                }
                return seen.values().stream().mapToInt(Set::size).sum() >= 2 * perTopic;
            });
            c.commitSync();
            Map<TopicPartition, OffsetAndMetadata> committed = c.committed(Set.of(new TopicPartition("orders", 0),
                    new TopicPartition("w.payments", 1)));
            assertTrue(committed.values().stream().allMatch(o -> o != null && o.offset() > 0), committed.toString());
        }
        assertEquals(perTopic, seen.get("orders").size());
        assertEquals(perTopic, seen.get("w.payments").size());
        // offsets of the prefixed topic are stored on its own cluster under its real name
        try (Admin direct = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, woven.cluster(1).bootstrapServers()))) {
            Map<TopicPartition, OffsetAndMetadata> offsets = direct.listConsumerGroupOffsets("weave-group")
                    .partitionsToOffsetAndMetadata().get();
            long total = offsets.entrySet().stream().filter(e -> e.getKey().topic().equals("payments"))
                    .mapToLong(e -> e.getValue().offset()).sum();
            assertEquals(perTopic, total, offsets.toString());
        }
    }


    static long countDirectly(KafkaCluster cluster, String topic) {
        Properties c = new Properties();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(c, new StringDeserializer(), new StringDeserializer())) {
            List<TopicPartition> parts = consumer.partitionsFor(topic).stream()
                    .map(i -> new TopicPartition(topic, i.partition())).toList();
            return consumer.endOffsets(parts).values().stream().mapToLong(Long::longValue).sum();
        }
    }
}
