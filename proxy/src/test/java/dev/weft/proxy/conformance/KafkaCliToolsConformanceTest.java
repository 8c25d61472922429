package dev.weft.proxy.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartitionInfo;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kafka's own CLI tools (the kafka-tools artifact of {@code kafka.version}) pointed at Weft, each in a
 * forked JVM on the test class path, as {@code bin/kafka-*.sh} would run them: kafka-topics
 * (create, list, describe), the console producer and consumer, kafka-consumer-groups (describe).
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class KafkaCliToolsConformanceTest {

    private static final Duration TOOL_TIMEOUT = Duration.ofSeconds(90);
    private static final String TOPICS = "org.apache.kafka.tools.TopicCommand";
    private static final String CONSOLE_PRODUCER = "org.apache.kafka.tools.ConsoleProducer";
    private static final String CONSOLE_CONSUMER = "org.apache.kafka.tools.consumer.ConsoleConsumer";
    private static final String CONSUMER_GROUPS = KafkaCliTools.CONSUMER_GROUPS;

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
    void cliToolsCreateDescribeProduceConsumeAndDescribeTheGroup(@TempDir Path scratch) throws Exception {
        String topic = "cli-topic";
        String group = "cli-group";
        int partitions = 4;
        KafkaCliTools tools = KafkaCliTools.in(scratch, TOOL_TIMEOUT);

        // kafka-topics --create / --list / --describe
        tools.run(TOPICS, "--bootstrap-server", env.bootstrap(), "--create", "--topic", topic,
                "--partitions", Integer.toString(partitions), "--replication-factor", "3",
                "--config", "retention.ms=3600000")
                .assertSucceeded("kafka-topics --create")
                .stdout().lines().filter(l -> l.contains("Created topic " + topic)).findFirst()
                .orElseThrow(() -> new AssertionError("no 'Created topic " + topic + "'"));
        env.kafka().awaitLeaders(topic, partitions);
        ExternalProcess.Result list = tools.run(TOPICS, "--bootstrap-server", env.bootstrap(), "--list")
                .assertSucceeded("kafka-topics --list");
        assertTrue(list.stdout().lines().anyMatch(topic::equals), list::describe);

        ExternalProcess.Result describe = tools.run(TOPICS, "--bootstrap-server", env.bootstrap(),
                "--describe", "--topic", topic).assertSucceeded("kafka-topics --describe");
        String described = describe.stdout();
        assertTrue(described.contains("PartitionCount: " + partitions), describe::describe);
        assertTrue(described.contains("ReplicationFactor: 3"), describe::describe);
        assertTrue(described.contains("retention.ms=3600000"), describe::describe);
        // Each partition line names the leader the brokers have (oracle: Admin on the brokers directly).
        TopicDescription truth = env.kafka().admin().describeTopics(List.of(topic)).allTopicNames()
                .get(60, TimeUnit.SECONDS).get(topic);
        Pattern row = Pattern.compile("Partition: (\\d+)\\s+Leader: (\\d+)\\s+Replicas: ([\\d,]+)\\s+Isr: ([\\d,]+)");
        Map<Integer, Integer> leaders = new TreeMap<>();
        Matcher m = row.matcher(described);
        while (m.find()) {
            leaders.put(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)));
            assertEquals(3, m.group(3).split(",").length, describe::describe);
        }
        Map<Integer, Integer> want = new TreeMap<>();
        for (TopicPartitionInfo p : truth.partitions()) {
            want.put(p.partition(), p.leader().id());
        }
        assertEquals(want, leaders, describe::describe);

        // Console producer: keyed lines from stdin; what the brokers hold, read directly, is exactly that.
        Dataset data = Dataset.printable(topic, 2_000, 141, 200);
        Path input = data.writeTsv(scratch.resolve("input.tsv"), false);
        ExternalProcess.Result produced = tools.runWithInput(input, CONSOLE_PRODUCER,
                "--bootstrap-server", env.bootstrap(), "--topic", topic,
                "--reader-property", "parse.key=true", "--reader-property", "key.separator=\t",
                "--command-property", "enable.idempotence=true", "--command-property", "acks=all",
                "--command-property", "linger.ms=5").assertSucceeded("console producer");
        Verify.Summary producedSummary = Verify.exactlyOnce(data, env.readDirect(topic, IsolationLevel.READ_UNCOMMITTED),
                () -> "read from the brokers" + produced.describe());

        // Console consumer in a group, through the proxy: every record once, in order, byte-identical.
        ExternalProcess.Result consumed = tools.run(CONSOLE_CONSUMER,
                "--bootstrap-server", env.bootstrap(), "--topic", topic, "--group", group, "--from-beginning",
                "--max-messages", Integer.toString(data.size()), "--timeout-ms", "60000",
                "--formatter-property", "print.partition=true", "--formatter-property", "print.offset=true",
                "--formatter-property", "print.key=true", "--formatter-property", "key.separator=\t")
                .assertSucceeded("console consumer");
        List<Arrived> arrived = parseConsoleConsumer(consumed);
        Verify.Summary consumedSummary = Verify.exactlyOnce(data, arrived, consumed::describe);

        // kafka-consumer-groups --describe: committed to the end, no lag; --state: coordinator at the proxy.
        ExternalProcess.Result groups = tools.run(CONSUMER_GROUPS, "--bootstrap-server", env.bootstrap(),
                "--describe", "--group", group).assertSucceeded("kafka-consumer-groups --describe");
        Map<Integer, Long> endOffsets = new TreeMap<>();
        consumedSummary.perPartition().forEach((p, n) -> endOffsets.put(p, (long) n));
        Pattern offsetRow = Pattern.compile("^" + Pattern.quote(group) + "\\s+" + Pattern.quote(topic)
                + "\\s+(\\d+)\\s+(\\d+)\\s+(\\d+)\\s+(\\d+)", Pattern.MULTILINE);
        Matcher g = offsetRow.matcher(groups.stdout());
        Map<Integer, Long> committed = new TreeMap<>();
        while (g.find()) {
            int partition = Integer.parseInt(g.group(1));
            committed.put(partition, Long.parseLong(g.group(2)));
            assertEquals(g.group(2), g.group(3), () -> "current offset = log end offset" + groups.describe());
            assertEquals("0", g.group(4), () -> "no lag" + groups.describe());
        }
        assertEquals(endOffsets, committed, groups::describe);

        ExternalProcess.Result state = tools.run(CONSUMER_GROUPS, "--bootstrap-server", env.bootstrap(),
                "--describe", "--group", group, "--state").assertSucceeded("kafka-consumer-groups --describe --state");
        Matcher coordinator = Pattern.compile("^" + Pattern.quote(group) + "\\s+([\\d.]+):(\\d+)\\s+\\((\\d+)\\)",
                Pattern.MULTILINE).matcher(state.stdout());
        assertTrue(coordinator.find(), state::describe);
        env.assertProxyAddress(coordinator.group(1), Integer.parseInt(coordinator.group(2)),
                "coordinator in kafka-consumer-groups --state" + state.describe());
        System.out.println("CLI tools: console producer " + producedSummary + "; console consumer " + consumedSummary);
    }

    /** Parses the console consumer's {@code Partition:P<TAB>Offset:O<TAB>KEY<TAB>VALUE} lines. */
    private static List<Arrived> parseConsoleConsumer(ExternalProcess.Result result) {
        List<Arrived> arrived = new ArrayList<>();
        for (String line : result.stdout().split("\n")) {
            if (!line.startsWith("Partition:")) {
                continue;
            }
            String[] f = line.split("\t", -1);
            if (f.length != 4 || !f[1].startsWith("Offset:")) {
                throw new AssertionError("unexpected console consumer line '" + line + "'" + result.describe());
            }
            arrived.add(new Arrived("console-consumer", Integer.parseInt(f[0].substring("Partition:".length())),
                    Long.parseLong(f[1].substring("Offset:".length())), f[2],
                    f[3].getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        }
        return arrived;
    }
}
