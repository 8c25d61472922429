package dev.weft.proxy.weave;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weft.proxy.testing.Poll;
import dev.weft.proxy.testing.ScrapedMetrics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Transactional producers through a branch router, against real clusters: the primary c0 and two
 * branches on c1 taking {@code payments} — "copy" (pure copies, to {@code copy.payments}) and
 * "redacted" (a transforming branch hashing {@code $.card}, to {@code redacted.payments}). A
 * kafka-clients transactional producer commits one transaction and aborts another; an idempotent
 * producer writes alongside. The primary holds the committed records (read_committed) and not the
 * aborted ones; neither branch holds a record of either transaction (the default policy, no
 * {@code transactional:} key: skip and count, {@code skipped_transactional}; the writer of the
 * transforming branch never sees one), and both hold every record the idempotent producer had
 * acknowledged, once, in the primary's order.
 */
class BranchTransactionsTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String COPIES = "weft_branch_copies_total";
    private static final String RECORDS = "weft_branch_records_total";
    private static WovenClusters clusters;

    @BeforeAll
    static void start() {
        clusters = WovenClusters.start(2).topic(0, "payments", 3).topic(1, "copy.payments", 3).topic(1, "redacted.payments", 3)
                .routeWithTargets("branch", List.of(
                        "name: prod, target: { cluster: c0 }",
                        "name: copy, target: { cluster: c1 }, topics: { include: [payments] }, naming: { prefix: \"copy.\" }",
                        "name: redacted, target: { cluster: c1 }, topics: { include: [payments] }, naming: { prefix: \"redacted.\" },"
                                + " transforms: [ { redact: { value-fields: [\"$.card\"], salt: pepper } } ]"));
    }

    @AfterAll
    static void stop() {
        if (clusters != null) {
            clusters.close();
        }
    }

    private static String value(String kind, int i) {
        return "{\"kind\":\"" + kind + "\",\"n\":" + i + ",\"card\":\"4111-" + kind + "-" + i + "\"}";
    }

    @Test
    void transactionsReachThePrimaryOnlyAndIdempotentRecordsReachBothBranchesInOrder() throws Exception {
        String topic = "payments";
        int perTxn = 40;
        int plainRecords = 240;
        List<RecordMetadata> plainAcked = new ArrayList<>();
        try (KafkaProducer<String, String> txn = WeaveClients.producer(clusters.bootstrap(), Map.of(
                ProducerConfig.TRANSACTIONAL_ID_CONFIG, "branch-payments-txn", ProducerConfig.LINGER_MS_CONFIG, 5));
             KafkaProducer<String, String> plain = WeaveClients.producer(clusters.bootstrap(), Map.of(
                     ProducerConfig.LINGER_MS_CONFIG, 5, ProducerConfig.CLIENT_ID_CONFIG, "branch-payments-plain"))) {
            txn.initTransactions();
            List<Future<RecordMetadata>> plainSent = new ArrayList<>();
            int next = 0;
            txn.beginTransaction();
            for (int i = 0; i < perTxn; i++) {
                txn.send(new ProducerRecord<>(topic, "c" + i, value("committed", i)));
                if (i % 2 == 0) {   // idempotent records interleaved with the open transaction's
                    plainSent.add(plain.send(new ProducerRecord<>(topic, "p" + next, value("plain", next++))));
                }
            }
            txn.commitTransaction();
            txn.beginTransaction();
            for (int i = 0; i < perTxn; i++) {
                txn.send(new ProducerRecord<>(topic, "a" + i, value("aborted", i)));
                if (i % 2 == 0) {
                    plainSent.add(plain.send(new ProducerRecord<>(topic, "p" + next, value("plain", next++))));
                }
            }
            txn.flush();           // the aborted transaction's records reached the primary before the abort
            txn.abortTransaction();
            while (next < plainRecords) {
                plainSent.add(plain.send(new ProducerRecord<>(topic, "p" + next, value("plain", next++))));
            }
            for (Future<RecordMetadata> f : plainSent) {
                plainAcked.add(f.get(30, TimeUnit.SECONDS));
            }
        }

        // the primary: committed and idempotent records visible to read_committed, the aborted ones not
        Map<Integer, List<ConsumerRecord<String, String>>> committed = WeaveClients.recordsByPartition(clusters.cluster(0), topic,
                perTxn + plainRecords, IsolationLevel.READ_COMMITTED);
        List<String> kinds = committed.values().stream().flatMap(List::stream).map(r -> kind(r.value())).toList();
        assertEquals(perTxn, kinds.stream().filter("committed"::equals).count(), "the committed transaction on the primary");
        assertEquals(plainRecords, kinds.stream().filter("plain"::equals).count());
        assertEquals(perTxn + plainRecords, kinds.size(), "no aborted record is read committed: " + kinds);
        Map<Integer, List<ConsumerRecord<String, String>>> everything = WeaveClients.recordsByPartition(clusters.cluster(0), topic,
                2 * perTxn + plainRecords, IsolationLevel.READ_UNCOMMITTED);
        assertEquals(perTxn, everything.values().stream().flatMap(List::stream).filter(r -> kind(r.value()).equals("aborted")).count(),
                "the aborted transaction's records did reach the primary's log");

        // what each branch must hold: the idempotent producer's acknowledged records, per partition in offset order
        Map<Integer, List<String>> expected = new TreeMap<>();
        Map<Integer, List<ConsumerRecord<String, String>>> primaryPlain = new TreeMap<>();
        committed.forEach((p, records) -> primaryPlain.put(p, records.stream().filter(r -> kind(r.value()).equals("plain")).toList()));
        plainAcked.stream().sorted(Comparator.comparingInt(RecordMetadata::partition).thenComparingLong(RecordMetadata::offset))
                .forEach(m -> {
                    ConsumerRecord<String, String> r = primaryPlain.get(m.partition()).stream().filter(x -> x.offset() == m.offset())
                            .findFirst().orElseThrow(() -> new AssertionError("acknowledged " + m + " is not on the primary"));
                    expected.computeIfAbsent(m.partition(), k -> new ArrayList<>()).add(r.key() + "=" + r.value());
                });
        assertEquals(plainRecords, expected.values().stream().mapToInt(List::size).sum());

        Map<Integer, List<String>> copies = new TreeMap<>();
        WeaveClients.recordsByPartition(clusters.cluster(1), "copy.payments", plainRecords)
                .forEach((p, records) -> copies.put(p, records.stream().map(r -> r.key() + "=" + r.value()).toList()));
        assertEquals(expected, copies, "pure copies: every acknowledged idempotent record once, in order, and no transaction's");

        Map<Integer, List<String>> redacted = new TreeMap<>();
        WeaveClients.recordsByPartition(clusters.cluster(1), "redacted.payments", plainRecords)
                .forEach((p, records) -> redacted.put(p, records.stream().map(r -> r.key() + "=" + r.value()).toList()));
        Map<Integer, List<String>> expectedRedacted = new TreeMap<>();
        for (Map.Entry<Integer, List<String>> e : expected.entrySet()) {
            List<String> out = new ArrayList<>();
            for (String kv : e.getValue()) {
                int eq = kv.indexOf('=');
                ObjectNode v = (ObjectNode) JSON.readTree(kv.substring(eq + 1));
                v.put("card", WeaveClients.saltedHash("pepper", v.get("card").asText()));
                out.add(kv.substring(0, eq) + "=" + JSON.writeValueAsString(v));
            }
            expectedRedacted.put(e.getKey(), out);
        }
        assertEquals(normalize(expectedRedacted), normalize(redacted),
                "a transforming branch: every acknowledged idempotent record once, redacted, in order, and no transaction's");

        // skipped and counted: transactional partitions are skipped for both; the writer never saw a transactional record
        Poll.until(Duration.ofSeconds(30), "the redacting writer's acknowledgements",
                () -> stage(ScrapedMetrics.of(clusters.proxy()), "acked") == plainRecords);
        ScrapedMetrics m = ScrapedMetrics.of(clusters.proxy());
        assertTrue(copies(m, "copy", "skipped_transactional") > 0, m.linesOf(COPIES));
        assertTrue(copies(m, "redacted", "skipped_transactional") > 0, m.linesOf(COPIES));
        assertEquals(0, copies(m, "copy", "failed") + copies(m, "copy", "dropped_backlog"), m.linesOf(COPIES));
        assertEquals(plainRecords, stage(m, "in"), "only the idempotent records reached the writer" + m.linesOf(RECORDS));
        assertEquals(plainRecords, stage(m, "sent"), m.linesOf(RECORDS));
        assertEquals(0, stage(m, "failed") + stage(m, "dropped_queue_full") + stage(m, "transform_error"), m.linesOf(RECORDS));
    }

    private static String kind(String json) {
        try {
            return JSON.readTree(json).get("kind").asText();
        } catch (Exception e) {
            throw new AssertionError("not JSON: " + json, e);
        }
    }

    /** key=value with the value's JSON re-read, so field order and spacing do not matter. */
    private static Map<Integer, List<String>> normalize(Map<Integer, List<String>> in) throws Exception {
        Map<Integer, List<String>> out = new TreeMap<>();
        for (Map.Entry<Integer, List<String>> e : in.entrySet()) {
            List<String> values = new ArrayList<>();
            for (String kv : e.getValue()) {
                int eq = kv.indexOf('=');
                values.add(kv.substring(0, eq) + "=" + JSON.readTree(kv.substring(eq + 1)));
            }
            out.put(e.getKey(), values);
        }
        return out;
    }

    private static double copies(ScrapedMetrics m, String branch, String outcome) {
        return m.sum(COPIES, Map.of("virtual_cluster", "main", "branch", branch, "outcome", outcome));
    }

    private static double stage(ScrapedMetrics m, String stage) {
        return m.sum(RECORDS, Map.of("virtual_cluster", "main", "branch", "redacted", "stage", stage));
    }
}
