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
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

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
    /** {@code topology: collapsed}: one proxy node (id 0) at the gateway's bind address, no broker ports. */
    private final boolean collapsed;
    private int bootstrapPort;
    private int adminPort;
    private boolean everReady;
    private final List<String> jvmArgs;
    private final boolean quiet;
    private volatile Process process;
    private final java.util.ArrayDeque<String> recent = new java.util.ArrayDeque<>();
    private final List<String> problems = new ArrayList<>();
    private long warnLines;
    private long errorLines;

    public WeftProcess(String upstreamBootstrap, int maxNodeId, Path dir, List<String> jvmArgs, boolean quiet) {
        this(upstreamBootstrap, """
                clusters:
                  upstream:
                    bootstrap: "%s"
                """.formatted(upstreamBootstrap), "{ cluster: upstream }", maxNodeId, false, dir, jvmArgs, quiet);
    }

    private WeftProcess(String upstreamBootstrap, String upstreamYaml, String virtualTarget, int maxNodeId, boolean collapsed,
                        Path dir, List<String> jvmArgs, boolean quiet) {
        this.dir = dir;
        this.jvmArgs = List.copyOf(jvmArgs);
        this.quiet = quiet;
        this.upstreamBootstrap = upstreamBootstrap;
        this.upstreamYaml = upstreamYaml;
        this.virtualTarget = virtualTarget;
        this.maxNodeId = maxNodeId;
        this.collapsed = collapsed;
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
                brokersPerCluster * names.size() - 1, false, dir, jvmArgs, quiet);
    }

    /**
     * Weft serving the cluster at {@code upstreamBootstrap} with {@code topology: collapsed} (DESIGN §4):
     * one proxy node, id 0, whose address is the one gateway's bind address. Clients see that node as the
     * only broker (leader of every partition); the proxy splits each Produce/Fetch by the partitions'
     * real leaders, which its admin endpoint counts ({@code weft_upstream_requests_total} per broker).
     */
    public static WeftProcess collapsed(String upstreamBootstrap, Path dir, List<String> jvmArgs, boolean quiet) {
        return new WeftProcess(upstreamBootstrap, """
                clusters:
                  upstream:
                    bootstrap: "%s"
                """.formatted(upstreamBootstrap), "{ cluster: upstream }", 0, true, dir, jvmArgs, quiet);
    }

    /** Free ports for the gateway (bootstrap + one per node id) and the admin endpoint; writes the config. */
    private void choosePorts() {
        this.bootstrapPort = FreePorts.randomRange(collapsed ? 1 : maxNodeId + 2);
        this.adminPort = FreePorts.randomRange(1);
        String yaml = collapsed ? """
                admin: { bind: "127.0.0.1:%d" }
                %svirtualClusters:
                  main:
                    target: %s
                    topology: collapsed
                    nodes: [ { id: 0, address: "127.0.0.1:%d" } ]
                    gateways: [ { name: n0, bind: "127.0.0.1:%d" } ]
                """.formatted(adminPort, upstreamYaml, virtualTarget, bootstrapPort, bootstrapPort) : """
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

    /** The admin endpoint's port ({@code /metrics}, {@code /readyz}). */
    public int adminPort() {
        return adminPort;
    }

    /** One Prometheus sample: its labels and value. */
    public record Sample(Map<String, String> labels, double value) {
    }

    private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)\\})?\\s+(\\S+)(?:\\s+\\S+)?$");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

    /**
     * One scrape of {@code /metrics} (Prometheus text): the samples named exactly {@code name}.
     *
     * @throws IOException when the endpoint does not answer 200
     */
    public List<Sample> metrics(String name) throws IOException, InterruptedException {
        String body;
        try (HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build()) {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + "/metrics"))
                    .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) {
                throw new IOException("/metrics answered " + r.statusCode());
            }
            body = r.body();
        }
        List<Sample> out = new ArrayList<>();
        for (String line : body.split("\n")) {
            Matcher m = SAMPLE.matcher(line.trim());
            if (line.startsWith("#") || !m.matches() || !m.group(1).equals(name)) {
                continue;
            }
            Map<String, String> labels = new TreeMap<>();
            if (m.group(2) != null) {
                Matcher l = LABEL.matcher(m.group(2));
                while (l.find()) {
                    labels.put(l.group(1), l.group(2));
                }
            }
            try {
                out.add(new Sample(Map.copyOf(labels), Double.parseDouble(m.group(3))));
            } catch (NumberFormatException e) {
                // not a number: skipped
            }
        }
        return out;
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
        boolean warn = line.contains(" WARN ");
        boolean error = line.contains("ERROR");
        if (warn || error) {
            synchronized (problems) {
                if (warn) {
                    warnLines++;
                } else {
                    errorLines++;
                }
                if (problems.size() < 50) {
                    problems.add(line);
                }
            }
        }
        if (!quiet || error || line.startsWith("weft:")) {
            System.err.println("[weft " + pid() + "] " + line);
        }
    }

    /**
     * WARN and ERROR lines the proxy logged since it was started (all incarnations): the counts and the
     * first 50 lines, for a report to show what went wrong under load.
     */
    public Map<String, Object> problems() {
        synchronized (problems) {
            Map<String, Object> m = new java.util.LinkedHashMap<>();
            m.put("warnLines", warnLines);
            m.put("errorLines", errorLines);
            m.put("firstLines", List.copyOf(problems));
            return m;
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
