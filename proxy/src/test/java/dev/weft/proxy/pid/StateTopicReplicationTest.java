package dev.weft.proxy.pid;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.weft.testkit.KafkaCluster;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.Test;

/** On three brokers the state topic gets replication factor 3 and min.insync.replicas 2. */
class StateTopicReplicationTest {

    @Test
    void threeReplicasTwoInSync() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).dedicatedControllers(1).build().start();
                ProducerIdClaims claims = new ProducerIdClaims(ProducerIdClaimsConfig.of(List.of("home", "other"),
                        cluster.bootstrapServers(), Map.of(), "r1"))) {
            claims.start();
            String topic = ProducerIdClaimsConfig.DEFAULT_TOPIC;
            TopicDescription d = cluster.admin().describeTopics(List.of(topic)).allTopicNames().get().get(topic);
            assertEquals(1, d.partitions().size());
            assertEquals(3, d.partitions().get(0).replicas().size());
            ConfigResource r = new ConfigResource(ConfigResource.Type.TOPIC, topic);
            Config c = cluster.admin().describeConfigs(List.of(r)).all().get().get(r);
            assertEquals("compact", c.get("cleanup.policy").value());
            assertEquals("604800000", c.get("min.compaction.lag.ms").value());
            assertEquals("2", c.get("min.insync.replicas").value());
            assertEquals(9L, claims.claim(1, 1, () -> java.util.concurrent.CompletableFuture.completedFuture(9L))
                    .get(30, TimeUnit.SECONDS), "acks=all with two in sync");
        }
    }
}
