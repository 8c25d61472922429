package dev.weft.testkit;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A cluster whose node runs in a JVM of its own, SIGKILLed and restarted. */
class ForkedClusterTest {

    @Test
    void forkedNodeSurvivesSigkillAndRestart() throws Exception {
        KafkaCluster cluster = KafkaCluster.builder().forked(true).heap("384m").build().start();
        long firstPid;
        long secondPid;
        Path directory;
        try {
            assertTrue(cluster.isForked());
            directory = cluster.baseDirectory();
            firstPid = cluster.pid(0).orElseThrow();
            assertNotEquals(ProcessHandle.current().pid(), firstPid);
            assertTrue(ProcessHandle.of(firstPid).map(ProcessHandle::isAlive).orElse(false));
            String address = cluster.brokerAddress(0);

            cluster.createTopic("forked", 2, 1);
            List<String> before = Records.numbered("before-kill", 20);
            Records.produce(cluster.producerConfig(), "forked", before);

            cluster.killBroker(0);
            assertFalse(cluster.isRunning(0));
            assertFalse(ProcessHandle.of(firstPid).map(ProcessHandle::isAlive).orElse(false),
                "process " + firstPid + " is gone after SIGKILL");

            cluster.restartBroker(0);
            secondPid = cluster.pid(0).orElseThrow();
            assertNotEquals(firstPid, secondPid);
            assertEquals(address, cluster.brokerAddress(0), "same port after restart");

            List<String> after = Records.numbered("after-restart", 20);
            Records.produce(cluster.producerConfig(), "forked", after);
            List<String> all = new ArrayList<>(before);
            all.addAll(after);
            List<String> read = Records.consume(cluster.consumerConfig(), "forked", 2, all.size(), Duration.ofSeconds(60));
            assertEquals(Set.copyOf(all), Set.copyOf(read), "records written before the SIGKILL survive it");
        } finally {
            cluster.close();
        }
        assertFalse(ProcessHandle.of(secondPid).map(ProcessHandle::isAlive).orElse(false),
            "process " + secondPid + " is gone after close");
        assertFalse(Files.exists(directory));
    }
}
