package dev.weft.proxy.weave;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weft.proxy.testing.Poll;
import dev.weft.proxy.testing.ScrapedMetrics;
import dev.weft.testkit.KafkaCluster;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
 * A transforming branch end to end: a {@code type: branch} router whose branch "staging" (cluster c1)
 * redacts {@code $.customer.email} (salted hash) and drops the {@code authorization} header of the copies
 * of {@code orders}. A kafka-clients producer (Produce v13, topic ids) writes through Weft; every record
 * the primary acknowledged reaches staging once, in the primary's order per partition, redacted and
 * otherwise unchanged, written off the event loops by the branch's own producer.
 */
class BranchTransformsTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static WovenClusters clusters;

    @BeforeAll
    static void start() {
        clusters = WovenClusters.start(2).topic(0, "orders", 3).topic(1, "shadow.orders", 3)
                .route("branch", List.of("name: prod",
                        "name: staging, topics: { include: [orders] }, naming: { prefix: \"shadow.\" },"
                                + " transforms: [ { redact: { value-fields: [\"$.customer.email\"], salt: pepper,"
                                + " headers: { authorization: remove } } } ]"));
    }

    @AfterAll
    static void stop() {
        if (clusters != null) {
            clusters.close();
        }
    }

    @Test
    void everyAcknowledgedRecordReachesTheBranchRedactedInOrder() throws Exception {
        int records = 300;
        try (KafkaProducer<String, String> producer = WeaveClients.producer(clusters.bootstrap(),
                Map.of(ProducerConfig.LINGER_MS_CONFIG, 5, ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4"))) {
            List<Future<RecordMetadata>> sent = new ArrayList<>();
            for (int i = 0; i < records; i++) {
                String value = "{\"id\":" + i + ",\"customer\":{\"email\":\"c" + i + "@example.com\",\"tier\":\"gold\"},\"total\":" + i + "}";
                ProducerRecord<String, String> r = new ProducerRecord<>("orders", "k" + i, value);
                r.headers().add("authorization", "Bearer s3cret".getBytes(StandardCharsets.UTF_8));
                r.headers().add("trace", ("t" + i).getBytes(StandardCharsets.UTF_8));
                sent.add(producer.send(r));
            }
            for (Future<RecordMetadata> f : sent) {
                f.get(30, TimeUnit.SECONDS);
            }
        }
        Map<Integer, List<ConsumerRecord<String, String>>> primary = read(clusters.cluster(0), "orders", records);
        Map<Integer, List<ConsumerRecord<String, String>>> branch = read(clusters.cluster(1), "shadow.orders", records);
        WeaveClients.assertCopiesInOrder(primary, branch, (original, copy) -> {
            ObjectNode expected = (ObjectNode) JSON.readTree(original.value());
            String email = expected.get("customer").get("email").asText();
            ((ObjectNode) expected.get("customer")).put("email", WeaveClients.saltedHash("pepper", email));
            JsonNode actual = JSON.readTree(copy.value());
            assertEquals(expected, actual, "only the email changed, to its salted hash");
            assertNotEquals(email, actual.get("customer").get("email").asText());
            assertNull(copy.headers().lastHeader("authorization"), "header removed");
            assertEquals(new String(original.headers().lastHeader("trace").value(), StandardCharsets.UTF_8),
                    new String(copy.headers().lastHeader("trace").value(), StandardCharsets.UTF_8));
        });
        Poll.until(Duration.ofSeconds(30), "the writer's acknowledgements on /metrics",
                () -> records(ScrapedMetrics.of(clusters.proxy()), "acked") == records);
        ScrapedMetrics m = ScrapedMetrics.of(clusters.proxy());
        assertEquals(records, records(m, "in"), m.linesOf("weft_branch_records_total"));
        assertEquals(records, records(m, "sent"));
        assertEquals(0, records(m, "failed") + records(m, "dropped_queue_full") + records(m, "transform_error"));
        assertEquals(1, m.sum("weft_branch_up", Map.of("virtual_cluster", "main", "branch", "staging")));
        double bytesIn = m.sum("weft_branch_bytes_total", Map.of("virtual_cluster", "main", "branch", "staging", "stage", "in"));
        double bytesSent = m.sum("weft_branch_bytes_total", Map.of("virtual_cluster", "main", "branch", "staging", "stage", "sent"));
        assertTrue(bytesIn > 0 && bytesSent > records * 40, "bytes handed over " + bytesIn + ", produced " + bytesSent);
        for (List<ConsumerRecord<String, String>> partition : primary.values()) {
            for (ConsumerRecord<String, String> r : partition) {
                assertEquals("Bearer s3cret", new String(r.headers().lastHeader("authorization").value(), StandardCharsets.UTF_8),
                        "the primary keeps its records as sent");
                assertTrue(r.value().contains("@example.com"));
            }
        }
    }

    private static double records(ScrapedMetrics m, String stage) {
        return m.sum("weft_branch_records_total", Map.of("virtual_cluster", "main", "branch", "staging", "stage", stage));
    }

    private static Map<Integer, List<ConsumerRecord<String, String>>> read(KafkaCluster cluster, String topic, int expected) {
        Map<Integer, List<ConsumerRecord<String, String>>> out = WeaveClients.recordsByPartition(cluster, topic, expected);
        assertTrue(out.values().stream().mapToInt(List::size).sum() == expected, topic + ": exactly " + expected);
        return out;
    }
}
