package dev.weft.proxy.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
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
 * kafkajs (npm, pinned by {@code src/test/js/package-lock.json}, installed with {@code npm ci} in that
 * folder) through Weft: a producer and a group consumer.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class KafkaJsConformanceTest {

    private static final Duration TOOL_TIMEOUT = Duration.ofSeconds(90);

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
    void kafkaJsProducerDeliversEveryRecordOnceInOrder(@TempDir Path scratch) throws Exception {
        Path project = Prerequisites.kafkaJsProject();
        String topic = "kafkajs-produce";
        env.createTopic(topic, 6, 3);
        Dataset data = Dataset.binary(topic, 3_000, 121, 2_048);
        Path input = data.writeTsv(scratch.resolve("input.tsv"), true);
        ExternalProcess.Result result = ExternalProcess.run(List.of(Prerequisites.node().toString(),
                        "kafkajs_client.js", "produce", env.bootstrap(), topic, input.toString()),
                project, Map.of(), null, TOOL_TIMEOUT, scratch).assertSucceeded("kafkajs_client.js produce");
        assertTrue(result.stdout().contains("sent " + data.size() + "\n"), result::describe);
        List<String> nodes = result.stdout().lines().filter(l -> l.startsWith("node ")).toList();
        assertEquals(env.kafka().brokerIds().size(), nodes.size(), result::describe);
        for (String node : nodes) {
            String[] f = node.split(" ");
            env.assertProxyAddress(f[2], Integer.parseInt(f[3]), "broker " + f[1] + " as kafkajs saw it");
        }
        Verify.Summary summary = Verify.exactlyOnce(data, env.readDirect(topic, IsolationLevel.READ_UNCOMMITTED),
                () -> "read from the brokers" + result.describe());
        System.out.println("kafkajs producer: " + summary);
    }

    @Test
    void kafkaJsGroupConsumerReceivesEveryRecordOnce(@TempDir Path scratch) throws Exception {
        Path project = Prerequisites.kafkaJsProject();
        String topic = "kafkajs-consume";
        String group = "kafkajs-consume-group";
        env.createTopic(topic, 6, 3);
        Dataset data = Dataset.binary(topic, 3_000, 131, 2_048);
        Map<Integer, List<Long>> written = env.produceDirect(topic, data);
        ExternalProcess.Result result = ExternalProcess.run(List.of(Prerequisites.node().toString(),
                        "kafkajs_client.js", "consume", env.bootstrap(), topic, group, Integer.toString(data.size()), "60"),
                project, Map.of(), null, TOOL_TIMEOUT, scratch).assertSucceeded("kafkajs_client.js consume");
        List<Arrived> arrived = Arrived.parseTsv("kafkajs", result.stdout(), true);
        Verify.Summary summary = Verify.exactlyOnce(data, arrived, result::describe);
        Verify.sameOffsets(written, arrived, result::describe);
        try (Admin admin = Admin.create(Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, env.bootstrap()))) {
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata().get(60, TimeUnit.SECONDS);
            written.forEach((p, o) -> assertEquals(o.get(o.size() - 1) + 1,
                    committed.get(new TopicPartition(topic, p)).offset(), "committed offset of partition " + p));
        }
        System.out.println("kafkajs group consumer: " + summary);
    }
}
