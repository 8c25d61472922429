package dev.weft.testkit;

import kafka.server.StandardFaultHandlerFactory;
import org.apache.kafka.server.ServerSocketFactory;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Collectors;

/**
 * Runs Kafka outside the JVM that wants it. Two modes:
 *
 * <h2>{@code node <server.properties>}</h2>
 * One KRaft node; this is what {@link KafkaCluster} in forked mode launches for each node (see
 * {@link ForkedNode}). On stdout: {@code WEFT-READY node=<id> pid=<pid> listeners=<listeners>} once the
 * node serves requests and {@code WEFT-STOPPED node=<id>} right before a clean exit; every other line
 * is log output. On stdin: {@code stop <ms>} (controlled shutdown, waiting up to that long for the
 * controller) or {@code shutdown}; end of input acts as {@code shutdown}, so the node follows a parent
 * that died. Fatal faults halt the process, as in a real broker; SIGTERM runs a plain shutdown.
 *
 * <h2>{@code cluster [options]}</h2>
 * A whole cluster for scripts and other languages' test suites:
 * <pre>{@code java -cp <class path> dev.weft.testkit.ForkedClusterMain cluster --brokers 3 --racks a,b,c}</pre>
 * Options: {@code --brokers N}, {@code --dedicated-controllers N}, {@code --racks r0,r1,...} (broker
 * {@code id} gets {@code racks[id % n]}), {@code --property key=value} (repeatable), {@code --forked}
 * (each node in a JVM of its own, so {@code kill} is a SIGKILL), {@code --heap 512m}.
 * Once started it prints
 * {@code WEFT-READY cluster=<id> bootstrap=<host:port,...> brokers=<id>@<host:port>,... controllers=<id>,...}
 * and obeys one command per line: {@code kill <id>}, {@code stop <id>}, {@code restart <id>},
 * {@code add}, {@code remove <id>}, {@code describe}, {@code shutdown}. Each command is answered with
 * {@code WEFT-OK <command> ...} or {@code WEFT-ERROR <command>: <reason>}; {@code shutdown} (or end of
 * input) closes the cluster and prints {@code WEFT-STOPPED cluster=<id>}.
 */
public final class ForkedClusterMain {

    private static final String USAGE = "usage: ForkedClusterMain node <server.properties>\n"
        + "       ForkedClusterMain cluster [--brokers N] [--dedicated-controllers N] [--racks r0,r1,...]"
        + " [--property key=value]... [--forked] [--heap 512m]";

    private ForkedClusterMain() {
    }

    public static void main(String[] args) throws IOException {
        BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        if (args.length == 2 && args[0].equals("node")) {
            runNode(Path.of(args[1]), stdin);
        } else if (args.length >= 1 && args[0].equals("cluster")) {
            System.exit(runCluster(Arrays.copyOfRange(args, 1, args.length), stdin, System.out));
        } else {
            System.err.println(USAGE);
            System.exit(2);
        }
    }

    private static void runNode(Path propertiesFile, BufferedReader commands) throws IOException {
        Map<String, String> serverProperties = load(propertiesFile);
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

    /**
     * The {@code cluster} mode, on the given streams; returns the process exit code.
     */
    static int runCluster(String[] options, BufferedReader commands, PrintStream out) throws IOException {
        KafkaCluster.Builder builder;
        try {
            builder = parse(options);
        } catch (IllegalArgumentException e) {
            out.println("WEFT-ERROR " + e.getMessage() + "\n" + USAGE);
            out.flush();
            return 2;
        }
        String clusterId;
        try (KafkaCluster cluster = builder.build().start()) {
            clusterId = cluster.clusterId();
            out.println(ForkedNode.READY + " " + describe(cluster));
            out.flush();
            String line;
            while ((line = commands.readLine()) != null) {
                String[] words = line.trim().split("\\s+");
                if (words[0].equals("shutdown")) {
                    break;
                }
                if (!words[0].isEmpty()) {
                    out.println(execute(cluster, words));
                    out.flush();
                }
            }
        }
        out.println(ForkedNode.STOPPED + " cluster=" + clusterId);
        out.flush();
        return 0;
    }

    private static String execute(KafkaCluster cluster, String[] words) {
        String command = words[0];
        try {
            return switch (command) {
                case "kill" -> {
                    cluster.killBroker(nodeId(words));
                    yield "WEFT-OK kill " + words[1];
                }
                case "stop" -> {
                    cluster.stopBroker(nodeId(words));
                    yield "WEFT-OK stop " + words[1];
                }
                case "restart" -> {
                    int id = nodeId(words);
                    cluster.restartBroker(id);
                    yield "WEFT-OK restart " + id + (cluster.brokerIds().contains(id) ? " " + cluster.brokerAddress(id) : "");
                }
                case "add" -> {
                    int id = cluster.addBroker();
                    yield "WEFT-OK add " + id + " " + cluster.brokerAddress(id);
                }
                case "remove" -> {
                    cluster.removeBroker(nodeId(words));
                    yield "WEFT-OK remove " + words[1];
                }
                case "describe" -> "WEFT-OK describe " + describe(cluster);
                default -> "WEFT-ERROR " + command + ": unknown command";
            };
        } catch (RuntimeException e) {
            return "WEFT-ERROR " + command + ": " + e.getMessage();
        }
    }

    private static int nodeId(String[] words) {
        if (words.length != 2) {
            throw new IllegalArgumentException("expected one node id");
        }
        return Integer.parseInt(words[1]);
    }

    private static String describe(KafkaCluster cluster) {
        return "cluster=" + cluster.clusterId()
            + " bootstrap=" + cluster.bootstrapServers()
            + " brokers=" + cluster.brokerIds().stream()
                .map(id -> id + "@" + cluster.brokerAddress(id))
                .collect(Collectors.joining(","))
            + " controllers=" + cluster.controllerIds().stream().map(String::valueOf).collect(Collectors.joining(","));
    }

    static KafkaCluster.Builder parse(String[] options) {
        KafkaCluster.Builder builder = KafkaCluster.builder();
        for (int i = 0; i < options.length; i++) {
            String option = options[i];
            if (option.equals("--forked")) {
                builder.forked(true);
                continue;
            }
            if (i + 1 >= options.length) {
                throw new IllegalArgumentException("option " + option + " needs a value");
            }
            String value = options[++i];
            switch (option) {
                case "--brokers" -> builder.brokers(Integer.parseInt(value));
                case "--dedicated-controllers" -> builder.dedicatedControllers(Integer.parseInt(value));
                case "--racks" -> {
                    String[] racks = value.split(",");
                    builder.rack(id -> racks[Math.floorMod(id, racks.length)]);
                }
                case "--property" -> {
                    int equals = value.indexOf('=');
                    if (equals <= 0) {
                        throw new IllegalArgumentException("--property needs key=value, got " + value);
                    }
                    builder.brokerProperty(value.substring(0, equals), value.substring(equals + 1));
                }
                case "--heap" -> builder.heap(value);
                default -> throw new IllegalArgumentException("unknown option " + option);
            }
        }
        return builder;
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
