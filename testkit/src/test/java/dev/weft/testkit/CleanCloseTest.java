package dev.weft.testkit;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/** {@link KafkaCluster#close()} leaves no thread, file or port behind. */
class CleanCloseTest {

    /** Pools owned by the JDK that Kafka borrows; their idle workers retire on the JDK's own schedule. */
    private static final List<String> JDK_POOL_PREFIXES = List.of("ForkJoinPool.commonPool-worker-", "process reaper");

    @Test
    void closeLeavesNoThreadFileOrPortBehind() throws Exception {
        // The first broker in a JVM creates JVM-wide singletons (Yammer's metrics tick thread, for one)
        // that no broker owns; a warm-up cluster makes them exist before the baseline is taken.
        try (KafkaCluster warmUp = KafkaCluster.builder().build().start()) {
            warmUp.createTopic("warm-up", 1, 1);
        }
        Set<Thread> baseline = Set.copyOf(Thread.getAllStackTraces().keySet());

        KafkaCluster cluster = KafkaCluster.builder().brokers(3).build().start();
        Path directory = cluster.baseDirectory();
        cluster.createTopic("close-me", 3, 3);
        Records.produce(cluster.producerConfig(), "close-me", Records.numbered("c", 30));
        assertEquals(30, Records.consume(cluster.consumerConfig(), "close-me", 3, 30, Duration.ofSeconds(30)).size());
        cluster.killBroker(2);
        cluster.restartBroker(2);
        int added = cluster.addBroker();
        cluster.removeBroker(added);
        Set<Integer> ports = cluster.usedPorts();
        assertEquals(3 * 2 + 1, ports.size(), "a broker and a controller port per combined node, a port for the added one");
        assertTrue(Files.isDirectory(directory));

        cluster.close();
        assertTrue(cluster.isClosed());
        cluster.close();

        assertFalse(Files.exists(directory), "cluster directory deleted: " + directory);
        for (int port : ports) {
            try (ServerSocketChannel channel = ServerSocketChannel.open()) {
                channel.bind(new InetSocketAddress(KafkaCluster.HOST, port));
            } catch (IOException e) {
                fail("port " + port + " is still taken after close: " + e);
            }
        }
        try {
            Await.until(Duration.ofSeconds(30), "threads started by the cluster to finish",
                () -> leftover(baseline).isEmpty());
        } catch (IllegalStateException e) {
            fail("threads left running after close: " + leftover(baseline));
        }
    }

    private static Set<String> leftover(Set<Thread> baseline) {
        return Thread.getAllStackTraces().keySet().stream()
            .filter(t -> !baseline.contains(t) && t.isAlive())
            .map(Thread::getName)
            .filter(name -> JDK_POOL_PREFIXES.stream().noneMatch(name::startsWith))
            .collect(Collectors.toSet());
    }
}
