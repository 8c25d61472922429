package dev.weft.soak.load;

import dev.weft.proxy.net.FreePorts;
import dev.weft.soak.common.Args;
import dev.weft.soak.common.HaproxyProcess;
import dev.weft.soak.common.Payload;
import dev.weft.soak.common.PerfSyscalls;
import dev.weft.soak.common.ProcMeter;
import dev.weft.soak.common.ProcStat;
import dev.weft.soak.common.Reports;
import dev.weft.soak.common.WeftProcess;
import dev.weft.testkit.KafkaCluster;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntUnaryOperator;

/**
 * Side-by-side load: the same producer/consumer workload against several targets in one run
 * ({@code direct} = the broker, {@code weft} = Weft in its own process in front of it, {@code weft:NAME} = a
 * {@code --weft-variant}, another such Weft process with other {@code server:} settings, {@code collapsed} =
 * Weft serving the cluster with {@code topology: collapsed} through one proxy node, {@code haproxy}
 * = HAProxy in TCP mode, {@code woven} / {@code woven-b} = Weft serving a topic-weave virtual cluster over
 * this cluster and a second one, {@code pwoven} = Weft serving a partition-weave virtual cluster over this
 * cluster (one logical topic whose partitions are the physical topic's in rotated order), {@code direct-b} =
 * that second cluster's broker, {@code branch-copy} / {@code branch-redact} = Weft over a {@code type: branch}
 * router copying (or redacting) to that second cluster, {@code NAME!kill} / {@code NAME!stop} the same with the
 * branch cluster faulted in each measured slice ({@link BranchTargets}), {@code name=host:port}
 * for any other bootstrap, or a {@code --peer} = another proxy already running, measured through its
 * process id), in interleaved slices
 * (A B C A B C ...) so that machine drift hits every target alike. Brokers run in forked JVMs (testkit),
 * the proxies in their own processes; the clients run in this JVM.
 *
 * <p>Per slice and target: a producer sends for {@code --duration} (max throughput, or fixed rate on an
 * open-loop schedule whose latency counts from the intended send time), a consumer reads concurrently
 * (end-to-end latency = receive time minus the intended send time carried in the record), then a
 * catch-up consumer re-reads the slice's records (consume throughput). The proxy's CPU time, context
 * switches, read/write system calls and peak RSS come from /proc, its system calls from perf (when it
 * works here), per phase (produce + concurrent consumer; catch-up read). Writes a weft-report/v1 JSON
 * document.
 */
public final class LoadTool {

    private static final Set<String> OPTIONS = Set.of("record-bytes", "records-bytes", "duration", "rounds", "targets",
            "mode", "rate", "out", "brokers", "partitions", "warmup", "weft-jvm-opts", "verbose", "broker-heap", "peer",
            "weft-variant", "branch-fault-at", "branch-fault-for");
    /** The targets the tool sets up itself; any other name is {@code name=host:port} or a {@code --peer}. */
    static final Set<String> BUILT_IN = Set.of("direct", "direct-b", "weft", "collapsed", "haproxy", "woven", "woven-b", "pwoven",
            BranchTargets.COPY, BranchTargets.REDACT);
    private static final String[] SCENARIOS = {"produce", "e2e", "consume"};

    /**
     * {@code --peer name=host:port,pid=PID}: a proxy that is already running (Kroxylicious, Envoy, ...) as
     * target {@code name}, clients at {@code host:port}, measured through process {@code pid} like HAProxy.
     */
    public record Peer(String name, String bootstrap, long pid) {

        static final String SYNTAX = "name=host:port,pid=PID";

        /** Parses one spec; a one-line IllegalArgumentException when it is malformed or the process does not exist. */
        public static Peer parse(String spec) {
            String bad = "--peer '" + spec + "': expected " + SYNTAX;
            String[] parts = spec.trim().split(",");
            int eq = parts[0].indexOf('=');
            int colon = parts[0].lastIndexOf(':');
            if (parts.length != 2 || eq <= 0 || colon <= eq + 1 || !parts[1].startsWith("pid=")) {
                throw new IllegalArgumentException(bad);
            }
            String name = parts[0].substring(0, eq);
            long pid;
            try {
                int port = Integer.parseInt(parts[0].substring(colon + 1));
                pid = Long.parseLong(parts[1].substring(4));
                if (port < 1 || port > 65535 || pid < 1) {
                    throw new NumberFormatException();
                }
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(bad);
            }
            if (BUILT_IN.contains(name)) {
                throw new IllegalArgumentException("--peer '" + spec + "': " + name + " is a built-in target; name the peer otherwise");
            }
            if (name.startsWith(WeftVariant.PREFIX)) {
                throw new IllegalArgumentException("--peer '" + spec + "': " + WeftVariant.PREFIX + "NAME is a --weft-variant's target; name the peer otherwise");
            }
            if (!ProcStat.exists(pid)) {
                throw new IllegalArgumentException("--peer '" + spec + "': no process with pid " + pid);
            }
            return new Peer(name, parts[0].substring(eq + 1), pid);
        }
    }

    /**
     * {@code --weft-variant NAME=KEY=VALUE[;KEY=VALUE...]}: target {@code weft:NAME}, a Weft process of its
     * own in front of the same cluster as {@code weft} (mirrored pass-through) whose config has the keys
     * under {@code server:} (e.g. {@code epoll=transport=epoll}, {@code zc=zeroCopySendThreshold=16KiB}), for
     * A/B runs in one interleaved run.
     */
    public record WeftVariant(String name, Map<String, String> server) {

        static final String SYNTAX = "NAME=KEY=VALUE[;KEY=VALUE...]";
        /** The target of variant {@code NAME} is {@code weft:NAME}. */
        public static final String PREFIX = "weft:";
        private static final java.util.regex.Pattern NAME = java.util.regex.Pattern.compile("[A-Za-z0-9_-]+");
        private static final java.util.regex.Pattern KEY = java.util.regex.Pattern.compile("[A-Za-z][A-Za-z0-9]*");
        // a plain YAML scalar: enum words, numbers, sizes (16KiB), booleans
        private static final java.util.regex.Pattern VALUE = java.util.regex.Pattern.compile("[A-Za-z0-9_.-]+");

        public WeftVariant {
            server = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(server));
        }

        /** {@code weft:NAME}. */
        public String target() {
            return PREFIX + name;
        }

        /** The config's {@code server:} section. */
        public String serverYaml() {
            StringBuilder y = new StringBuilder("server:\n");
            server.forEach((k, v) -> y.append("  ").append(k).append(": ").append(v).append('\n'));
            return y.toString();
        }

