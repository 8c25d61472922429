package dev.weft.proxy.cli;

import dev.weft.proxy.config.ConfigException;
import dev.weft.proxy.config.ConfigLoader;
import dev.weft.proxy.config.StartupException;
import dev.weft.proxy.config.WeftConfig;
import dev.weft.proxy.server.UnsupportedConfigurationException;
import dev.weft.proxy.server.WeftProxy;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

/**
 * The {@code weft} command line:
 * <pre>
 *   weft run --config FILE [--watch]   run the proxy (--watch: reload when FILE changes)
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
    public static int run(String[] args, PrintStream out, PrintStream err) {
        String command = args.length == 0 ? "help" : args[0];
        try {
            return switch (command) {
                case "run" -> runProxy(configArg(args, 1), java.util.Arrays.asList(args).contains("--watch"), out);
                case "validate" -> validate(args.length > 1 ? args[1] : null, out, err);
                case "demo" -> demo(out);
                case "switch" -> SwitchCommand.run(args, out, err);
                case "credentials" -> CredentialsCommand.run(args, out, err);
                case "help", "--help", "-h" -> usage(out, 0);
                default -> {
                    err.println("weft: unknown command '" + command + "'");
                    yield usage(err, 2);
                }
            };
        } catch (ConfigException | UnsupportedConfigurationException | StartupException e) {
            err.println(e.getMessage());
            return 2;
        } catch (UsageException e) {
            err.println("weft: " + e.getMessage());
            return usage(err, 2);
        }
    }

    private static int usage(PrintStream out, int code) {
        out.println("usage: weft run --config FILE [--watch] | weft validate FILE | weft demo | " + SwitchCommand.USAGE
                + " | " + CredentialsCommand.USAGE);
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

    /** How often {@code --watch} looks at the config file (a change is applied one to two looks later). */
    static final java.time.Duration WATCH_EVERY = java.time.Duration.ofSeconds(2);

    private static int runProxy(String file, boolean watch, PrintStream out) throws ConfigException {
        WeftConfig config = ConfigLoader.load(Path.of(file));
        WeftProxy proxy = WeftProxy.start(config);
        for (String vc : config.virtualClusters().keySet()) {
            out.println("weft: virtual cluster '" + vc + "' at " + String.join(", ", proxy.bootstrapAddresses(vc))
                    + " (transport " + proxy.transport() + ")");
        }
        proxy.adminAddress().ifPresent(a -> out.println("weft: admin endpoint http://" + a.getHostString() + ":" + a.getPort()
                + "/ (metrics, livez, readyz)"));
        reloadOnHangup(proxy);
        if (watch) {
            dev.weft.proxy.reload.ConfigFileWatch.start(Path.of(file), WATCH_EVERY, proxy::reload);
        }
        out.println("weft: to apply a changed " + file + ": " + (watch ? "save it (--watch), or " : "") + "kill -HUP "
                + ProcessHandle.current().pid() + (proxy.adminAddress().isPresent() ? " or POST /reload on the admin endpoint" : ""));
        awaitShutdown(proxy);
        return 0;
    }

    private static int demo(PrintStream out) throws ConfigException {
        KafkaLogFile kafkaLog = KafkaLogFile.divert();
        out.println("weft demo: the embedded brokers' own log goes to " + kafkaLog.path()
                + " (Kafka's internals, e.g. slow-controller warnings on a busy machine; Weft's own lines stay here)");
        awaitShutdown(Demo.start(out));
        return 0;
    }

    /**
     * SIGHUP reads the config file again and applies what changed (the outcome is logged). The JDK's
     * signal API is the only way to take a signal without native code; a JVM without it (not HotSpot)
     * reloads through the admin endpoint only.
     */
    @SuppressWarnings("removal")
    static void reloadOnHangup(WeftProxy proxy) {
        try {
            sun.misc.Signal.handle(new sun.misc.Signal("HUP"),
                    signal -> Thread.ofVirtual().name("weft-reload-sighup").start(proxy::reload));
        } catch (IllegalArgumentException | UnsupportedOperationException e) {
            org.slf4j.LoggerFactory.getLogger(WeftMain.class).warn("SIGHUP cannot be handled here ({}); reload with POST /reload", e.toString());
        }
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
