package dev.weft.proxy.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
 * librdkafka through Weft: {@code kcat} (Debian package {@code kcat}) and python {@code confluent_kafka}
 * (Debian package {@code python3-confluent-kafka}, for {@code /usr/bin/python3}).
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class LibrdkafkaConformanceTest {

    private static final Duration TOOL_TIMEOUT = Duration.ofSeconds(90);
    private static final Pattern KCAT_BROKER = Pattern.compile("^\\s*broker (\\d+) at ([^:\\s]+):(\\d+)", Pattern.MULTILINE);

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
    void kcatMetadataListsOnlyTheProxysAddresses(@TempDir Path scratch) {
        String topic = "kcat-metadata";
        env.createTopic(topic, 3, 3);
        ExternalProcess.Result result = ExternalProcess.run(
                List.of(Prerequisites.kcat().toString(), "-b", env.bootstrap(), "-L", "-m", "30"),
                scratch, Map.of(), null, TOOL_TIMEOUT, scratch).assertSucceeded("kcat -L");
        String out = result.stdout();
        Matcher m = KCAT_BROKER.matcher(out);
        Set<Integer> ids = new TreeSet<>();
        while (m.find()) {
            ids.add(Integer.parseInt(m.group(1)));
            env.assertProxyAddress(m.group(2), Integer.parseInt(m.group(3)), "kcat -L broker " + m.group(1)
                    + result.describe());
        }
        assertEquals(Set.copyOf(env.kafka().brokerIds()), ids, () -> "brokers listed" + result.describe());
        for (int port : env.kafka().usedPorts()) {
            assertFalse(out.contains(":" + port), () -> "a real broker port (" + port + ") shows" + result.describe());
        }
        assertTrue(out.contains("topic \"" + topic + "\" with 3 partitions"), () -> "topic listed" + result.describe());
    }

    @Test
    void kcatProducesEveryRecordOnceInOrder(@TempDir Path scratch) throws Exception {
        String topic = "kcat-produce";
        env.createTopic(topic, 6, 3);
        Dataset data = Dataset.printable(topic, 3_000, 77, 300);
        Path input = data.writeTsv(scratch.resolve("input.tsv"), false);
        ExternalProcess.Result result = ExternalProcess.run(List.of(Prerequisites.kcat().toString(),
                        "-P", "-b", env.bootstrap(), "-t", topic, "-K", "\t",
                        "-X", "enable.idempotence=true", "-X", "acks=all", "-X", "linger.ms=5"),
                scratch, Map.of(), input, TOOL_TIMEOUT, scratch).assertSucceeded("kcat -P");
        Verify.Summary summary = Verify.exactlyOnce(data, env.readDirect(topic, IsolationLevel.READ_UNCOMMITTED),
                () -> "read from the brokers" + result.describe());
        System.out.println("kcat produce: " + summary);
    }

    @Test
    void kcatConsumesEveryRecordOnceInOrder(@TempDir Path scratch) throws Exception {
        String topic = "kcat-consume";
        env.createTopic(topic, 6, 3);
        Dataset data = Dataset.printable(topic, 3_000, 88, 300);
        Map<Integer, List<Long>> written = env.produceDirect(topic, data);
        ExternalProcess.Result result = ExternalProcess.run(List.of(Prerequisites.kcat().toString(),
                        "-C", "-b", env.bootstrap(), "-t", topic, "-o", "beginning", "-e", "-q",
                        "-f", "%p\\t%o\\t%k\\t%s\\n"),
                scratch, Map.of(), null, TOOL_TIMEOUT, scratch).assertSucceeded("kcat -C");
        List<Arrived> arrived = Arrived.parseTsv("kcat", result.stdout(), false);
        Verify.Summary summary = Verify.exactlyOnce(data, arrived, result::describe);
        Verify.sameOffsets(written, arrived, result::describe);
        System.out.println("kcat consume: " + summary);
    }

    @Test
    void pythonConfluentKafkaProducerDeliversEveryRecordOnce(@TempDir Path scratch) throws Exception {
        Path python = Prerequisites.pythonWithConfluentKafka(scratch);
        String topic = "python-produce";
        env.createTopic(topic, 6, 3);
        Dataset data = Dataset.binary(topic, 3_000, 99, 2_048);
        Path input = data.writeTsv(scratch.resolve("input.tsv"), true);
        ExternalProcess.Result result = ExternalProcess.run(List.of(python.toString(), script().toString(),
                        "produce", env.bootstrap(), topic, input.toString()),
                scratch, Map.of(), null, TOOL_TIMEOUT, scratch).assertSucceeded("confluent_client.py produce");
        assertProxyNodes(result);
        Map<Integer, List<Long>> acknowledged = acks(result);
        List<Arrived> onBrokers = env.readDirect(topic, IsolationLevel.READ_UNCOMMITTED);
        Verify.Summary summary = Verify.exactlyOnce(data, onBrokers, () -> "read from the brokers" + result.describe());
        Verify.sameOffsets(acknowledged, onBrokers, result::describe);
        System.out.println("python producer: " + summary);
    }

    @Test
    void pythonConfluentKafkaGroupConsumerReceivesEveryRecordOnce(@TempDir Path scratch) throws Exception {
        Path python = Prerequisites.pythonWithConfluentKafka(scratch);
        String topic = "python-consume";
        String group = "python-consume-group";
        env.createTopic(topic, 6, 3);
        Dataset data = Dataset.binary(topic, 3_000, 111, 2_048);
        Map<Integer, List<Long>> written = env.produceDirect(topic, data);
        ExternalProcess.Result result = ExternalProcess.run(List.of(python.toString(), script().toString(),
                        "consume", env.bootstrap(), topic, group, Integer.toString(data.size()), "60"),
                scratch, Map.of(), null, TOOL_TIMEOUT, scratch).assertSucceeded("confluent_client.py consume");
        List<Arrived> arrived = Arrived.parseTsv("python", result.stdout(), true);
        Verify.Summary summary = Verify.exactlyOnce(data, arrived, result::describe);
        Verify.sameOffsets(written, arrived, result::describe);
        assertCommittedToTheEnd(group, written);
        System.out.println("python group consumer: " + summary);
    }

    private static Path script() {
        return Prerequisites.moduleDir().resolve("src/test/python/confluent_client.py");
    }

    private static void assertProxyNodes(ExternalProcess.Result result) {
        List<String> nodes = result.stdout().lines().filter(l -> l.startsWith("node ")).toList();
        assertEquals(env.kafka().brokerIds().size(), nodes.size(), result::describe);
        for (String node : nodes) {
            String[] f = node.split(" ");
            env.assertProxyAddress(f[2], Integer.parseInt(f[3]), "broker " + f[1] + " as librdkafka saw it");
        }
    }

    private static Map<Integer, List<Long>> acks(ExternalProcess.Result result) {
        Map<Integer, List<Long>> acknowledged = new TreeMap<>();
        result.stdout().lines().filter(l -> l.startsWith("ack ")).forEach(l -> {
            String[] f = l.split(" ");
            acknowledged.computeIfAbsent(Integer.parseInt(f[1]), p -> new ArrayList<>()).add(Long.parseLong(f[2]));
        });
        return acknowledged;
    }

    static void assertCommittedToTheEnd(String group, Map<Integer, List<Long>> written) throws Exception {
        try (Admin admin = Admin.create(Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, env.bootstrap()))) {
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata().get(60, TimeUnit.SECONDS);
            Map<Integer, Long> want = new TreeMap<>();
            written.forEach((p, o) -> want.put(p, o.get(o.size() - 1) + 1));
            Map<Integer, Long> got = new TreeMap<>();
            committed.forEach((tp, o) -> got.put(tp.partition(), o.offset()));
            assertEquals(want, got, "committed offsets of " + group);
        }
    }
}
