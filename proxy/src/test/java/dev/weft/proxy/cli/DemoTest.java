package dev.weft.proxy.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.proxy.server.WeftProxy;
import dev.weft.proxy.testing.Poll;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * The README's first command, {@code weft demo}, does what it prints: through virtual cluster 'demo' a
 * record goes to the 3-broker cluster; through 'woven' {@code w.payments} lands on west as
 * {@code payments}; through 'shadowed' a record of {@code orders} is acknowledged by demo and copied to
 * west's {@code shadow.orders}.
 */
class DemoTest {

    @Test
    void whatTheDemoPrintsWorks() throws Exception {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        try (WeftProxy proxy = Demo.start(new PrintStream(printed, true, StandardCharsets.UTF_8))) {
            String text = printed.toString(StandardCharsets.UTF_8);
            String demo = proxy.bootstrapAddresses("demo").get(0);
            String woven = proxy.bootstrapAddresses("woven").get(0);
            String shadowed = proxy.bootstrapAddresses("shadowed").get(0);
            String west = proxy.embeddedClusters().get(1).bootstrapServers();
            String demoDirect = proxy.embeddedClusters().get(0).bootstrapServers();
            assertTrue(text.contains("kcat -b " + shadowed + " -t orders -P"), text);
            assertTrue(!text.contains("could not create"), text);

            produce(demo, "demo", "hello weft");
            assertEquals(List.of("hello weft"), read(demoDirect, "demo", 1));
            produce(woven, "w.payments", "paid");
            assertEquals(List.of("paid"), read(west, "payments", 1));
            // Copies begin once Weft has read west's leaders of shadow.orders (at most 10 s after the start; a
            // copy before that is dropped and counted): produce until one arrives.
            List<String> sent = new ArrayList<>();
            List<String> copies = new ArrayList<>();
            try (KafkaConsumer<String, String> copy = consumer(west, "shadow.orders")) {
                Poll.until(Duration.ofSeconds(60), "a copy on west's shadow.orders", () -> {
                    String value = "order " + sent.size();
                    produce(shadowed, "orders", value);
                    sent.add(value);
                    for (ConsumerRecord<String, String> r : copy.poll(Duration.ofMillis(1_000))) {
                        copies.add(r.value());
                    }
                    return !copies.isEmpty();
                });
            }
            assertEquals(sent.stream().sorted().toList(), read(demoDirect, "orders", sent.size()).stream().sorted().toList(),
                    "the primary has every record (orders has 3 partitions: no order across them)");
            assertTrue(sent.containsAll(copies), "copies are of produced records: " + copies);
            assertEquals(sent.getLast(), copies.getLast(), "once copies begin, each record is copied: " + copies);
        }
    }

    private static void produce(String bootstrap, String topic, String value) {
        try (KafkaProducer<String, String> p = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap),
                new StringSerializer(), new StringSerializer())) {
            p.send(new ProducerRecord<>(topic, value)).get(60, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError("cannot produce to " + topic + " at " + bootstrap, e);
        }
    }

    private static KafkaConsumer<String, String> consumer(String bootstrap, String topic) {
        KafkaConsumer<String, String> c = new KafkaConsumer<>(Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.GROUP_ID_CONFIG, "demo-test-" + topic, ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"),
                new StringDeserializer(), new StringDeserializer());
        c.subscribe(List.of(topic));
        return c;
    }

    /** {@code count} values of {@code topic} read from its beginning, then half a second more so extras show. */
    private static List<String> read(String bootstrap, String topic, int count) {
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> c = consumer(bootstrap, topic)) {
            Poll.until(Duration.ofSeconds(60), count + " record(s) of " + topic + " at " + bootstrap, () -> {
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
                    values.add(r.value());
                }
                return values.size() >= count;
            });
            for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(500))) {
                values.add(r.value());
            }
        }
        return values;
    }
}
