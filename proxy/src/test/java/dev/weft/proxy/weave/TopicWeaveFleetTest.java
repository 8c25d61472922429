package dev.weft.proxy.weave;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.proxy.conformance.Arrived;
import dev.weft.proxy.conformance.ConformanceEnvironment;
import dev.weft.proxy.conformance.Dataset;
import dev.weft.proxy.conformance.Verify;
import dev.weft.proxy.gateway.GatewayBindException;
import dev.weft.proxy.net.FreePorts;
import dev.weft.proxy.server.WeftProxy;
import dev.weft.proxy.testing.HaproxyFleetBalancer;
import dev.weft.proxy.testing.Poll;
import dev.weft.proxy.testing.WeaveFixture;
import dev.weft.testkit.KafkaCluster;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two Weft replicas with the same topic-weave config behind HAProxy (issue 4, DESIGN §5 "fleet state"):
 * one client's connections alternate between the replicas, and an idempotent producer writing to topics
 * on both clusters and a two-member consumer group work with no duplicates, no loss and no fencing.
 *
 * <p>Topology: the replicas bind the same ports on their own loopback addresses (127.0.0.2 and
 * 127.0.0.3) and advertise 127.0.0.1, where HAProxy listens on those ports (bootstrap plus one port
 * per virtual node id), each port balanced round-robin over both replicas. A port-per-broker gateway
 * advertises its bind ports, so "same ports, other host" is how its advertised addresses become the
 * load balancer's. HAProxy runs one thread, so round-robin is exact, and each listener's first
 * connection is placed on purpose: real broker {@code b} of either cluster is reached through replica
 * {@code b % 2} first. The producer (the first client through HAProxy) thus reaches the two brokers of
 * each cluster through different replicas; half-way HAProxy is restarted with the placement swapped,
 * so each partition's later batches (and retries of batches in flight) arrive through the other
 * replica. For the non-home cluster both replicas must therefore translate the same virtual producer
 * id to the same upstream producer id: the claim in the fleet state topic {@code __weft_producer_ids}
 * on the home cluster. A wrong translation shows as OUT_OF_ORDER_SEQUENCE_NUMBER, UNKNOWN_PRODUCER_ID,
 * a fenced producer (the producer fails) or a retried batch written twice (a duplicate).
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class TopicWeaveFleetTest {

    private static final List<String> REPLICA_HOSTS = List.of("127.0.0.2", "127.0.0.3");
    private static final String BALANCER_HOST = "127.0.0.1";
    private static final int ROUTES = 2;
    private static final int PARTITIONS = 4;
    private static final int PER_TOPIC = 1_500;
    private static final Pattern SAMPLE = Pattern.compile("^(\\w+)\\{([^}]*)\\}\\s+(\\S+)$", Pattern.MULTILINE);

    private static KafkaCluster east;
    private static KafkaCluster west;
    private static final List<WeftProxy> replicas = new ArrayList<>();
    private static HaproxyFleetBalancer balancer;
    private static String bootstrap;
    private static int firstPort;
    private static int portCount;
    private static Path balancerDir;

    /**
     * HAProxy over both replicas: port offset 0 is the bootstrap, offset {@code 1 + v} virtual node
     * {@code v}, real broker {@code v / 2} of route {@code v % 2}, whose first connection goes to replica
     * {@code (v / 2 + shift) % 2}.
     */
    private static HaproxyFleetBalancer startBalancer(int shift) throws InterruptedException {
        return HaproxyFleetBalancer.start(balancerDir, BALANCER_HOST, firstPort, portCount, REPLICA_HOSTS,
                offset -> ((offset == 0 ? 0 : (offset - 1) / ROUTES) + shift) % REPLICA_HOSTS.size());
    }

    @BeforeAll
    static void start(@TempDir Path scratch) throws Exception {
        east = KafkaCluster.builder().brokers(2).build();
        west = KafkaCluster.builder().brokers(2).build();
        east.start();
        west.start();
        east.createTopic("orders", PARTITIONS, 1);
        west.createTopic("payments", PARTITIONS, 1);
        List<KafkaCluster> clusters = List.of(east, west);
        List<String> routes = List.of("name: east", "name: west, naming: { prefix: \"w.\" }");
        int ports = 1 + WeaveFixture.nodeIdCount(clusters);
        int first = -1;
        for (int attempt = 0; attempt < 5 && replicas.isEmpty(); attempt++) {
            first = FreePorts.randomRange(ports);
            try {
                for (String host : REPLICA_HOSTS) {
                    replicas.add(WeaveFixture.start(clusters, routes, "", host, BALANCER_HOST, first));
                }
            } catch (GatewayBindException e) {
                replicas.forEach(WeftProxy::close); // a port taken on a replica's address: try another range
                replicas.clear();
            }
        }
        assertEquals(REPLICA_HOSTS.size(), replicas.size(), "no port range could be bound on every replica address "
                + REPLICA_HOSTS + " (loopback addresses besides 127.0.0.1, usable on Linux without setup)");
        firstPort = first;
        portCount = ports;
        balancerDir = scratch;
        balancer = startBalancer(0);
        bootstrap = BALANCER_HOST + ":" + first;
        for (WeftProxy r : replicas) {
            assertEquals(List.of(bootstrap), r.bootstrapAddresses("main"), "every replica advertises the balancer");
        }
    }

    @AfterAll
    static void stop() {
        try (AutoCloseable w = west; AutoCloseable e = east; AutoCloseable b = balancer) {
            replicas.forEach(WeftProxy::close);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void anIdempotentProducerAndAGroupWorkThroughTwoReplicasBehindHaproxy() throws Exception {
        // Precondition of the placement above: each topic has leaders on both brokers of its cluster.
        for (KafkaCluster c : List.of(east, west)) {
            String topic = c == east ? "orders" : "payments";
            Set<Integer> leaders = new TreeSet<>();
            for (TopicPartitionInfo p : c.admin().describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS)
                    .get(topic).partitions()) {
                leaders.add(p.leader().id());
            }
            assertEquals(Set.copyOf(c.brokerIds()), leaders, "leaders of " + topic);
        }
        Map<String, Dataset> data = new TreeMap<>();
        data.put("orders", Dataset.printable("orders", PER_TOPIC, 71, 200));
        data.put("w.payments", Dataset.printable("w.payments", PER_TOPIC, 72, 200));

        long started = System.nanoTime();
        Map<String, Map<Integer, List<Long>>> acked = produce(data);
        long produced = System.nanoTime();

        // The oracle: each cluster read directly holds every record once, in send order per partition.
        for (Map.Entry<String, Dataset> d : data.entrySet()) {
            KafkaCluster c = d.getKey().equals("orders") ? east : west;
            String real = d.getKey().equals("orders") ? "orders" : "payments";
            Map<String, Object> direct = new HashMap<>(c.consumerConfig());
            direct.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, IsolationLevel.READ_UNCOMMITTED.toString());
            direct.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
            List<Arrived> onCluster = ConformanceEnvironment.readAll(direct, real, "");
            Verify.exactlyOnce(d.getValue(), onCluster, () -> d.getKey() + " read directly from its cluster");
            Verify.sameOffsets(acked.get(d.getKey()), onCluster, () -> d.getKey() + " read directly from its cluster");
        }

        Map<String, List<Arrived>> consumed = consumeWithTwoMembers("fleet-group", data.keySet(), 2 * PER_TOPIC);
        long done = System.nanoTime();
        List<String> summaries = new ArrayList<>();
        for (Map.Entry<String, Dataset> d : data.entrySet()) {
            Verify.Summary s = Verify.exactlyOnce(d.getValue(), consumed.get(d.getKey()), () -> d.getKey() + " consumed by the group");
            Verify.sameOffsets(acked.get(d.getKey()), consumed.get(d.getKey()), () -> d.getKey() + " consumed by the group");
            summaries.add(d.getKey() + ": " + s);
        }
        assertCommittedToTheEnd("fleet-group", east, "orders", acked.get("orders"));
        assertCommittedToTheEnd("fleet-group", west, "payments", acked.get("w.payments"));

        // Upstream, each cluster saw ONE producer id for this producer on every partition, whichever replica
        // carried a batch, with one unbroken run of sequence numbers per partition; on the non-home cluster
        // it is the id the fleet state agreed on. (A broker accepts a new producer id at any sequence, so a
        // replica using an id of its own would not make the producer fail: this is where it shows.)
        Map<String, Long> upstreamIds = new TreeMap<>();
        upstreamIds.put("c0", singleProducerId(east, "orders", acked.get("orders")));
        upstreamIds.put("c1", singleProducerId(west, "payments", acked.get("w.payments")));

        // The producer's translation for the non-home cluster was agreed through the fleet state topic on
        // the home cluster (key v1:<virtual pid>:<cluster>, value: the upstream id; the first record wins).
        Map<String, Object> state = new HashMap<>(east.consumerConfig());
        state.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        Map<String, List<String>> claims = new TreeMap<>();
        for (Arrived a : ConformanceEnvironment.readAll(state, "__weft_producer_ids", "")) {
            claims.computeIfAbsent(a.key(), k -> new ArrayList<>()).add(a.value() == null ? null
                    : new String(a.value(), java.nio.charset.StandardCharsets.UTF_8));
        }
        assertTrue(claims.keySet().stream().anyMatch(k -> k.endsWith(":c1")), () -> "no claim for cluster c1: " + claims);
        claims.forEach((key, values) -> assertEquals(values.getFirst(), values.getLast(),
                () -> key + ": the first claim wins, and the last record (what compaction keeps) must say so: " + values));

        String winner = claims.entrySet().stream().filter(e -> e.getKey().endsWith(":c1")).map(e -> e.getValue().getFirst())
                .findFirst().orElseThrow();
        assertEquals(Long.parseLong(winner), upstreamIds.get("c1"), () -> "west's producer id is the claimed one: " + claims);

        // Both replicas served this one producer and this one group.
        List<Map<String, Double>> served = new ArrayList<>();
        for (WeftProxy r : replicas) {
            Map<String, Double> m = metrics(r);
            served.add(m);
            for (String what : List.of("connections", "Produce", "Fetch")) {
                assertTrue(m.getOrDefault(what, 0.0) > 0, () -> "a replica served no " + what + ": " + m);
            }
        }
        System.out.printf("fleet of %d replicas behind haproxy: produced %d records in %d ms, consumed by a 2-member group in"
                        + " %d ms; %s; per replica %s; fleet state records by key %s; upstream producer ids %s%n",
                replicas.size(), 2 * PER_TOPIC, TimeUnit.NANOSECONDS.toMillis(produced - started),
                TimeUnit.NANOSECONDS.toMillis(done - produced), String.join("; ", summaries), served, claims, upstreamIds);
    }

    /** One idempotent producer (acks=all, otherwise default settings) through the balancer. */
    private static Map<String, Map<Integer, List<Long>>> produce(Map<String, Dataset> data) throws Exception {
        Map<String, Object> config = new HashMap<>();
        config.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        Map<String, List<Future<RecordMetadata>>> sent = new TreeMap<>();
        Map<String, Map<Integer, List<Long>>> acked = new TreeMap<>();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer())) {
            for (int i = 0; i < PER_TOPIC; i++) {
                if (i == PER_TOPIC / 2) {
                    // Half-way, with batches in flight, the balancer is replaced by one placing first
                    // connections the other way: every connection of the producer breaks and comes back
                    // through the other replica, so each partition now gets the same producer's batches
                    // (same virtual id, next sequence numbers, and retries of batches whose answer was
                    // lost) through the replica that did not serve it so far.
                    balancer.close();
                    balancer = startBalancer(1);
                }
                for (Map.Entry<String, Dataset> d : data.entrySet()) {
                    Dataset.Entry e = d.getValue().entries().get(i);
                    sent.computeIfAbsent(d.getKey(), t -> new ArrayList<>())
                            .add(producer.send(new ProducerRecord<>(d.getKey(), e.keyBytes(), e.value())));
                }
            }
            producer.flush();
            for (Map.Entry<String, List<Future<RecordMetadata>>> s : sent.entrySet()) {
                for (Future<RecordMetadata> f : s.getValue()) {
                    RecordMetadata md = f.get(60, TimeUnit.SECONDS); // a fenced or out-of-sequence producer fails here
                    acked.computeIfAbsent(s.getKey(), t -> new TreeMap<>()).computeIfAbsent(md.partition(), p -> new ArrayList<>())
                            .add(md.offset());
                }
            }
            assertEquals(0.0, producerMetric(producer, "record-error-total"), "records the producer failed");
        }
        return acked;
    }

    /**
     * The one producer id that wrote every partition of {@code topic} on {@code cluster}, each partition's
     * sequence numbers covering exactly its records (one producer, no gap, no restart).
     */
    private static long singleProducerId(KafkaCluster cluster, String topic, Map<Integer, List<Long>> acked) throws Exception {
        List<TopicPartition> partitions = acked.keySet().stream().map(p -> new TopicPartition(topic, p)).toList();
        Map<TopicPartition, org.apache.kafka.clients.admin.DescribeProducersResult.PartitionProducerState> states =
                cluster.admin().describeProducers(partitions).all().get(30, TimeUnit.SECONDS);
        Set<Long> ids = new TreeSet<>();
        for (TopicPartition tp : partitions) {
            List<org.apache.kafka.clients.admin.ProducerState> active = states.get(tp).activeProducers();
            assertEquals(1, active.size(), () -> "producers that wrote " + tp + " on its cluster: " + active);
            ids.add(active.getFirst().producerId());
            assertEquals(acked.get(tp.partition()).size() - 1, active.getFirst().lastSequence(),
                    () -> "last sequence of " + tp + ": " + active);
        }
        assertEquals(1, ids.size(), () -> "producer ids on the partitions of " + topic + ": " + ids + "; by partition "
                + states.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue().activeProducers()).toList());
        return ids.iterator().next();
    }

    private static double producerMetric(KafkaProducer<?, ?> producer, String name) {
        for (Map.Entry<MetricName, ? extends Metric> e : producer.metrics().entrySet()) {
            if (e.getKey().name().equals(name) && e.getKey().group().equals("producer-metrics")) {
                return ((Number) e.getValue().metricValue()).doubleValue();
            }
        }
        throw new AssertionError("no producer metric " + name);
    }

    /**
     * Two members of one group, each in its own thread, subscribed to every topic: each commits what it
     * processed after every poll and, when partitions are taken away, before they go (so no record is
     * handed to the other member again). Returns what arrived, by topic, once {@code total} records did.
     */
    private static Map<String, List<Arrived>> consumeWithTwoMembers(String group, Collection<String> topics, int total)
            throws Exception {
        Map<String, List<Arrived>> arrived = new ConcurrentHashMap<>();
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        AtomicBoolean stop = new AtomicBoolean();
        ExecutorService members = Executors.newFixedThreadPool(2);
        try {
            for (int m = 0; m < 2; m++) {
                String member = "member-" + m;
                members.submit(() -> {
                    try {
                        runMember(group, member, topics, arrived, stop);
                    } catch (Throwable t) {
                        failures.add(t);
                    }
                    return null;
                });
            }
            Poll.until(Duration.ofSeconds(90), "the group reads " + total + " records",
                    () -> !failures.isEmpty() || arrived.values().stream().mapToInt(List::size).sum() >= total,
                    () -> arrived.values().stream().mapToInt(List::size).sum() + " arrived");
            // a little longer: anything arriving twice would show now
            Thread.sleep(500);
        } finally {
            stop.set(true);
            members.shutdown();
            assertTrue(members.awaitTermination(60, TimeUnit.SECONDS), "group members did not stop");
        }
        if (!failures.isEmpty()) {
            AssertionError e = new AssertionError("a group member failed: " + failures.getFirst(), failures.getFirst());
            failures.stream().skip(1).forEach(e::addSuppressed);
            throw e;
        }
        return arrived;
    }

    private static void runMember(String group, String member, Collection<String> topics, Map<String, List<Arrived>> arrived,
            AtomicBoolean stop) {
        Map<String, Object> config = new HashMap<>();
        config.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        config.put(ConsumerConfig.CLIENT_ID_CONFIG, group + "-" + member);
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 200);
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            Map<TopicPartition, OffsetAndMetadata> processed = new HashMap<>();
            consumer.subscribe(topics, new ConsumerRebalanceListener() {
                @Override
                public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                    commit(consumer, processed, partitions); // before another member gets them
                }

                @Override
                public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                }
            });
            while (!stop.get()) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    arrived.computeIfAbsent(r.topic(), t -> Collections.synchronizedList(new ArrayList<>())).add(Arrived.of(member, r));
                    processed.put(new TopicPartition(r.topic(), r.partition()), new OffsetAndMetadata(r.offset() + 1));
                }
                try {
                    commit(consumer, processed, processed.keySet());
                } catch (RebalanceInProgressException e) {
                    // committed when the partitions are revoked, inside the next poll
                }
            }
        }
    }

    private static void commit(KafkaConsumer<?, ?> consumer, Map<TopicPartition, OffsetAndMetadata> processed,
            Collection<TopicPartition> partitions) {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        for (TopicPartition tp : partitions) {
            OffsetAndMetadata o = processed.get(tp);
            if (o != null) {
                offsets.put(tp, o);
            }
        }
        if (!offsets.isEmpty()) {
            consumer.commitSync(offsets);
        }
    }

    private static void assertCommittedToTheEnd(String group, KafkaCluster cluster, String realTopic,
            Map<Integer, List<Long>> acked) throws Exception {
        Map<TopicPartition, OffsetAndMetadata> committed = cluster.admin().listConsumerGroupOffsets(group)
                .partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
        Map<Integer, Long> want = new TreeMap<>();
        acked.forEach((p, offsets) -> want.put(p, Collections.max(offsets) + 1));
        Map<Integer, Long> got = new TreeMap<>();
        committed.forEach((tp, o) -> {
            if (tp.topic().equals(realTopic)) {
                got.put(tp.partition(), o.offset());
            }
        });
        assertEquals(want, got, "offsets of " + group + " for " + realTopic + ", stored on its own cluster");
    }

    /**
     * A replica's /metrics for virtual cluster "main": "connections" (opened) and, by API, requests
     * forwarded upstream.
     */
    private static Map<String, Double> metrics(WeftProxy replica) throws Exception {
        InetSocketAddress admin = replica.adminAddress().orElseThrow();
        String text;
        try (HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build()) {
            text = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + admin.getPort() + "/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
        }
        Map<String, Double> out = new TreeMap<>();
        Matcher m = SAMPLE.matcher(text);
        while (m.find()) {
            String labels = m.group(2);
            if (!labels.contains("virtual_cluster=\"main\"")) {
                continue;
            }
            double value = Double.parseDouble(m.group(3));
            if (m.group(1).equals("weft_connections_opened_total")) {
                out.put("connections", value);
            } else if (m.group(1).equals("weft_requests_total")) {
                Matcher api = Pattern.compile("api=\"([^\"]+)\"").matcher(labels);
                if (api.find()) {
                    out.put(api.group(1), value);
                }
            }
        }
        return out;
    }
}
