package dev.weft.testkit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Node;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The {@code cluster} mode of {@link ForkedClusterMain}, driven in-process through its streams. */
class ForkedClusterMainTest {

    @Test
    void clusterModeStartsAndObeysCommands() throws Exception {
        // The commands are all read up front, so the test checks the cluster state from "describe" lines.
        String commands = String.join("\n", "describe", "add", "describe", "remove 1", "remove 0", "bogus", "shutdown", "");
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int exit = ForkedClusterMain.runCluster(new String[] {"--brokers", "1", "--racks", "zone-x",
                "--property", "auto.create.topics.enable=false"},
            new BufferedReader(new StringReader(commands)), new PrintStream(bytes, true, StandardCharsets.UTF_8));
        assertEquals(0, exit);
        List<String> lines = bytes.toString(StandardCharsets.UTF_8).lines().toList();

        assertEquals(8, lines.size(), () -> "output: " + lines);
        Map<String, String> ready = fields(lines.get(0));
        assertTrue(lines.get(0).startsWith("WEFT-READY "), lines.get(0));
        assertEquals("0@" + ready.get("bootstrap"), ready.get("brokers"));
        assertEquals("0", ready.get("controllers"));
        assertTrue(lines.get(1).startsWith("WEFT-OK describe cluster=" + ready.get("cluster")), lines.get(1));
        assertTrue(lines.get(2).startsWith("WEFT-OK add 1 127.0.0.1:"), lines.get(2));
        assertEquals(Set.of("0", "1"), brokerIds(fields(lines.get(3)).get("brokers")));
        assertEquals("WEFT-OK remove 1", lines.get(4));
        assertTrue(lines.get(5).startsWith("WEFT-ERROR remove: node 0 is a controller"), lines.get(5));
        assertEquals("WEFT-ERROR bogus: unknown command", lines.get(6));
        assertEquals("WEFT-STOPPED cluster=" + ready.get("cluster"), lines.get(7));
    }

    @Test
    void readyLineCarriesAWorkingBootstrapAndRacks() throws Exception {
        // A command source that answers "describe" only after the test talked to the cluster.
        java.io.PipedWriter commandWriter = new java.io.PipedWriter();
        BufferedReader commandReader = new BufferedReader(new java.io.PipedReader(commandWriter));
        java.io.PipedOutputStream outputPipe = new java.io.PipedOutputStream();
        BufferedReader output = new BufferedReader(new java.io.InputStreamReader(
            new java.io.PipedInputStream(outputPipe, 1 << 16), StandardCharsets.UTF_8));
        Thread main = Thread.ofPlatform().name("cluster-main").start(() -> {
            try {
                ForkedClusterMain.runCluster(new String[] {"--brokers", "1", "--racks", "zone-x"}, commandReader,
                    new PrintStream(outputPipe, true, StandardCharsets.UTF_8));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        try {
            Map<String, String> ready = fields(output.readLine());
            try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, ready.get("bootstrap")))) {
                assertEquals(ready.get("cluster"), admin.describeCluster().clusterId().get(30, TimeUnit.SECONDS));
                Node node = admin.describeCluster().nodes().get(30, TimeUnit.SECONDS).iterator().next();
                assertEquals("zone-x", node.rack());
            }
        } finally {
            commandWriter.write("shutdown\n");
            commandWriter.close();
            main.join(TimeUnit.SECONDS.toMillis(60));
        }
        assertTrue(output.readLine().startsWith("WEFT-STOPPED"));
    }

    @Test
    void rejectsUnknownOptions() {
        assertThrows(IllegalArgumentException.class, () -> ForkedClusterMain.parse(new String[] {"--nope", "1"}));
        assertThrows(IllegalArgumentException.class, () -> ForkedClusterMain.parse(new String[] {"--brokers"}));
    }

    private static Map<String, String> fields(String line) {
        return Arrays.stream(line.split(" "))
            .filter(word -> word.contains("="))
            .collect(Collectors.toMap(w -> w.substring(0, w.indexOf('=')), w -> w.substring(w.indexOf('=') + 1)));
    }

    private static Set<String> brokerIds(String brokers) {
        return Arrays.stream(brokers.split(",")).map(b -> b.substring(0, b.indexOf('@'))).collect(Collectors.toSet());
    }
}
