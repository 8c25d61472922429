package dev.weft.testkit;

import kafka.server.StandardFaultHandlerFactory;
import org.apache.kafka.server.ServerSocketFactory;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;

/**
 * Entry point of a forked KRaft node (see {@link ForkedNode}):
 * <pre>{@code java -cp <class path> dev.weft.testkit.ForkedClusterMain node <server.properties>}</pre>
 *
 * <p>Protocol, one line each way:
 * <ul>
 *   <li>stdout: {@code WEFT-READY node=<id> pid=<pid> listeners=<listeners>} once the node serves
 *       requests, {@code WEFT-STOPPED node=<id>} right before a clean exit; every other line is log
 *       output.</li>
 *   <li>stdin: {@code stop <ms>} (controlled shutdown, waiting up to that long for the controller),
 *       {@code shutdown} (plain shutdown); end of input acts as {@code shutdown}.</li>
 * </ul>
 * Fatal faults halt the process, as they do in a real broker. SIGTERM runs a plain shutdown.
 */
public final class ForkedClusterMain {

    private ForkedClusterMain() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 2 || !args[0].equals("node")) {
            System.err.println("usage: ForkedClusterMain node <server.properties>");
            System.exit(2);
        }
        Map<String, String> serverProperties = load(Path.of(args[1]));
        int nodeId = Integer.parseInt(serverProperties.get("node.id"));
        EmbeddedNode node = new EmbeddedNode(nodeId, serverProperties, new StandardFaultHandlerFactory(),
            ServerSocketFactory.INSTANCE);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> node.stop(Duration.ZERO), "weft-testkit-node-stop"));
        try {
            node.start(Duration.ofMillis(Long.parseLong(serverProperties.get("server.max.startup.time.ms"))));
        } catch (RuntimeException | Error e) {
            e.printStackTrace(System.out);
            System.out.flush();
            System.exit(1);
        }
        System.out.println(ForkedNode.READY + " node=" + nodeId + " pid=" + ProcessHandle.current().pid()
            + " listeners=" + serverProperties.get("listeners"));
        System.out.flush();

        BufferedReader commands = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        Duration controlledShutdownTimeout = Duration.ZERO;
        String line;
        while ((line = commands.readLine()) != null) {
            String[] words = line.trim().split("\\s+");
            if (words[0].equals("stop") && words.length == 2) {
                controlledShutdownTimeout = Duration.ofMillis(Long.parseLong(words[1]));
                break;
            } else if (words[0].equals("shutdown")) {
                break;
            } else if (!words[0].isEmpty()) {
                System.out.println("WEFT-ERROR unknown command: " + line);
                System.out.flush();
            }
        }
        node.stop(controlledShutdownTimeout);
        System.out.println(ForkedNode.STOPPED + " node=" + nodeId);
        System.out.flush();
        System.exit(0);
    }

    static Map<String, String> load(Path file) throws IOException {
        Properties properties = new Properties();
        try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            properties.load(in);
        }
        Map<String, String> map = new HashMap<>();
        properties.stringPropertyNames().forEach(name -> map.put(name, properties.getProperty(name)));
        return map;
    }
}
