package dev.weft.proxy.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.proxy.testing.Poll;
import dev.weft.proxy.testing.VirtualClusterFixture;
import dev.weft.proxy.testing.VirtualClusterKind;
import dev.weft.testkit.KafkaCluster;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.TransactionalIdAuthorizationException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Per-principal authorization (issue 15) on every kind of virtual cluster, with kafka-clients over SASL
 * termination: two tenants by prefix ({@code alice} sees only {@code acme.*}, {@code bob} only
 * {@code globex.*}, each without the prefix) share one virtual cluster and one real topic name, and each
 * reads only its own records; two tenants by allow-list ({@code carol}: {@code carol.*} and read-only
 * {@code shared}; {@code dave}: {@code dave.*}) see disjoint topic sets, and a write to the other's topic,
 * or to a topic granted read-only, fails with TopicAuthorizationException and writes nothing (checked
 * on the real cluster). A group or transactional id outside the grants gets the client's
 * GroupAuthorizationException / TransactionalIdAuthorizationException; creating a topic outside them is
 * refused and nothing is created.
 */
class TenantIsolationTest {

    private static final String JAAS = "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"%s\" password=\"%s\";";

    private static Path credentials;
    private static VirtualClusterFixture fixture;

    @BeforeAll
    static void start() throws Exception {
        credentials = Files.createTempDirectory("weft-tenants").resolve("users");
        for (String user : List.of("ops", "alice", "bob", "carol", "dave")) {
            addUser(user, user + "-secret");
        }
        fixture = VirtualClusterFixture.over(KafkaCluster.builder().brokers(1).build().start())
                .virtualClusterSettings("""
                            authentication:
                              sasl: { mechanisms: [PLAIN], credentials: "%s" }
                            authorization:
                              principals:
                                ops:
                                  topics: [ { name: "*", operations: [all] } ]
                                  groups: [ { name: "*" } ]
                                  transactionalIds: [ { name: "*" } ]
                                  cluster: [describe, alter]
                                alice:
                                  tenant: "acme."
                                  topics: [ { prefix: "", operations: [all] } ]
                                  groups: [ { prefix: "acme-" } ]
                                  transactionalIds: [ { prefix: "acme-" } ]
                                bob:
                                  tenant: "globex."
                                  topics: [ { prefix: "", operations: [all] } ]
                                  groups: [ { prefix: "globex-" } ]
                                carol:
                                  topics:
                                    - { prefix: "carol.", operations: [all] }
                                    - { regex: "shared-.*", operations: [read] }
                                  groups: [ { prefix: "carol-" } ]
                                dave:
                                  topics: [ { prefix: "dave.", operations: [read, write, describe] } ]
                                  groups: [ { prefix: "dave-" } ]
                        """.formatted(credentials))
                .clientSettings(sasl("ops"))
                .build();
    }

    @AfterAll
    static void stop() throws IOException {
        if (fixture != null) {
            fixture.close();
        }
        Files.deleteIfExists(credentials);
    }

    private static void addUser(String user, String password) {
        TestCredentials.add(credentials, user, password);
    }

    private static Map<String, Object> sasl(String user) {
        return Map.of(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_PLAINTEXT", SaslConfigs.SASL_MECHANISM, "PLAIN",
                SaslConfigs.SASL_JAAS_CONFIG, JAAS.formatted(user, user + "-secret"));
    }

    private static Map<String, Object> client(VirtualClusterKind kind, String user) {
        Map<String, Object> c = new HashMap<>(sasl(user));
        c.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, fixture.bootstrap(kind));
        c.put(CommonClientConfigs.DEFAULT_API_TIMEOUT_MS_CONFIG, 20_000);
        c.put(CommonClientConfigs.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        return c;
    }

