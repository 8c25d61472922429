package dev.weft.proxy.weave;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weft.proxy.conformance.ExternalProcess;
import dev.weft.proxy.conformance.Prerequisites;
import dev.weft.proxy.testing.Poll;
import dev.weft.proxy.testing.ScrapedMetrics;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real non-Java clients through a transforming branch: {@code kcat} (librdkafka, lz4) and kafkajs produce
 * JSON records with an {@code authorization} and a {@code trace} header through a {@code type: branch}
 * router whose branch "staging" (cluster c1) hashes {@code $.user.email} under the salt and removes
 * {@code authorization}. Every record either client had acknowledged is on the primary as sent and on the
 * branch once, in the primary's order per partition, redacted, without the header and otherwise unchanged.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class BranchRealClientsTest {

    private static final Duration TOOL_TIMEOUT = Duration.ofSeconds(90);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int RECORDS = 400;
    private static WovenClusters clusters;

    @BeforeAll
    static void start() {
        clusters = WovenClusters.start(2).topic(0, "kcat-clicks", 3).topic(0, "js-clicks", 3)
                .topic(1, "shadow.kcat-clicks", 3).topic(1, "shadow.js-clicks", 3)
                .route("branch", List.of("name: prod",
                        "name: staging, topics: { include: [kcat-clicks, js-clicks] }, naming: { prefix: \"shadow.\" },"
                                + " transforms: [ { redact: { value-fields: [\"$.user.email\"], salt: pepper,"
                                + " headers: { authorization: remove } } } ]"));
    }

    @AfterAll
    static void stop() {
        if (clusters != null) {
            clusters.close();
        }
    }

    private static String click(String client, int i) {
        return "{\"id\":" + i + ",\"user\":{\"email\":\"u" + i + "@example.com\",\"plan\":\"pro\"},\"client\":\"" + client + "\"}";
    }

    @Test
    void kcatRecordsReachTheBranchRedactedWithoutTheHeaderInOrder(@TempDir Path scratch) throws Exception {
        String topic = "kcat-clicks";
        StringBuilder lines = new StringBuilder();
        for (int i = 0; i < RECORDS; i++) {
            lines.append("kc").append(i).append('\t').append(click("kcat", i)).append('\n');
        }
        Path input = Files.writeString(scratch.resolve("input.tsv"), lines, StandardCharsets.UTF_8);
        ExternalProcess.Result result = ExternalProcess.run(List.of(Prerequisites.kcat().toString(),
                        "-P", "-b", clusters.bootstrap(), "-t", topic, "-K", "\t", "-z", "lz4",
                        "-H", "authorization=x", "-H", "trace=kcat",
                        "-X", "enable.idempotence=true", "-X", "acks=all", "-X", "linger.ms=5"),
                scratch, Map.of(), input, TOOL_TIMEOUT, scratch).assertSucceeded("kcat -P");
        assertBranchIsRedactedPrimary(topic, "kc", "kcat", result::describe);
    }

    @Test
    void kafkaJsRecordsReachTheBranchRedactedWithoutTheHeaderInOrder(@TempDir Path scratch) throws Exception {
        Path project = Prerequisites.kafkaJsProject();
        String topic = "js-clicks";
        StringBuilder lines = new StringBuilder();
        for (int i = 0; i < RECORDS; i++) {
            lines.append("js").append(i).append('\t')
                    .append(Base64.getEncoder().encodeToString(click("kafkajs", i).getBytes(StandardCharsets.UTF_8))).append('\n');
        }
        Path input = Files.writeString(scratch.resolve("input.tsv"), lines, StandardCharsets.US_ASCII);
        ExternalProcess.Result result = ExternalProcess.run(List.of(Prerequisites.node().toString(), "kafkajs_client.js",
                        "produce-with-headers", clusters.bootstrap(), topic, input.toString(), "authorization=x,trace=kafkajs"),
                project, Map.of(), null, TOOL_TIMEOUT, scratch).assertSucceeded("kafkajs_client.js produce-with-headers");
        assertTrue(result.stdout().contains("sent " + RECORDS + "\n"), result::describe);
        assertBranchIsRedactedPrimary(topic, "js", "kafkajs", result::describe);
    }

    /**
     * The primary holds each record the client sent ({@code keyPrefix0..}) once, as sent; the branch holds
     * each partition's records in the primary's order, the email hashed, {@code authorization} removed.
     */
    private static void assertBranchIsRedactedPrimary(String topic, String keyPrefix, String trace, Supplier<String> context)
            throws Exception {
        Map<Integer, List<ConsumerRecord<String, String>>> primary = WeaveClients.recordsByPartition(clusters.cluster(0), topic, RECORDS);
        Set<String> expectedKeys = new TreeSet<>();
        for (int i = 0; i < RECORDS; i++) {
            expectedKeys.add(keyPrefix + i);
        }
        List<String> primaryKeys = primary.values().stream().flatMap(List::stream).map(ConsumerRecord::key).toList();
        assertEquals(RECORDS, primaryKeys.size(), () -> "the primary holds each record once" + context.get());
        assertEquals(expectedKeys, new TreeSet<>(primaryKeys), context);
        Map<Integer, List<ConsumerRecord<String, String>>> branch = WeaveClients.recordsByPartition(clusters.cluster(1),
                "shadow." + topic, RECORDS);
        WeaveClients.assertCopiesInOrder(primary, branch, (original, copy) -> {
            assertEquals("x", header(original, "authorization"), "the primary keeps the records as sent");
            assertTrue(original.value().contains("@example.com"));
            ObjectNode expected = (ObjectNode) JSON.readTree(original.value());
            String email = expected.get("user").get("email").asText();
            ((ObjectNode) expected.get("user")).put("email", WeaveClients.saltedHash("pepper", email));
            JsonNode actual = JSON.readTree(copy.value());
            assertEquals(expected, actual, "only the email changed, to its salted hash");
            assertNotEquals(email, actual.get("user").get("email").asText());
            assertNull(copy.headers().lastHeader("authorization"), "header removed");
            assertEquals(trace, header(copy, "trace"), "other headers kept");
            List<String> names = new ArrayList<>();
            for (Header h : copy.headers()) {
                names.add(h.key());
            }
            assertEquals(List.of("trace"), names, "partition " + copy.partition() + " offset " + copy.offset());
        });
        Poll.until(Duration.ofSeconds(30), "the writer's acknowledgements of " + topic, () -> {
            ScrapedMetrics m = ScrapedMetrics.of(clusters.proxy());
            return stage(m, "acked") == stage(m, "in") && stage(m, "in") > 0;
        });
        ScrapedMetrics m = ScrapedMetrics.of(clusters.proxy());
        assertEquals(0, stage(m, "failed") + stage(m, "dropped_queue_full") + stage(m, "transform_error") + stage(m, "undecodable")
                + stage(m, "dropped_not_json"), m.linesOf("weft_branch_records_total"));
    }

    private static String header(ConsumerRecord<String, String> r, String name) {
        Header h = r.headers().lastHeader(name);
        assertNotNull(h, name + " on " + r);
        return new String(h.value(), StandardCharsets.UTF_8);
    }

    private static double stage(ScrapedMetrics m, String stage) {
        return m.sum("weft_branch_records_total", Map.of("virtual_cluster", "main", "branch", "staging", "stage", stage));
    }
}
