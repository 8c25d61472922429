package dev.weft.proxy.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.proxy.testing.RawKafkaClient;
import dev.weft.proxy.testing.ScrapedMetrics;
import dev.weft.proxy.testing.VirtualClusterFixture;
import dev.weft.proxy.testing.VirtualClusterKind;
import dev.weft.testkit.KafkaCluster;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Fetch sessions (KIP-227) through every kind of virtual cluster: where a connection's Fetch goes to
 * its own broker under the client's keys the session is kept, so a consumer of many partitions sends
 * near-empty incremental fetches; where the proxy splits (collapsed) it is declined and every Fetch is
 * full. Either way every record arrives. A live session whose request can no longer go as it is gets
 * {@code FETCH_SESSION_ID_NOT_FOUND}, and the client's full fetch after it is served.
 */
class FetchSessionTest {

    private static final int PARTITIONS = 40;
    /** A full v17 fetch of 40 partitions is ~1.4 KB (33 B per partition); an empty incremental one ~60 B. */
    private static final double FULL_FETCH_BYTES = PARTITIONS * 33;

    private static VirtualClusterFixture fixture;

    @BeforeAll
    static void start() {
        fixture = VirtualClusterFixture.over(KafkaCluster.builder().brokers(1).build().start()).build();
    }

    @AfterAll
    static void stop() {
        if (fixture != null) {
            fixture.close();
        }
    }

    @ParameterizedTest
    @MethodSource("dev.weft.proxy.testing.VirtualClusterKind#all")
    void aConsumerOfManyPartitionsKeepsItsSessionWhereItsFetchesGoAsTheyAre(VirtualClusterKind kind) throws Exception {
        String topic = kind.name("sessions");
        fixture.createTopic(kind, topic, PARTITIONS, 1);
        List<TopicPartition> all = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            all.add(new TopicPartition(topic, p));
        }
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, fixture.bootstrap(kind),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "200"),
                new StringDeserializer(), new StringDeserializer())) {
            consumer.assign(all);
            consumer.poll(Duration.ofMillis(500)); // the first, full fetch
            double[] before = fetchRequests(kind);
            long idleUntil = System.nanoTime() + Duration.ofSeconds(3).toNanos();
            while (System.nanoTime() - idleUntil < 0) {
                assertTrue(consumer.poll(Duration.ofMillis(200)).isEmpty(), "nothing was produced yet");
            }
            double[] after = fetchRequests(kind);
            double fetches = after[0] - before[0];
            double bytesPerFetch = (after[1] - before[1]) / fetches;
            assertTrue(fetches >= 5, kind + ": the consumer kept fetching (" + fetches + " fetches)");
            if (kind.keepsFetchSessions()) {
                assertTrue(bytesPerFetch < FULL_FETCH_BYTES / 4, kind + ": incremental fetches of a kept session, "
                        + bytesPerFetch + " bytes per Fetch (a full one is ~" + FULL_FETCH_BYTES + ")");
            } else {
                assertTrue(bytesPerFetch > FULL_FETCH_BYTES * 0.9, kind + ": sessions declined, full fetches, "
                        + bytesPerFetch + " bytes per Fetch");
            }

            try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                    ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, fixture.bootstrap(kind), ProducerConfig.ACKS_CONFIG, "all"),
                    new StringSerializer(), new StringSerializer())) {
                for (int p = 0; p < PARTITIONS; p++) {
                    producer.send(new ProducerRecord<>(topic, p, null, "record-" + p)).get();
                }
            }
            Set<String> seen = new HashSet<>();
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (seen.size() < PARTITIONS && System.nanoTime() - deadline < 0) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    assertEquals("record-" + r.partition(), r.value());
                    seen.add(r.value());
                }
            }
            assertEquals(PARTITIONS, seen.size(), kind + ": every partition's record arrived through the session");
        }
    }

    /** Only the topic-woven kind puts a side topic behind another cluster's broker ({@code createSideTopic}). */
    @Test
    void aSessionRequestThatCannotGoAsItIsResetsTheSession() throws Exception {
        VirtualClusterKind kind = VirtualClusterKind.TOPIC_WOVEN;
        String here = kind.name("session-here");
        String elsewhere = kind.name("session-elsewhere");
        fixture.createTopic(kind, here, 1, 1);
        fixture.createSideTopic(kind, elsewhere, 1); // led by the other cluster's broker
        InetSocketAddress leader = fixture.leaderAddress(kind, here, 0);
        try (RawKafkaClient client = new RawKafkaClient(leader.getHostString(), leader.getPort())) {
            short v = 12;
            client.send(ApiKeys.FETCH.id, v, 1, fetch(here, 0, 0)); // full, asks for a session
            FetchResponseData created = (FetchResponseData) client.readResponse(ApiKeys.FETCH.id, v, 1);
            assertEquals(Errors.NONE.code(), created.errorCode());
            assertNotEquals(0, created.sessionId(), "the broker made a session, and the proxy passed it on");

            client.send(ApiKeys.FETCH.id, v, 2, fetch(elsewhere, created.sessionId(), 1)); // adds a foreign partition
            FetchResponseData reset = (FetchResponseData) client.readResponse(ApiKeys.FETCH.id, v, 2);
            assertEquals(Errors.FETCH_SESSION_ID_NOT_FOUND.code(), reset.errorCode(), reset.toString());

            client.send(ApiKeys.FETCH.id, v, 3, fetch(elsewhere, 0, 0)); // the client's full fetch after the reset
            FetchResponseData full = (FetchResponseData) client.readResponse(ApiKeys.FETCH.id, v, 3);
            assertEquals(Errors.NONE.code(), full.errorCode(), full.toString());
            assertEquals(0, full.sessionId(), "declined: the request was split");
            assertEquals(elsewhere, full.responses().getFirst().topic());
        }
    }

    /** A Fetch v12 of {@code topic}-0 from offset 0 in session {@code sessionId} at {@code epoch}; no wait. */
    private static FetchRequestData fetch(String topic, int sessionId, int epoch) {
        return new FetchRequestData()
                .setReplicaId(-1).setMaxWaitMs(0).setMinBytes(0).setMaxBytes(1 << 20)
                .setIsolationLevel((byte) 0).setSessionId(sessionId).setSessionEpoch(epoch)
                .setTopics(List.of(new FetchRequestData.FetchTopic().setTopic(topic).setPartitions(List.of(
                        new FetchRequestData.FetchPartition().setPartition(0).setFetchOffset(0)
                                .setPartitionMaxBytes(1 << 20).setCurrentLeaderEpoch(-1).setLogStartOffset(-1)))));
    }

    /** Fetch requests and their bytes, as clients sent them to {@code kind}'s proxy. */
    private static double[] fetchRequests(VirtualClusterKind kind) {
        ScrapedMetrics m = ScrapedMetrics.of(fixture.proxy(kind));
        Map<String, String> fetch = Map.of("virtual_cluster", "main", "api", "Fetch");
        return new double[] {m.sum(ScrapedMetrics.REQUESTS, fetch), m.sum("weft_request_bytes_total", fetch)};
    }
}
