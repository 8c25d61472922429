package dev.weft.soak.common;

import dev.weft.proxy.net.FreePorts;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Weft in a process of its own: {@code java -cp <this JVM's class path> dev.weft.proxy.cli.WeftMain run
 * --config <generated yaml>}, with leak detection off as the {@code ./weft} launcher runs it. One
 * port-per-broker gateway on 127.0.0.1 in front of {@code upstreamBootstrap}; the admin endpoint on a
 * free port is polled ({@code /readyz}) until the proxy knows the brokers.
 */
public final class WeftProcess implements AutoCloseable {

    private final Path dir;
    private final Path config;
    private final String upstreamBootstrap;
    /** The {@code clusters:}/{@code routers:} part and the virtual cluster's target; see {@link #woven}. */
    private final String upstreamYaml;
    private final String virtualTarget;
    private final int maxNodeId;
    private int bootstrapPort;
    private int adminPort;
    private boolean everReady;
    private final List<String> jvmArgs;
    private final boolean quiet;
    private volatile Process process;
    private final java.util.ArrayDeque<String> recent = new java.util.ArrayDeque<>();

    public WeftProcess(String upstreamBootstrap, int maxNodeId, Path dir, List<String> jvmArgs, boolean quiet) {
        this(upstreamBootstrap, """
                clusters:
                  upstream:
                    bootstrap: "%s"
                """.formatted(upstreamBootstrap), "{ cluster: upstream }", maxNodeId, dir, jvmArgs, quiet);
    }

    private WeftProcess(String upstreamBootstrap, String upstreamYaml, String virtualTarget, int maxNodeId, Path dir,
                        List<String> jvmArgs, boolean quiet) {
        this.dir = dir;
        this.jvmArgs = List.copyOf(jvmArgs);
        this.quiet = quiet;
        this.upstreamBootstrap = upstreamBootstrap;
        this.upstreamYaml = upstreamYaml;
        this.virtualTarget = virtualTarget;
        this.maxNodeId = maxNodeId;
        this.config = dir.resolve("weft.yaml");
        choosePorts();
    }

    /**
     * Weft serving one <em>woven</em> virtual cluster: a {@code topic-weave} router over the clusters
     * {@code bootstraps} (route {@code names[k]} to cluster {@code k}, first route first), every route's
     * topics shown under the prefix {@code prefixes[k]} (so every Produce and Fetch is renamed), the
     * producer-id home and default placement on the first route. Broker {@code b} of route {@code k} is
     * virtual node {@code b × N + k}: {@code brokersPerCluster × N - 1} is the highest node id.
     */
    public static WeftProcess woven(List<String> names, List<String> bootstraps, List<String> prefixes, int brokersPerCluster,
                                    Path dir, List<String> jvmArgs, boolean quiet) {
        StringBuilder yaml = new StringBuilder("clusters:\n");
        for (int k = 0; k < names.size(); k++) {
            yaml.append("  ").append(names.get(k)).append(": { bootstrap: \"").append(bootstraps.get(k)).append("\" }\n");
        }
        yaml.append("routers:\n  weave:\n    type: topic-weave\n    routes:\n");
        for (int k = 0; k < names.size(); k++) {
            yaml.append("      - name: ").append(names.get(k)).append("\n")
                    .append("        target: { cluster: ").append(names.get(k)).append(" }\n")
                    .append("        naming: { prefix: \"").append(prefixes.get(k)).append("\" }\n");
        }
        return new WeftProcess(bootstraps.get(0), yaml.toString(), "{ router: weave }",
                brokersPerCluster * names.size() - 1, dir, jvmArgs, quiet);
    }

