package dev.weft.testkit.mirror;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A real Kafka MirrorMaker 2 (Kafka 4.1.1, dedicated mode) replicating one direction,
 * {@code source->target}, in a JVM of its own, for tests of Weft's connection switching.
 *
 * <pre>{@code
 * try (MirrorMaker mm2 = MirrorMaker.builder()
 *         .source("east", east.bootstrapServers())
 *         .target("west", west.bootstrapServers())
 *         .topics("orders.*")
 *         .build()
 *         .start()) {
 *     ...  // records produced on east appear in topic orders on west
 * }
 * }</pre>
 *
 * <p>The child is {@code java -cp <MM2 class path> MirrorMakerMain <dir>/mm2.properties}, run by the JDK
 * that runs this JVM. Its class path comes from module {@code mm2-runtime} (see
 * {@link MirrorMakerClassPath}), so MM2 runs on the Kafka line it was released with while Weft's own
 * class path keeps Weft's. The properties are {@link MirrorMakerSettings}: identity replication (same
 * topic names), offset syncs and checkpoints on, group offset sync off, replication factor 1 by default,
 * 1 s refresh intervals.
 *
 * <p>Topic names to expect, with the identity policy: {@code heartbeats} and
 * {@code <source>.checkpoints.internal} on the target, {@code mm2-offset-syncs.<target>.internal} on the
 * source (see {@link #checkpointsTopic()} and {@link #offsetSyncsTopic()}).
 *
 * <p>{@link #start()} returns once MM2's source task runs, so at least one topic matching the regex
 * must exist on the source by then. The child's output is relayed to this JVM's log (logger
 * {@code dev.weft.testkit.mirror.MirrorMaker}, lines tagged {@code [mm2 source->target]}) and its last
 * lines are quoted when it fails to start. A JVM shutdown hook kills children left running, and a
 * child exits by itself when this JVM dies without running hooks (see {@link MirrorMakerMain}).
 */
public final class MirrorMaker implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(MirrorMaker.class);
    /** Logged by Connect's AbstractWorkerSourceTask once a task polls; MM2 names the task after its class. */
    static final String SOURCE_TASK_RUNNING = "Source task finished initialization and start";
    private static final String SOURCE_CONNECTOR = "MirrorSourceConnector";
    private static final int TAIL_LINES = 80;
    private static final Duration CLOSE_GRACE = Duration.ofSeconds(30);
    private static final Duration KILL_GRACE = Duration.ofSeconds(30);

    private final MirrorMakerSettings settings;
    private final String tag;
    /** Last lines of the child's output; guarded by itself. */
    private final Deque<String> tail = new ArrayDeque<>();
    /** {@link #nextOutputLine} waiters, completed by the output pump's thread. */
    private final List<Map.Entry<java.util.function.Predicate<String>, CompletableFuture<String>>> lineWatchers =
            new java.util.concurrent.CopyOnWriteArrayList<>();

    private Path directory;
    private Process process;
    private Thread outputPump;

    private MirrorMaker(MirrorMakerSettings settings) {
        this.settings = settings;
        this.tag = "mm2 " + settings.sourceAlias() + "->" + settings.targetAlias();
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Starts the child and returns once MM2's source task is running.
     *
     * @throws IllegalStateException if the child exits or is not replicating within the start timeout;
     *                               the message quotes its last log lines
     */
    public synchronized MirrorMaker start() {
        if (process != null) {
            throw new IllegalStateException(tag + " was started already");
        }
        synchronized (tail) {
            tail.clear();
        }
        try {
            directory = Files.createTempDirectory("weft-mm2-");
            Path propertiesFile = directory.resolve("mm2.properties");
            Files.writeString(propertiesFile, settings.render(), StandardCharsets.UTF_8);
            process = new ProcessBuilder(command(propertiesFile))
                .directory(directory.toFile())
                .redirectErrorStream(true)
                .start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + tag, e);
        }
        dev.weft.testkit.ChildProcesses.track(process);
        Process child = process;
        CompletableFuture<String> running = new CompletableFuture<>();
        outputPump = Thread.ofPlatform().name("weft-testkit-mm2-output").daemon()
            .start(() -> pumpOutput(child, running));
        Duration timeout = settings.startTimeout();
        try {
            String line = running.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            LOG.info("{} is replicating (pid {}): {}", tag, child.pid(), line);
            return this;
        } catch (TimeoutException e) {
            kill();
            throw new IllegalStateException(tag + ": MirrorMaker 2's source task was not running within " + timeout
                + " (is there a topic matching '" + settings.topicsRegex() + "' on " + settings.sourceAlias()
                + "?); its last output:\n" + tailText(), e);
        } catch (ExecutionException e) {
            String exit = exitText(child);
            kill();
            throw new IllegalStateException(tag + ": MirrorMaker 2 exited before it was replicating" + exit
                + "; its last output:\n" + tailText(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            kill();
            throw new IllegalStateException("interrupted while starting " + tag, e);
        }
    }

    /** Stops MM2 politely (SIGTERM runs its shutdown hook), then forcibly after a grace period. */
    @Override
    public synchronized void close() {
        if (process == null) {
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(CLOSE_GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
                LOG.warn("{} did not stop within {} of SIGTERM; killing it", tag, CLOSE_GRACE);
                process.destroyForcibly();
                process.waitFor(KILL_GRACE.toMillis(), TimeUnit.MILLISECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
        reap();
    }

    /** SIGKILL: replication stops at once, nothing is flushed, no offset or sync is committed on the way out. */
    public synchronized void kill() {
        if (process == null) {
            return;
        }
        process.destroyForcibly();
        try {
            if (!process.waitFor(KILL_GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
                LOG.warn("{} (pid {}) still alive after SIGKILL", tag, process.pid());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        reap();
    }

    public synchronized boolean isAlive() {
        return process != null && process.isAlive();
    }

    public String sourceAlias() {
        return settings.sourceAlias();
    }

    public String targetAlias() {
        return settings.targetAlias();
    }

    /** Where MM2 writes checkpoints: on the target, {@code <source>.checkpoints.internal}. */
    public String checkpointsTopic() {
        return settings.sourceAlias() + ".checkpoints.internal";
    }

    /**
     * Where MM2 writes offset syncs: on the source (MM2's default {@code offset-syncs.topic.location}),
     * {@code mm2-offset-syncs.<target>.internal}.
     */
    public String offsetSyncsTopic() {
        return "mm2-offset-syncs." + settings.targetAlias() + ".internal";
    }

    /** The properties MM2 runs with (a copy). */
    public Map<String, String> properties() {
        return new LinkedHashMap<>(settings.properties());
    }

    /** The child's last output lines, oldest first. */
    public String lastOutput() {
        return tailText();
    }

    /**
     * Completes with the first line MM2 writes from now on that {@code matches} (call it before
     * {@link #start()} to see every line): for waiting on what MM2 only logs, such as the groups its
     * checkpoint task was started with.
     */
    public CompletableFuture<String> nextOutputLine(java.util.function.Predicate<String> matches) {
        CompletableFuture<String> line = new CompletableFuture<>();
        lineWatchers.add(Map.entry(matches, line));
        return line;
    }

    private List<String> command(Path propertiesFile) {
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command()
            .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        command.add("-Xmx" + settings.heap());
        command.add("-XX:+ExitOnOutOfMemoryError");
        command.add("-Djava.awt.headless=true");
        // slf4j-simple (on MM2's class path): one line per event on standard output, relayed below.
        command.add("-Dorg.slf4j.simpleLogger.logFile=System.out");
        command.add("-Dorg.slf4j.simpleLogger.showDateTime=true");
        command.add("-Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS");
        command.add("-Dorg.slf4j.simpleLogger.showShortLogName=true");
        command.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=info");
        // Client and config dumps run to hundreds of lines per client; warnings are still shown.
        command.add("-Dorg.slf4j.simpleLogger.log.org.apache.kafka.clients=warn");
        command.add("-Dorg.slf4j.simpleLogger.log.org.apache.kafka.common=warn");
        command.add("-Dorg.slf4j.simpleLogger.log.org.eclipse.jetty=warn");
        command.add("-Dorg.slf4j.simpleLogger.log.org.reflections=warn");
        command.add("-cp");
        command.add(MirrorMakerClassPath.resolve());
        command.add(MirrorMakerMain.class.getName());
        command.add(propertiesFile.toString());
        return command;
    }

    private void pumpOutput(Process child, CompletableFuture<String> running) {
        try (BufferedReader out = new BufferedReader(
                new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = out.readLine()) != null) {
                LOG.info("[{}] {}", tag, line);
                synchronized (tail) {
                    if (tail.size() == TAIL_LINES) {
                        tail.removeFirst();
                    }
                    tail.addLast(line);
                }
                for (Map.Entry<java.util.function.Predicate<String>, CompletableFuture<String>> w : lineWatchers) {
                    if (w.getKey().test(line) && w.getValue().complete(line)) {
                        lineWatchers.remove(w);
                    }
                }
                if (line.contains(SOURCE_TASK_RUNNING) && line.contains(SOURCE_CONNECTOR)) {
                    running.complete(line);
                }
            }
        } catch (IOException e) {
            LOG.debug("{}: output stream ended with an error", tag, e);
        } finally {
            running.completeExceptionally(new IllegalStateException("end of MirrorMaker 2's output"));
        }
    }

    /** Forgets an exited child: joins its output pump, closes its pipes, removes its directory. */
    private void reap() {
        if (process == null || process.isAlive()) {
            return;
        }
        dev.weft.testkit.ChildProcesses.reap(process, outputPump, KILL_GRACE, tag);
        outputPump = null;
        LOG.info("{} stopped (exit code {})", tag, process.exitValue());
        process = null;
        deleteDirectory();
    }

    private void deleteDirectory() {
        if (directory == null) {
            return;
        }
        try (var paths = Files.walk(directory)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            LOG.debug("{}: cannot delete {}", tag, directory, e);
        }
        directory = null;
    }

    private String tailText() {
        synchronized (tail) {
            return String.join("\n", tail);
        }
    }

    private static String exitText(Process child) {
        try {
            return child.waitFor(5, TimeUnit.SECONDS) ? " (exit code " + child.exitValue() + ")" : "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }

    @Override
    public synchronized String toString() {
        return "MirrorMaker[" + tag + (isAlive() ? ", pid " + process.pid() + "]" : ", stopped]");
    }

    /** Settings of a {@link MirrorMaker}; only source and target are required. */
    public static final class Builder {
        private String sourceAlias;
        private String sourceBootstrap;
        private String targetAlias;
        private String targetBootstrap;
        private String topicsRegex = ".*";
        private String groupsRegex = ".*";
        private int replicationFactor = 1;
        private long offsetLagMax = 100;
        private Duration emitCheckpointsInterval = Duration.ofSeconds(1);
        private Duration refreshInterval = Duration.ofSeconds(1);
        private Duration offsetFlushInterval = Duration.ofSeconds(1);
        private final Map<String, String> extraProperties = new LinkedHashMap<>();
        private String heap = "384m";
        private Duration startTimeout = Duration.ofSeconds(90);

        private Builder() {
        }

        /** The cluster read from, such as {@code east}. */
        public Builder source(String alias, String bootstrapServers) {
            this.sourceAlias = alias;
            this.sourceBootstrap = bootstrapServers;
            return this;
        }

        /** The cluster written to, such as {@code west}. */
        public Builder target(String alias, String bootstrapServers) {
            this.targetAlias = alias;
            this.targetBootstrap = bootstrapServers;
            return this;
        }

        /** Regex of the source topics to replicate ({@code <source>-><target>.topics}); default all. */
        public Builder topics(String regex) {
            this.topicsRegex = regex;
            return this;
        }

        /** Regex of the consumer groups to checkpoint ({@code groups}); default all. */
        public Builder groups(String regex) {
            this.groupsRegex = regex;
            return this;
        }

        /** Of replicated and internal topics; at most the brokers of the smaller cluster. Default 1. */
        public Builder replicationFactor(int factor) {
            this.replicationFactor = factor;
            return this;
        }

        /** {@code offset.lag.max}: an offset sync at least every this many records per partition. Default 100. */
        public Builder offsetLagMax(long records) {
            this.offsetLagMax = records;
            return this;
        }

        /** {@code emit.checkpoints.interval.seconds}, whole seconds. Default 1 s. */
        public Builder emitCheckpointsInterval(Duration interval) {
            this.emitCheckpointsInterval = interval;
            return this;
        }

        /** Topic, group and heartbeat intervals, whole seconds. Default 1 s. */
        public Builder refreshInterval(Duration interval) {
            this.refreshInterval = interval;
            return this;
        }

        /** {@code offset.flush.interval.ms}: also how often held-back offset syncs are published. Default 1 s. */
        public Builder offsetFlushInterval(Duration interval) {
            this.offsetFlushInterval = interval;
            return this;
        }

        /** Any other mm2.properties entry; overrides the defaults above. */
        public Builder property(String key, String value) {
            this.extraProperties.put(key, value);
            return this;
        }

        public Builder properties(Map<String, String> properties) {
            this.extraProperties.putAll(properties);
            return this;
        }

        /** The child's {@code -Xmx}. Default 384m. */
        public Builder heap(String maxHeap) {
            this.heap = maxHeap;
            return this;
        }

        /** How long {@link MirrorMaker#start()} waits for replication to run. Default 90 s. */
        public Builder startTimeout(Duration timeout) {
            this.startTimeout = timeout;
            return this;
        }

        public MirrorMaker build() {
            return new MirrorMaker(new MirrorMakerSettings(sourceAlias, sourceBootstrap, targetAlias, targetBootstrap,
                topicsRegex, groupsRegex, replicationFactor, offsetLagMax, emitCheckpointsInterval, refreshInterval,
                offsetFlushInterval, extraProperties, heap, startTimeout));
        }
    }
}
