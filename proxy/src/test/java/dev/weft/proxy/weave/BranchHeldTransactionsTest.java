package dev.weft.proxy.weave;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.proxy.testing.Poll;
import dev.weft.proxy.testing.ScrapedMetrics;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code transactional: hold} through Weft: a kafka-clients transactional producer commits, aborts and
 * commits again through a branch router with two holding branches on cluster c1 (an exact copy,
 * {@code shadow.}, and a masking one, {@code red.}). Each branch gets exactly the committed records, in the
 * primary's order per partition, and nothing of the aborted transaction; /metrics counts what was held
 * and what the abort dropped.
 */
class BranchHeldTransactionsTest {

    private static final int FIRST = 60;
    private static final int ABORTED = 40;
    private static final int THIRD = 50;
    private static WovenClusters clusters;

    @BeforeAll
    static void start() {
        clusters = WovenClusters.start(2).topic(0, "orders", 3).topic(1, "shadow.orders", 3).topic(1, "red.orders", 3)
                .routeWithTargets("branch", List.of(
                        "name: prod, target: { cluster: c0 }",
                        "name: shadow, target: { cluster: c1 }, topics: { include: [orders] }, naming: { prefix: \"shadow.\" },"
                                + " transactional: hold",
                        "name: redacted, target: { cluster: c1 }, topics: { include: [orders] }, naming: { prefix: \"red.\" },"
                                + " transforms: [ { redact: { value-fields: [\"$.email\"], with: mask } } ], transactional: hold"));
    }

    @AfterAll
    static void stop() {
        if (clusters != null) {
            clusters.close();
        }
    }

    @Test
    void onlyCommittedTransactionsReachTheBranchesInThePrimarysOrder() throws Exception {
        try (KafkaProducer<String, String> producer = WeaveClients.producer(clusters.bootstrap(), Map.of(
                ProducerConfig.TRANSACTIONAL_ID_CONFIG, "held-txn", ProducerConfig.LINGER_MS_CONFIG, 5))) {
            producer.initTransactions();
            transaction(producer, "committed-a", FIRST, true);
            transaction(producer, "aborted", ABORTED, false);
            transaction(producer, "committed-b", THIRD, true);
        }
        int committed = FIRST + THIRD;
        Map<Integer, List<ConsumerRecord<String, String>>> primary = WeaveClients.recordsByPartition(clusters.cluster(0), "orders",
                committed, IsolationLevel.READ_COMMITTED);
        assertEquals(committed, count(primary), "the primary holds the committed records");
        Map<Integer, List<String>> expected = keys(primary);
        assertTrue(expected.values().stream().flatMap(List::stream).noneMatch(k -> k.startsWith("aborted")));

        Map<Integer, List<ConsumerRecord<String, String>>> shadow = WeaveClients.recordsByPartition(clusters.cluster(1),
                "shadow.orders", committed);
        assertEquals(expected, keys(shadow), "the exact branch: the committed records, in the primary's order per partition");
        Map<Integer, List<ConsumerRecord<String, String>>> red = WeaveClients.recordsByPartition(clusters.cluster(1),
                "red.orders", committed);
        assertEquals(expected, keys(red), "the masking branch: the committed records, in the primary's order per partition");
        for (List<ConsumerRecord<String, String>> partition : red.values()) {
            for (ConsumerRecord<String, String> r : partition) {
                assertEquals("{\"email\":\"****\",\"key\":\"" + r.key() + "\"}", r.value(), "masked, nothing else changed");
            }
        }
        for (String branch : List.of("shadow", "redacted")) {
            Poll.until(Duration.ofSeconds(30), branch + "'s acknowledgements on /metrics",
                    () -> stage(branch, "acked") == committed, () -> ScrapedMetrics.of(clusters.proxy()).linesOf("weft_branch_records_total"));
            assertEquals(FIRST + ABORTED + THIRD, stage(branch, "held"), branch + ": every transactional record was held");
            assertEquals(ABORTED, stage(branch, "dropped_aborted"), branch + ": the aborted transaction was dropped");
            assertEquals(0, stage(branch, "dropped_hold_full") + stage(branch, "dropped_hold_expired") + stage(branch, "failed"));
            assertEquals(0, ScrapedMetrics.of(clusters.proxy()).sum("weft_branch_held_bytes",
                    Map.of("virtual_cluster", "main", "branch", branch)), branch + ": nothing held once every transaction ended");
        }
    }

    private static void transaction(KafkaProducer<String, String> producer, String name, int records, boolean commit) {
        producer.beginTransaction();
        for (int i = 0; i < records; i++) {
            String key = name + "-" + i;
            producer.send(new ProducerRecord<>("orders", key, "{\"email\":\"" + key + "@example.com\",\"key\":\"" + key + "\"}"));
        }
        if (commit) {
            producer.commitTransaction();
        } else {
            producer.flush();                   // the primary acknowledged every record before the abort
            producer.abortTransaction();
        }
    }

    private static double stage(String branch, String stage) {
        return ScrapedMetrics.of(clusters.proxy()).sum("weft_branch_records_total",
                Map.of("virtual_cluster", "main", "branch", branch, "stage", stage));
    }

    private static int count(Map<Integer, List<ConsumerRecord<String, String>>> byPartition) {
        return byPartition.values().stream().mapToInt(List::size).sum();
    }

    private static Map<Integer, List<String>> keys(Map<Integer, List<ConsumerRecord<String, String>>> byPartition) {
        Map<Integer, List<String>> out = new TreeMap<>();
        byPartition.forEach((p, rs) -> out.put(p, rs.stream().map(ConsumerRecord::key).toList()));
        return out;
    }
}
