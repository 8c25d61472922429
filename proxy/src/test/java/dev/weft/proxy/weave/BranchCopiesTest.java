package dev.weft.proxy.weave;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.proxy.testing.Poll;
import dev.weft.proxy.testing.ScrapedMetrics;
import dev.weft.testkit.KafkaCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Stream branching end to end (the BRANCH plan kind): a {@code type: branch} router whose primary is
 * cluster c0 and whose branch "staging" (cluster c1) takes copies of {@code orders} and {@code events}
 * as {@code shadow.*}. Clients see the primary only; what the primary acknowledged reaches the branch
 * once, in order per partition, byte for byte; transactional and acks=0 records do not; a branch that is
 * down never costs the primary an acknowledgement.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class BranchCopiesTest {

    private static WovenClusters clusters;

    @BeforeAll
    static void start() {
        clusters = WovenClusters.start(2).topic(0, "orders", 3).topic(0, "payments", 1).topic(0, "events", 1)
                .topic(1, "shadow.orders", 3).topic(1, "shadow.events", 1)
                .route("branch", List.of("name: prod",
                        "name: staging, topics: { include: [orders, events] }, naming: { prefix: \"shadow.\" }"));
    }

    @AfterAll
    static void stop() {
        if (clusters != null) {
            clusters.close();
        }
    }

    @Test
    @Order(1)
    void acknowledgedRecordsReachTheBranchOnceInOrder() throws Exception {
        String bootstrap = clusters.bootstrap();
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            assertEquals(Set.of("orders", "payments", "events"), new TreeSet<>(admin.listTopics().names().get()),
                    "clients see the primary's topics only");
        }
        int records = 300;
        try (KafkaProducer<String, String> producer = WeaveClients.producer(bootstrap, Map.of(ProducerConfig.LINGER_MS_CONFIG, 5))) {
            List<Future<RecordMetadata>> sent = new ArrayList<>();
            for (int i = 0; i < records; i++) {
                sent.add(producer.send(new ProducerRecord<>("orders", "k" + i, "order-" + i)));
                if (i % 3 == 0) {
                    sent.add(producer.send(new ProducerRecord<>("payments", "k" + i, "payment-" + i)));
                }
            }
            for (Future<RecordMetadata> f : sent) {
                f.get(30, TimeUnit.SECONDS);
            }
        }
        Map<Integer, List<String>> primary = byPartition(clusters.cluster(0), "orders", records);
        Map<Integer, List<String>> copies = byPartition(clusters.cluster(1), "shadow.orders", records);
        assertEquals(primary, copies, "each partition's copies are the primary's records, once, in order");
        assertTrue(!WeaveClients.existsDirectly(clusters.cluster(1), "payments")
                && !WeaveClients.existsDirectly(clusters.cluster(1), "shadow.payments"), "payments is not a branch topic");
        ScrapedMetrics m = ScrapedMetrics.of(clusters.proxy());
        assertTrue(copies(m, "acked") > 0, m.linesOf(COPIES));
        assertEquals(0, copies(m, "failed"), m.linesOf(COPIES));
    }

    @Test
    @Order(2)
    void transactionalAndAcksZeroRecordsAreNotCopied() throws Exception {
        String bootstrap = clusters.bootstrap();
        try (KafkaProducer<String, String> txn = WeaveClients.producer(bootstrap, Map.of(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "branch-txn"))) {
            txn.initTransactions();
            txn.beginTransaction();
            for (int i = 0; i < 20; i++) {
                txn.send(new ProducerRecord<>("events", "t" + i, "txn-" + i));
            }
            txn.commitTransaction();
        }
        try (KafkaProducer<String, String> fireAndForget = WeaveClients.producer(bootstrap, Map.of(
                ProducerConfig.ACKS_CONFIG, "0", ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false))) {
            for (int i = 0; i < 20; i++) {
                fireAndForget.send(new ProducerRecord<>("events", "z" + i, "zero-" + i));
            }
            fireAndForget.flush();
        }
        try (KafkaProducer<String, String> plain = WeaveClients.producer(bootstrap, Map.of())) {
            plain.send(new ProducerRecord<>("events", "p", "plain-0")).get(30, TimeUnit.SECONDS);
        }
        assertEquals(41, byPartition(clusters.cluster(0), "events", 41).get(0).size(), "the primary holds every event");
        assertEquals(Map.of(0, List.of("plain-0")), byPartition(clusters.cluster(1), "shadow.events", 1),
                "only what the primary acknowledged outside a transaction is copied");
        ScrapedMetrics m = ScrapedMetrics.of(clusters.proxy());
        assertTrue(copies(m, "skipped_transactional") > 0, m.linesOf(COPIES));
        assertTrue(copies(m, "skipped_acks0") > 0, m.linesOf(COPIES));
    }

    @Test
    @Order(3)
    void aBranchThatIsDownNeverCostsThePrimaryAnAcknowledgement() throws Exception {
        long before = TopicWeaveRoundTripTest.countDirectly(clusters.cluster(0), "orders");
        KafkaCluster staging = clusters.cluster(1);
        staging.stopBroker(staging.brokerIds().getFirst());
        String bootstrap = clusters.bootstrap();
        int records = 200;
        long started = System.nanoTime();
        try (KafkaProducer<String, String> producer = WeaveClients.producer(bootstrap, Map.of())) {
            List<Future<RecordMetadata>> sent = new ArrayList<>();
            for (int i = 0; i < records; i++) {
                sent.add(producer.send(new ProducerRecord<>("orders", "d" + i, "down-" + i)));
            }
            for (Future<RecordMetadata> f : sent) {
                f.get(30, TimeUnit.SECONDS);
            }
        }
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        assertEquals(before + records, TopicWeaveRoundTripTest.countDirectly(clusters.cluster(0), "orders"));
        assertTrue(tookMs < 20_000, "acknowledged in " + tookMs + " ms with the branch down");
        Poll.until(Duration.ofSeconds(20), "lost copies are counted", () -> {
            ScrapedMetrics m = ScrapedMetrics.of(clusters.proxy());
            return copies(m, "failed") + copies(m, "dropped_backlog") + copies(m, "dropped_unplaced") > 0;
        });
    }

    private static final String COPIES = "weft_branch_copies_total";

    private static double copies(ScrapedMetrics m, String outcome) {
        return m.sum(COPIES, Map.of("virtual_cluster", "main", "branch", "staging", "outcome", outcome));
    }

    /** Every value of {@code topic} on {@code cluster}, per partition in offset order; waits for {@code expected}. */
    private static Map<Integer, List<String>> byPartition(KafkaCluster cluster, String topic, int expected) {
        Map<Integer, List<String>> out = new TreeMap<>();
        WeaveClients.recordsByPartition(cluster, topic, expected)
                .forEach((p, records) -> out.put(p, records.stream().map(ConsumerRecord::value).toList()));
        return out;
    }
}
