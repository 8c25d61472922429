package dev.weft.proxy.cli;

import dev.weft.proxy.config.ConfigException;
import dev.weft.proxy.config.ConfigLoader;
import dev.weft.proxy.config.WeftConfig;
import dev.weft.proxy.net.FreePorts;
import dev.weft.proxy.server.UnsupportedConfigurationException;
import dev.weft.proxy.server.WeftProxy;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;

/**
 * The {@code weft} command line:
 * <pre>
 *   weft run --config FILE     run the proxy
 *   weft validate FILE         check a config file and exit (0 = valid, 2 = not)
 *   weft demo                  start real local Kafka behind the proxy and print what to try
 * </pre>
 */
public final class WeftMain {

    private WeftMain() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs a command; returns the process exit code. Blocks for {@code run} and {@code demo}. */
    static int run(String[] args, PrintStream out, PrintStream err) {
        String command = args.length == 0 ? "help" : args[0];
        try {
            return switch (command) {
                case "run" -> runProxy(configArg(args, 1), out);
                case "validate" -> validate(args.length > 1 ? args[1] : null, out, err);
                case "demo" -> demo(out);
                case "help", "--help", "-h" -> usage(out, 0);
                default -> {
                    err.println("weft: unknown command '" + command + "'");
                    yield usage(err, 2);
                }
            };
        } catch (ConfigException | UnsupportedConfigurationException | dev.weft.proxy.session.VirtualClusterStartException e) {
            err.println(e.getMessage());
            return 2;
        } catch (UsageException e) {
            err.println("weft: " + e.getMessage());
            return usage(err, 2);
        }
    }

    private static int usage(PrintStream out, int code) {
        out.println("usage: weft run --config FILE | weft validate FILE | weft demo");
        return code;
    }

    private static String configArg(String[] args, int from) {
        for (int i = from; i < args.length; i++) {
            if (args[i].equals("--config") || args[i].equals("-c")) {
                if (i + 1 < args.length) {
                    return args[i + 1];
                }
            } else if (args[i].startsWith("--config=")) {
                return args[i].substring("--config=".length());
            }
        }
        throw new UsageException("run needs --config FILE");
    }

    private static int validate(String file, PrintStream out, PrintStream err) throws ConfigException {
        if (file == null) {
            throw new UsageException("validate needs a FILE");
        }
        WeftConfig config = ConfigLoader.load(Path.of(file));
        out.println(file + ": valid (" + config.clusters().size() + " cluster(s), "
                + config.virtualClusters().size() + " virtual cluster(s))");
        return 0;
    }

    private static int runProxy(String file, PrintStream out) throws ConfigException {
        WeftConfig config = ConfigLoader.load(Path.of(file));
        WeftProxy proxy = WeftProxy.start(config);
        for (String vc : config.virtualClusters().keySet()) {
            out.println("weft: virtual cluster '" + vc + "' at " + String.join(", ", proxy.bootstrapAddresses(vc))
                    + " (transport " + proxy.transport() + ")");
        }
        proxy.adminAddress().ifPresent(a -> out.println("weft: admin endpoint http://" + a.getHostString() + ":" + a.getPort()
                + "/ (metrics, livez, readyz)"));
        awaitShutdown(proxy);
        return 0;
    }

    private static int demo(PrintStream out) throws ConfigException {
        int port = FreePorts.rangeFrom(9192, 14); // bootstrap + 3 brokers, admin, woven bootstrap + 8 node ports
        String yaml = """
                admin: { bind: "127.0.0.1:%d" }
                clusters:
                  demo:
                    embedded: { brokers: 3 }
                  west:
                    embedded: { brokers: 1 }
                routers:
                  weave:
                    type: topic-weave
                    routes:
                      - { name: demo, target: { cluster: demo } }
                      - { name: west, target: { cluster: west }, naming: { prefix: "w." } }
                    placement: { rules: [ { prefix: "w.", route: west } ] }
                virtualClusters:
                  demo:
                    target: { cluster: demo }
                    gateways:
                      - name: plain
                        bind: "127.0.0.1:%d"
                        advertisedHost: 127.0.0.1
                        brokerPorts: { start: %d, nodeIds: "0-2" }
                  woven:
                    target: { router: weave }
                    gateways:
                      - name: plain
                        bind: "127.0.0.1:%d"
                        advertisedHost: 127.0.0.1
                        brokerPorts: { start: %d, nodeIds: "0-7" }
                """.formatted(port + 4, port, port + 1, port + 5, port + 6);
        WeftConfig config = ConfigLoader.parse(yaml, "weft demo (built-in config)");
        out.println("weft demo: starting two real Kafka clusters (3 brokers and 1 broker, KRaft, in-process) and Weft in front ...");
        WeftProxy proxy = WeftProxy.start(config);
        String bootstrap = proxy.bootstrapAddresses("demo").get(0);
        String woven = proxy.bootstrapAddresses("woven").get(0);
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, woven))) {
            // created through the woven cluster: the placement rule puts w.* on west (as "payments")
            admin.createTopics(List.of(new NewTopic("orders", 3, (short) 1), new NewTopic("w.payments", 1, (short) 1)))
                    .all().get(60, TimeUnit.SECONDS);
        } catch (Exception e) {
            out.println("weft demo: could not create the demo topics through the woven cluster: " + e.getMessage());
        }
        out.println();
        out.println("  Kafka (direct):   demo " + proxy.embeddedClusters().get(0).bootstrapServers()
                + ", west " + proxy.embeddedClusters().get(1).bootstrapServers());
        out.println("  Weft bootstrap:   " + bootstrap + "   virtual cluster 'demo' over cluster demo (transport " + proxy.transport() + ")");
        out.println("  Woven bootstrap:  " + woven + "   virtual cluster 'woven': topics of demo and west (west's as w.*)");
        proxy.adminAddress().ifPresent(a -> out.println("  Metrics:          http://" + a.getHostString() + ":" + a.getPort() + "/metrics"));
        out.println();
        out.println("  Try it (in another terminal):");
        out.println("    kcat -b " + bootstrap + " -L");
        out.println("    echo 'hello weft' | kcat -b " + bootstrap + " -t demo -P");
        out.println("    kcat -b " + bootstrap + " -t demo -C -e");
        out.println("  Topic weaving: one cluster view over both clusters");
        out.println("    kcat -b " + woven + " -L                      # orders (demo) and w.payments (west)");
        out.println("    echo 'paid' | kcat -b " + woven + " -t w.payments -P");
        out.println("    kcat -b " + proxy.embeddedClusters().get(1).bootstrapServers() + " -t payments -C -e   # landed on west as 'payments'");
        out.println("  or with the Kafka CLI tools:");
        out.println("    kafka-console-producer.sh --bootstrap-server " + bootstrap + " --topic demo");
        out.println("    kafka-console-consumer.sh --bootstrap-server " + woven + " --include 'orders|w\\..*' --from-beginning");
        out.println();
        out.println("  Ctrl-C stops Weft and the Kafka clusters and removes their files.");
        awaitShutdown(proxy);
        return 0;
    }

    /** Blocks until the JVM is asked to stop (Ctrl-C, SIGTERM), then closes the proxy. */
    private static void awaitShutdown(WeftProxy proxy) {
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            proxy.close();
            stopped.countDown();
        }, "weft-shutdown"));
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static final class UsageException extends RuntimeException {
        UsageException(String message) {
            super(message);
        }
    }
}
