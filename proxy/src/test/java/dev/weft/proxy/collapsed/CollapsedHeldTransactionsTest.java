package dev.weft.proxy.collapsed;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.weft.proxy.testing.Poll;
import dev.weft.proxy.testing.ScrapedMetrics;
import dev.weft.testkit.KafkaCluster;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code transactional: hold} in the collapsed topology, where the proxy finds the transaction
 * coordinator itself and answers EndTxn from its decoded answer (not a forwarded frame): a committed
 * transaction reaches the branch, in order per partition, and an aborted one never does.
 */
class CollapsedHeldTransactionsTest {

    private static KafkaCluster primary;
    private static KafkaCluster branch;
    private static CollapsedFixture.Fleet fleet;

    @BeforeAll
    static void start() {
        primary = KafkaCluster.builder().brokers(2).build().start();
        branch = KafkaCluster.builder().brokers(1).build().start();
        primary.createTopic("orders", 4, 1);
        primary.awaitLeaders("orders", 4);
        branch.createTopic("held.orders", 4, 1);
        branch.awaitLeaders("held.orders", 4);
        fleet = CollapsedFixture.start(CollapsedFixture.Upstreams.router("branch", List.of(primary, branch),
                List.of("name: prod", "name: held, naming: { prefix: \"held.\" }, transactional: hold"), ""), 1, 0);
    }

    @AfterAll
    static void stop() {
        CollapsedFixture.closeAll(fleet, primary, branch);
    }

    @Test
    void aCommittedTransactionReachesTheBranchAndAnAbortedOneNever() throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, fleet.bootstrap());
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "collapsed-held");
        p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        int committed = 200;
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            producer.initTransactions();
            producer.beginTransaction();
            for (int i = 0; i < 50; i++) {
                producer.send(new ProducerRecord<>("orders", "a" + i, "aborted-" + i));
            }
            producer.flush();                       // acknowledged by the primary, then aborted
            producer.abortTransaction();
            producer.beginTransaction();
            for (int i = 0; i < committed; i++) {
                producer.send(new ProducerRecord<>("orders", "k" + i, "order-" + i));
            }
            producer.commitTransaction();
        }
        Map<Integer, List<String>> copies = CollapsedBranchTest.read(branch, "held.orders", committed);
        Map<Integer, List<String>> all = CollapsedBranchTest.read(primary, "orders", committed + 50); // read_uncommitted
        Map<Integer, List<String>> expected = new java.util.TreeMap<>();
        all.forEach((partition, values) -> expected.put(partition,
                values.stream().filter(v -> v.startsWith("order-")).toList()));
        assertEquals(expected, copies, "the committed records, in the primary's order per partition, and no aborted one");
        Poll.until(Duration.ofSeconds(30), "the writer's counters", () -> stage("acked") == committed,
                () -> ScrapedMetrics.of(fleet.replica(0)).linesOf("weft_branch_records_total"));
        assertEquals(50, stage("dropped_aborted"));
        assertEquals(committed + 50, stage("held"));
    }

    private static double stage(String stage) {
        return ScrapedMetrics.of(fleet.replica(0)).sum("weft_branch_records_total", Map.of("branch", "held", "stage", stage));
    }
}
