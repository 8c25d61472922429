package dev.weft.proxy.branch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.weft.proxy.testing.Poll;
import dev.weft.routing.branch.transform.BatchContext;
import dev.weft.routing.branch.transform.TransformChain;
import dev.weft.routing.dag.RoutingProblem;
import dev.weft.testkit.KafkaCluster;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The off-loop branch writer against a real broker: batches as a client sends them (compressed or not)
 * go in through a lane, come out on the branch cluster transformed, in order, in the client's partition;
 * a full lane drops and counts without blocking the offering thread; a branch that is not there is
 * reported down and costs nothing but drops.
 */
class BranchWriterTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static KafkaCluster staging;

    @BeforeAll
    static void start() throws Exception {
        staging = KafkaCluster.builder().brokers(1).build().start();
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, staging.bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic("shadow.orders", 3, (short) 1), new NewTopic("audit", 1, (short) 1)))
                    .all().get(60, TimeUnit.SECONDS);
        }
    }

    @AfterAll
    static void stop() {
        if (staging != null) {
            staging.close();
        }
    }

    /** A port nothing listens on: taken from the OS, then closed. */
    private static int closedPort() throws java.io.IOException {
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private static TransformChain chain(Object raw) {
        List<RoutingProblem> problems = new ArrayList<>();
        TransformChain chain = TransformChain.parse("routers.shadow.routes[1].transforms", raw, "replica-1", problems);
        assertEquals(List.of(), problems);
        return chain;
    }

    private static ByteBuf batch(Compression compression, SimpleRecord... records) {
        MemoryRecords m = MemoryRecords.withRecords(compression, records);
        ByteBuf buf = PooledByteBufAllocator.DEFAULT.directBuffer(m.sizeInBytes());
        buf.writeBytes(m.buffer().duplicate());
        return buf;
    }

    private static SimpleRecord order(int n) {
        String value = "{\"id\":" + n + ",\"customer\":{\"email\":\"c" + n + "@example.com\",\"tier\":\"gold\"},\"total\":" + (n * 10) + "}";
        return new SimpleRecord(1_700_000_000_000L + n, ("k" + n).getBytes(StandardCharsets.UTF_8),
                value.getBytes(StandardCharsets.UTF_8),
                new RecordHeader[] {new RecordHeader("authorization", "Bearer secret".getBytes(StandardCharsets.UTF_8)),
                        new RecordHeader("trace", ("t" + n).getBytes(StandardCharsets.UTF_8))});
    }

    private static Map<String, Object> producerTo(String bootstrap) {
        return Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    }

    private static List<ConsumerRecord<byte[], byte[]>> readAll(String topic, int partitions, int expected) {
        List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, staging.bootstrapServers(),
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class))) {
            List<TopicPartition> tps = new ArrayList<>();
            for (int p = 0; p < partitions; p++) {
                tps.add(new TopicPartition(topic, p));
            }
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
            Poll.until(Duration.ofSeconds(60), expected + " records on " + topic, () -> {
                consumer.poll(Duration.ofMillis(200)).forEach(out::add);
                return out.size() >= expected;
            });
            consumer.poll(Duration.ofMillis(300)).forEach(out::add);   // nothing more than expected
        }
        return out;
    }

    @Test
    void redactedCopiesLandInOrderInTheClientsPartition() throws Exception {
        TransformChain chain = chain(List.of(Map.of("redact", Map.of(
                "value-fields", List.of("$.customer.email"), "with", "hash", "salt", "pepper",
                "headers", Map.of("authorization", "remove")))));
        BranchWriterCounters counters = new BranchWriterCounters();
        try (BranchWriter writer = new BranchWriter("main/shadow/staging", producerTo(staging.bootstrapServers()), chain, null,
                64, 8 << 20, counters).start()) {
            int n = 0;
            for (int b = 0; b < 6; b++) {                       // six produce batches to partition 2: gzip and plain
                Compression compression = b % 2 == 0 ? Compression.gzip().build() : Compression.NONE;
                SimpleRecord[] records = {order(n++), order(n++), order(n++)};
                BatchContext ctx = new BatchContext("main", "orders", 2, 100L + 3 * b, 3, "app-1", "ANONYMOUS", 1_700_000_000_000L);
                assertTrue(writer.lane(this).offer(new BranchBatch(batch(compression, records), ctx, "shadow.orders", 2)));
            }
            List<ConsumerRecord<byte[], byte[]>> landed = readAll("shadow.orders", 3, 18);
            assertEquals(18, landed.size(), "every acknowledged record once");
            String firstHash = null;
            for (int i = 0; i < landed.size(); i++) {
                ConsumerRecord<byte[], byte[]> r = landed.get(i);
                assertEquals(2, r.partition(), "the client's partition");
                assertEquals("k" + i, new String(r.key(), StandardCharsets.UTF_8), "order kept");
                assertEquals(1_700_000_000_000L + i, r.timestamp());
                JsonNode v = JSON.readTree(r.value());
                assertEquals(i, v.get("id").asInt());
                assertEquals("gold", v.get("customer").get("tier").asText(), "other fields unchanged");
                assertEquals(i * 10, v.get("total").asInt());
                String email = v.get("customer").get("email").asText();
                assertNotEquals("c" + i + "@example.com", email, "redacted");
                assertTrue(email.matches("[0-9a-f]{64}"), "a salted SHA-256 HMAC in hex: " + email);
                if (i == 0) {
                    firstHash = email;
                }
                assertNull(r.headers().lastHeader("authorization"), "header removed");
                assertEquals("t" + i, new String(r.headers().lastHeader("trace").value(), StandardCharsets.UTF_8));
            }
            assertNotNull(firstHash);
            Poll.until(Duration.ofSeconds(30), "18 acknowledged", () -> counters.recordsAcked() == 18);
            assertEquals(18, counters.recordsIn());
            assertEquals(18, counters.recordsSent());
            assertEquals(0, counters.droppedQueueFull());
            assertEquals(0, counters.recordsFailed());
            assertTrue(writer.isUp());
        }
    }

    @Test
    void auditStreamCountsEveryBatchAtThePrimarysOffsets() throws Exception {
        TransformChain chain = chain(List.of(Map.of("derive", "audit")));
        BranchWriterCounters counters = new BranchWriterCounters();
        try (BranchWriter writer = new BranchWriter("main/audit/staging", producerTo(staging.bootstrapServers()), chain, "audit",
                64, 8 << 20, counters).start()) {
            // one client partition entry holding two batches: the second batch's base offset follows the first's records
            MemoryRecords first = MemoryRecords.withRecords(Compression.NONE, order(0), order(1));
            MemoryRecords second = MemoryRecords.withRecords(Compression.NONE, order(2), order(3), order(4));
            ByteBuf both = PooledByteBufAllocator.DEFAULT.directBuffer(first.sizeInBytes() + second.sizeInBytes());
            both.writeBytes(first.buffer().duplicate()).writeBytes(second.buffer().duplicate());
            BatchContext ctx = new BatchContext("main", "orders", 1, 500L, 5, "app-1", "User:alice", 1_700_000_000_000L);
            assertTrue(writer.lane(this).offer(new BranchBatch(both, ctx, "shadow.orders", 1)));
            List<ConsumerRecord<byte[], byte[]>> audit = readAll("audit", 1, 2);
            assertEquals(2, audit.size(), "one audit record per batch");
            JsonNode a = JSON.readTree(audit.get(0).value());
            JsonNode b = JSON.readTree(audit.get(1).value());
            assertEquals(500L, a.get("base_offset").asLong());
            assertEquals(2, a.get("record_count").asInt());
            assertEquals(502L, b.get("base_offset").asLong());
            assertEquals(3, b.get("record_count").asInt());
            assertEquals("orders", a.get("topic").asText());
            assertEquals(1, a.get("partition").asInt());
            assertEquals("app-1", a.get("client_id").asText());
            assertEquals("User:alice", a.get("principal").asText());
            assertEquals("main", a.get("virtual_cluster").asText());
        }
    }

    @Test
    void aFullLaneDropsAndCountsWithoutWaiting() {
        BranchWriterCounters counters = new BranchWriterCounters();
        // never started: nothing drains the lane, as when the branch is stuck
        try (BranchWriter writer = new BranchWriter("main/stuck", producerTo(staging.bootstrapServers()), chain(null), null,
                2, 8 << 20, counters)) {
            int accepted = 0;
            for (int i = 0; i < 5; i++) {
                BatchContext ctx = new BatchContext("main", "orders", 0, i, 1, "app", null, 0L);
                if (writer.lane(this).offer(new BranchBatch(batch(Compression.NONE, order(i)), ctx, "shadow.orders", 0))) {
                    accepted++;
                }
            }
            assertEquals(2, accepted, "the lane holds its bound of batches");
            assertEquals(3, counters.droppedQueueFull());
            assertEquals(5, counters.recordsIn());
            assertEquals(2, writer.queueDepth());
        }
        // close released what the lane held (leak detection is PARANOID in tests)
    }

    @Test
    void aLaneBoundedByBytesDropsWhatWouldExceedIt() {
        BranchWriterCounters counters = new BranchWriterCounters();
        try (BranchWriter writer = new BranchWriter("main/bytes", producerTo(staging.bootstrapServers()), chain(null), null,
                100, 1, counters)) {
            BatchContext ctx = new BatchContext("main", "orders", 0, 0, 1, "app", null, 0L);
            assertFalse(writer.lane(this).offer(new BranchBatch(batch(Compression.NONE, order(0)), ctx, "shadow.orders", 0)));
            assertEquals(1, counters.droppedQueueFull());
            assertTrue(counters.droppedQueueFullBytes() > 1);
        }
    }

    @Test
    void aBranchThatIsNotThereIsDownAndOnlyCostsDrops() throws Exception {
        String nowhere = "127.0.0.1:" + closedPort();
        BranchWriterCounters counters = new BranchWriterCounters();
        try (BranchWriter writer = new BranchWriter("main/gone", producerTo(nowhere), chain(null), null, 4, 8 << 20, counters)
                .start()) {
            for (int i = 0; i < 200; i++) {
                BatchContext ctx = new BatchContext("main", "orders", 0, i, 1, "app", null, 0L);
                writer.lane(this).offer(new BranchBatch(batch(Compression.NONE, order(i)), ctx, "shadow.orders", 0));
            }
            Poll.until(Duration.ofSeconds(30), "the branch reported down", () -> !writer.isUp());
            assertTrue(counters.droppedQueueFull() > 0, "the lane filled while the writer waited on the branch: " + counters.droppedQueueFull());
            assertTrue(counters.recordsFailed() > 0);
            assertEquals(0, counters.recordsAcked());
            assertEquals(200, counters.recordsIn());
        }
    }
}
