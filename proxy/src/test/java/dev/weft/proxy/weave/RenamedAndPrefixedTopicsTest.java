package dev.weft.proxy.weave;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.proxy.server.WeftProxy;
import dev.weft.proxy.testing.Poll;
import dev.weft.proxy.testing.ProxyFixture;
import dev.weft.proxy.testing.RawKafkaClient;
import dev.weft.proxy.testing.WeaveFixture;
import dev.weft.testkit.KafkaCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A renamed topic (cluster c0's {@code ledger} shown as {@code books}) and a prefixed one (c1's
 * {@code payments} shown as {@code w.payments}), produced and consumed through the proxy under their
 * virtual names — by kafka-clients (newest versions, topic ids) and by raw requests by name (Produce
 * v12, Fetch v12) and by id (Produce v13, Fetch v17) — and read back directly on their clusters under
 * the real names; a group's commits land on each real cluster under the real name. CreateTopics
 * through the proxy places topics by the placement rule, and they are usable at once.
 */
class RenamedAndPrefixedTopicsTest {

    private static KafkaCluster c0;
    private static KafkaCluster c1;
    private static WeftProxy proxy;
    private static String bootstrap;
    private static Admin admin;

    @BeforeAll
    static void start() {
        c0 = KafkaCluster.builder().brokers(1).build();
        c1 = KafkaCluster.builder().brokers(1).build();
        c0.start();
        c1.start();
        c0.createTopic("ledger", 2, 1);
        c1.createTopic("payments", 2, 1);
        proxy = WeaveFixture.start(List.of(c0, c1), List.of(
                        "name: east, naming: { renames: { ledger: books } }",
                        "name: west, naming: { prefix: \"w.\" }"),
                "    placement: { rules: [ { prefix: \"w.\", route: west } ], default: east }\n");
        bootstrap = ProxyFixture.bootstrap(proxy);
        admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap));
    }

    @AfterAll
    static void stop() {
        if (admin != null) {
            admin.close();
        }
        if (proxy != null) {
            proxy.close();
        }
        if (c1 != null) {
            c1.close();
        }
        if (c0 != null) {
            c0.close();
        }
    }

    @Test
    void kafkaClientsProduceAndConsumeInAGroupUnderTheVirtualNames() throws Exception {
        Set<String> names = admin.listTopics().names().get();
        assertTrue(names.containsAll(Set.of("books", "w.payments")), names.toString());
        assertFalse(names.contains("ledger") || names.contains("payments"), names.toString());
        // the proxy offers Produce v13 and Fetch 13+: kafka-clients 4.x then name topics by id
        try (RawKafkaClient raw = RawKafkaClient.connect(bootstrap)) {
            raw.send(ApiKeys.API_VERSIONS.id, (short) 3, 1, new ApiVersionsRequestData()
                    .setClientSoftwareName("weft-test").setClientSoftwareVersion("1"));
            ApiVersionsResponseData versions = (ApiVersionsResponseData) raw.readResponse(ApiKeys.API_VERSIONS.id, (short) 3, 1);
            assertTrue(versions.apiKeys().find(ApiKeys.PRODUCE.id).maxVersion() >= 13, versions.toString());
            assertTrue(versions.apiKeys().find(ApiKeys.FETCH.id).maxVersion() >= 13, versions.toString());
        }

        int perTopic = 50;
        List<String> books = new ArrayList<>();
        List<String> payments = new ArrayList<>();
        Map<String, Long> acked = new HashMap<>();
        try (KafkaProducer<String, String> producer = WeaveClients.producer(bootstrap, Map.of())) {
            List<Future<RecordMetadata>> sent = new ArrayList<>();
            for (int i = 0; i < perTopic; i++) {
                books.add("book-" + i);
                payments.add("payment-" + i);
                sent.add(producer.send(new ProducerRecord<>("books", "k" + i, "book-" + i)));
                sent.add(producer.send(new ProducerRecord<>("w.payments", "k" + i, "payment-" + i)));
            }
            for (Future<RecordMetadata> f : sent) {
                acked.merge(f.get().topic(), 1L, Long::sum);
            }
        }
        assertEquals(Map.of("books", (long) perTopic, "w.payments", (long) perTopic), acked);

        // the other tests may have written to these topics too: read everything there is
        long ledgerTotal = endOffsetTotal(c0, "ledger");
        long paymentsTotal = endOffsetTotal(c1, "payments");
        Map<String, List<String>> seen = new HashMap<>();
        try (KafkaConsumer<String, String> c = WeaveClients.consumer(bootstrap, "renamed-group")) {
            c.subscribe(Pattern.compile("books|w\\.payments"));
            Poll.until(Duration.ofSeconds(60), "the group reads both topics", () -> {
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
                    seen.computeIfAbsent(r.topic(), t -> new ArrayList<>()).add(r.value());
                }
                return seen.getOrDefault("books", List.of()).size() >= ledgerTotal
                        && seen.getOrDefault("w.payments", List.of()).size() >= paymentsTotal;
            }, () -> seen.toString());
            c.commitSync();
            Map<TopicPartition, OffsetAndMetadata> committed = c.committed(Set.of(new TopicPartition("books", 0),
                    new TopicPartition("books", 1), new TopicPartition("w.payments", 0), new TopicPartition("w.payments", 1)));
            assertEquals(ledgerTotal + paymentsTotal, committed.values().stream().mapToLong(OffsetAndMetadata::offset).sum(), committed.toString());
        }
        assertEquals(Set.of("books", "w.payments"), seen.keySet());
        assertTrue(seen.get("books").containsAll(books), seen.toString());
        assertEquals(ledgerTotal, seen.get("books").size(), "each record once");
        assertEquals(ledgerTotal, new TreeSet<>(seen.get("books")).size(), "each record once");
        assertTrue(seen.get("w.payments").containsAll(payments), seen.toString());
        assertEquals(paymentsTotal, seen.get("w.payments").size(), "each record once");
        assertEquals(paymentsTotal, new TreeSet<>(seen.get("w.payments")).size(), "each record once");

        // the same records directly on the real clusters, under the real names
        assertTrue(WeaveClients.readDirectly(c0, "ledger").containsAll(books));
        assertTrue(WeaveClients.readDirectly(c1, "payments").containsAll(payments));
        assertFalse(WeaveClients.existsDirectly(c0, "books") || WeaveClients.existsDirectly(c1, "w.payments"));
        // committed offsets on each real cluster, under the real name
        Map<TopicPartition, OffsetAndMetadata> onC0 = c0.admin().listConsumerGroupOffsets("renamed-group")
                .partitionsToOffsetAndMetadata().get();
        Map<TopicPartition, OffsetAndMetadata> onC1 = c1.admin().listConsumerGroupOffsets("renamed-group")
                .partitionsToOffsetAndMetadata().get();
        assertEquals(Set.of("ledger"), topicsOf(onC0), onC0.toString());
        assertEquals(Set.of("payments"), topicsOf(onC1), onC1.toString());
        assertEquals(ledgerTotal, onC0.values().stream().mapToLong(OffsetAndMetadata::offset).sum());
        assertEquals(paymentsTotal, onC1.values().stream().mapToLong(OffsetAndMetadata::offset).sum());
    }

    @Test
    void rawRequestsByNameAndByIdUnderTheVirtualNames() throws Exception {
        for (String[] t : new String[][] {{"books", "ledger"}, {"w.payments", "payments"}}) {
            String virtual = t[0];
            String real = t[1];
            KafkaCluster owner = real.equals("ledger") ? c0 : c1;
            TopicDescription d = admin.describeTopics(List.of(virtual)).allTopicNames().get().get(virtual);
            Uuid realId = owner.admin().describeTopics(List.of(real)).allTopicNames().get().get(real).topicId();
            assertEquals(realId, d.topicId(), "ids pass through: " + virtual);
            Node leader = d.partitions().getFirst().leader();
            String at = leader.host() + ":" + leader.port();

            ProduceResponseData.PartitionProduceResponse byName =
                    WeaveClients.rawProduce(at, (short) 12, virtual, null, List.of(virtual + "-name-1", virtual + "-name-2"));
            assertEquals(Errors.NONE, Errors.forCode(byName.errorCode()), byName.toString());
            ProduceResponseData.PartitionProduceResponse byId =
                    WeaveClients.rawProduce(at, (short) 13, null, d.topicId(), List.of(virtual + "-id-1"));
            assertEquals(Errors.NONE, Errors.forCode(byId.errorCode()), byId.toString());
            assertEquals(byName.baseOffset() + 2, byId.baseOffset());

            List<String> expected = List.of(virtual + "-name-1", virtual + "-name-2", virtual + "-id-1");
            long from = byName.baseOffset();
            assertEquals(expected, WeaveClients.rawFetch(at, (short) 12, virtual, null, from), "Fetch v12 by name " + virtual);
            assertEquals(expected, WeaveClients.rawFetch(at, (short) 17, null, d.topicId(), from), "Fetch v17 by id " + virtual);
            // and directly on the owning cluster, under the real name
            Node realLeader = owner.admin().describeTopics(List.of(real)).allTopicNames().get().get(real)
                    .partitions().getFirst().leader();
            assertEquals(expected, WeaveClients.rawFetch(realLeader.host() + ":" + realLeader.port(), (short) 12, real, null, from));
        }
    }

    @Test
    void createTopicsPlacesByRuleAndTheTopicIsUsableAtOnce() throws Exception {
        long startNanos = System.nanoTime();
        admin.createTopics(List.of(new NewTopic("w.fresh", 2, (short) 1), new NewTopic("plain-new", 1, (short) 1))).all().get();
        assertTrue(WeaveClients.existsDirectly(c1, "fresh"), "w.fresh → cluster c1 as 'fresh'");
        assertTrue(WeaveClients.existsDirectly(c0, "plain-new"), "no rule → default route east (c0)");
        assertFalse(WeaveClients.existsDirectly(c0, "w.fresh") || WeaveClients.existsDirectly(c0, "fresh")
                || WeaveClients.existsDirectly(c1, "w.fresh") || WeaveClients.existsDirectly(c1, "plain-new"));

        List<String> fresh = new ArrayList<>();
        try (KafkaProducer<String, String> producer = WeaveClients.producer(bootstrap, Map.of())) {
            List<Future<RecordMetadata>> sent = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                fresh.add("fresh-" + i);
                sent.add(producer.send(new ProducerRecord<>("w.fresh", "k" + i, "fresh-" + i)));
            }
            sent.add(producer.send(new ProducerRecord<>("plain-new", "plain")));
            for (Future<RecordMetadata> f : sent) {
                f.get();
            }
        }
        long usableMillis = (System.nanoTime() - startNanos) / 1_000_000;
        System.out.println("created through the proxy and produced to in " + usableMillis + " ms");
        assertTrue(usableMillis < 8_000, "usable at once (well before the 10 s catalog refresh): " + usableMillis + " ms");
        assertEquals(new TreeSet<>(fresh), new TreeSet<>(WeaveClients.readAll(bootstrap, "w.fresh", fresh.size())));
        assertEquals(new TreeSet<>(fresh), new TreeSet<>(WeaveClients.readDirectly(c1, "fresh")));
        assertEquals(List.of("plain"), WeaveClients.readDirectly(c0, "plain-new"));

        // refusals: a visible name, and the real name of a renamed topic
        ExecutionException exists = assertThrows(ExecutionException.class,
                () -> admin.createTopics(List.of(new NewTopic("w.payments", 1, (short) 1))).all().get());
        assertInstanceOf(TopicExistsException.class, exists.getCause());
        ExecutionException renamed = assertThrows(ExecutionException.class,
                () -> admin.createTopics(List.of(new NewTopic("ledger", 1, (short) 1))).all().get());
        assertInstanceOf(InvalidTopicException.class, renamed.getCause(), renamed.getCause().toString());
    }

    private static Set<String> topicsOf(Map<TopicPartition, OffsetAndMetadata> offsets) {
        Set<String> topics = new TreeSet<>();
        offsets.keySet().forEach(tp -> topics.add(tp.topic()));
        return topics;
    }

    private static long endOffsetTotal(KafkaCluster cluster, String topic) throws Exception {
        TopicDescription d = cluster.admin().describeTopics(List.of(topic)).allTopicNames().get().get(topic);
        Map<TopicPartition, org.apache.kafka.clients.admin.OffsetSpec> specs = new HashMap<>();
        d.partitions().forEach(p -> specs.put(new TopicPartition(topic, p.partition()),
                org.apache.kafka.clients.admin.OffsetSpec.latest()));
        return cluster.admin().listOffsets(specs).all().get().values().stream()
                .mapToLong(org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo::offset).sum();
    }
}
