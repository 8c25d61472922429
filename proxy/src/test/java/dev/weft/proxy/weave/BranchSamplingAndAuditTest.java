package dev.weft.proxy.weave;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.weft.proxy.testing.Poll;
import dev.weft.proxy.testing.ScrapedMetrics;
import dev.weft.proxy.weave.WeaveClients.StoredBatch;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Sampling and audit branches end to end, through Weft against real clusters: one {@code type: branch}
 * router over the primary c0 with three transforming branches on c1 —
 * <ul>
 *   <li>"sampled": {@code sample: { fraction: 0.1, by: key }} of {@code orders} and {@code replay}
 *       (to {@code sampled.*});</li>
 *   <li>"coin": {@code sample: { fraction: 0.1, by: random }} of {@code orders} (to {@code coin.*});</li>
 *   <li>"audit": {@code derive: audit} of {@code events}, to the one topic {@code weft-audit}.</li>
 * </ul>
 * A key sample keeps a binomially plausible share of the keys and the same keys on a second run (a
 * restarted Weft, a fresh producer, the keys in another order, another topic); each kept record is the
 * primary's, in order. An audit record describes exactly one batch of the primary's log (base offset and
 * record count as stored) and names the producer's client id; together they cover every acknowledged
 * record once.
 */
class BranchSamplingAndAuditTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final double FRACTION = 0.1;
    private static WovenClusters clusters;

    @BeforeAll
    static void start() {
        clusters = WovenClusters.start(2).topic(0, "orders", 3).topic(0, "replay", 3).topic(0, "events", 4)
                .topic(1, "sampled.orders", 3).topic(1, "sampled.replay", 3).topic(1, "coin.orders", 3)
                .topic(1, "weft-audit", 2)
                .routeWithTargets("branch", List.of(
                        "name: prod, target: { cluster: c0 }",
                        "name: sampled, target: { cluster: c1 }, topics: { include: [orders, replay] },"
                                + " naming: { prefix: \"sampled.\" }, transforms: [ { sample: { fraction: 0.1, by: key } } ]",
                        "name: coin, target: { cluster: c1 }, topics: { include: [orders] }, naming: { prefix: \"coin.\" },"
                                + " transforms: [ { sample: { fraction: 0.1, by: random } } ]",
                        "name: audit, target: { cluster: c1 }, topics: { include: [events] },"
                                + " transforms: [ { derive: audit } ], topic: weft-audit"));
    }

    @AfterAll
    static void stop() {
        if (clusters != null) {
            clusters.close();
        }
    }

    /** |k - fN| within 4.5 standard deviations of a binomial(N, f): false with probability below 1e-5. */
    private static void assertBinomial(int kept, int n, String what) {
        double mean = n * FRACTION;
        double bound = 4.5 * Math.sqrt(n * FRACTION * (1 - FRACTION));
        assertTrue(Math.abs(kept - mean) <= bound, what + ": kept " + kept + " of " + n + ", expected " + mean + " ± " + bound);
    }

    @Test
    void aKeySampleKeepsTheSameKeysOnEveryRunAndARandomSampleAShareOfThem() throws Exception {
        int n = 3000;
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            keys.add("key-" + i);
        }
        // run 1: in key order, to orders (also sampled at random by "coin")
        produce(keys, "orders", "run1-", "sample-run-1");
        awaitWriter("sampled", n);
        awaitWriter("coin", n);
        ScrapedMetrics run1 = ScrapedMetrics.of(clusters.proxy());
        Map<Integer, List<ConsumerRecord<String, String>>> primary1 = WeaveClients.recordsByPartition(clusters.cluster(0), "orders", n);
        List<String> kept1 = keysOf(readBranch("sampled.orders", (int) stage(run1, "sampled", "acked")));
        assertEquals(kept1.size(), new HashSet<>(kept1).size(), "each kept key once: " + kept1.size());
        assertBinomial(kept1.size(), n, "by key, run 1");
        assertEquals(n - kept1.size(), stage(run1, "sampled", "dropped_sampled"), run1.linesOf("weft_branch_records_total"));
        assertSampleOfPrimary(primary1, readBranch("sampled.orders", kept1.size()), new HashSet<>(kept1));

        Map<Integer, List<ConsumerRecord<String, String>>> coinCopies = readBranch("coin.orders", (int) stage(run1, "coin", "acked"));
        List<String> coin = keysOf(coinCopies);
        assertBinomial(coin.size(), n, "by random");
        assertEquals(n - coin.size(), stage(run1, "coin", "dropped_sampled"), run1.linesOf("weft_branch_records_total"));
        assertSampleOfPrimary(primary1, coinCopies, new HashSet<>(coin));
        assertNotEquals(new TreeSet<>(kept1), new TreeSet<>(coin), "a random sample is not the key sample");

        // run 2: a new Weft (new writer, new sampler), a fresh producer, the same keys shuffled, another topic
        clusters.restartProxy();
        List<String> shuffled = new ArrayList<>(keys);
        Collections.shuffle(shuffled, new Random(13));
        produce(shuffled, "replay", "run2-", "sample-run-2");
        awaitWriter("sampled", n);
        ScrapedMetrics run2 = ScrapedMetrics.of(clusters.proxy());
        Map<Integer, List<ConsumerRecord<String, String>>> primary2 = WeaveClients.recordsByPartition(clusters.cluster(0), "replay", n);
        Map<Integer, List<ConsumerRecord<String, String>>> copies2 = readBranch("sampled.replay", (int) stage(run2, "sampled", "acked"));
        List<String> kept2 = keysOf(copies2);
        assertEquals(new TreeSet<>(kept1), new TreeSet<>(kept2), "the same keys are kept on both runs");
        assertEquals(kept2.size(), new HashSet<>(kept2).size());
        assertSampleOfPrimary(primary2, copies2, new HashSet<>(kept2));
    }

    @Test
    void everyAuditRecordDescribesOneBatchOfThePrimaryAndTogetherTheyCoverEveryRecordOnce() throws Exception {
        String topic = "events";
        int partitions = 4;
        int[] sizes = {1, 7, 30, 120, 3, 55, 2};
        long startedMs = System.currentTimeMillis();
        Map<Long, String> clientOf = new HashMap<>();          // partition << 40 | offset → the producer's client.id
        try (KafkaProducer<String, String> a = auditProducer("audit-a", "lz4");
             KafkaProducer<String, String> b = auditProducer("audit-b", "none")) {
            int seq = 0;
            for (int round = 0; round < 8; round++) {
                KafkaProducer<String, String> producer = round % 2 == 0 ? a : b;
                String clientId = round % 2 == 0 ? "audit-a" : "audit-b";
                List<Future<RecordMetadata>> sent = new ArrayList<>();
                for (int p = 0; p < partitions; p++) {
                    int size = sizes[(round + 3 * p) % sizes.length];
                    for (int j = 0; j < size; j++) {
                        sent.add(producer.send(new ProducerRecord<>(topic, p, "k" + seq, "event-" + seq++)));
                    }
                }
                producer.flush();        // a long linger: each flush ends one batch per partition, of the size above
                for (Future<RecordMetadata> f : sent) {
                    RecordMetadata m = f.get(30, TimeUnit.SECONDS);
                    clientOf.put(at(m.partition(), m.offset()), clientId);
                }
            }
        }
        long acknowledged = clientOf.size();
        Map<Integer, List<StoredBatch>> log = WeaveClients.batchesDirectly(clusters.cluster(0), topic);
        List<StoredBatch> batches = log.values().stream().flatMap(List::stream).toList();
        assertEquals(acknowledged, batches.stream().mapToInt(StoredBatch::records).sum(), "the primary holds what was acknowledged");
        assertTrue(batches.stream().map(StoredBatch::records).distinct().count() >= 4, "batches of varying sizes: " + batches);

        Map<Integer, List<ConsumerRecord<String, String>>> audit = WeaveClients.recordsByPartition(clusters.cluster(1), "weft-audit",
                batches.size());
        long finishedMs = System.currentTimeMillis();
        Set<String> described = new HashSet<>();
        Set<Long> covered = new HashSet<>();
        Set<String> clients = new TreeSet<>();
        int auditRecords = 0;
        for (List<ConsumerRecord<String, String>> part : audit.values()) {
            for (ConsumerRecord<String, String> r : part) {
                auditRecords++;
                JsonNode v = JSON.readTree(r.value());
                assertEquals("main", v.get("virtual_cluster").asText(), r.value());
                assertEquals(topic, v.get("topic").asText(), r.value());
                int partition = v.get("partition").asInt();
                long base = v.get("base_offset").asLong();
                int count = v.get("record_count").asInt();
                assertEquals(topic + "-" + partition, r.key(), "keyed by topic-partition");
                assertTrue(described.add(partition + "@" + base + "+" + count), "one audit record per batch: " + r.value());
                long time = v.get("time").asLong();
                assertTrue(time >= startedMs && time <= finishedMs, "acknowledgement time " + time + ": " + r.value());
                JsonNode clientId = v.get("client_id");
                assertNotNull(clientId, r.value());
                clients.add(clientId.asText());
                for (long o = base; o < base + count; o++) {
                    assertTrue(covered.add(at(partition, o)), "offset " + partition + "/" + o + " covered twice: " + r.value());
                    assertEquals(clientOf.get(at(partition, o)), clientId.asText(),
                            "the client id of the producer that wrote " + partition + "/" + o + ": " + r.value());
                }
            }
        }
        Set<String> stored = new HashSet<>();
        for (StoredBatch s : batches) {
            assertEquals(s.lastOffset() - s.baseOffset() + 1, s.records(), "no gaps in a fresh batch: " + s);
            stored.add(s.partition() + "@" + s.baseOffset() + "+" + s.records());
        }
        assertEquals(batches.size(), auditRecords, "one audit record per batch of the primary");
        assertEquals(stored, described, "(partition, base_offset, record_count) of the audit records are the primary's batches");
        assertEquals(clientOf.keySet(), covered, "every acknowledged record covered once");
        assertEquals(Set.of("audit-a", "audit-b"), clients);
    }

    private static long at(int partition, long offset) {
        return ((long) partition << 40) | offset;
    }

    private static KafkaProducer<String, String> auditProducer(String clientId, String compression) {
        return WeaveClients.producer(clusters.bootstrap(), Map.of(ProducerConfig.CLIENT_ID_CONFIG, clientId,
                ProducerConfig.LINGER_MS_CONFIG, 60_000, ProducerConfig.BATCH_SIZE_CONFIG, 1 << 20,
                ProducerConfig.COMPRESSION_TYPE_CONFIG, compression));
    }

    private static void produce(List<String> keys, String topic, String valuePrefix, String clientId) throws Exception {
        try (KafkaProducer<String, String> producer = WeaveClients.producer(clusters.bootstrap(), Map.of(
                ProducerConfig.CLIENT_ID_CONFIG, clientId, ProducerConfig.LINGER_MS_CONFIG, 5))) {
            List<Future<RecordMetadata>> sent = new ArrayList<>();
            for (String k : keys) {
                sent.add(producer.send(new ProducerRecord<>(topic, k, valuePrefix + k)));
            }
            for (Future<RecordMetadata> f : sent) {
                f.get(30, TimeUnit.SECONDS);
            }
        }
    }

    /** Waits until {@code branch}'s writer took {@code records} and has every record it sent acknowledged. */
    private static void awaitWriter(String branch, int records) {
        ScrapedMetrics[] last = {null};
        Poll.until(Duration.ofSeconds(30), "branch " + branch + " done with " + records + " records", () -> {
            ScrapedMetrics m = ScrapedMetrics.of(clusters.proxy());
            last[0] = m;
            double sent = stage(m, branch, "sent");
            return stage(m, branch, "in") == records && sent + stage(m, branch, "dropped_sampled") == records
                    && stage(m, branch, "acked") == sent;
        }, () -> last[0] == null ? "" : last[0].linesOf("weft_branch_records_total"));
        ScrapedMetrics m = last[0];
        assertEquals(0, stage(m, branch, "failed") + stage(m, branch, "dropped_queue_full") + stage(m, branch, "transform_error"),
                m.linesOf("weft_branch_records_total"));
    }

    private static double stage(ScrapedMetrics m, String branch, String stage) {
        return m.sum("weft_branch_records_total", Map.of("virtual_cluster", "main", "branch", branch, "stage", stage));
    }

    private static Map<Integer, List<ConsumerRecord<String, String>>> readBranch(String topic, int expected) throws Exception {
        assertEquals(expected, WeaveClients.endOffsetsTotal(clusters.cluster(1), topic), topic + " holds what its writer had acknowledged");
        Map<Integer, List<ConsumerRecord<String, String>>> out = WeaveClients.recordsByPartition(clusters.cluster(1), topic, expected);
        assertEquals(expected, out.values().stream().mapToInt(List::size).sum(), topic);
        return out;
    }

    private static List<String> keysOf(Map<Integer, List<ConsumerRecord<String, String>>> byPartition) {
        return byPartition.values().stream().flatMap(List::stream).map(ConsumerRecord::key).toList();
    }

    /** Per partition, the copies are the primary's records of the kept keys, in the primary's order, unchanged. */
    private static void assertSampleOfPrimary(Map<Integer, List<ConsumerRecord<String, String>>> primary,
            Map<Integer, List<ConsumerRecord<String, String>>> copies, Set<String> kept) {
        for (Map.Entry<Integer, List<ConsumerRecord<String, String>>> e : primary.entrySet()) {
            List<String> expected = e.getValue().stream().filter(r -> kept.contains(r.key())).map(r -> r.key() + "=" + r.value()).toList();
            List<String> actual = copies.getOrDefault(e.getKey(), List.of()).stream().map(r -> r.key() + "=" + r.value()).toList();
            assertEquals(expected, actual, "partition " + e.getKey() + ": the kept records, in the primary's order");
        }
        assertTrue(primary.keySet().containsAll(copies.keySet()), "copies keep the client's partitions");
    }
}
