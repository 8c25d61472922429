package dev.weft.proxy.collapsed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.proxy.testing.Poll;
import dev.weft.proxy.testing.ScrapedMetrics;
import dev.weft.testkit.KafkaCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A branch router in the collapsed topology: the primary (two brokers) is split by real leader, and
 * each part's acknowledged partitions are copied to the branch cluster's leaders — one client Produce,
 * parts to both primary brokers, copies to the branch, every record once and in order on both sides.
 */
class CollapsedBranchTest {

    private static KafkaCluster primary;
    private static KafkaCluster branch;
    private static CollapsedFixture.Fleet fleet;

    @BeforeAll
    static void start() {
        primary = KafkaCluster.builder().brokers(2).build().start();
        branch = KafkaCluster.builder().brokers(1).build().start();
        primary.createTopic("orders", 4, 1);
        primary.awaitLeaders("orders", 4);
        branch.createTopic("copy.orders", 4, 1);
        branch.awaitLeaders("copy.orders", 4);
        fleet = CollapsedFixture.start(CollapsedFixture.Upstreams.router("branch", List.of(primary, branch),
                List.of("name: prod", "name: copies, naming: { prefix: \"copy.\" }"), ""), 1, 0);
    }

    @AfterAll
    static void stop() {
        CollapsedFixture.closeAll(fleet, primary, branch);
    }

    @Test
    void aSplitProduceIsCopiedPerPartitionInOrder() throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, fleet.bootstrap());
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        int records = 400;
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            List<Future<RecordMetadata>> sent = new ArrayList<>();
            for (int i = 0; i < records; i++) {
                sent.add(producer.send(new ProducerRecord<>("orders", "k" + i, "order-" + i)));
            }
            for (Future<RecordMetadata> f : sent) {
                f.get(30, TimeUnit.SECONDS);
            }
        }
        assertEquals(read(primary, "orders", records), read(branch, "copy.orders", records),
                "every partition's copies are the primary's records, once, in order");
        ScrapedMetrics m = ScrapedMetrics.of(fleet.replica(0));
        Map<Integer, Double> parts = m.upstreamRequestsByBroker("c0", "Produce");
        assertEquals(2, parts.size(), "Produce parts went to both primary brokers: " + m.linesOf(ScrapedMetrics.UPSTREAM_REQUESTS));
        assertTrue(m.sum("weft_branch_copies_total", Map.of("branch", "copies", "outcome", "acked")) > 0,
                m.linesOf("weft_branch_copies_total"));
        assertEquals(0, m.sum("weft_branch_copies_total", Map.of("branch", "copies", "outcome", "failed")),
                m.linesOf("weft_branch_copies_total"));
    }

    static Map<Integer, List<String>> read(KafkaCluster cluster, String topic, int expected) {
        Map<Integer, List<String>> out = new TreeMap<>();
        Properties c = new Properties();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(c, new StringDeserializer(), new StringDeserializer())) {
            List<TopicPartition> parts = consumer.partitionsFor(topic, Duration.ofSeconds(20)).stream()
                    .map(i -> new TopicPartition(topic, i.partition())).toList();
            consumer.assign(parts);
            consumer.seekToBeginning(parts);
            int[] n = {0};
            Poll.until(Duration.ofSeconds(30), expected + " records of " + topic, () -> {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    out.computeIfAbsent(r.partition(), k -> new ArrayList<>()).add(r.value());
                    n[0]++;
                }
                return n[0] >= expected;
            }, () -> n[0] + " read");
        }
        return out;
    }
}
