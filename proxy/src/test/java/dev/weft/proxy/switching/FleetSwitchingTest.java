package dev.weft.proxy.switching;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.proxy.gateway.GatewayBindException;
import dev.weft.proxy.net.FreePorts;
import dev.weft.proxy.server.WeftProxy;
import dev.weft.proxy.testing.HaproxyFleetBalancer;
import dev.weft.proxy.testing.Poll;
import dev.weft.proxy.testing.SwitchedProxy;
import dev.weft.proxy.testing.ScrapedMetrics;
import dev.weft.proxy.testing.ProxyFixture;
import dev.weft.proxy.testing.RawKafkaClient;
import dev.weft.testkit.KafkaCluster;
import dev.weft.testkit.KafkaClusterConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two Weft replicas serving one switch agree on it through the fleet state (switch records on a third
 * cluster, "witness"): a cutover run on one is put in force by both; two cutovers begun at once on both
 * replicas cannot both run; two more replicas behind HAProxy (Debian's {@code haproxy}, TCP mode), one
 * client's connections spread over both, move together when the switch is asked of one of them; and a
 * replica that cannot read the state serves nothing through the switch.
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

    private static final String WITNESS_CLUSTER = "  witness: { bootstrap: \"%s\" }";
    private static final String FLEET_STATE = """
                state: { cluster: witness, leaseMs: 2000 }
                cutover: { drainTimeoutMs: 1000 }
            """;
    /** The replicas behind HAProxy bind these addresses; HAProxy listens on 127.0.0.1. */
    private static final List<String> BALANCED_HOSTS = List.of("127.0.0.2", "127.0.0.3");
    private static final String BALANCER_HOST = "127.0.0.1";

    /** Two replicas clients reach directly, and two more behind HAProxy; all four follow one switch. */
    private final List<WeftProxy> replicas = new ArrayList<>();
    private final List<WeftProxy> balanced = new ArrayList<>();
    private HaproxyFleetBalancer balancer;
    private String balancerBootstrap;

    @BeforeAll
    void start(@TempDir Path scratch) throws Exception {
        east.createTopic(TOPIC, 1, 1);
        west.createTopic(TOPIC, 1, 1);
        String witnessCluster = WITNESS_CLUSTER.formatted(witness.bootstrapServers());
        for (int i = 0; i < 2; i++) {
            replicas.add(SwitchedProxy.start(east.bootstrapServers(), west.bootstrapServers(), witnessCluster, FLEET_STATE));
        }
        int first = -1;
        for (int attempt = 0; attempt < 5 && balanced.isEmpty(); attempt++) {
            first = FreePorts.randomRange(SwitchedProxy.GATEWAY_PORTS);
            try {
                for (String host : BALANCED_HOSTS) {
                    balanced.add(SwitchedProxy.startReplica(east.bootstrapServers(), west.bootstrapServers(), witnessCluster,
                            FLEET_STATE, host, BALANCER_HOST, first));
                }
            } catch (GatewayBindException e) {
                balanced.forEach(WeftProxy::close); // a port taken on one address: another range
                balanced.clear();
            }
        }
        assertEquals(BALANCED_HOSTS.size(), balanced.size(), "no port range free on every address " + BALANCED_HOSTS);
        // Round-robin on every port; the first connection to the bootstrap and to an east broker (virtual
        // id 2b: route 0 of 2) goes to replica 0, to a west broker (2b + 1) to replica 1.
        balancer = HaproxyFleetBalancer.start(scratch, BALANCER_HOST, first, SwitchedProxy.GATEWAY_PORTS, BALANCED_HOSTS,
                offset -> offset == 0 ? 0 : (offset - 1) % 2);
        balancerBootstrap = BALANCER_HOST + ":" + first;
    }

    @AfterAll
    void stop() {
        replicas.forEach(WeftProxy::close);
        balanced.forEach(WeftProxy::close);
        if (balancer != null) {
            balancer.close();
        }
    }

    private List<WeftProxy> everyReplica() {
        List<WeftProxy> all = new ArrayList<>(replicas);
        all.addAll(balanced);
        return all;
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
            var tp = new TopicPartition(TOPIC, 0);
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
        for (WeftProxy p : everyReplica()) {
            Poll.until(Duration.ofSeconds(10), "every replica back on east", () -> status(p).activeRoute().equals("east")
                    && !status(p).fenced(), () -> status(p).toString());
        }
    }

    /**
     * The state cluster goes away: within the lease every replica stops serving through the switch (no
     * brokers, no topics in Metadata: clients retry) rather than go on serving what may no longer be current.
     * (A replica that cannot reach it when starting does not start: its producer-id claims live there too.)
     */
    /**
     * An idempotent producer and a consumer group reach two replicas through HAProxy (each port's
     * connections alternate between them); the switch is moved through replica 0's admin endpoint while
     * replica 0 carries the producer's batches to east, and the producer's connection to west's broker
     * lands on replica 1, which was not asked. Both put the move in force: once the POST answered, no
     * record lands on east through either, every acknowledged record is on east (before) or west (after),
     * and the group reading west through HAProxy receives everything acknowledged after the switch.
     * Forced, since no MirrorMaker runs here: the group reads west from its start.
     * <p>The group's member leaves before the switch and a new one joins once the producer is on west:
     * round-robin is per port, and a consumer (coordinator and fetch connections) reaching west's broker
     * port before the producer would move the producer's connection to replica 0 (CI saw it). A member
     * riding through a switch is ConnectionSwitchingTest's case.
     */
    @Test
    @Order(3)
    void twoReplicasBehindHaproxySwitchTogether() throws Exception {
        for (WeftProxy p : balanced) {
            assertEquals("east", status(p).activeRoute());
        }
        Map<String, Object> producerConfig = Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, balancerBootstrap,
                ProducerConfig.ACKS_CONFIG, "all", ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true,
                ProducerConfig.LINGER_MS_CONFIG, 5, ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 120_000,
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        Map<String, Object> consumerConfig = Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, balancerBootstrap,
                ConsumerConfig.GROUP_ID_CONFIG, "fleet-readers", ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        Set<String> acked = ConcurrentHashMap.newKeySet();
        Set<String> ackedAfterSwitch = ConcurrentHashMap.newKeySet();
        Set<String> received = ConcurrentHashMap.newKeySet();
        AtomicReference<Exception> failure = new AtomicReference<>();
        AtomicReference<String> consumerState = new AtomicReference<>("not polled yet");
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicBoolean consuming = new AtomicBoolean(true);
        AtomicBoolean switched = new AtomicBoolean(false);
        long eastAtStart = endOffset(east);
        ExecutorService clients = Executors.newFixedThreadPool(2);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerConfig)) {
            Callable<Void> groupMember = () -> {
                try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(consumerConfig)) {
                    consumer.subscribe(List.of(TOPIC));
                    while (consuming.get()) {
                        consumer.poll(Duration.ofMillis(100)).forEach(r -> received.add(r.value()));
                        consumerState.set(consumer.assignment() + " at " + consumer.assignment().stream()
                                .map(tp -> tp + "@" + consumer.position(tp)).toList());
                    }
                }
                return null;
            };
            Future<Void> memberBefore = clients.submit(groupMember);
            clients.submit(() -> {
                for (int i = 0; running.get(); i++) {
                    String value = "fleet-" + i;
                    boolean afterSwitch = switched.get();
                    producer.send(new ProducerRecord<>(TOPIC, value), (md, e) -> {
                        if (e != null) {
                            failure.compareAndSet(null, e);
                        } else {
                            acked.add(value);
                            if (afterSwitch) {
                                ackedAfterSwitch.add(value);
                            }
                        }
                    });
                    Thread.sleep(5);
                }
                return null;
            });
            Poll.until(Duration.ofSeconds(60), "200 records acknowledged through HAProxy", () -> acked.size() >= 200,
                    () -> acked.size() + " acknowledged, failure " + failure.get());
            double[] produceBefore = balanced.stream().mapToDouble(p -> ScrapedMetrics.of(p).clientRequests("Produce")).toArray();
            assertTrue(produceBefore[0] > 0, "replica 0 carries produce to east: " + Arrays.toString(produceBefore));
            Poll.until(Duration.ofSeconds(30), "the group to receive from east", () -> !received.isEmpty(), consumerState::get);
            consuming.set(false);
            memberBefore.get(30, TimeUnit.SECONDS);
            consuming.set(true);

            HttpResponse<String> answer = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create("http://" + SwitchedProxy.admin(balanced.get(0)) + "/switches/alias?to=west&force=true"))
                    .POST(HttpRequest.BodyPublishers.noBody()).timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, answer.statusCode(), answer.body());
            assertTrue(answer.body().contains("done"), answer.body());
            for (WeftProxy p : balanced) {
                Poll.until(Duration.ofSeconds(10), "both replicas on west", () -> status(p).activeRoute().equals("west")
                        && !status(p).fenced(), () -> status(p).toString());
            }
            long eastAfterSwitch = endOffset(east);
            switched.set(true);
            Poll.until(Duration.ofSeconds(60), "200 records acknowledged after the switch", () -> ackedAfterSwitch.size() >= 200,
                    () -> ackedAfterSwitch.size() + " acknowledged after the switch, failure " + failure.get());
            double[] produceAfter = balanced.stream().mapToDouble(p -> ScrapedMetrics.of(p).clientRequests("Produce")).toArray();
            // The switch was asked of replica 0; replica 1 took the first connection to west's broker port.
            assertTrue(produceAfter[1] > produceBefore[1],
                    "replica 1 carries produce to west: " + Arrays.toString(produceBefore) + " -> " + Arrays.toString(produceAfter));
            clients.submit(groupMember);
            running.set(false);
            producer.flush();
            assertEquals(null, failure.get(), "no send failed");
            assertEquals(eastAfterSwitch, endOffset(east), "nothing written to east once the switch answered");

            Set<String> onEast = valuesOf(east, eastAtStart);
            Set<String> onWest = valuesOf(west, 0); // without the first test's "via-b-after"
            onWest.removeIf(v -> !v.startsWith("fleet-"));
            Set<String> lost = new TreeSet<>(acked);
            lost.removeAll(onEast);
            lost.removeAll(onWest);
            assertEquals(Set.of(), lost, "acknowledged records on neither cluster");
            assertTrue(onWest.containsAll(ackedAfterSwitch), "every record acknowledged after the switch is on west");
            Poll.until(Duration.ofSeconds(60), "the group to receive through HAProxy everything acknowledged after the switch",
                    () -> received.containsAll(ackedAfterSwitch), () -> {
                        Set<String> missing = new TreeSet<>(ackedAfterSwitch);
                        missing.removeAll(received);
                        return received.size() + " received, " + missing.size() + " missing (" + missing.stream().limit(5).toList()
                                + "...), the consumer: " + consumerState.get() + ", west ends at " + onWest.size() + " records";
                    });
            System.out.printf("[fleet-switch] behind haproxy: %d acknowledged (%d on east, %d on west), %d after the switch,"
                    + " 0 failed; the switch answered: %s%n", acked.size(), onEast.size(), onWest.size(), ackedAfterSwitch.size(),
                    answer.body().lines().reduce((a, b) -> b).orElse(""));
        } finally {
            running.set(false);
            consuming.set(false);
            clients.shutdown();
            assertTrue(clients.awaitTermination(30, TimeUnit.SECONDS), "the clients stopped");
        }
    }

    /** The values of the records of {@code TOPIC}-0 on {@code cluster} from {@code from} to its end. */
    private static Set<String> valuesOf(KafkaCluster cluster, long from) throws Exception {
        Set<String> values = new TreeSet<>();
        long end = endOffset(cluster);
        TopicPartition tp = new TopicPartition(TOPIC, 0);
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers(),
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class))) {
            consumer.assign(List.of(tp));
            consumer.seek(tp, from);
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (consumer.position(tp) < end && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(r -> values.add(r.value()));
            }
        }
        return values;
    }

    @Test
    @Order(4)
    void replicasThatCannotReadTheStateServeNothing() throws Exception {
        for (WeftProxy p : everyReplica()) {
            assertEquals(1, metadata(p).brokers().size(), "serving before the state cluster goes");
        }
        witness.stopBroker(witness.brokerIds().getFirst());
        for (WeftProxy p : everyReplica()) {
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
