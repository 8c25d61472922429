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
 * Weft in a process of its own, started as the {@code ./weft} launcher starts it: {@code java <the
 * launcher's JVM options> <extra options> -cp <the tool's jars> dev.weft.proxy.cli.WeftMain run --config
 * <generated yaml>}. The launcher's options come from the resource {@value #JVM_OPTIONS_RESOURCE} (the
 * weft-proxy jar; {@link #launcherJvmOptions}), its class-data archive placeholder replaced by
 * {@link #cdsArchive()}. One port-per-broker gateway on 127.0.0.1 in front of {@code upstreamBootstrap};
 * the admin endpoint on a free port is polled ({@code /readyz}) until the proxy knows the brokers.
 *
 * <p>The class path is the tool's without its directories ({@link #weftClassPath}): the JVM writes a
 * class-data archive only for a class path of JAR files, and Weft needs none of the tool's own classes.
 * The archive is written when Weft exits cleanly, so {@link #close()} sends SIGTERM and waits up to
 * {@link #CLOSE_GRACE} before SIGKILL.
 */
public final class WeftProcess implements AutoCloseable {

    /** The launcher's JVM options, one a line, {@code #} comments (proxy/src/main/resources/dev/weft/proxy/jvm.options). */
    public static final String JVM_OPTIONS_RESOURCE = "dev/weft/proxy/jvm.options";
    /** In {@link #JVM_OPTIONS_RESOURCE}: the path of the class-data archive, set by whoever starts Weft. */
    public static final String CDS_PLACEHOLDER = "${WEFT_CDS_ARCHIVE}";
    /** SIGTERM, then SIGKILL only after this: Weft writes its class-data archive as it exits (seconds). */
    public static final Duration CLOSE_GRACE = Duration.ofSeconds(60);
    private static final String WEFT_MAIN = "dev.weft.proxy.cli.WeftMain";
    private static final java.util.concurrent.atomic.AtomicBoolean NOTED_NO_CDS = new java.util.concurrent.atomic.AtomicBoolean();

    private final Path dir;
    private final Path config;
    private final String upstreamBootstrap;
    /** The {@code clusters:}/{@code routers:} part and the virtual cluster's target; see {@link #woven}, {@link #partitionWoven}. */
    private final String upstreamYaml;
    private final String virtualTarget;
    private final int maxNodeId;
    /** {@code topology: collapsed}: one proxy node (id 0) at the gateway's bind address, no broker ports. */
    private final boolean collapsed;
    /** The config's {@code server:} section, or empty (Weft's defaults). */
    private final String serverYaml;
    private int bootstrapPort;
    private int adminPort;
    private boolean everReady;
    private final List<String> jvmArgs;
    private final boolean quiet;
    private volatile Process process;
    /** SIGTERM was sent to {@link #process} (once: a second one during the JVM's exit could cut the archive short). */
    private boolean terminating;
    private final java.util.ArrayDeque<String> recent = new java.util.ArrayDeque<>();
    private final List<String> problems = new ArrayList<>();
    private long warnLines;
    private long errorLines;

    /**
     * Mirrored Weft in front of {@code upstreamBootstrap}. {@code jvmArgs} are all of Weft's JVM options,
     * normally {@link #launcherJvmOptions}{@code (extra)}: nothing is added to them.
     */
    public WeftProcess(String upstreamBootstrap, int maxNodeId, Path dir, List<String> jvmArgs, boolean quiet) {
        this(upstreamBootstrap, "", maxNodeId, dir, jvmArgs, quiet);
    }

    /**
     * The same with {@code serverYaml} as the config's {@code server:} section (e.g.
     * {@code "server:\n  transport: epoll\n"}; empty for Weft's defaults): a {@code --weft-variant}.
     */
    public WeftProcess(String upstreamBootstrap, String serverYaml, int maxNodeId, Path dir, List<String> jvmArgs, boolean quiet) {
        this(upstreamBootstrap, """
                clusters:
                  upstream:
                    bootstrap: "%s"
                """.formatted(upstreamBootstrap), "{ cluster: upstream }", maxNodeId, false, serverYaml, dir, jvmArgs, quiet);
    }

    private WeftProcess(String upstreamBootstrap, String upstreamYaml, String virtualTarget, int maxNodeId, boolean collapsed,
                        String serverYaml, Path dir, List<String> jvmArgs, boolean quiet) {
        this.dir = dir;
        this.serverYaml = serverYaml;
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
        return overRouter("topic-weave", names, bootstraps,
                k -> "        naming: { prefix: \"" + prefixes.get(k) + "\" }\n", "", brokersPerCluster, dir, jvmArgs, quiet);
    }

    /**
     * One segment of a logical topic of a {@code partition-weave} router: partitions {@code from}-{@code to}
     * of the physical topic {@code topic} on route {@code route} (a single partition when {@code from == to}).
     */
    public record Segment(String route, String topic, int from, int to) {

        public Segment {
            if (from < 0 || to < from) {
                throw new IllegalArgumentException("segment partitions " + from + "-" + to);
            }
        }

        /** Its number of partitions. */
        public int partitions() {
            return to - from + 1;
        }

        /** The segment as the config writes it: {@code { route: a, topic: t, partitions: 3-5 }}. */
        String yaml() {
            return "{ route: " + route + ", topic: \"" + topic + "\", partitions: " + (from == to ? Integer.toString(from) : from + "-" + to) + " }";
        }
    }

    /**
     * Weft serving one <em>partition-woven</em> virtual cluster: a {@code partition-weave} router over the
     * clusters {@code bootstraps} (route {@code names[k]} to cluster {@code k}, first route first: the
     * group and transaction home) whose only visible topics are {@code topics}' logical topics, each its
     * segments concatenated in order (virtual partition numbers; every Produce and Fetch partition is
     * renumbered and renamed to its segment's physical one). The physical topics must exist, with the
     * partitions the segments take, before {@link #start()}: Weft refuses to start otherwise. Node ids as for
     * {@link #woven}.
     */
    public static WeftProcess partitionWoven(List<String> names, List<String> bootstraps, Map<String, List<Segment>> topics,
                                             int brokersPerCluster, Path dir, List<String> jvmArgs, boolean quiet) {
        StringBuilder t = new StringBuilder("    topics:\n");
        topics.forEach((logical, segments) -> {
            t.append("      \"").append(logical).append("\":\n");
            segments.forEach(s -> t.append("        - ").append(s.yaml()).append('\n'));
        });
        return overRouter("partition-weave", names, bootstraps, k -> "", t.toString(), brokersPerCluster, dir, jvmArgs, quiet);
    }

    /**
     * Weft serving one virtual cluster over a {@code type: branch} router (README "Stream branching"): route
     * {@code names[0]} (cluster {@code bootstraps[0]}) is the primary, which clients see as if the router were
     * not there; route {@code names[1]} (cluster {@code bootstraps[1]}) a branch taking copies of what the
     * primary acknowledged, its route keys ({@code naming}, {@code transforms}, ...) {@code branchRouteYaml}
     * (lines indented 8). The branch topics must exist on the branch cluster before {@link #start()}. Node ids
     * up to {@code brokersPerCluster × 2 - 1}, as for {@link #woven}.
     */
    public static WeftProcess branch(List<String> names, List<String> bootstraps, String branchRouteYaml, int brokersPerCluster,
                                     Path dir, List<String> jvmArgs, boolean quiet) {
        if (names.size() != 2 || bootstraps.size() != 2) {
            throw new IllegalArgumentException("a branch router here has a primary and one branch");
        }
        return overRouter("branch", names, bootstraps, k -> k == 0 ? "" : branchRouteYaml, "", brokersPerCluster, dir, jvmArgs, quiet);
    }

    /**
     * Weft whose virtual cluster targets one router ({@code weave}, of {@code type}) over the clusters
     * {@code bootstraps}: route {@code names[k]} to cluster {@code k}, each route's lines followed by
     * {@code routeExtra(k)} (indented 8), the router's own keys after the routes by {@code routerExtra}
     * (indented 4). Broker {@code b} of route {@code k} is virtual node {@code b × N + k}.
     */
    private static WeftProcess overRouter(String type, List<String> names, List<String> bootstraps,
                                          java.util.function.IntFunction<String> routeExtra, String routerExtra,
                                          int brokersPerCluster, Path dir, List<String> jvmArgs, boolean quiet) {
        StringBuilder yaml = new StringBuilder("clusters:\n");
        for (int k = 0; k < names.size(); k++) {
            yaml.append("  ").append(names.get(k)).append(": { bootstrap: \"").append(bootstraps.get(k)).append("\" }\n");
        }
        yaml.append("routers:\n  weave:\n    type: ").append(type).append("\n    routes:\n");
        for (int k = 0; k < names.size(); k++) {
            yaml.append("      - name: ").append(names.get(k)).append("\n")
                    .append("        target: { cluster: ").append(names.get(k)).append(" }\n")
                    .append(routeExtra.apply(k));
        }
        yaml.append(routerExtra);
        return new WeftProcess(bootstraps.get(0), yaml.toString(), "{ router: weave }",
                brokersPerCluster * names.size() - 1, false, "", dir, jvmArgs, quiet);
    }

    /**
     * Weft serving the cluster at {@code upstreamBootstrap} with {@code topology: collapsed} (DESIGN §4):
     * one proxy node, id 0, whose address is the one gateway's bind address. Clients see that node as the
     * only broker (leader of every partition); the proxy splits each Produce/Fetch by the partitions'
     * real leaders, which its admin endpoint counts ({@code weft_upstream_requests_total} per broker).
     */
    public static WeftProcess collapsed(String upstreamBootstrap, Path dir, List<String> jvmArgs, boolean quiet) {
        return collapsed(upstreamBootstrap, "", dir, jvmArgs, quiet);
    }

    /** {@link #collapsed(String, Path, List, boolean)} with {@code serverYaml} as the config's {@code server:} section. */
    public static WeftProcess collapsed(String upstreamBootstrap, String serverYaml, Path dir, List<String> jvmArgs, boolean quiet) {
        return new WeftProcess(upstreamBootstrap, """
                clusters:
                  upstream:
                    bootstrap: "%s"
                """.formatted(upstreamBootstrap), "{ cluster: upstream }", 0, true, serverYaml, dir, jvmArgs, quiet);
    }

    /**
     * What Weft's own config reader says of {@code serverYaml} as a {@code server:} section (problems with
     * their paths, without a file name; empty when it is accepted): a tool's options naming Weft settings
     * fail in one line before anything starts.
     */
    public static List<String> serverSectionProblems(String serverYaml) {
        String source = "weft-settings";
        try {
            dev.weft.proxy.config.ConfigLoader.parse(serverYaml + """
                    clusters:
                      upstream: { bootstrap: "127.0.0.1:9092" }
                    virtualClusters:
                      main:
                        target: { cluster: upstream }
                        gateways: [ { name: plain, bind: "127.0.0.1:9192", nodes: port-per-broker } ]
                    """, source);
            return List.of();
        } catch (dev.weft.proxy.config.ConfigException e) {
            return e.problems().stream().map(p -> p.startsWith(source + ": ") ? p.substring(source.length() + 2) : p).toList();
        }
    }

    /** Free ports for the gateway (bootstrap + one per node id) and the admin endpoint; writes the config. */
    private void choosePorts() {
        this.bootstrapPort = FreePorts.randomRange(collapsed ? 1 : maxNodeId + 2);
        this.adminPort = FreePorts.randomRange(1);
        String yaml = collapsed ? """
                admin: { bind: "127.0.0.1:%d" }
                %s%svirtualClusters:
                  main:
                    target: %s
                    topology: collapsed
                    nodes: [ { id: 0, address: "127.0.0.1:%d" } ]
                    gateways: [ { name: n0, bind: "127.0.0.1:%d" } ]
                """.formatted(adminPort, serverYaml, upstreamYaml, virtualTarget, bootstrapPort, bootstrapPort) : """
                admin: { bind: "127.0.0.1:%d" }
                %s%svirtualClusters:
                  main:
                    target: %s
                    gateways:
                      - name: plain
                        bind: "127.0.0.1:%d"
                        nodes: port-per-broker
                        brokerPorts:
                          start: %d
                          nodeIds: "0-%d"
                """.formatted(adminPort, serverYaml, upstreamYaml, virtualTarget, bootstrapPort, bootstrapPort + 1, maxNodeId);
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
        return scrape().getOrDefault(name, List.of());
    }

    /**
     * One scrape of {@code /metrics} (Prometheus text): every sample, by metric name (one HTTP request for
     * all the counters a caller reads).
     *
     * @throws IOException when the endpoint does not answer 200
     */
    public Map<String, List<Sample>> scrape() throws IOException, InterruptedException {
        String body;
        try (HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build()) {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + "/metrics"))
                    .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) {
                throw new IOException("/metrics answered " + r.statusCode());
            }
            body = r.body();
        }
        Map<String, List<Sample>> out = new java.util.HashMap<>();
        for (String line : body.split("\n")) {
            Matcher m = SAMPLE.matcher(line.trim());
            if (line.startsWith("#") || !m.matches()) {
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
                out.computeIfAbsent(m.group(1), k -> new ArrayList<>()).add(new Sample(Map.copyOf(labels), Double.parseDouble(m.group(3))));
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
        WeftClassPath cp = weftClassPath(System.getProperty("java.class.path"));
        List<String> cmd = new ArrayList<>();
        cmd.add(Procs.javaCommand());
        Path archive = cp.jarsOnly() ? CdsArchive.of(jvmArgs) : null;
        if (cp.jarsOnly()) {
            cmd.addAll(jvmArgs);
            if (archive != null) {
                String did = CdsArchive.prepare(archive, cp.entries());
                if (did != null) {
                    System.err.println("weft: " + did);
                }
            }
        } else {
            // Directories on the class path (a reactor build that stopped before `package`): the JVM would
            // refuse to write the archive, so Weft runs without one.
            cmd.addAll(withoutCds(jvmArgs));
            if (NOTED_NO_CDS.compareAndSet(false, true)) {
                System.err.println("weft: Weft's classes are in a directory, not a jar (" + cp.weftMainFrom()
                        + "): Weft runs without its class-data archive (build with `package` or `verify` for one)");
            }
        }
        cmd.add("-cp");
        cmd.add(String.join(java.io.File.pathSeparator, cp.entries()));
        cmd.add(WEFT_MAIN);
        cmd.add("run");
        cmd.add("--config");
        cmd.add(config.toString());
        terminating = false;
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
        if (archive != null) {
            String did = CdsArchive.afterStart(archive, pid());
            if (did != null) {
                System.err.println("weft: " + did);
            }
        }
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

    /**
     * SIGTERM without waiting: Weft drains, writes its class-data archive (when it has none that fits) and
     * exits. {@link #closeAll} stops several processes at once with it.
     */
    public synchronized void terminate() {
        Process p = process;
        if (p != null && p.isAlive() && !terminating) {
            terminating = true;
            p.destroy();
        }
    }

    /** SIGTERM (unless {@link #terminate} sent it), then SIGKILL only if Weft has not exited {@link #CLOSE_GRACE} later. */
    @Override
    public synchronized void close() {
        Process p = process;
        if (p == null) {
            return;
        }
        terminate();
        try {
            if (!p.waitFor(CLOSE_GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
                System.err.println("weft: " + p.pid() + " still running " + CLOSE_GRACE.toSeconds()
                        + " s after SIGTERM: SIGKILL (no class-data archive written)");
                p.destroyForcibly();
                p.waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    /** Stops every process in parallel: SIGTERM to all, then {@link #close()} each (one grace, not one per process). */
    public static void closeAll(java.util.Collection<WeftProcess> processes) {
        processes.forEach(WeftProcess::terminate);
        processes.forEach(WeftProcess::close);
    }

    // ---- the launcher's JVM options and the class path -------------------------------------------------

    /**
     * The JVM options Weft runs with: those of {@value #JVM_OPTIONS_RESOURCE} (as {@code ./weft} reads
     * them; {@value #CDS_PLACEHOLDER} = {@link #cdsArchive()}), then {@code extra} split on whitespace
     * (null or blank: none), which come later on the command line and so override them ({@code -Xmx2g},
     * {@code -XX:+UseG1GC}, ...).
     */
    public static List<String> launcherJvmOptions(String extra) {
        List<String> out = new ArrayList<>(fileJvmOptions(cdsArchive()));
        out.addAll(splitOptions(extra));
        return List.copyOf(out);
    }

    /** {@code s} split on whitespace; none for null or blank. */
    public static List<String> splitOptions(String s) {
        return s == null || s.isBlank() ? List.of() : List.of(s.trim().split("\\s+"));
    }

    /** The options of {@value #JVM_OPTIONS_RESOURCE} on this JVM's class path, the archive placeholder replaced by {@code archive}. */
    public static List<String> fileJvmOptions(Path archive) {
        try (var in = WeftProcess.class.getClassLoader().getResourceAsStream(JVM_OPTIONS_RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(JVM_OPTIONS_RESOURCE + " is not on the class path (it is in the weft-proxy jar)");
            }
            return parseJvmOptions(new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8), archive);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + JVM_OPTIONS_RESOURCE, e);
        }
    }

    /**
     * The options of a jvm.options text, as {@code ./weft}'s sed and word splitting make them: {@code #} to
     * the end of the line dropped, blank lines dropped, the rest split on whitespace, {@value #CDS_PLACEHOLDER}
     * replaced by {@code archive}.
     */
    static List<String> parseJvmOptions(String text, Path archive) {
        List<String> out = new ArrayList<>();
        for (String line : text.split("\\R")) {
            int hash = line.indexOf('#');
            String opt = (hash >= 0 ? line.substring(0, hash) : line).replace(CDS_PLACEHOLDER, archive.toString());
            out.addAll(splitOptions(opt));
        }
        return out;
    }

    /**
     * The directory the tool's classes were built into ({@code soak-tests/target-soak}, or the
     * {@code -Dweft.targetDir} of the build): the parent of {@code classes/} or of the tool's jar.
     */
    public static Path toolTargetDir() {
        try {
            return Path.of(WeftProcess.class.getProtectionDomain().getCodeSource().getLocation().toURI())
                    .toAbsolutePath().normalize().getParent();
        } catch (java.net.URISyntaxException | RuntimeException e) {
            throw new IllegalStateException("cannot tell where the tool's classes are: " + e, e);
        }
    }

    /**
     * Weft's class-data archive, {@code <the tool's target dir>/weft.jsa} (e.g.
     * {@code soak-tests/target-soak/weft.jsa}): one per build output, shared by every Weft process the tools
     * start from it. Not {@code $WEFT_CDS_ARCHIVE} nor {@code ./weft}'s {@code proxy/target/weft.jsa}: an
     * archive serves one class path and those belong to another, so sharing one would rebuild it on every
     * switch ({@link CdsArchive}: on JDK 25 the JVM does not even do that by itself).
     */
    public static Path cdsArchive() {
        return toolTargetDir().resolve("weft.jsa");
    }

    /** {@code options} without the class-data archive ones ({@code -XX:+AutoCreateSharedArchive}, {@code -XX:SharedArchiveFile=}). */
    static List<String> withoutCds(List<String> options) {
        return options.stream().filter(o -> !o.equals("-XX:+AutoCreateSharedArchive") && !o.startsWith("-XX:SharedArchiveFile=")).toList();
    }

    /**
     * Weft's class path: {@code entries}; {@code jarsOnly} when it has no directory (the JVM can write its
     * class-data archive); {@code weftMainFrom} = where {@code WeftMain} was found.
     */
    record WeftClassPath(List<String> entries, boolean jarsOnly, String weftMainFrom) {
    }

    /**
     * The tool's class path without its directories (its own {@code classes/}, {@code test-classes/}) and
     * without entries that do not exist. When Weft itself is in a directory (a reactor build that stopped
     * before {@code package} resolves modules to their {@code classes/}), the other modules' directories are
     * kept, only the tool's own build directory is dropped, and {@code jarsOnly} is false.
     */
    static WeftClassPath weftClassPath(String toolClassPath) {
        String weftMainFrom = weftMainLocation();
        Path own = toolTargetDir();
        List<String> jars = new ArrayList<>();
        List<String> withDirs = new ArrayList<>();
        for (String e : toolClassPath.split(java.io.File.pathSeparator)) {
            if (e.isBlank()) {
                continue;
            }
            Path p = Path.of(e).toAbsolutePath().normalize();
            if (Files.isDirectory(p)) {
                if (!p.startsWith(own)) {
                    withDirs.add(e);
                }
            } else if (Files.isRegularFile(p)) {
                jars.add(e);
                withDirs.add(e);
            }
        }
        boolean weftInDir = weftMainFrom != null && Files.isDirectory(Path.of(weftMainFrom));
        return weftInDir ? new WeftClassPath(List.copyOf(withDirs), false, weftMainFrom) : new WeftClassPath(List.copyOf(jars), true, weftMainFrom);
    }

    /** Where this JVM loads {@code WeftMain} from (a jar, or a {@code classes/} directory), or null. */
    private static String weftMainLocation() {
        try {
            var src = Class.forName(WEFT_MAIN, false, WeftProcess.class.getClassLoader()).getProtectionDomain().getCodeSource();
            return src == null ? null : Path.of(src.getLocation().toURI()).toString();
        } catch (ClassNotFoundException | java.net.URISyntaxException | RuntimeException e) {
            return null;
        }
    }

    /**
     * True when the running process has the class-data archive {@code archive} mapped ({@code /proc/PID/maps}):
     * it started from an archive that matched its class path. False for the first run of a build (the
     * archive is written at exit) or when /proc cannot be read.
     */
    public boolean mapsArchive(Path archive) {
        return maps(pid(), archive);
    }

    /** True when process {@code pid} has {@code archive} mapped ({@code /proc/PID/maps}). */
    static boolean maps(long pid, Path archive) {
        if (pid <= 0) {
            return false;
        }
        try (var lines = Files.lines(Path.of("/proc", Long.toString(pid), "maps"))) {
            String a = archive.toString();
            return lines.anyMatch(l -> l.contains(a));
        } catch (IOException | UncheckedIOException e) {
            return false;
        }
    }
}
