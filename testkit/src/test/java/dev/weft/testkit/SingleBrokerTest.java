package dev.weft.testkit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SingleBrokerTest {

    @Test
    void producesAndConsumesThroughOneCombinedNode() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder().build().start()) {
            assertEquals(List.of(0), cluster.brokerIds());
            assertEquals(List.of(0), cluster.controllerIds());
            assertEquals(1, cluster.nodeCount());
            assertEquals(cluster.brokerAddress(0), cluster.bootstrapServers());
            assertTrue(cluster.bootstrapServers().startsWith("127.0.0.1:"));
            assertEquals(cluster.clusterId(),
                cluster.admin().describeCluster().clusterId().get());
            assertTrue(Files.isDirectory(cluster.baseDirectory()));

            cluster.createTopic("round-trip", 2, 1);
            List<String> sent = Records.numbered("r", 50);
            Records.produce(cluster.producerConfig(), "round-trip", sent);
            List<String> read = Records.consume(cluster.consumerConfig(), "round-trip", 2, sent.size(),
                Duration.ofSeconds(30));

            assertEquals(sent.size(), read.size());
            assertTrue(read.containsAll(sent));
            assertTrue(cluster.fatalFaults().isEmpty(), () -> cluster.fatalFaults().toString());
        }
    }

    @Test
    void startDeletesDirectoriesOfDeadOwnersOnly(@TempDir Path parent) throws Exception {
        Process finished = new ProcessBuilder("true").start();
        finished.waitFor();
        Path abandoned = Files.createDirectories(parent.resolve("weft-kafka-abandoned/node-0/logs"));
        Files.writeString(parent.resolve("weft-kafka-abandoned/owner.pid"), Long.toString(finished.pid()));
        Path alive = Files.createDirectories(parent.resolve("weft-kafka-alive"));
        Files.writeString(alive.resolve("owner.pid"), Long.toString(ProcessHandle.current().pid()));
        Path unknown = Files.createDirectories(parent.resolve("weft-kafka-unknown"));

        try (KafkaCluster cluster = KafkaCluster.builder().baseDirectory(parent).build().start()) {
            assertEquals(parent, cluster.baseDirectory().getParent());
            assertFalse(Files.exists(abandoned.getParent().getParent()), "owner " + finished.pid() + " is gone");
            assertTrue(Files.isDirectory(alive), "owner is this JVM");
            assertTrue(Files.isDirectory(unknown), "no owner file: left alone");
        }
    }

    @Test
    void unstartedClusterRefusesAddressQueries() {
        KafkaCluster cluster = KafkaCluster.builder().brokers(2).build();
        try {
            assertFalse(cluster.isClosed());
            org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class, cluster::bootstrapServers);
        } finally {
            cluster.close();
        }
    }
}