        /**
         * Parses one spec and checks its keys and values with Weft's own config reader; a one-line
         * IllegalArgumentException when it is malformed or Weft would refuse it.
         */
        public static WeftVariant parse(String spec) {
            String bad = "--weft-variant '" + spec + "': expected " + SYNTAX;
            int eq = spec.indexOf('=');
            if (eq <= 0 || !NAME.matcher(spec.substring(0, eq).trim()).matches()) {
                throw new IllegalArgumentException(bad + " (NAME: letters, digits, _ and -)");
            }
            String name = spec.substring(0, eq).trim();
            Map<String, String> server = new LinkedHashMap<>();
            for (String kv : spec.substring(eq + 1).split(";", -1)) {
                int e = kv.indexOf('=');
                String key = e < 0 ? "" : kv.substring(0, e).trim();
                String value = e < 0 ? "" : kv.substring(e + 1).trim();
                if (!KEY.matcher(key).matches() || !VALUE.matcher(value).matches()) {
                    throw new IllegalArgumentException(bad + " ('" + kv.trim() + "' is not KEY=VALUE)");
                }
                if (server.put(key, value) != null) {
                    throw new IllegalArgumentException("--weft-variant '" + spec + "': " + key + " given twice");
                }
            }
            WeftVariant v = new WeftVariant(name, server);
            List<String> problems = WeftProcess.serverSectionProblems(v.serverYaml());
            if (!problems.isEmpty()) {
                throw new IllegalArgumentException("--weft-variant '" + spec + "': " + String.join("; ", problems));
            }
            return v;
        }
    }

    /**
     * Parsed options; {@code targets} ends with the peers and the {@code --weft-variant}s not named in
     * {@code --targets}. {@code weftJvmOpts} = {@code --weft-jvm-opts}, the options after the launcher's
     * ({@link #weftJvmOptions()}).
     */
    public record Options(int recordBytes, Duration duration, int rounds, List<String> targets, String mode, int rate,
                          Path out, int brokers, int partitions, Duration warmup, List<String> weftJvmOpts,
                          boolean verbose, String brokerHeap, List<Peer> peers, List<WeftVariant> variants, String command,
                          Duration branchFaultAt, Duration branchFaultFor) {

        public static Options parse(String[] argv) {
            Args a = new Args(argv, Set.of("verbose"));
            a.requireOnly(OPTIONS);
            String mode = a.get("mode", "max");
            if (!mode.equals("max") && !mode.equals("fixed")) {
                throw new IllegalArgumentException("--mode is max or fixed");
            }
            int recordBytes = a.integer("record-bytes", a.integer("records-bytes", 1024));
            // Empty by default: the launcher's options (jvm.options) as they are.
            String opts = a.get("weft-jvm-opts", "");
            List<String> targets = new ArrayList<>(Arrays.stream(a.get("targets", "direct,weft,haproxy").split(",")).map(String::trim).toList());
            List<Peer> peers = a.all("peer").stream().map(Peer::parse).toList();
            for (Peer p : peers) {
                if (peers.stream().filter(q -> q.name().equals(p.name())).count() > 1) {
                    throw new IllegalArgumentException("--peer " + p.name() + " given twice");
                }
                if (!targets.contains(p.name())) {
                    targets.add(p.name());
                }
            }
            List<WeftVariant> variants = a.all("weft-variant").stream().map(WeftVariant::parse).toList();
            for (WeftVariant v : variants) {
                if (variants.stream().filter(w -> w.name().equals(v.name())).count() > 1) {
                    throw new IllegalArgumentException("--weft-variant " + v.name() + " given twice");
                }
                if (!targets.contains(v.target())) {
                    targets.add(v.target());
                }
            }
            for (String t : targets) {
                if (t.startsWith(WeftVariant.PREFIX) && variants.stream().noneMatch(v -> v.target().equals(t))) {
                    throw new IllegalArgumentException("target '" + t + "': no --weft-variant " + t.substring(WeftVariant.PREFIX.length())
                            + "=KEY=VALUE[;KEY=VALUE...] defines it");
                }
                BranchTargets.spec(t); // a branch target's fault suffix: one-line error
            }
            Duration faultAt = a.duration("branch-fault-at", Duration.ofSeconds(5));
            Duration faultFor = a.duration("branch-fault-for", Duration.ofSeconds(10));
            if (faultFor.isZero() || faultFor.isNegative() || faultAt.isNegative()) {
                throw new IllegalArgumentException("--branch-fault-for must be > 0 and --branch-fault-at >= 0");
            }
            return new Options(recordBytes, a.duration("duration", Duration.ofSeconds(20)), a.integer("rounds", 3),
                    List.copyOf(targets), mode, a.integer("rate", 10_000),
                    Path.of(a.get("out", "perf-reports/results/load-" + LocalDate.now() + ".json")),
                    a.integer("brokers", 1), a.integer("partitions", 6), a.duration("warmup", Duration.ofSeconds(5)),
                    WeftProcess.splitOptions(opts), a.flag("verbose"),
                    a.get("broker-heap", "1g"), peers, variants, "LoadTool " + String.join(" ", argv), faultAt, faultFor);
        }

        /** Every JVM option of the Weft processes: the launcher's ({@code jvm.options}), then {@code --weft-jvm-opts}. */
        public List<String> weftJvmOptions() {
            return WeftProcess.launcherJvmOptions(String.join(" ", weftJvmOpts));
        }

        /** The variant of target {@code weft:NAME}, or null. */
        WeftVariant variant(String target) {
            return variants.stream().filter(v -> v.target().equals(target)).findFirst().orElse(null);
        }

        boolean fixed() {
            return mode.equals("fixed");
        }
    }

    private LoadTool() {
    }

    public static void main(String[] args) throws Exception {
        Options o;
        try {
            if (java.util.Arrays.asList(args).contains("--help")) {
                throw new IllegalArgumentException("options:");
            }
            o = Options.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("load: " + e.getMessage());
            System.err.println("usage: load.sh [--targets direct,weft,weft:NAME,collapsed,haproxy,woven,woven-b,pwoven,direct-b,branch-copy,branch-redact,NAME=HOST:PORT]"
                    + " [--mode max|fixed] [--rate N] [--record-bytes 1024]"
                    + " [--duration 20s] [--rounds 3] [--warmup 5s] [--brokers 1|3] [--partitions 6] [--out FILE]"
                    + " [--weft-jvm-opts 'OPTS' (after the launcher's jvm.options)] [--peer " + Peer.SYNTAX + " (repeatable)]"
                    + " [--weft-variant " + WeftVariant.SYNTAX + " (repeatable; target weft:NAME)]"
                    + " [targets branch-copy, branch-redact, branch-copy!kill, branch-redact!stop, ...]"
                    + " [--branch-fault-at 5s] [--branch-fault-for 10s]");
            System.exit(2);
            return;
        }
        Path report = run(o);
        System.out.println("load: report written to " + report);
        System.exit(0);
    }

    /**
     * One target: where clients connect, which process (if any) is the proxy, the topic clients use and
     * the real topic behind it on {@code home} (the cluster it is created on; null for a bootstrap of the
     * user's, whose topic is created through it), and the admin client that creates and trims that topic;
     * {@code physicalPartition} = the real topic's partition behind each partition clients use (the same
     * number but for {@code pwoven}), {@code topicCreated} = the real topic exists already (created before
     * the proxy started: {@code pwoven}).
     */
    private record Target(String name, String bootstrap, long proxyPid, String topic, String realTopic, KafkaCluster home,
                          Admin admin, IntUnaryOperator physicalPartition, boolean topicCreated, boolean json) {
        Target(String name, String bootstrap, long proxyPid, String topic, String realTopic, KafkaCluster home,
               Admin admin, IntUnaryOperator physicalPartition, boolean topicCreated) {
            this(name, bootstrap, proxyPid, topic, realTopic, home, admin, physicalPartition, topicCreated, false);
        }

        Target(String name, String bootstrap, long proxyPid, String topic, String realTopic, KafkaCluster home, Admin admin) {
            this(name, bootstrap, proxyPid, topic, realTopic, home, admin, IntUnaryOperator.identity(), false);
        }

        /** The same with the proxy's pid (known once its process started). */
        Target withPid(long pid) {
            return new Target(name, bootstrap, pid, topic, realTopic, home, admin, physicalPartition, topicCreated, json);
        }

        Target(String name, String bootstrap, long proxyPid, String topic, String realTopic, KafkaCluster home) {
            this(name, bootstrap, proxyPid, topic, realTopic, home, home.admin());
        }

        Target(String name, String bootstrap, long proxyPid, String topic, KafkaCluster home) {
            this(name, bootstrap, proxyPid, topic, topic, home);
        }
    }

    /** Woven targets: the route names and prefixes of the woven virtual cluster (route 0 on the main cluster). */
    static final List<String> WOVEN_ROUTES = List.of("a", "b");
    static final List<String> WOVEN_PREFIXES = List.of("a.", "b.");
    /** Target pwoven: its route (the main cluster) and its logical topic, the same name as the physical one. */
    static final String PWOVEN_ROUTE = "a";
    static final String PWOVEN_TOPIC = "load-pwoven";

    /**
     * The segments of the pwoven target's logical topic over the physical {@code topic} of {@code partitions}
     * partitions, rotated so that every partition is renumbered: with k = partitions / 2, physical
     * k..N-1 then 0..k-1 (virtual v = physical (v + k) mod N); one segment {@code 0} for one partition.
     */
    static List<WeftProcess.Segment> rotatedSegments(String route, String topic, int partitions) {
        int k = partitions / 2;
        return k == 0 ? List.of(new WeftProcess.Segment(route, topic, 0, partitions - 1))
                : List.of(new WeftProcess.Segment(route, topic, k, partitions - 1), new WeftProcess.Segment(route, topic, 0, k - 1));
    }

    /** Virtual partition → physical partition of a logical topic made of {@code segments} (concatenated in order). */
    static IntUnaryOperator physicalPartitions(List<WeftProcess.Segment> segments) {
        int[] physical = segments.stream().flatMapToInt(s -> java.util.stream.IntStream.rangeClosed(s.from(), s.to())).toArray();
        return v -> physical[v];
    }

    /** Totals of one target and scenario over all its slices. */
    private static final class Totals {
        final Histogram hist = Reports.micros();
        long records;
        double seconds;
    }

    /** Totals of one target over all slices. */
    private static final class TargetTotals {
        final Map<String, Totals> scenario = new LinkedHashMap<>();
        // the proxy process's use in each phase of the measured slices; null for a target without one
        ProcMeter.Usage produceUsage;
        ProcMeter.Usage consumeUsage;
        long produceErrors;
        long sent;
        long notConsumed;
        long notReread;

        TargetTotals() {
            for (String s : SCENARIOS) {
                scenario.put(s, new Totals());
            }
        }
    }

    /** What the per-second sampler reads while a slice runs. */
    private static final class Live {
        final String target;
        final AtomicLong acked = new AtomicLong();
        final Recorder e2e = new Recorder(3_600_000_000L, 3);

        Live(String target) {
            this.target = target;
        }
    }

    @SuppressWarnings("try") // stopWefts: a resource only for when it is closed
    public static Path run(Options o) throws Exception {
        Path tmp = Files.createTempDirectory("weft-load-");
        List<String> weftJvm = o.weftJvmOptions();
        boolean wantHaproxy = o.targets().contains("haproxy");
        Map<Integer, Integer> haFront = new HashMap<>();
        KafkaCluster.Builder b = KafkaCluster.builder().brokers(o.brokers()).forked(true).heap(o.brokerHeap())
                .brokerProperty("log.retention.check.interval.ms", "10000");
        if (wantHaproxy) {
            for (int id = 0; id < o.brokers(); id++) {
                haFront.put(id, FreePorts.randomRange(1));
            }
            b.listener("PLAINTEXT", SecurityProtocol.PLAINTEXT)
                    .listener("HAPROXY", SecurityProtocol.PLAINTEXT)
                    .advertisedAddress("HAPROXY", (id, port) -> "127.0.0.1:" + haFront.get(id));
        }
        long started = System.nanoTime();
        List<Map<String, Object>> timeline = new CopyOnWriteArrayList<>();
        Map<String, TargetTotals> totals = new LinkedHashMap<>();
        Map<String, Long> peakRss = new LinkedHashMap<>();
        WeftProcess woven = null;
        WeftProcess collapsed = null;
        WeftProcess pwoven = null;
        // Every Weft process, stopped together (SIGTERM, up to 60 s each to write the class-data archive)
        // before the brokers stop.
        List<WeftProcess> wefts = new ArrayList<>();
        // The Weft process behind each Weft target (weft, collapsed, woven, woven-b): its /metrics is read per slice.
        Map<String, WeftProcess> weftOf = new LinkedHashMap<>();
        List<Map<String, Object>> slices = new ArrayList<>();
        Map<String, Object> collapsedInfo = new LinkedHashMap<>();
        String loadAtStart = loadAverage();
        KafkaCluster second = null;
        HaproxyProcess haproxy = null;
        List<Admin> externalAdmins = new ArrayList<>();
        Map<String, Peer> peers = new HashMap<>();
        o.peers().forEach(p -> peers.put(p.name(), p));
        Map<String, BranchTargets.Spec> branchSpecs = new LinkedHashMap<>();
        ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "load-sampler");
            t.setDaemon(true);
            return t;
        });
        try (KafkaCluster cluster = b.build().start(); AutoCloseable stopWefts = () -> stopWefts(wefts)) {
            boolean wantWoven = o.targets().stream().map(String::trim).anyMatch(t -> t.equals("woven") || t.equals("woven-b") || t.equals("direct-b"));
            boolean wantBranch = o.targets().stream().map(String::trim).anyMatch(t -> BranchTargets.spec(t) != null);
            if (wantWoven || wantBranch) {
                // The woven virtual cluster's second cluster (also the branch targets' branch cluster): the same
                // broker count and settings, its own JVMs.
                second = KafkaCluster.builder().brokers(o.brokers()).forked(true).heap(o.brokerHeap())
                        .brokerProperty("log.retention.check.interval.ms", "10000").build().start();
            }
            if (wantWoven) {
                woven = WeftProcess.woven(WOVEN_ROUTES, List.of(cluster.bootstrapServers(), second.bootstrapServers()),
                        WOVEN_PREFIXES, o.brokers(), tmp.resolve("woven"), weftJvm, !o.verbose());
                wefts.add(woven);
            }
            int rf = Math.min(3, o.brokers());
            // Old slices are deleted as the run goes (a 1 KiB max-throughput slice writes gigabytes): each
            // slice first deletes the records before it (deleteRecords), and retention.bytes is only a
            // backstop, far above one slice, so it never deletes the slice being re-read.
            Map<String, String> topicConfig = Map.of("retention.bytes", Long.toString(8L << 30), "segment.bytes", Long.toString(128L << 20));
            List<Target> targets = new ArrayList<>();
            for (String t : o.targets()) {
                String name = t.trim();
                WeftVariant variant = o.variant(name);
                if (variant != null) {
                    // weft:NAME: mirrored Weft like `weft`, its own process, its config's server: section the variant's.
                    WeftProcess w = new WeftProcess(cluster.bootstrapServers(), variant.serverYaml(), o.brokers() - 1,
                            tmp.resolve("weft-" + variant.name()), weftJvm, !o.verbose());
                    wefts.add(w);
                    targets.add(new Target(name, w.bootstrap(), -1, "load-weft-" + variant.name(), cluster));
                    weftOf.put(name, w);
                    continue;
                }
                switch (name) {
                    case "direct" -> targets.add(new Target(name, cluster.bootstrapServers(), -1, "load-direct", cluster));
                    // The woven virtual cluster's second cluster, directly: the anchor of woven-b (another broker JVM).
                    case "direct-b" -> targets.add(new Target(name, second.bootstrapServers(), -1, "load-direct-b", second));
                    case "weft" -> {
                        WeftProcess weft = new WeftProcess(cluster.bootstrapServers(), o.brokers() - 1, tmp.resolve("weft"),
                                weftJvm, !o.verbose());
                        wefts.add(weft);
                        targets.add(new Target(name, weft.bootstrap(), -1, "load-weft", cluster));
                        weftOf.put(name, weft);
                    }
                    // topology: collapsed, one proxy node: clients see one broker, the proxy splits every
                    // Produce/Fetch by the partitions' real leaders.
                    case "collapsed" -> {
                        collapsed = WeftProcess.collapsed(cluster.bootstrapServers(), tmp.resolve("collapsed"),
                                weftJvm, !o.verbose());
                        wefts.add(collapsed);
                        targets.add(new Target(name, collapsed.bootstrap(), -1, "load-collapsed", cluster));
                        weftOf.put(name, collapsed);
                    }
                    case "haproxy" -> {
                        Map<Integer, String> backends = new HashMap<>();
                        for (int id : cluster.brokerIds()) {
                            backends.put(id, cluster.brokerAddress(id, "HAPROXY"));
                        }
                        haproxy = new HaproxyProcess(tmp.resolve("haproxy"), haFront, backends).start();
                        targets.add(new Target(name, "127.0.0.1:" + haFront.get(0), haproxy.pid(), "load-haproxy", cluster));
                    }
                    // Route a (the main cluster, also the producer-id home): renamed a.load-woven, Produce goes as
                    // it is under topic ids (v13: the virtual id is the real one), every Fetch is rebuilt.
                    case "woven" -> {
                        targets.add(new Target(name, woven.bootstrap(), -1,
                                WOVEN_PREFIXES.get(0) + "load-woven", "load-woven", cluster));
                        weftOf.put(name, woven);
                    }
                    // Route b (the second cluster): the same plus the producer-id translation (8+2 bytes and
                    // the CRC-32C of every batch rewritten in place).
                    case "woven-b" -> {
                        targets.add(new Target(name, woven.bootstrap(), -1,
                                WOVEN_PREFIXES.get(1) + "load-woven-b", "load-woven-b", second));
                        weftOf.put(name, woven);
                    }
                    // partition-weave over the main cluster: the logical topic load-pwoven is the physical load-pwoven
                    // in rotated order, so every Produce/Fetch partition is renumbered (and the topic renamed by
                    // id) on the hot path. Weft checks each segment against the cluster at start, so the
                    // physical topic is created first, directly on the cluster (CreateTopics through a
                    // partition-weave router is refused).
                    case "pwoven" -> {
                        cluster.createTopic(PWOVEN_TOPIC, o.partitions(), rf, topicConfig);
                        List<WeftProcess.Segment> segments = rotatedSegments(PWOVEN_ROUTE, PWOVEN_TOPIC, o.partitions());
                        pwoven = WeftProcess.partitionWoven(List.of(PWOVEN_ROUTE), List.of(cluster.bootstrapServers()),
                                Map.of(PWOVEN_TOPIC, segments), o.brokers(), tmp.resolve("pwoven"), weftJvm, !o.verbose());
                        wefts.add(pwoven);
                        targets.add(new Target(name, pwoven.bootstrap(), -1, PWOVEN_TOPIC, PWOVEN_TOPIC, cluster,
                                cluster.admin(), physicalPartitions(segments), true));
                        weftOf.put(name, pwoven);
                    }
                    // name=host:port, or a --peer (the same, measured through its process): the topic is created
                    // through that bootstrap, on whatever cluster it leads to.
                    default -> {
                        BranchTargets.Spec branch = BranchTargets.spec(name);
                        if (branch != null) {
                            // type: branch, primary = the main cluster, one branch = the second cluster. The branch
                            // topic (same partitions, RF, configs) is created there first, directly; the primary
                            // topic below like every other target's.
                            second.createTopic(branch.branchTopic(), o.partitions(), rf, topicConfig);
                            WeftProcess w = BranchTargets.weft(branch, cluster.bootstrapServers(), second.bootstrapServers(), o.brokers(),
                                    tmp.resolve(branch.topic()), weftJvm, !o.verbose());
                            wefts.add(w);
                            targets.add(new Target(name, w.bootstrap(), -1, branch.topic(), branch.topic(), cluster, cluster.admin(),
                                    IntUnaryOperator.identity(), false, true));
                            weftOf.put(name, w);
                            branchSpecs.put(name, branch);
                            break;
                        }
                        Peer peer = peers.get(name);
                        int eq = name.indexOf('=');
                        if (peer == null && eq <= 0) {
                            throw new IllegalArgumentException("target '" + name + "': use direct, weft, weft:NAME (a --weft-variant),"
                                    + " collapsed, haproxy, woven, woven-b, pwoven, direct-b, name=host:port or a --peer name");
                        }
                        String n = peer != null ? peer.name() : name.substring(0, eq);
                        String bootstrap = peer != null ? peer.bootstrap() : name.substring(eq + 1);
                        Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                                AdminClientConfig.CLIENT_ID_CONFIG, "load-admin-" + n, AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000,
                                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30_000));
                        externalAdmins.add(admin);
                        targets.add(new Target(n, bootstrap, peer != null ? peer.pid() : -1, "load-" + n, "load-" + n, null, admin));
                    }
                }
            }
            // Every Weft process at once (each start is a JVM start and a wait for /readyz), then their pids.
            startAll(wefts);
            targets.replaceAll(t -> weftOf.containsKey(t.name()) ? t.withPid(weftOf.get(t.name()).pid()) : t);
            for (Target t : targets) {
                if (t.topicCreated()) {
                    // created on its cluster before its proxy started (pwoven), never through the proxy
                } else if (t.home() != null) {
                    t.home().createTopic(t.realTopic(), o.partitions(), rf, topicConfig);
                } else {
                    createTopicThrough(t, o.partitions(), topicConfig);
                }
                totals.put(t.name(), new TargetTotals());
                if (t.name().equals("collapsed")) {
                    // What the proxy splits by: the real leader of each partition of the collapsed target's topic.
                    Map<Integer, Integer> leaders = partitionLeaders(cluster, t.realTopic());
                    Map<String, Integer> perLeader = new java.util.TreeMap<>();
                    leaders.values().forEach(l -> perLeader.merge(Integer.toString(l), 1, Integer::sum));
                    collapsedInfo.put("partitionLeaders", leaders);
                    collapsedInfo.put("partitionsPerLeader", perLeader);
                    System.err.println("load: collapsed topic " + t.realTopic() + " partition leaders " + leaders
                            + " (partitions per broker " + perLeader + ")");
                    if (perLeader.size() < 2 && o.brokers() > 1) {
                        System.err.println("load: WARNING: every partition of " + t.realTopic() + " has one leader: nothing to split");
                    }
                }
            }
            Map<String, Clients> clients = new LinkedHashMap<>();
            try {
                for (Target t : targets) {
                    clients.put(t.name(), new Clients(t, o));
                }
                Live[] live = new Live[1];
                sampler.scheduleAtFixedRate(new Runnable() {
                    long lastAcked;
                    Live lastLive;

                    @Override
                    public void run() {
                        Live l = live[0];
                        if (l == null) {
                            return;
                        }
                        if (l != lastLive) {
                            lastLive = l;
                            lastAcked = 0;
                        }
                        long acked = l.acked.get();
                        Histogram h = l.e2e.getIntervalHistogram();
                        Map<String, Object> e = new LinkedHashMap<>();
                        e.put("t", Math.round((System.nanoTime() - started) / 1e7) / 100.0);
                        e.put("target", l.target);
                        e.put("recordsPerSec", acked - lastAcked);
                        e.put("p99Micros", h.getTotalCount() == 0 ? 0 : h.getValueAtPercentile(99));
                        lastAcked = acked;
                        timeline.add(e);
                    }
                }, 1, 1, TimeUnit.SECONDS);

                if (!o.warmup().isZero()) {
                    for (Target t : targets) {
                        System.err.println("load: warm-up " + t.name() + " " + o.warmup().toSeconds() + " s");
                        // Recorded (round 0, warmup: true) so that what goes wrong there shows, but in no figure.
                        WeftProcess w = weftOf.get(t.name());
                        Map<String, Object> sl = new LinkedHashMap<>();
                        sl.put("round", 0);
                        sl.put("warmup", true);
                        sl.put("target", t.name());
                        sl.put("loadAverage", loadAverage());
                        targetSlice(o, o.warmup(), clients.get(t.name()), null, new Live(t.name()), sl, w,
                                branchSpecs.get(t.name()), second, false);
                        slices.add(sl);
                    }
                }
                for (int round = 1; round <= o.rounds(); round++) {
                    for (Target t : targets) {
                        System.err.println("load: round " + round + "/" + o.rounds() + " target " + t.name() + " at "
                                + java.time.LocalTime.now().withNano(0));
                        Live l = new Live(t.name());
                        live[0] = l;
                        WeftProcess w = weftOf.get(t.name());
                        Map<String, Object> sl = new LinkedHashMap<>();
                        sl.put("round", round);
                        sl.put("target", t.name());
                        sl.put("loadAverage", loadAverage());
                        targetSlice(o, o.duration(), clients.get(t.name()), totals.get(t.name()), l, sl, w,
                                branchSpecs.get(t.name()), second, true);
                        live[0] = null;
                        if (w != null) {
                            @SuppressWarnings("unchecked") Map<String, Object> delta = (Map<String, Object>) sl.get("weftCounters");
                            System.err.println("load:   " + t.name() + " upstream requests per broker " + delta.get("upstreamRequests")
                                    + ", client requests " + delta.get("clientRequests") + ", Fetch request bytes/request "
                                    + orDash(delta.get("fetchRequestBytesPerRequest")) + ", Fetch bytes to clients "
                                    + delta.get("clientFetchResponseBytes") + ", discarded " + delta.get("fetchDiscardedBytes")
                                    + (delta.get("errors") instanceof Map<?, ?> e && !e.isEmpty() ? ", errors " + e : "")
                                    + (delta.containsKey("scrapeError") ? ", " + delta.get("scrapeError") : ""));
                        }
                        slices.add(sl);
                    }
                }
            } finally {
                sampler.shutdownNow();
                clients.values().forEach(Clients::close);
            }
            for (Target t : targets) {
                if (t.proxyPid() > 0) {
                    ProcStat.peakRssBytes(t.proxyPid()).ifPresent(v -> peakRss.put(t.name(), v));
                }
            }
            Map<String, Object> branchInfo = branchSummary(o, branchSpecs, slices, cluster, second);
            Map<String, Boolean> cdsMapped = new LinkedHashMap<>();
            weftOf.forEach((name, w) -> cdsMapped.put(name, w.mapsArchive(WeftProcess.cdsArchive())));
            Map<String, Object> report = Reports.header("load",
                    "Side-by-side load: " + String.join(", ", o.targets()) + " (" + o.mode() + ", " + o.recordBytes() + " B records)",
                    o.command());
            Map<String, Object> config = new LinkedHashMap<>();
            config.put("mode", o.fixed() ? "fixed-rate" : "max-throughput");
            config.put("recordBytes", o.recordBytes());
            config.put("sliceSeconds", o.duration().toMillis() / 1000.0);
            config.put("rounds", o.rounds());
            config.put("warmupSeconds", o.warmup().toMillis() / 1000.0);
            config.put("targets", o.targets());
            config.put("targetRatePerSec", o.fixed() ? o.rate() : 0);
            config.put("brokers", o.brokers());
            config.put("partitions", o.partitions());
            config.put("replicationFactor", rf);
            config.put("producer", "acks=all, linger.ms=5, batch.size=65536, compression none, one producer per target");
            config.put("consumer", "one consumer per target (assigned all partitions), plus a catch-up read of each slice");
            // --weft-jvm-opts (empty by default: the launcher's options as they are), and every option the
            // Weft processes ran with: the launcher's jvm.options, then --weft-jvm-opts.
            config.put("weftJvmOpts", String.join(" ", o.weftJvmOpts()));
            config.put("weftJvmOptions", String.join(" ", weftJvm));
            config.put("weftJvmOptionsSource", WeftProcess.JVM_OPTIONS_RESOURCE + " (the launcher's, from the weft-proxy jar; "
                    + WeftProcess.CDS_PLACEHOLDER + " = " + WeftProcess.cdsArchive() + "), then --weft-jvm-opts");
            // Whether each Weft process started from the class-data archive (false on a build's first run: it is
            // written when Weft exits).
            Map<String, Object> cds = new LinkedHashMap<>();
            cdsMapped.forEach(cds::put);
            config.put("weftCdsArchiveMapped", cds);
            if (!o.variants().isEmpty()) {
                Map<String, Object> variants = new LinkedHashMap<>();
                o.variants().forEach(v -> variants.put(v.target(), v.server()));
                config.put("weftVariants", variants);
            }
            if (!o.peers().isEmpty()) {
                config.put("peers", o.peers().stream().map(p -> p.name() + "=" + p.bootstrap() + ",pid=" + p.pid()).toList());
            }
            config.put("syscallCounter", PerfSyscalls.unavailable() == null
                    ? "perf stat -x, -e raw_syscalls:sys_enter -p PID, per phase" : "absent: " + PerfSyscalls.unavailable());
            if (woven != null) {
                config.put("woven", "one Weft process serving a topic-weave virtual cluster over two clusters (" + o.brokers()
                        + " forked broker(s) each): route a = the main cluster (prefix a., producer-id home), route b = a second"
                        + " cluster (prefix b.); target woven uses a.load-woven (real load-woven on a), woven-b uses"
                        + " b.load-woven-b (real load-woven-b on b: producer ids translated)");
            }
            if (pwoven != null) {
                List<WeftProcess.Segment> segments = rotatedSegments(PWOVEN_ROUTE, PWOVEN_TOPIC, o.partitions());
                config.put("pwoven", "one Weft process serving a partition-weave virtual cluster over the main cluster (route "
                        + PWOVEN_ROUTE + ", mirrored, port-per-broker): the only visible topic is the logical " + PWOVEN_TOPIC
                        + " of " + o.partitions() + " partitions, segments " + segments.stream()
                                .map(s -> s.from() == s.to() ? Integer.toString(s.from()) : s.from() + "-" + s.to()).toList()
                        + " of the physical " + PWOVEN_TOPIC + " on the main cluster (virtual v = physical (v + "
                        + o.partitions() / 2 + ") mod " + o.partitions() + "), created directly on that cluster before the"
                        + " proxy started; every Produce/Fetch partition renumbered, fetch sessions declined");
            }
            if (!branchSpecs.isEmpty()) {
                Map<String, Object> bc = new LinkedHashMap<>();
                branchSpecs.forEach((name, sp) -> bc.put(name, sp.describe()));
                config.put("branch", bc);
                config.put("branchFault", "targets NAME!kill / NAME!stop: in each measured slice, " + o.branchFaultAt().toMillis()
                        + " ms after its first send, every broker of the branch cluster SIGKILLed (restarted " + o.branchFaultFor().toMillis()
                        + " ms later; back when visible to clients again) or SIGSTOPped (SIGCONT " + o.branchFaultFor().toMillis()
                        + " ms later); warm-up slices without fault");
            }
            if (collapsed != null) {
                config.put("collapsed", "one Weft process serving the main cluster with topology: collapsed, one proxy node"
                        + " (nodes: [ { id: 0, address: 127.0.0.1:P } ], gateways: [ { name: n0, bind: 127.0.0.1:P } ]):"
                        + " clients see one broker; the proxy splits every Produce/Fetch by the partitions' real leaders");
            }
            config.put("brokerHeap", o.brokerHeap());
            config.put("loadAverageAtStart", loadAtStart);
            config.put("loadAverageAtEnd", loadAverage());
            config.put("clients", "kafka-clients " + org.apache.kafka.common.utils.internals.AppInfoParser.getVersion() + " in the load tool's JVM");
            config.put("clockTicksPerSecond", ProcStat.clockTicksPerSecond());
            report.put("config", config);
            report.put("results", results(o, totals, peakRss, slices));
            report.put("timeline", timeline);
            report.put("slices", slices);
            if (collapsed != null) {
                // The split, from the proxy's own counters: sub-requests per real broker over the measured
                // collapsed slices (weft_upstream_requests_total) against the client requests it served.
                collapsedInfo.put("measuredSlices", withMeans(sumCounters(slices, "collapsed")));
                report.put("collapsedSplit", collapsedInfo);
            }
            Map<String, Object> proxyLogs = new LinkedHashMap<>();
            weftOf.forEach((name, w) -> proxyLogs.put(name, w.problems()));
            report.put("weftLogProblems", proxyLogs);
            if (!branchInfo.isEmpty()) {
                report.put("branch", branchInfo);
            }
            report.put("faults", List.of());
            report.put("integrity", null);
            List<String> problems = problems(slices, proxyLogs);
            problems.addAll(BranchTargets.problems(slices));
            report.put("problems", problems);
            Reports.write(o.out(), report);
            printTable(report);
            problems.forEach(p -> System.out.println("load: WARNING: " + p));
            return o.out();
        } finally {
            WeftProcess.closeAll(wefts); // already stopped unless the cluster did not start
            if (second != null) {
                second.close();
            }
            if (haproxy != null) {
                haproxy.close();
            }
            externalAdmins.forEach(Admin::close);
            deleteQuietly(tmp);
        }
    }

    /**
     * Per branch target: its setup, the records its primary topic and its branch topic hold in all (end offsets:
     * every record written in the run, warm-up included; the slices' deleteRecords do not move them), the sum of
     * the measured slices' branch counters and branch records against their acknowledged records, and each
     * faulted slice's catch-up.
     */
    @SuppressWarnings("unchecked")
    private static Map<String, Object> branchSummary(Options o, Map<String, BranchTargets.Spec> specs, List<Map<String, Object>> slices,
                                                     KafkaCluster cluster, KafkaCluster second) throws Exception {
        Map<String, Object> out = new LinkedHashMap<>();
        for (var e : specs.entrySet()) {
            BranchTargets.Spec sp = e.getValue();
            Map<String, Object> b = new LinkedHashMap<>();
            b.put("setup", sp.describe());
            b.put("primaryTopic", sp.topic());
            b.put("branchTopic", sp.branchTopic());
            long primary = BranchTargets.sum(BranchTargets.endOffsets(cluster, sp.topic(), o.partitions()));
            long branch = BranchTargets.sum(BranchTargets.settledEndOffsets(second, sp.branchTopic(), o.partitions(), Duration.ofSeconds(10)));
            b.put("primaryRecordsWritten", primary);
            b.put("branchRecordsWritten", branch);
            b.put("branchPerPrimary", primary == 0 ? null : round((double) branch / primary));
            Map<String, Object> counters = new LinkedHashMap<>();
            long acked = 0;
            long copied = 0;
            List<Map<String, Object>> faults = new ArrayList<>();
            for (Map<String, Object> s : slices) {
                if (!e.getKey().equals(s.get("target")) || Boolean.TRUE.equals(s.get("warmup"))) {
                    continue;
                }
                if (s.get("branchCounters") instanceof Map<?, ?> m) {
                    addInto(counters, (Map<String, Object>) m);
                }
                acked += ((Number) s.get("acknowledged")).longValue();
                copied += ((Number) s.get("branchRecords")).longValue();
                if (s.get("branchFault") != null) {
                    Map<String, Object> f = new LinkedHashMap<>();
                    f.put("round", s.get("round"));
                    f.put("fault", s.get("branchFault"));
                    f.put("catchUp", s.get("branchCatchUp"));
                    f.put("produceErrors", s.get("produceErrors"));
                    faults.add(f);
                }
            }
            Map<String, Object> measured = new LinkedHashMap<>();
            measured.put("acknowledged", acked);
            measured.put("branchRecords", copied);
            measured.put("branchRecordsPerAcknowledged", acked == 0 ? null : round((double) copied / acked));
            measured.put("branchCounters", counters);
            b.put("measuredSlices", measured);
            if (!faults.isEmpty()) {
                b.put("faultedSlices", faults);
            }
            System.err.println("load: " + e.getKey() + ": branch topic " + sp.branchTopic() + " holds " + branch + " records written, primary "
                    + primary + "; measured slices: " + copied + " copied of " + acked + " acknowledged, counters " + counters);
            out.put(e.getKey(), b);
        }
        return out;
    }

    /** Starts the Weft processes together (each waits for its /readyz), saying how long that took. */
    private static void startAll(List<WeftProcess> wefts) throws Exception {
        if (wefts.isEmpty()) {
            return;
        }
        long t0 = System.nanoTime();
        List<Thread> threads = new ArrayList<>();
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        for (WeftProcess w : wefts) {
            Thread t = new Thread(() -> {
                try {
                    w.start();
                } catch (Throwable e) {
                    failures.add(e);
                }
            }, "load-weft-start");
            t.start();
            threads.add(t);
        }
        for (Thread t : threads) {
            t.join();
        }
        if (!failures.isEmpty()) {
            Throwable f = failures.getFirst();
            throw f instanceof Exception e ? e : new IllegalStateException(f);
        }
        System.err.printf("load: %d Weft process(es) started in %.1f s%n", wefts.size(), (System.nanoTime() - t0) / 1e9);
    }

    /** Stops the Weft processes together, before the brokers, saying how long their exit (archive written) took. */
    private static void stopWefts(List<WeftProcess> wefts) {
        if (wefts.isEmpty()) {
            return;
        }
        long t0 = System.nanoTime();
        System.err.println("load: stopping " + wefts.size() + " Weft process(es): SIGTERM, up to "
                + WeftProcess.CLOSE_GRACE.toSeconds() + " s to exit (each writes its class-data archive when it has none that fits)");
        WeftProcess.closeAll(wefts);
        System.err.printf("load: Weft stopped in %.1f s%n", (System.nanoTime() - t0) / 1e9);
    }

    private static List<Map<String, Object>> results(Options o, Map<String, TargetTotals> totals, Map<String, Long> peakRss,
                                                     List<Map<String, Object>> slices) {
        List<Map<String, Object>> results = new ArrayList<>();
        Map<String, Map<String, Object>> directByScenario = new HashMap<>();
        Map<String, Map<String, Object>> weftByScenario = new HashMap<>();
        for (var te : totals.entrySet()) {
            TargetTotals tt = te.getValue();
            for (var se : tt.scenario.entrySet()) {
                Totals s = se.getValue();
                Map<String, Object> r = new LinkedHashMap<>();
                r.put("target", te.getKey());
                r.put("scenario", se.getKey());
                r.put("mode", o.fixed() ? "fixed-rate" : "max-throughput");
                r.put("recordBytes", o.recordBytes());
                r.put("targetRatePerSec", o.fixed() ? o.rate() : 0);
                r.put("durationSec", round(s.seconds));
                double rps = s.seconds > 0 ? s.records / s.seconds : 0;
                r.put("recordsPerSec", round(rps));
                r.put("mbPerSec", round(rps * o.recordBytes() / 1e6));
                r.put("latencyMicros", Reports.latency(s.hist));
                // The median of the per-slice records/s (one figure per round): less sensitive than the
                // pooled figure to one slice that a neighbour's build slowed down.
                r.put("medianSliceRecordsPerSec", median(slices, te.getKey(), se.getKey() + "RecordsPerSec"));
                if (se.getKey().equals("produce")) {
                    r.put("sent", tt.sent);
                    r.put("produceErrors", tt.produceErrors);
                } else if (se.getKey().equals("e2e")) {
                    r.put("notConsumed", tt.notConsumed);
                } else {
                    r.put("notReread", tt.notReread);
                }
                r.put("histogram", Reports.encode(s.hist));
                if (tt.produceUsage != null) {
                    // cpuSecondsPerGB over whole slices, as before; phase = this scenario's phase (produce and
                    // e2e share one: the producer with its concurrent consumer; consume is the catch-up read)
                    Map<String, Object> proxy = new LinkedHashMap<>();
                    proxy.put("cpuSecondsPerGB", tt.produceUsage.plus(tt.consumeUsage).cpuSecondsPerGB());
                    proxy.put("peakRssBytes", peakRss.get(te.getKey()));
                    boolean consume = se.getKey().equals("consume");
                    proxy.put("phase", (consume ? tt.consumeUsage : tt.produceUsage).toMap(consume ? "consume" : "produce"));
                    r.put("proxy", proxy);
                } else {
                    r.put("proxy", null);
                }
                if (te.getKey().equals("direct")) {
                    directByScenario.put(se.getKey(), r);
                }
                if (te.getKey().equals("weft")) {
                    weftByScenario.put(se.getKey(), r);
                }
                results.add(r);
            }
        }
        for (Map<String, Object> r : results) {
            // Every target against the mirrored Weft target of the same run (collapsed vs mirrored, woven vs plain).
            Map<String, Object> w = weftByScenario.get((String) r.get("scenario"));
            if (w != null && !"weft".equals(r.get("target"))) {
                Map<String, Object> ratio = new LinkedHashMap<>();
                ratio.put("recordsPerSec", ratio(r.get("recordsPerSec"), w.get("recordsPerSec")));
                ratio.put("medianSliceRecordsPerSec", ratio(r.get("medianSliceRecordsPerSec"), w.get("medianSliceRecordsPerSec")));
                @SuppressWarnings("unchecked") Map<String, Object> l = (Map<String, Object>) r.get("latencyMicros");
                @SuppressWarnings("unchecked") Map<String, Object> wl = (Map<String, Object>) w.get("latencyMicros");
                for (String p : List.of("p50", "p99", "p999", "max")) {
                    ratio.put(p, ratio(l.get(p), wl.get(p)));
                }
                r.put("ratioToWeft", ratio);
            }
            Map<String, Object> d = directByScenario.get((String) r.get("scenario"));
            if (d == null) {
                continue;
            }
            Map<String, Object> ratio = new LinkedHashMap<>();
            ratio.put("recordsPerSec", ratio(r.get("recordsPerSec"), d.get("recordsPerSec")));
            ratio.put("mbPerSec", ratio(r.get("mbPerSec"), d.get("mbPerSec")));
            ratio.put("medianSliceRecordsPerSec", ratio(r.get("medianSliceRecordsPerSec"), d.get("medianSliceRecordsPerSec")));
            @SuppressWarnings("unchecked") Map<String, Object> l = (Map<String, Object>) r.get("latencyMicros");
            @SuppressWarnings("unchecked") Map<String, Object> dl = (Map<String, Object>) d.get("latencyMicros");
            for (String p : List.of("p50", "p99", "p999", "max")) {
                ratio.put(p, ratio(l.get(p), dl.get(p)));
            }
            r.put("ratioToDirect", ratio);
        }
        return results;
    }

    private static Double ratio(Object a, Object b) {
        if (a == null || b == null) {
            return null;
        }
        double x = ((Number) a).doubleValue();
        double y = ((Number) b).doubleValue();
        return y == 0 ? null : round(x / y);
    }

    /**
     * What went wrong, one line each, so that a run never hides it behind a figure: produce errors,
     * acknowledged records the concurrent consumer did not get, a catch-up read that did not get the
     * slice back within its bound (with the seconds it read nothing), proxy error counters, and WARN/ERROR
     * lines of a Weft process.
     */
    @SuppressWarnings("unchecked")
    static List<String> problems(List<Map<String, Object>> slices, Map<String, Object> proxyLogs) {
        List<String> out = new ArrayList<>();
        for (Map<String, Object> s : slices) {
            String where = s.get("target") + (Boolean.TRUE.equals(s.get("warmup")) ? " warm-up" : " round " + s.get("round")) + ": ";
            if (((Number) s.get("produceErrors")).longValue() > 0) {
                out.add(where + s.get("produceErrors") + " of " + s.get("sent") + " sends failed");
            }
            if (((Number) s.get("notConsumed")).longValue() > 0) {
                out.add(where + s.get("notConsumed") + " of " + s.get("acknowledged")
                        + " acknowledged records not received by the concurrent consumer within 30 s");
            }
            if (((Number) s.get("notReread")).longValue() > 0) {
                List<Long> perSecond = (List<Long>) s.get("rereadPerSecond");
                long idle = perSecond == null ? 0 : perSecond.stream().filter(n -> n == 0).count();
                out.add(where + "catch-up read got " + s.get("reread") + " of " + s.get("consumed") + " records back within its bound ("
                        + idle + " of " + (perSecond == null ? 0 : perSecond.size()) + " s with no record)");
            } else if (s.get("rereadPerSecond") instanceof List<?> perSecond && perSecond.size() > 1
                    && perSecond.subList(0, perSecond.size() - 1).contains(0L)) {
                long idle = perSecond.subList(0, perSecond.size() - 1).stream().filter(n -> Long.valueOf(0).equals(n)).count();
                out.add(where + "catch-up read stalled: " + idle + " s with no record before it got the slice back " + perSecond);
            }
            if (s.get("weftCounters") instanceof Map<?, ?> w && w.get("errors") instanceof Map<?, ?> e && !e.isEmpty()) {
                out.add(where + "proxy error counters (weft_errors_total) " + e);
            }
        }
        proxyLogs.forEach((name, v) -> {
            Map<String, Object> m = (Map<String, Object>) v;
            long warn = ((Number) m.get("warnLines")).longValue();
            long error = ((Number) m.get("errorLines")).longValue();
            if (warn + error > 0) {
                out.add(name + ": the Weft process logged " + warn + " WARN and " + error + " ERROR lines, first: "
                        + ((List<?>) m.get("firstLines")).stream().limit(3).toList());
            }
        });
        return out;
    }

    /** The median of {@code key} over the measured slices of {@code target}, or null if there are none. */
    private static Double median(List<Map<String, Object>> slices, String target, String key) {
        List<Double> v = new ArrayList<>();
        for (Map<String, Object> s : slices) {
            if (target.equals(s.get("target")) && !Boolean.TRUE.equals(s.get("warmup")) && s.get(key) instanceof Number n) {
                v.add(n.doubleValue());
            }
        }
        if (v.isEmpty()) {
            return null;
        }
        java.util.Collections.sort(v);
        int n = v.size();
        return round(n % 2 == 1 ? v.get(n / 2) : (v.get(n / 2 - 1) + v.get(n / 2)) / 2);
    }

    /** {@code /proc/loadavg}'s first three fields ("1.20 0.80 0.50"), or "unknown". */
    static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split(" +");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }

    /** Partition → leader broker id of {@code topic} on {@code cluster}, as the cluster's Metadata says. */
    private static Map<Integer, Integer> partitionLeaders(KafkaCluster cluster, String topic) throws Exception {
        Map<Integer, Integer> leaders = new java.util.TreeMap<>();
        var d = cluster.admin().describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic);
        d.partitions().forEach(p -> leaders.put(p.partition(), p.leader() == null ? -1 : p.leader().id()));
        return leaders;
    }

    /**
     * A few of the consumer's metrics: of the fetch manager the cumulative {@code fetch-total},
     * {@code records-consumed-total}, {@code bytes-consumed-total} and the windowed (2 × 30 s)
     * {@code fetch-latency-avg/max} in ms (a response that waits while the consumer is not polled, between
     * slices, counts as latency too), and the cumulative {@code connection-close-total} (a request that
     * timed out closes its connection) and {@code connection-creation-total}.
     */
    private static Map<String, Object> consumerMetrics(KafkaConsumer<byte[], byte[]> consumer) {
        Map<String, Object> m = new java.util.TreeMap<>();
        consumer.metrics().forEach((name, metric) -> {
            boolean fetch = name.group().equals("consumer-fetch-manager-metrics") && name.tags().size() == 1
                    && Set.of("fetch-latency-avg", "fetch-latency-max", "fetch-total", "records-consumed-total",
                            "bytes-consumed-total").contains(name.name());
            boolean conn = name.group().equals("consumer-metrics")
                    && Set.of("connection-close-total", "connection-creation-total").contains(name.name());
            if ((fetch || conn) && metric.metricValue() instanceof Double d) {
                m.put(name.name(), Double.isFinite(d) ? round(d) : null);
            }
        });
        return m;
    }

    /** The APIs whose upstream and client request counts a slice records. */
    private static final Set<String> SPLIT_APIS = Set.of("Produce", "Fetch");

    /**
     * The Weft process's counters that show what it did with the slice's requests (cumulative; see
     * {@link #counterDelta}): {@code upstreamRequests} = {@code weft_upstream_requests_total} of Produce
     * and Fetch by "cluster/broker" (a real broker id, or "any"), {@code clientRequests} =
     * {@code weft_requests_total} of Produce and Fetch (client requests), {@code clientRequestBytes} =
     * {@code weft_request_bytes_total} of Produce and Fetch (bytes the clients sent), {@code errors} =
     * {@code weft_errors_total} by "kind/api", {@code fetchDiscardedBytes}.
     */
    static Map<String, Object> weftCounters(WeftProcess w) {
        Map<String, Object> c = new LinkedHashMap<>();
        try {
            Map<String, List<WeftProcess.Sample>> scraped = w.scrape(); // one /metrics request for all of them
            Map<String, Object> upstream = new java.util.TreeMap<>();
            for (WeftProcess.Sample s : scraped.getOrDefault("weft_upstream_requests_total", List.of())) {
                String api = s.labels().get("api");
                if (SPLIT_APIS.contains(api)) {
                    @SuppressWarnings("unchecked") Map<String, Object> b = (Map<String, Object>) upstream.computeIfAbsent(
                            s.labels().get("cluster") + "/" + s.labels().get("broker"), k -> new java.util.TreeMap<>());
                    b.merge(api, (long) s.value(), (x, y) -> (Long) x + (Long) y);
                }
            }
            c.put("upstreamRequests", upstream);
            Map<String, Object> client = new java.util.TreeMap<>();
            for (WeftProcess.Sample s : scraped.getOrDefault("weft_requests_total", List.of())) {
                if (SPLIT_APIS.contains(s.labels().get("api"))) {
                    client.merge(s.labels().get("api"), (long) s.value(), (x, y) -> (Long) x + (Long) y);
                }
            }
            c.put("clientRequests", client);
            // What the clients sent (size prefix included): Produce and Fetch request bytes. A Fetch of a
            // session that is not the first carries only the partitions that changed (KIP-227); woven and
            // collapsed decline sessions, so every Fetch names every partition.
            Map<String, Object> clientBytes = new java.util.TreeMap<>();
            for (WeftProcess.Sample s : scraped.getOrDefault("weft_request_bytes_total", List.of())) {
                if (SPLIT_APIS.contains(s.labels().get("api"))) {
                    clientBytes.merge(s.labels().get("api"), (long) s.value(), (x, y) -> (Long) x + (Long) y);
                }
            }
            c.put("clientRequestBytes", clientBytes);
            // Record bytes the clients got back (Fetch answers), next to fetchDiscardedBytes (split parts
            // that answered after the client had been answered, and are fetched again).
            long fetchBytes = 0;
            for (WeftProcess.Sample s : scraped.getOrDefault("weft_response_bytes_total", List.of())) {
                if ("Fetch".equals(s.labels().get("api"))) {
                    fetchBytes += (long) s.value();
                }
            }
            c.put("clientFetchResponseBytes", fetchBytes);
            Map<String, Object> errors = new java.util.TreeMap<>();
            for (WeftProcess.Sample s : scraped.getOrDefault("weft_errors_total", List.of())) {
                if (s.value() > 0) {
                    errors.merge(s.labels().get("error") + "/" + s.labels().get("api"), (long) s.value(), (x, y) -> (Long) x + (Long) y);
                }
            }
            c.put("errors", errors);
            long discarded = 0;
            for (WeftProcess.Sample s : scraped.getOrDefault("weft_fetch_discarded_bytes_total", List.of())) {
                discarded += (long) s.value();
            }
            c.put("fetchDiscardedBytes", discarded);
        } catch (IOException e) {
            c.put("scrapeError", e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            c.put("scrapeError", e.toString());
        }
        return c;
    }

    /** {@code after - before}, recursively over nested maps of longs; zero entries left out. */
    @SuppressWarnings("unchecked")
    static Map<String, Object> counterDelta(Map<String, Object> before, Map<String, Object> after) {
        Map<String, Object> out = new LinkedHashMap<>();
        for (var e : after.entrySet()) {
            Object b = before == null ? null : before.get(e.getKey());
            if (e.getValue() instanceof Map<?, ?> m) {
                out.put(e.getKey(), counterDelta(b instanceof Map<?, ?> bm ? (Map<String, Object>) bm : null, (Map<String, Object>) m));
            } else if (e.getValue() instanceof Long v) {
                long d = v - (b instanceof Long bl ? bl : 0L);
                if (d != 0 || e.getKey().endsWith("Bytes")) {
                    out.put(e.getKey(), d);
                }
            } else {
                out.put(e.getKey(), e.getValue());
            }
        }
        return out;
    }

    /**
     * {@code delta} with {@code fetchRequestBytesPerRequest}: the clients' Fetch request bytes over their Fetch
     * requests in it (absent when there was no Fetch), the figure fetch sessions shrink.
     */
    @SuppressWarnings("unchecked")
    static Map<String, Object> withMeans(Map<String, Object> delta) {
        if (delta.get("clientRequestBytes") instanceof Map<?, ?> bytes && delta.get("clientRequests") instanceof Map<?, ?> requests
                && bytes.get("Fetch") instanceof Long b && requests.get("Fetch") instanceof Long n && n > 0) {
            delta.put("fetchRequestBytesPerRequest", round((double) b / n));
        }
        return delta;
    }

    /** The sum of the slices' {@code weftCounters} deltas of {@code target}. */
    @SuppressWarnings("unchecked")
    static Map<String, Object> sumCounters(List<Map<String, Object>> slices, String target) {
        Map<String, Object> sum = new LinkedHashMap<>();
        for (Map<String, Object> s : slices) {
            if (target.equals(s.get("target")) && !Boolean.TRUE.equals(s.get("warmup")) && s.get("weftCounters") instanceof Map<?, ?> m) {
                addInto(sum, (Map<String, Object>) m);
            }
        }
        return sum;
    }

    @SuppressWarnings("unchecked")
    private static void addInto(Map<String, Object> acc, Map<String, Object> x) {
        for (var e : x.entrySet()) {
            if (e.getValue() instanceof Map<?, ?> m) {
                addInto((Map<String, Object>) acc.computeIfAbsent(e.getKey(), k -> new java.util.TreeMap<>()), (Map<String, Object>) m);
            } else if (e.getValue() instanceof Long v) {
                acc.merge(e.getKey(), v, (a, b) -> (Long) a + (Long) b);
            }
        }
    }

    private static double round(double v) {
        return Math.round(v * 1000) / 1000.0;
    }

    /** A producer and a consumer (assigned every partition) for one target, kept open across slices. */
    private static final class Clients implements AutoCloseable {
        final Target target;
        final KafkaProducer<byte[], byte[]> producer;
        final KafkaConsumer<byte[], byte[]> consumer;
        final List<TopicPartition> partitions = new ArrayList<>();

        Clients(Target t, Options o) {
            this.target = t;
            Map<String, Object> pc = new HashMap<>();
            pc.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, t.bootstrap());
            pc.put(ProducerConfig.ACKS_CONFIG, "all");
            pc.put(ProducerConfig.LINGER_MS_CONFIG, 5);
            pc.put(ProducerConfig.BATCH_SIZE_CONFIG, 65536);
            pc.put(ProducerConfig.BUFFER_MEMORY_CONFIG, 16L << 20);
            String id = t.name().replace(':', '-').replace('!', '-'); // weft:NAME, branch-copy!kill: plain client ids (JMX names)
            pc.put(ProducerConfig.CLIENT_ID_CONFIG, "load-" + id);
            producer = new KafkaProducer<>(pc, new ByteArraySerializer(), new ByteArraySerializer());
            Map<String, Object> cc = new HashMap<>();
            cc.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, t.bootstrap());
            cc.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
            cc.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000);
            cc.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, 64 << 20);
            cc.put(ConsumerConfig.CLIENT_ID_CONFIG, "load-consumer-" + id);
            consumer = new KafkaConsumer<>(cc, new ByteArrayDeserializer(), new ByteArrayDeserializer());
            for (int p = 0; p < o.partitions(); p++) {
                partitions.add(new TopicPartition(t.topic(), p));
            }
            consumer.assign(partitions);
            consumer.seekToEnd(partitions);
            partitions.forEach(consumer::position);
        }

        @Override
        public void close() {
            producer.close(Duration.ofSeconds(5));
            consumer.close(Duration.ofSeconds(5));
        }
    }

    /**
     * One slice of a target ({@link #slice}); for a branch target also its branch counters over the slice (read
     * again once the branch topic stopped growing), the records the branch topic got in it and, for a
     * {@code NAME!kill} / {@code NAME!stop} target's measured slices, the fault of the branch cluster and what
     * reached the branch after it came back.
     */
    private static void targetSlice(Options o, Duration duration, Clients c, TargetTotals totals, Live live,
                                    Map<String, Object> sl, WeftProcess w, BranchTargets.Spec branch, KafkaCluster second,
                                    boolean measured) throws Exception {
        java.util.function.Supplier<Map<String, Object>> counters = w == null ? null : () -> weftCounters(w);
        if (branch == null) {
            slice(o, duration, c, totals, live, sl, counters, null);
            return;
        }
        String topic = branch.branchTopic();
        Map<TopicPartition, Long> from = BranchTargets.endOffsets(second, topic, o.partitions());
        BranchTargets.deleteBefore(second, from);
        Map<String, Object> b0 = BranchTargets.counters(w);
        // Faults in the measured slices only: the warm-up stays a healthy one.
        BranchTargets.Fault fault = measured && branch.fault() != null
                ? new BranchTargets.Fault(branch.fault(), second, o.branchFaultAt(), o.branchFaultFor()) : null;
        Map<String, Object> faultInfo = null;
        try {
            slice(o, duration, c, totals, live, sl, counters, fault == null ? null : fault::start);
        } finally {
            if (fault != null) {
                faultInfo = fault.finish();
            }
        }
        Map<TopicPartition, Long> to = BranchTargets.settledEndOffsets(second, topic, o.partitions(), Duration.ofSeconds(15));
        Map<String, Object> delta = counterDelta(b0, BranchTargets.counters(w));
        long copied = BranchTargets.sum(to) - BranchTargets.sum(from);
        long acked = ((Number) sl.get("acknowledged")).longValue();
        sl.put("branchCounters", delta);
        sl.put("branchRecords", copied);
        sl.put("branchRecordsPerAcknowledged", acked == 0 ? null : round((double) copied / acked));
        String catchUpLine = "";
        if (fault != null) {
            sl.put("branchFault", faultInfo);
            Map<String, Object> cu = BranchTargets.catchUp(second, from, to, fault, ((Number) sl.get("sent")).longValue(), o.rate(), o.fixed(),
                    duration);
            sl.put("branchCatchUp", cu);
            catchUpLine = "; fault " + faultInfo.get("kind") + " at " + faultInfo.get("faultAtSec") + " s, branch back at "
                    + faultInfo.get("recoveredAtSec") + " s; branch records by production time " + cu.get("branchRecordsProduced")
                    + " vs primary sent " + cu.get("primarySentProduced") + ", first after recovery produced "
                    + orDash(cu.get("firstAfterRecoveryMs")) + " ms after it";
        }
        System.err.println("load:   " + c.target.name() + " branch: " + copied + " records on " + topic + " for " + acked
                + " acknowledged, copies " + delta.get("copies") + ", writer " + delta.get("records") + catchUpLine);
    }

    /** One slice: produce for {@code duration} while consuming, then re-read the slice (catch-up). */
    private static void slice(Options o, Duration duration, Clients c, TargetTotals totals, Live live,
                              Map<String, Object> sliceOut, java.util.function.Supplier<Map<String, Object>> counters,
                              java.util.function.LongConsumer onStart)
            throws Exception {
        Map<String, Object> counters0 = counters == null ? null : counters.get();
        // Each slice measures its own records: a consumer that is still behind (an earlier slice's records
        // it did not get within its 30 s, recorded there as notConsumed) starts from the end, so those
        // records do not count, late, in this slice.
        c.consumer.seekToEnd(c.partitions);
        Map<TopicPartition, Long> startOffsets = new HashMap<>();
        for (TopicPartition tp : c.partitions) {
            startOffsets.put(tp, c.consumer.position(tp));
        }
        deleteBefore(c, startOffsets);
        Histogram produceHist = Reports.micros();
        Histogram e2eHist = Reports.micros();
        AtomicLong errors = new AtomicLong();
        AtomicLong lastAckNanos = new AtomicLong();
        // The proxy's use per phase: produce (with the concurrent consumer), then the catch-up read.
        long pid = c.target.proxyPid();
        ProcMeter produceMeter = pid > 0 ? ProcMeter.start(pid) : null;
        long[] consumed = new long[1];
        long[] lastConsumeNanos = new long[1];
        StopFlag stop = new StopFlag();

        Thread consumerThread = new Thread(() -> {
            while (true) {
                ConsumerRecords<byte[], byte[]> recs = c.consumer.poll(Duration.ofMillis(100));
                long now = System.nanoTime();
                for (ConsumerRecord<byte[], byte[]> r : recs) {
                    long lat = (now - Payload.intendedNanos(r.value())) / 1000;
                    e2eHist.recordValue(Math.max(0, Math.min(lat, e2eHist.getHighestTrackableValue())));
                    live.e2e.recordValue(Math.max(0, Math.min(lat, 3_600_000_000L)));
                }
                if (!recs.isEmpty()) {
                    consumed[0] += recs.count();
                    lastConsumeNanos[0] = now;
                }
                if (stop.set && (consumed[0] >= stop.target || System.nanoTime() > stop.deadline)) {
                    return;
                }
            }
        }, "load-consumer-" + c.target.name());
        consumerThread.start();

        long start = System.nanoTime();
        long end = start + duration.toNanos();
        if (onStart != null) {
            onStart.accept(start); // a branch fault's schedule
        }
        boolean json = c.target.json();
        long period = o.fixed() ? Math.max(1, 1_000_000_000L / o.rate()) : 0;
        long seq = 0;
        String topic = c.target.topic();
        while (true) {
            long intended;
            if (o.fixed()) {
                intended = start + seq * period;
                if (intended >= end) {
                    break;
                }
                long wait = intended - System.nanoTime();
                if (wait > 0) {
                    LockSupport.parkNanos(wait);
                    while (System.nanoTime() < intended) {
                        Thread.onSpinWait();
                    }
                }
            } else {
                intended = System.nanoTime();
                if (intended >= end) {
                    break;
                }
            }
            final long sentFor = intended;
            byte[] value = json ? Payload.json(o.recordBytes(), intended, seq) : Payload.create(o.recordBytes(), intended, seq);
            c.producer.send(new ProducerRecord<>(topic, value), (md, ex) -> {
                long now = System.nanoTime();
                if (ex != null) {
                    errors.incrementAndGet();
                    return;
                }
                produceHist.recordValue(Math.min((now - sentFor) / 1000, produceHist.getHighestTrackableValue()));
                live.acked.incrementAndGet();
                lastAckNanos.set(now);
            });
            seq++;
        }
        c.producer.flush();
        long produceEnd = Math.max(lastAckNanos.get(), start + 1);
        long acked = live.acked.get();
        stop.target = acked;
        stop.deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        stop.set = true;
        consumerThread.join();
        long e2eEnd = Math.max(lastConsumeNanos[0], start + 1);
        ProcMeter.Usage produceUsage = produceMeter == null ? null : produceMeter.stop((acked + consumed[0]) * (long) o.recordBytes());

        Map<String, Object> consumerAfterE2e = consumerMetrics(c.consumer);
        Map<String, Object> counters1 = counters == null ? null : counters.get();

        // Catch-up read: seek back to the slice's first offsets and read it again, bounded by the slice time.
        System.err.println("load:   " + c.target.name() + " catch-up read from " + java.time.LocalTime.now().withNano(0));
        ProcMeter consumeMeter = pid > 0 ? ProcMeter.start(pid) : null;
        startOffsets.forEach(c.consumer::seek);
        Histogram pollHist = Reports.micros();
        long reread = 0;
        long readStart = System.nanoTime();
        long readDeadline = readStart + Math.max(duration.toNanos(), Duration.ofSeconds(5).toNanos());
        long readEnd = readStart;
        // records re-read in each second of the catch-up read (where a stall shows)
        List<Long> rereadPerSecond = new ArrayList<>();
        while (reread < consumed[0] && System.nanoTime() < readDeadline) {
            long p0 = System.nanoTime();
            ConsumerRecords<byte[], byte[]> recs = c.consumer.poll(Duration.ofMillis(200));
            int second = (int) ((System.nanoTime() - readStart) / 1_000_000_000L);
            while (rereadPerSecond.size() <= second) {
                rereadPerSecond.add(0L);
            }
            if (!recs.isEmpty()) {
                readEnd = System.nanoTime();
                pollHist.recordValue((readEnd - p0) / 1000);
                reread += recs.count();
                rereadPerSecond.set(second, rereadPerSecond.get(second) + recs.count());
            }
        }
        ProcMeter.Usage consumeUsage = consumeMeter == null ? null : consumeMeter.stop(reread * (long) o.recordBytes());
        Map<String, Object> counters2 = counters == null ? null : counters.get();

        if (sliceOut != null) {
            sliceOut.put("produceRecordsPerSec", round(acked / ((produceEnd - start) / 1e9)));
            sliceOut.put("e2eRecordsPerSec", round(consumed[0] / ((e2eEnd - start) / 1e9)));
            sliceOut.put("consumeRecordsPerSec", round(reread / (Math.max(readEnd - readStart, 1) / 1e9)));
            sliceOut.put("produceP50Micros", produceHist.getTotalCount() == 0 ? 0 : produceHist.getValueAtPercentile(50));
            sliceOut.put("produceP99Micros", produceHist.getTotalCount() == 0 ? 0 : produceHist.getValueAtPercentile(99));
            sliceOut.put("e2eP99Micros", e2eHist.getTotalCount() == 0 ? 0 : e2eHist.getValueAtPercentile(99));
            sliceOut.put("sent", seq);
            sliceOut.put("acknowledged", acked);
            sliceOut.put("produceErrors", errors.get());
            sliceOut.put("consumed", consumed[0]);
            sliceOut.put("reread", reread);
            // Acknowledged records the concurrent consumer never received (within 30 s after the last ack),
            // and those the catch-up read did not get back: 0 and 0 unless records went missing or stalled.
            sliceOut.put("notConsumed", Math.max(0, acked - consumed[0]));
            sliceOut.put("notReread", Math.max(0, consumed[0] - reread));
            if (produceUsage != null) {
                sliceOut.put("proxyCpuSeconds", round(produceUsage.cpuSeconds() + consumeUsage.cpuSeconds()));
                Map<String, Object> usage = new LinkedHashMap<>();
                usage.put("produce", produceUsage.toMap("produce"));
                usage.put("consume", consumeUsage.toMap("consume"));
                sliceOut.put("proxyUsage", usage);
            }
            sliceOut.put("loadAverageAfter", loadAverage());
            // The consumer's own view (kafka-clients metrics, 30 s windows): fetch latency, and connections it
            // closed (a request that timed out closes its connection) at the end of e2e and of the re-read.
            sliceOut.put("consumerAfterE2e", consumerAfterE2e);
            sliceOut.put("consumerAfterReread", consumerMetrics(c.consumer));
            sliceOut.put("rereadPerSecond", rereadPerSecond);
            if (counters != null) {
                // The proxy's counters over the slice, and split at the end of the e2e part (produce + the
                // concurrent consumer) / the catch-up re-read.
                sliceOut.put("weftCounters", withMeans(counterDelta(counters0, counters2)));
                sliceOut.put("weftCountersE2e", withMeans(counterDelta(counters0, counters1)));
                sliceOut.put("weftCountersReread", withMeans(counterDelta(counters1, counters2)));
            }
        }
        if (totals != null) {
            totals.sent += seq;
            totals.notConsumed += Math.max(0, acked - consumed[0]);
            totals.notReread += Math.max(0, consumed[0] - reread);
            add(totals.scenario.get("produce"), produceHist, acked, (produceEnd - start) / 1e9);
            add(totals.scenario.get("e2e"), e2eHist, consumed[0], (e2eEnd - start) / 1e9);
            add(totals.scenario.get("consume"), pollHist, reread, Math.max(readEnd - readStart, 1) / 1e9);
            if (produceUsage != null) {
                totals.produceUsage = (totals.produceUsage == null ? ProcMeter.Usage.NONE : totals.produceUsage).plus(produceUsage);
                totals.consumeUsage = (totals.consumeUsage == null ? ProcMeter.Usage.NONE : totals.consumeUsage).plus(consumeUsage);
            }
            totals.produceErrors += errors.get();
        }
        if (totals != null || sliceOut != null) {
            System.err.printf("load:   %s produced %d (%.0f/s, p99 %d us), consumed %d (e2e p99 %d us), re-read %d (%.0f/s), errors %d%n",
                    c.target.name(), acked, acked / ((produceEnd - start) / 1e9), produceHist.getValueAtPercentile(99),
                    consumed[0], e2eHist.getValueAtPercentile(99), reread, reread / (Math.max(readEnd - readStart, 1) / 1e9), errors.get());
        }
    }

    /**
     * Creates the topic of a target of the user's ({@code name=host:port}, {@code --peer}) through its own
     * bootstrap, so it lands on whatever cluster that leads to (RF min(3, the brokers it shows)); a topic
     * left by an earlier run is used as it is. Returns once every partition has a leader.
     */
    private static void createTopicThrough(Target t, int partitions, Map<String, String> configs) throws Exception {
        int brokers = t.admin().describeCluster().nodes().get(30, TimeUnit.SECONDS).size();
        try {
            t.admin().createTopics(List.of(new NewTopic(t.realTopic(), partitions, (short) Math.min(3, brokers)).configs(configs)))
                    .all().get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof org.apache.kafka.common.errors.TopicExistsException)) {
                throw new IllegalStateException("target " + t.name() + ": cannot create " + t.realTopic() + " through "
                        + t.bootstrap() + ": " + e.getCause().getMessage(), e.getCause());
            }
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        String seen = "nothing yet";
        while (System.nanoTime() < deadline) {
            try {
                var d = t.admin().describeTopics(List.of(t.realTopic())).allTopicNames().get(10, TimeUnit.SECONDS).get(t.realTopic());
                if (d.partitions().size() >= partitions && d.partitions().stream().allMatch(p -> p.leader() != null)) {
                    return;
                }
                seen = d.partitions().size() + " partitions, " + d.partitions().stream().filter(p -> p.leader() != null).count() + " with a leader";
            } catch (ExecutionException e) {
                seen = e.getCause().toString(); // not visible yet
            }
            TimeUnit.MILLISECONDS.sleep(100);
        }
        throw new IllegalStateException("target " + t.name() + ": " + t.realTopic() + " through " + t.bootstrap() + " has no leader for each of "
                + partitions + " partitions after 30 s (" + seen + ")");
    }

    /**
     * Deletes the target's records before {@code offsets} (earlier slices, by the partitions clients use) on
     * its real topic, each at its physical partition (a partition keeps its offsets through a partition-weave
     * router); best effort.
     */
    private static void deleteBefore(Clients c, Map<TopicPartition, Long> offsets) {
        Map<TopicPartition, RecordsToDelete> delete = new HashMap<>();
        offsets.forEach((tp, offset) -> {
            if (offset > 0) {
                delete.put(new TopicPartition(c.target.realTopic(), c.target.physicalPartition().applyAsInt(tp.partition())),
                        RecordsToDelete.beforeOffset(offset));
            }
        });
        if (delete.isEmpty()) {
            return;
        }
        try {
            c.target.admin().deleteRecords(delete).all().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            System.err.println("load: could not delete earlier records of " + c.target.realTopic() + ": " + e);
        }
    }

    private static final class StopFlag {
        volatile boolean set;
        volatile long target;
        volatile long deadline;
    }

    private static void add(Totals t, Histogram h, long records, double seconds) {
        t.hist.add(h);
        t.records += records;
        t.seconds += seconds;
    }

    /** The summary: a row per target and scenario; the proxy's phase figures (see the README) beside CPU s/GB. */
    @SuppressWarnings("unchecked")
    private static void printTable(Map<String, Object> report) {
        String row = "%-10s %-8s %12s %12s %9s %10s %10s %10s %12s %9s %10s %9s %9s %9s %9s %8s %-24s %s%n";
        System.out.printf(row, "target", "scenario", "records/s", "median/slice", "MB/s", "p50 us", "p99 us", "p99.9 us", "max us",
                "cpu s/GB", "ph cpu/GB", "sysc/MB", "ctxsw/MB", "syscr/MB", "syscw/MB", "rss MiB", "x direct", "x weft");
        Map<String, List<String>> absent = new LinkedHashMap<>();
        for (Map<String, Object> r : (List<Map<String, Object>>) report.get("results")) {
            Map<String, Object> l = (Map<String, Object>) r.get("latencyMicros");
            Map<String, Object> p = (Map<String, Object>) r.get("proxy");
            Map<String, Object> ph = p == null ? Map.of() : (Map<String, Object>) p.get("phase");
            Map<String, Object> ratio = (Map<String, Object>) r.get("ratioToDirect");
            Map<String, Object> toWeft = (Map<String, Object>) r.get("ratioToWeft");
            if (ph.get("syscallsAbsent") != null) {
                absent.computeIfAbsent((String) ph.get("syscallsAbsent"), k -> new ArrayList<>()).add(r.get("target") + "/" + r.get("scenario"));
            }
            Object rss = p == null || p.get("peakRssBytes") == null ? null : ((Number) p.get("peakRssBytes")).longValue() >> 20;
            System.out.printf(row, r.get("target"), r.get("scenario"),
                    r.get("recordsPerSec"), r.get("medianSliceRecordsPerSec"), r.get("mbPerSec"), l.get("p50"), l.get("p99"),
                    l.get("p999"), l.get("max"), p == null ? "-" : p.get("cpuSecondsPerGB"), orDash(ph.get("cpuSecondsPerGB")),
                    ph.containsKey("syscallsAbsent") ? "absent" : orDash(ph.get("syscallsPerMB")), orDash(ph.get("contextSwitchesPerMB")),
                    orDash(ph.get("syscrPerMB")), orDash(ph.get("syscwPerMB")), orDash(rss),
                    ratio == null ? "-" : "thr " + ratio.get("recordsPerSec") + " p99 " + ratio.get("p99"),
                    toWeft == null ? "-" : "thr " + toWeft.get("recordsPerSec") + " p99 " + toWeft.get("p99"));
        }
        absent.forEach((why, rows) -> System.out.println("load: syscalls/MB absent for " + String.join(", ", rows) + ": " + why));
    }

    private static Object orDash(Object v) {
        return v == null ? "-" : v;
    }

    private static void deleteQuietly(Path dir) {
        try (var s = Files.walk(dir)) {
            s.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // best effort
        }
    }
}