    /** Free ports for the gateway (bootstrap + one per node id) and the admin endpoint; writes the config. */
    private void choosePorts() {
        this.bootstrapPort = FreePorts.randomRange(maxNodeId + 2);
        this.adminPort = FreePorts.randomRange(1);
        String yaml = """
                admin: { bind: "127.0.0.1:%d" }
                %svirtualClusters:
                  main:
                    target: %s
                    gateways:
                      - name: plain
                        bind: "127.0.0.1:%d"
                        nodes: port-per-broker
                        brokerPorts:
                          start: %d
                          nodeIds: "0-%d"
                """.formatted(adminPort, upstreamYaml, virtualTarget, bootstrapPort, bootstrapPort + 1, maxNodeId);
        try {
            Files.createDirectories(dir);
            Files.writeString(config, yaml);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public String bootstrap() {
        return "127.0.0.1:" + bootstrapPort;
    }

    public Path configFile() {
        return config;
    }

    public long pid() {
        Process p = process;
        return p == null ? -1 : p.pid();
    }

    /**
     * Starts the proxy and returns once {@code /readyz} answers 200. Until it was ready once, a proxy
     * that exits at start (another process took a port between the check and the bind) is retried on
     * new ports, up to three times; restarts afterwards keep the ports clients know.
     */
    public synchronized WeftProcess start() throws InterruptedException {
        for (int attempt = 1; ; attempt++) {
            try {
                startOnce();
                everReady = true;
                return this;
            } catch (IllegalStateException e) {
                if (everReady || attempt >= 3 || process.isAlive()) {
                    throw e;
                }
                System.err.println("weft: start failed, retrying on other ports: " + e.getMessage());
                choosePorts();
            }
        }
    }

    private void startOnce() throws InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Procs.javaCommand());
        cmd.add("--enable-native-access=ALL-UNNAMED");
        cmd.add("-Dio.netty.leakDetection.level=disabled");
        cmd.add("--sun-misc-unsafe-memory-access=allow"); // as ./weft runs it: Netty uses Unsafe on JDK 25
        cmd.addAll(jvmArgs);
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add("dev.weft.proxy.cli.WeftMain");
        cmd.add("run");
        cmd.add("--config");
        cmd.add(config.toString());
        try {
            Process p = new ProcessBuilder(cmd).directory(dir.toFile()).start();
            process = p;
            p.getOutputStream().close();
            Procs.pump(p.getInputStream(), "weft-out", line -> log(line));
            Procs.pump(p.getErrorStream(), "weft-err", line -> log(line));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start Weft: " + e.getMessage(), e);
        }
        awaitReady(Duration.ofSeconds(60));
    }

    private void log(String line) {
        synchronized (recent) {
            recent.addLast(line);
            if (recent.size() > 40) {
                recent.removeFirst();
            }
        }
        if (!quiet || line.contains("ERROR") || line.startsWith("weft:")) {
            System.err.println("[weft " + pid() + "] " + line);
        }
    }

    private void awaitReady(Duration timeout) throws InterruptedException {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
        HttpRequest req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + "/readyz"))
                .timeout(Duration.ofSeconds(2)).build();
        long deadline = System.nanoTime() + timeout.toNanos();
        String last = "no answer";
        while (System.nanoTime() < deadline) {
            Process p = process;
            if (!p.isAlive()) {
                String tail;
                synchronized (recent) {
                    tail = String.join("\n  ", recent);
                }
                throw new IllegalStateException("Weft exited with " + p.exitValue() + " before it was ready (config " + config
                        + "); its last output:\n  " + tail);
            }
            try {
                HttpResponse<String> r = http.send(req, HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200) {
                    return;
                }
                last = r.statusCode() + " " + r.body().trim();
            } catch (IOException e) {
                last = e.toString();
            }
            TimeUnit.MILLISECONDS.sleep(100); // polling the readiness endpoint
        }
        throw new IllegalStateException("Weft not ready after " + timeout + ": " + last);
    }

    /** SIGKILL: every client and upstream connection of the proxy drops at once. */
    public synchronized void kill() throws InterruptedException {
        Process p = process;
        if (p != null) {
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
        }
    }

    /** SIGKILL and start again on the same ports (the fault "proxy upstream connections dropped"). */
    public synchronized void killAndRestart() throws InterruptedException {
        kill();
        start();
    }

    @Override
    public synchronized void close() {
        Procs.stop(process, Duration.ofSeconds(10));
    }
}
