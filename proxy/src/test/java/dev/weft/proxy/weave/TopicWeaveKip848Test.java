package dev.weft.proxy.weave;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.proxy.testing.Poll;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * KIP-848 consumer groups (group.protocol=consumer) through a woven virtual cluster: they work when
 * every subscribed topic is on the group's home cluster (here a renamed one, so names are translated),
 * and a subscription that reaches another cluster's topic is refused with a message that says why and
 * what to use instead.
 */
class TopicWeaveKip848Test {

    private static WovenClusters woven;

    @BeforeAll
    static void start() {
        woven = WovenClusters.start(2).topic(0, "orders-real", 3).topic(1, "payments", 1)
                .weave(List.of("name: east, naming: { renames: { orders-real: orders } }",
                        "name: west, naming: { prefix: \"w.\" }"), "");
    }

    @AfterAll
    static void stop() {
        if (woven != null) {
            woven.close();
        }
    }

    @Test
    void aGroupOnItsHomeClustersTopicsReadsEverything() {
        String bootstrap = woven.bootstrap();
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < 90; i++) {
                producer.send(new ProducerRecord<>("orders", "k" + i, "v" + i));
            }
        }
        Set<String> seen = new TreeSet<>();
        try (KafkaConsumer<String, String> c = consumer(bootstrap, "k848-home")) {
            c.subscribe(List.of("orders"));
            Poll.until(Duration.ofSeconds(60), "90 records through a KIP-848 group", () -> {
                c.poll(Duration.ofMillis(200)).forEach(r -> assertTrue(seen.add(r.value()), "duplicate " + r.value()));
                return seen.size() >= 90;
            });
            c.commitSync();
        }
        assertEquals(90, seen.size());
    }

    @Test
    void aGroupSpanningClustersIsRefusedWithTheReason() {
        try (KafkaConsumer<String, String> c = consumer(woven.bootstrap(), "k848-span")) {
            c.subscribe(List.of("orders", "w.payments"));
            InvalidRequestException e = assertThrows(InvalidRequestException.class, () -> {
                long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                while (System.nanoTime() < deadline) {
                    c.poll(Duration.ofMillis(200));
                }
            });
            assertTrue(e.getMessage().contains("w.payments") && e.getMessage().contains("group.protocol=classic"), e.getMessage());
        }
    }

    private static KafkaConsumer<String, String> consumer(String bootstrap, String group) {
        Properties c = new Properties();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        c.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        c.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
        c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        return new KafkaConsumer<>(c, new StringDeserializer(), new StringDeserializer());
    }
}
