package dev.weft.proxy.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * An older kafka-clients line (3.x, {@code kafka.legacy-clients.version} in the parent pom) through
 * Weft, in a forked JVM whose class path holds that kafka-clients jar, slf4j-api and
 * {@link LegacyClientMain}: no 4.x Kafka class can leak in.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class LegacyJavaClientConformanceTest {

    private static final String EXPECTED_LINE = "3.";
    private static ConformanceEnvironment env;

    @BeforeAll
    static void start() throws Exception {
        env = ConformanceEnvironment.start(3, Map.of());
    }

    @AfterAll
    static void stop() {
        if (env != null) {
            env.close();
        }
    }

    @Test
    void olderKafkaClientsProduceAndConsumeThroughTheProxy(@TempDir Path scratch) throws Exception {
        String topic = "legacy-java";
        String group = "legacy-java-group";
        Dataset data = Dataset.binary(topic, 3_000, 66, 2_048);
        Path input = data.writeTsv(scratch.resolve("input.tsv"), true);

        Path testClasses = Path.of(LegacyClientMain.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Path legacyJar = Prerequisites.legacyKafkaClientsJar(testClasses.getParent());
        String classPath = String.join(File.pathSeparator, legacyJar.toString(), jarOnClassPath("slf4j-api-"),
                testClasses.toString());
        ExternalProcess.Result result = ExternalProcess.run(List.of(Prerequisites.java(), "-Xmx256m", "-cp", classPath,
                        LegacyClientMain.class.getName(), env.bootstrap(), topic, "6", group, input.toString()),
                scratch, Map.of(), null, Duration.ofSeconds(120), scratch);
        result.assertSucceeded("the kafka-clients " + legacyJar.getFileName() + " client");
        String out = result.stdout();

        String version = out.lines().filter(l -> l.startsWith("version=")).findFirst().orElse("version=? ").substring(8)
                .split(" ")[0];
        assertTrue(version.startsWith(EXPECTED_LINE) && legacyJar.getFileName().toString().contains(version),
                () -> "the child ran kafka-clients " + version + ", not " + legacyJar.getFileName() + result.describe());

        // Its Admin saw only proxy addresses.
        List<String> nodes = out.lines().filter(l -> l.startsWith("node ")).toList();
        assertEquals(3, nodes.size(), result::describe);
        for (String node : nodes) {
            String[] f = node.split(" ");
            env.assertProxyAddress(f[2], Integer.parseInt(f[3]), "node " + f[1] + " as the 3.x Admin saw it");
        }

        // Produced: acknowledged once each; what the brokers hold, read directly, is exactly the input.
        Map<Integer, List<Long>> acknowledged = new TreeMap<>();
        Set<String> ackedKeys = new TreeSet<>();
        out.lines().filter(l -> l.startsWith("ack ")).forEach(l -> {
            String[] f = l.split(" ");
            acknowledged.computeIfAbsent(Integer.parseInt(f[1]), p -> new ArrayList<>()).add(Long.parseLong(f[2]));
            ackedKeys.add(f[3]);
        });
        assertEquals(data.size(), ackedKeys.size(), result::describe);
        List<Arrived> onBrokers = env.readDirect(topic, IsolationLevel.READ_UNCOMMITTED);
        Verify.exactlyOnce(data, onBrokers, () -> "read from the brokers" + result.describe());
        Verify.sameOffsets(acknowledged, onBrokers, result::describe);

        // Consumed through the proxy by the 3.x group member: everything once, in order, byte-identical.
        List<Arrived> consumed = Arrived.parseTsv("legacy", out, true);
        Verify.Summary summary = Verify.exactlyOnce(data, consumed, result::describe);
        Verify.sameOffsets(acknowledged, consumed, result::describe);

        // Its commits landed: the group's offsets are the end of every partition.
        try (Admin admin = Admin.create(Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, env.bootstrap()))) {
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata().get(60, TimeUnit.SECONDS);
            Map<Integer, Long> want = new TreeMap<>();
            acknowledged.forEach((p, o) -> want.put(p, o.get(o.size() - 1) + 1));
            Map<Integer, Long> got = new TreeMap<>();
            committed.forEach((tp, o) -> got.put(tp.partition(), o.offset()));
            assertEquals(want, got, "committed offsets of " + group);
        }
        System.out.println("kafka-clients " + version + " in a forked JVM: " + summary + " (" + result.took().toMillis()
                + " ms)");
    }

    private static String jarOnClassPath(String prefix) {
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (Path.of(entry).getFileName().toString().startsWith(prefix)) {
                return entry;
            }
        }
        throw new AssertionError("no " + prefix + "*.jar on the test class path");
    }
}