    @ParameterizedTest
    @MethodSource("dev.weft.proxy.testing.VirtualClusterKind#all")
    void tenantsByPrefixShareATopicNameAndReadOnlyTheirOwnRecords(VirtualClusterKind kind) throws Exception {
        String orders = kind.name("orders");
        fixture.createTopic(kind, "acme." + orders, 2, 1);
        fixture.createTopic(kind, "globex." + orders, 2, 1);

        // the suite's cluster is shared by every kind: each tenant sees every kind's orders, and only them
        for (String tenant : List.of("alice", "bob")) {
            Set<String> seen = topics(kind, tenant);
            assertTrue(seen.contains(orders), tenant + " sees its tenant's topic, named without the prefix: " + seen);
            assertTrue(seen.stream().allMatch(t -> t.startsWith("orders-")), tenant + " sees nothing else: " + seen);
        }

        List<String> aliceSent = produce(kind, "alice", orders, "acme", 30);
        List<String> bobSent = produce(kind, "bob", orders, "globex", 20);
        assertEquals(aliceSent.stream().sorted().toList(), consume(kind, "alice", orders, "acme-readers", aliceSent.size()));
        assertEquals(bobSent.stream().sorted().toList(), consume(kind, "bob", orders, "globex-readers", bobSent.size()));
        assertEquals(30, endOffsetSum("acme." + orders), "alice's records are on acme." + orders);
        assertEquals(20, endOffsetSum("globex." + orders), "bob's records are on globex." + orders);

        // a group outside her grants, a transactional id outside them
        Map<String, Object> c = client(kind, "alice");
        c.put(ConsumerConfig.GROUP_ID_CONFIG, "globex-readers");
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(c, new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of(orders));
            assertThrows(GroupAuthorizationException.class, () -> {
                for (int i = 0; i < 100; i++) {
                    consumer.poll(Duration.ofMillis(200));
                }
            });
        }
        Map<String, Object> p = client(kind, "alice");
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "globex-payments");
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 20_000);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            assertThrows(TransactionalIdAuthorizationException.class, producer::initTransactions);
        }
    }

    /**
     * A KIP-848 consumer (group.protocol=consumer) of a prefix tenant: its ConsumerGroupHeartbeat names
     * the topic without the prefix and the broker's assignor, which sees only real names, assigns the
     * tenant's real topic, not the other tenant's of the same name. Kinds whose groups are coordinated by
     * one real cluster (partition-woven topics need the classic protocol; branching and switching plan
     * groups as the topic weave does).
     */
    @ParameterizedTest
    @EnumSource(value = VirtualClusterKind.class, names = {"PASS_THROUGH", "TOPIC_WOVEN", "COLLAPSED"})
    void aTenantsKip848ConsumerSubscribesByItsOwnNamesAndReadsOnlyItsRecords(VirtualClusterKind kind) throws Exception {
        String events = kind.name("orders-848"); // "orders-*": what the other prefix test expects a tenant to see
        fixture.createTopic(kind, "acme." + events, 2, 1);
        fixture.createTopic(kind, "globex." + events, 2, 1);
        List<String> aliceSent = produce(kind, "alice", events, "acme", 12);
        produce(kind, "bob", events, "globex", 7);
        assertEquals(aliceSent.stream().sorted().toList(),
                consume(kind, "alice", events, "acme-848-" + kind.slug(), aliceSent.size(), "consumer"));
        Admin admin = fixture.primary().admin(); // the cluster's own, shared
        // the group's offsets are on the tenant's real topic
        Map<TopicPartition, org.apache.kafka.clients.consumer.OffsetAndMetadata> committed = admin
                .listConsumerGroupOffsets("acme-848-" + kind.slug()).partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
        assertTrue(!committed.isEmpty() && committed.keySet().stream().allMatch(tp -> tp.topic().equals("acme." + events)),
                committed.toString());
        assertEquals(12, committed.values().stream().mapToLong(o -> o.offset()).sum(), committed.toString());
    }

    @ParameterizedTest
    @MethodSource("dev.weft.proxy.testing.VirtualClusterKind#all")
    void tenantsByAllowListSeeDisjointTopicsAndAWriteToTheOthersFailsAndWritesNothing(VirtualClusterKind kind) throws Exception {
        String carols = "carol." + kind.name("events");
        String daves = "dave." + kind.name("events");
        String shared = "shared-" + kind.slug();
        fixture.createTopic(kind, carols, 1, 1);
        fixture.createTopic(kind, daves, 1, 1);
        fixture.createTopic(kind, shared, 1, 1);

        Set<String> carolSees = topics(kind, "carol");
        Set<String> daveSees = topics(kind, "dave");
        assertTrue(carolSees.containsAll(Set.of(carols, shared)) && !carolSees.contains(daves), carolSees.toString());
        assertTrue(daveSees.contains(daves) && !daveSees.contains(carols) && !daveSees.contains(shared), daveSees.toString());
        assertTrue(carolSees.stream().noneMatch(daveSees::contains), "disjoint: " + carolSees + " / " + daveSees);

        assertEquals(5, produce(kind, "dave", daves, "d", 5).size());
        assertInstanceOf(TopicAuthorizationException.class, produceFailure(kind, "carol", daves), "carol writes to dave's topic");
        assertInstanceOf(TopicAuthorizationException.class, produceFailure(kind, "carol", shared), "carol may only read shared");
        assertInstanceOf(TopicAuthorizationException.class, produceFailure(kind, "dave", carols), "dave writes to carol's topic");
        assertEquals(5, endOffsetSum(daves), "only dave's own records");
        assertEquals(0, endOffsetSum(carols), "nothing was written to carol's topic");
        assertEquals(0, endOffsetSum(shared), "nothing was written to the read-only topic");

        // dave's grants have no create: nothing is created; carol's have it under her prefix
        try (Admin admin = Admin.create(client(kind, "dave"))) {
            ExecutionException e = assertThrows(ExecutionException.class, () -> admin.createTopics(List.of(
                    new NewTopic("dave." + kind.name("new"), 1, (short) 1))).all().get(30, TimeUnit.SECONDS));
            assertInstanceOf(TopicAuthorizationException.class, e.getCause());
        }
        assertFalse(fixture.primary().admin().listTopics().names().get(30, TimeUnit.SECONDS).contains("dave." + kind.name("new")));
    }

    private static Set<String> topics(VirtualClusterKind kind, String user) throws Exception {
        try (Admin admin = Admin.create(client(kind, user))) {
            return admin.listTopics().names().get(30, TimeUnit.SECONDS);
        }
    }

    private static List<String> produce(VirtualClusterKind kind, String user, String topic, String prefix, int count) throws Exception {
        Map<String, Object> c = client(kind, user);
        c.put(ProducerConfig.ACKS_CONFIG, "all");
        List<String> sent = new ArrayList<>();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(c, new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < count; i++) {
                String v = prefix + "-" + i;
                producer.send(new ProducerRecord<>(topic, "k" + i, v)).get(30, TimeUnit.SECONDS);
                sent.add(v);
            }
        }
        return sent;
    }

    private static Throwable produceFailure(VirtualClusterKind kind, String user, String topic) {
        Map<String, Object> c = client(kind, user);
        c.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 20_000);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(c, new StringSerializer(), new StringSerializer())) {
            ExecutionException e = assertThrows(ExecutionException.class,
                    () -> producer.send(new ProducerRecord<>(topic, "k", "not-allowed")).get(30, TimeUnit.SECONDS));
            return e.getCause();
        }
    }

    private static List<String> consume(VirtualClusterKind kind, String user, String topic, String group, int expected) {
        return consume(kind, user, topic, group, expected, "classic");
    }

    private static List<String> consume(VirtualClusterKind kind, String user, String topic, String group, int expected,
            String groupProtocol) {
        Map<String, Object> c = client(kind, user);
        c.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        c.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, groupProtocol);
        c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        List<String> received = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(c, new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of(topic));
            Poll.until(Duration.ofSeconds(60), user + "'s group to read " + expected + " records of " + topic, () -> {
                consumer.poll(Duration.ofMillis(200)).forEach(r -> received.add(r.value()));
                return received.size() >= expected;
            }, () -> received.size() + " received");
            consumer.commitSync();
        }
        return received.stream().sorted().toList();
    }

    private static long endOffsetSum(String realTopic) throws Exception {
        Admin admin = fixture.primary().admin();
        int partitions = admin.describeTopics(List.of(realTopic)).allTopicNames().get(30, TimeUnit.SECONDS).get(realTopic).partitions().size();
        Map<TopicPartition, org.apache.kafka.clients.admin.OffsetSpec> ask = new HashMap<>();
        for (int p = 0; p < partitions; p++) {
            ask.put(new TopicPartition(realTopic, p), org.apache.kafka.clients.admin.OffsetSpec.latest());
        }
        return admin.listOffsets(ask).all().get(30, TimeUnit.SECONDS).values().stream().mapToLong(r -> r.offset()).sum();
    }
}
