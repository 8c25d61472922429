package dev.weft.proxy.weave;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Transactions through a woven virtual cluster (DESIGN §5): confined to the transactional id's home
 * cluster. On the home cluster commit and abort behave as on a broker; a transaction that also writes
 * to a topic of another cluster is refused (TRANSACTION_ABORTABLE), the producer aborts, and nothing of
 * it is visible to read_committed consumers — through the proxy or directly on either cluster.
 */
class TopicWeaveTransactionsTest {

    private static WovenClusters woven;

    @BeforeAll
    static void start() {
        woven = WovenClusters.start(2).topic(0, "ledger", 2).topic(1, "audit", 1)
                .weave(List.of("name: east", "name: west, naming: { prefix: \"w.\" }"),
                        "    transactions: { homes: [ { prefix: \"west-\", route: west } ], default: east }\n");
    }

    @AfterAll
    static void stop() {
        if (woven != null) {
            woven.close();
        }
    }

    @Test
    void commitAndAbortOnTheHomeClusterAndACrossClusterTransactionIsRefusedWhole() {
        String bootstrap = woven.bootstrap();
        try (KafkaProducer<String, String> producer = producer(bootstrap, "east-tx")) {
            producer.initTransactions();
            producer.beginTransaction();
            for (int i = 0; i < 20; i++) {
                producer.send(new ProducerRecord<>("ledger", "k" + i, "committed-" + i));
            }
            producer.commitTransaction();
            producer.beginTransaction();
            for (int i = 0; i < 10; i++) {
                producer.send(new ProducerRecord<>("ledger", "k" + i, "aborted-" + i));
            }
            producer.abortTransaction();

            producer.beginTransaction();
            for (int i = 0; i < 5; i++) {
                producer.send(new ProducerRecord<>("ledger", "k" + i, "spanning-" + i));
                producer.send(new ProducerRecord<>("w.audit", "k" + i, "spanning-" + i));
            }
            KafkaException refused = assertThrows(KafkaException.class, producer::commitTransaction);
            assertTrue(messages(refused).contains("abort"), messages(refused));
            producer.abortTransaction();

            producer.beginTransaction();
            producer.send(new ProducerRecord<>("ledger", "after", "committed-after"));
            producer.commitTransaction();
        }
        // commitTransaction returns before the commit markers are written: wait until they are
        List<String> throughProxy = readCommittedUntil(bootstrap, "ledger", 2, 21);
        assertEquals(21, throughProxy.size(), throughProxy.toString());
        assertTrue(throughProxy.stream().allMatch(v -> v.startsWith("committed-")), throughProxy.toString());
        List<String> directEast = readCommitted(woven.cluster(0).bootstrapServers(), "ledger", 2);
        assertEquals(throughProxy.stream().sorted().toList(), directEast.stream().sorted().toList());
        assertTrue(readCommitted(woven.cluster(1).bootstrapServers(), "audit", 1).stream().noneMatch(v -> v.startsWith("spanning-")));
        assertTrue(readCommitted(bootstrap, "w.audit", 1).stream().noneMatch(v -> v.startsWith("spanning-")));
    }

    @Test
    void aTransactionHomedOnTheSecondClusterCommitsThere() {
        String bootstrap = woven.bootstrap();
        try (KafkaProducer<String, String> producer = producer(bootstrap, "west-tx")) {
            producer.initTransactions();
            producer.beginTransaction();
            for (int i = 0; i < 7; i++) {
                producer.send(new ProducerRecord<>("w.audit", "k" + i, "audit-" + i));
            }
            producer.commitTransaction();
        }
        List<String> direct = readCommittedUntil(woven.cluster(1).bootstrapServers(), "audit", 1, 7).stream()
                .filter(v -> v.startsWith("audit-")).toList();
        assertEquals(7, direct.size(), direct.toString());
        assertEquals(direct, readCommitted(bootstrap, "w.audit", 1).stream().filter(v -> v.startsWith("audit-")).toList());
    }

    private static String messages(Throwable t) {
        StringBuilder b = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause()) {
            b.append(c.getClass().getSimpleName()).append(": ").append(c.getMessage()).append(" / ");
        }
        return b.toString();
    }

    private static KafkaProducer<String, String> producer(String bootstrap, String transactionalId) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 20_000);
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 30_000);
        return new KafkaProducer<>(p, new StringSerializer(), new StringSerializer());
    }

    /** {@link #readCommitted} once it has at least {@code expected} records (or after 30 s, whatever it has). */
    static List<String> readCommittedUntil(String bootstrap, String topic, int partitions, int expected) {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        List<String> out = readCommitted(bootstrap, topic, partitions);
        while (out.size() < expected && System.nanoTime() < deadline) {
            out = readCommitted(bootstrap, topic, partitions);
        }
        return out;
    }

    /** Every read_committed record of the topic, read to the end offsets (also past aborted ones). */
    static List<String> readCommitted(String bootstrap, String topic, int partitions) {
        Properties c = new Properties();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        List<String> out = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(c, new StringDeserializer(), new StringDeserializer())) {
            List<TopicPartition> tps = new ArrayList<>();
            for (int p = 0; p < partitions; p++) {
                tps.add(new TopicPartition(topic, p));
            }
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
            var end = consumer.endOffsets(tps);
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (tps.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp)) && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    out.add(r.value());
                }
            }
            assertTrue(tps.stream().allMatch(tp -> consumer.position(tp) >= end.get(tp)), "did not reach the end of " + topic);
        }
        return out;
    }
}
