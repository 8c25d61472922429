package dev.weft.proxy.weave;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.testkit.KafkaCluster;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ConsumerGroupListing;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The Admin client against a woven virtual cluster: every call lands on the cluster that owns the
 * topic or group, under real names there and virtual names here; group offsets committed for topics on
 * two clusters read back as one group; per-cluster-only APIs (ACLs) are refused with a clear message.
 */
class TopicWeaveAdminTest {

    private static WovenClusters woven;
    private static Admin admin;

    @BeforeAll
    static void start() {
        woven = WovenClusters.start(2).topic(0, "orders", 2).topic(1, "payments", 2)
                .weave(List.of("name: east", "name: west, naming: { prefix: \"w.\" }"),
                        "    placement: { rules: [ { prefix: \"w.\", route: west } ], default: east }\n");
        admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, woven.bootstrap()));
    }

    @AfterAll
    static void stop() {
        if (admin != null) {
            admin.close(Duration.ofSeconds(5));
        }
        if (woven != null) {
            woven.close();
        }
    }

    @Test
    void clusterViewIsMergedWithVirtualIds() throws Exception {
        var cluster = admin.describeCluster();
        Set<Integer> ids = cluster.nodes().get().stream().map(n -> n.id()).collect(Collectors.toSet());
        int eastId = woven.cluster(0).brokerIds().getFirst();
        int westId = woven.cluster(1).brokerIds().getFirst();
        assertEquals(Set.of(eastId * 2, westId * 2 + 1), ids);
        try (Admin direct = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, woven.cluster(0).bootstrapServers()))) {
            String real = direct.describeCluster().clusterId().get();
            assertTrue(!cluster.clusterId().get().equals(real), "virtual cluster id, not east's " + real);
        }
        var orders = admin.describeTopics(List.of("orders", "w.payments")).allTopicNames().get();
        assertEquals(eastId * 2, orders.get("orders").partitions().get(0).leader().id());
        assertEquals(westId * 2 + 1, orders.get("w.payments").partitions().get(0).leader().id());
    }

    @Test
    void topicsAreCreatedConfiguredTrimmedAndDeletedOnTheirOwnCluster() throws Exception {
        admin.createTopics(List.of(new NewTopic("w.audit", 1, (short) 1), new NewTopic("invoices", 1, (short) 1))).all().get();
        assertTrue(topicsOf(woven.cluster(1)).contains("audit"), "placed on west under its real name");
        assertTrue(topicsOf(woven.cluster(0)).contains("invoices"));
        ExecutionException dup = assertThrows(ExecutionException.class,
                () -> admin.createTopics(List.of(new NewTopic("orders", 1, (short) 1))).all().get());
        assertInstanceOf(org.apache.kafka.common.errors.TopicExistsException.class, dup.getCause());

        ConfigResource audit = new ConfigResource(ConfigResource.Type.TOPIC, "w.audit");
        admin.incrementalAlterConfigs(Map.of(audit, List.of(new AlterConfigOp(
                new ConfigEntry("retention.ms", "3600000"), AlterConfigOp.OpType.SET)))).all().get();
        Config c = admin.describeConfigs(List.of(audit)).all().get().get(audit);
        assertEquals("3600000", c.get("retention.ms").value());
        try (Admin direct = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, woven.cluster(1).bootstrapServers()))) {
            ConfigResource real = new ConfigResource(ConfigResource.Type.TOPIC, "audit");
            // A broker applies a config change when the controller's record reaches its metadata image,
            // which can be a moment after the change was acknowledged (seen once, on a loaded CI box).
            dev.weft.proxy.testing.Poll.untilNoThrow(java.time.Duration.ofSeconds(10), "west's broker shows the new retention",
                    () -> "3600000".equals(direct.describeConfigs(List.of(real)).all().get().get(real).get("retention.ms").value()));
        }

        produce("w.audit", 10);
        TopicPartition tp = new TopicPartition("w.audit", 0);
        assertEquals(10, admin.listOffsets(Map.of(tp, OffsetSpec.latest())).all().get().get(tp).offset());
        admin.deleteRecords(Map.of(tp, RecordsToDelete.beforeOffset(4))).all().get();
        assertEquals(4, admin.listOffsets(Map.of(tp, OffsetSpec.earliest())).all().get().get(tp).offset());

        admin.deleteTopics(List.of("w.audit", "invoices")).all().get();
        assertTrue(!topicsOf(woven.cluster(1)).contains("audit"));
        assertTrue(!topicsOf(woven.cluster(0)).contains("invoices"));
    }

    @Test
    void groupOffsetsOnTwoClustersAreOneGroupAndListedOnce() throws Exception {
        produce("orders", 5);
        produce("w.payments", 5);
        Map<TopicPartition, OffsetAndMetadata> offsets = Map.of(
                new TopicPartition("orders", 0), new OffsetAndMetadata(2),
                new TopicPartition("w.payments", 1), new OffsetAndMetadata(1));
        admin.alterConsumerGroupOffsets("admin-group", offsets).all().get();
        Map<TopicPartition, OffsetAndMetadata> read = admin.listConsumerGroupOffsets("admin-group")
                .partitionsToOffsetAndMetadata().get();
        assertEquals(offsets.keySet(), read.keySet(), read.toString());
        assertEquals(2, read.get(new TopicPartition("orders", 0)).offset());
        assertEquals(1, read.get(new TopicPartition("w.payments", 1)).offset());

        Collection<ConsumerGroupListing> groups = admin.listConsumerGroups().all().get();
        long listed = groups.stream().filter(g -> g.groupId().equals("admin-group")).count();
        assertEquals(1, listed, "the group has offsets on both clusters but is listed once: " + groups);

        admin.deleteConsumerGroupOffsets("admin-group", Set.of(new TopicPartition("w.payments", 1))).all().get();
        Map<TopicPartition, OffsetAndMetadata> after = admin.listConsumerGroupOffsets("admin-group")
                .partitionsToOffsetAndMetadata().get();
        assertEquals(Set.of(new TopicPartition("orders", 0)), after.keySet(), after.toString());
    }

    @Test
    void aclsAreRefusedWithAReason() {
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> admin.describeAcls(AclBindingFilter.ANY).values().get());
        assertInstanceOf(ClusterAuthorizationException.class, e.getCause());
        assertTrue(e.getCause().getMessage().contains("cluster"), e.getCause().getMessage());
    }

    private static Set<String> topicsOf(KafkaCluster cluster) throws Exception {
        try (Admin direct = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers()))) {
            return direct.listTopics().names().get();
        }
    }

    private static void produce(String topic, int n) throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, woven.bootstrap());
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < n; i++) {
                producer.send(new ProducerRecord<>(topic, 0, "k", "v" + i)).get();
            }
        }
    }
}
