package dev.weft.proxy.switching;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.proxy.server.WeftProxy;
import dev.weft.proxy.testing.Poll;
import dev.weft.proxy.testing.ProxyFixture;
import dev.weft.proxy.testing.RawKafkaClient;
import dev.weft.testkit.KafkaCluster;
import dev.weft.testkit.KafkaClusterConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Two Weft replicas serving one switch agree on it through the fleet state (switch records on a third
 * cluster, "witness"): a cutover run on one is put in force by both; two cutovers begun at once on both
 * replicas cannot both run; and a replica that cannot read the state serves nothing through the switch.
 * The cutovers are forced (no MirrorMaker here: the replication phases have their own tests).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class FleetSwitchingTest {

    private static final String TOPIC = "orders";

    @KafkaClusterConfig
    static KafkaCluster east;

    @KafkaClusterConfig
    static KafkaCluster west;

    @KafkaClusterConfig
    static KafkaCluster witness;

    private final List<WeftProxy> replicas = new ArrayList<>();

    @BeforeAll
    void start() {
        east.createTopic(TOPIC, 1, 1);
        west.createTopic(TOPIC, 1, 1);
        for (int i = 0; i < 2; i++) {
            replicas.add(SwitchedProxy.start(east.bootstrapServers(), west.bootstrapServers(),
                    "  witness: { bootstrap: \"" + witness.bootstrapServers() + "\" }", """
                        state: { cluster: witness, leaseMs: 2000 }
                        cutover: { drainTimeoutMs: 1000 }
                    """));
        }
    }

    @AfterAll
    void stop() {
        replicas.forEach(WeftProxy::close);
    }

    private static SwitchController.Status status(WeftProxy p) {
        return p.switches().get("alias").status();
    }

    private static RecordMetadata produce(WeftProxy p, String value) throws Exception {
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, ProxyFixture.bootstrap(p), ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class))) {
            return producer.send(new ProducerRecord<>(TOPIC, value)).get(60, TimeUnit.SECONDS);
        }
    }

    private static long endOffset(KafkaCluster cluster) throws Exception {
        try (Admin admin = Admin.create(cluster.clientConfig())) {
            var tp = new org.apache.kafka.common.TopicPartition(TOPIC, 0);
            return admin.listOffsets(Map.of(tp, org.apache.kafka.clients.admin.OffsetSpec.latest())).partitionResult(tp)
                    .get(10, TimeUnit.SECONDS).offset();
        }
    }

    @Test
    @Order(1)
    void aCutoverOnOneReplicaIsPutInForceByBoth() throws Exception {
        WeftProxy a = replicas.get(0);
        WeftProxy b = replicas.get(1);
        assertEquals("east", status(a).activeRoute());
        assertEquals("east", status(b).activeRoute());
        long eastBefore = endOffset(east);
        produce(b, "via-b-before");
        assertEquals(eastBefore + 1, endOffset(east), "replica b serves east");

        CutoverOutcome outcome = a.switches().get("alias").switchTo("west", true, line -> { }).get(60, TimeUnit.SECONDS);
        assertTrue(outcome.switched(), outcome.message());
        assertTrue(outcome.phases().get(CutoverPhase.FENCE).compareTo(Duration.ofMillis(2000)) >= 0,
                "the fence waits out the lease: " + outcome.phases());
        Poll.until(Duration.ofSeconds(10), "replica b to follow the switch record", () -> status(b).activeRoute().equals("west"),
                () -> status(b).toString());
        assertFalse(status(b).fenced());
        assertEquals(status(a).epoch(), status(b).epoch());

        long westBefore = endOffset(west);
        long eastNow = endOffset(east);
        produce(b, "via-b-after");
        assertEquals(westBefore + 1, endOffset(west), "replica b serves west now");
        assertEquals(eastNow, endOffset(east), "nothing more on east");
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, ProxyFixture.bootstrap(b)))) {
            List<Integer> ids = admin.describeCluster().nodes().get(10, TimeUnit.SECONDS).stream().map(Node::id).sorted().toList();
            assertEquals(west.brokerIds().stream().map(id -> id * 2 + 1).sorted().toList(), ids, "only west's brokers, route 1 of 2");
        }
    }

    @Test
    @Order(2)
    void twoCutoversBegunAtOnceOnTwoReplicasCannotBothRun() throws Exception {
        CompletableFuture<CutoverOutcome> onA = replicas.get(0).switches().get("alias").switchTo("east", true, line -> { });
        CompletableFuture<CutoverOutcome> onB = replicas.get(1).switches().get("alias").switchTo("east", true, line -> { });
        CutoverOutcome a = onA.get(60, TimeUnit.SECONDS);
        CutoverOutcome b = onB.get(60, TimeUnit.SECONDS);
        assertTrue(a.switched() ^ b.switched(), "exactly one ran: " + a.message() + " / " + b.message());
        CutoverOutcome loser = a.switched() ? b : a;
        assertTrue(loser.message().contains("did not start") && (loser.message().contains("began a cutover")
                || loser.message().contains("is running a cutover")), loser.message());
        for (WeftProxy p : replicas) {
            Poll.until(Duration.ofSeconds(10), "every replica back on east", () -> status(p).activeRoute().equals("east")
                    && !status(p).fenced(), () -> status(p).toString());
        }
    }

    /**
     * The state cluster goes away: within the lease every replica stops serving through the switch (no
     * brokers, no topics in Metadata: clients retry) rather than go on serving what may no longer be current.
     * (A replica that cannot reach it when starting does not start: its producer-id claims live there too.)
     */
    @Test
    @Order(3)
    void replicasThatCannotReadTheStateServeNothing() throws Exception {
        for (WeftProxy p : replicas) {
            assertEquals(1, metadata(p).brokers().size(), "serving before the state cluster goes");
        }
        witness.stopBroker(witness.brokerIds().getFirst());
        for (WeftProxy p : replicas) {
            Poll.untilNoThrow(Duration.ofSeconds(20), "the replica to stop serving without its state", () -> {
                MetadataResponseData m = metadata(p);
                return m.brokers().isEmpty() && m.topics().isEmpty();
            });
        }
    }

    private static MetadataResponseData metadata(WeftProxy p) throws Exception {
        try (RawKafkaClient c = RawKafkaClient.connect(ProxyFixture.bootstrap(p))) {
            c.send(ApiKeys.METADATA.id, (short) 12, 7, new MetadataRequestData().setTopics(null).setAllowAutoTopicCreation(false));
            return (MetadataResponseData) c.readResponse(ApiKeys.METADATA.id, (short) 12, 7);
        }
    }
}
