package dev.weft.testkit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A KRaft node in a JVM of its own: {@code java -cp <class path> dev.weft.testkit.ForkedClusterMain node
 * <server.properties>}, run by the JDK that runs this JVM. The child prints {@value #READY} once its
 * node serves requests and obeys one-line commands on its standard input ({@code stop <ms>} for a
 * controlled shutdown, {@code shutdown} for a plain one); it shuts down by itself when its standard input
 * closes, so a parent that dies without running its shutdown hooks still takes its nodes with it.
 * {@link #kill()} is a real SIGKILL.
 *
 * <p>The child's output (its log lines) is relayed to this JVM's log, tagged with the node id, and the
 * last lines are quoted when the child fails to start.
 */
final class ForkedNode implements KafkaNode {

    static final String READY = "WEFT-READY";
    static final String STOPPED = "WEFT-STOPPED";

    private static final Logger LOG = LoggerFactory.getLogger(ForkedNode.class);
    private static final int TAIL_LINES = 60;
    private static final Duration EXIT_GRACE = Duration.ofSeconds(60);

    private final int nodeId;
    private final Path propertiesFile;
    private final ForkOptions options;
    /** Last lines of the current child's output; guarded by itself. */
    private final Deque<String> tail = new ArrayDeque<>();

    private Process process;
    private Thread outputPump;

    ForkedNode(int nodeId, Path propertiesFile, ForkOptions options) {
        this.nodeId = nodeId;
        this.propertiesFile = propertiesFile;
        this.options = options;
    }

    @Override
    public int nodeId() {
        return nodeId;
    }

    @Override
    public synchronized void start(Duration timeout) throws Exception {
        if (isRunning()) {
            throw new IllegalStateException("node " + nodeId + " is already running");
        }
        reap();
        synchronized (tail) {
            tail.clear();
        }
        List<String> command = new ArrayList<>();
        command.add(options.javaCommand());
        command.add("-Xmx" + options.heap());
        command.add("-XX:+ExitOnOutOfMemoryError");
        command.add("-Djava.awt.headless=true");
        command.add("--enable-native-access=ALL-UNNAMED");
        command.add("--sun-misc-unsafe-memory-access=allow");
        command.addAll(options.jvmArgs());
        command.add("-cp");
        command.add(options.classPath());
        command.add(ForkedClusterMain.class.getName());
        command.add("node");
        command.add(propertiesFile.toString());
        Process child = new ProcessBuilder(command)
            .directory(propertiesFile.getParent().toFile())
            .redirectErrorStream(true)
            .start();
        ChildProcesses.track(child);
        process = child;
        CompletableFuture<String> ready = new CompletableFuture<>();
        outputPump = Thread.ofPlatform()
            .name("weft-testkit-node-" + nodeId + "-output")
            .daemon()
            .start(() -> pumpOutput(child, ready));
        try {
            String line = ready.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            LOG.debug("Forked node {} is ready: {}", nodeId, line);
        } catch (TimeoutException e) {
            kill();
            throw new IllegalStateException("forked node " + nodeId + " did not become ready within " + timeout
                + "; its last output:\n" + tailText(), e);
        } catch (ExecutionException e) {
            String exitCode = exitCodeText(child);
            kill();
            throw new IllegalStateException("forked node " + nodeId + " exited before it was ready"
                + exitCode + "; its last output:\n" + tailText(), e.getCause());
        }
    }

    @Override
    public synchronized void stop(Duration controlledShutdownTimeout) {
        if (!isRunning()) {
            reap();
            return;
        }
        String command = controlledShutdownTimeout.isPositive()
            ? "stop " + controlledShutdownTimeout.toMillis()
            : "shutdown";
        try {
            OutputStream stdin = process.getOutputStream();
            stdin.write((command + "\n").getBytes(StandardCharsets.UTF_8));
            stdin.flush();
        } catch (IOException e) {
            LOG.warn("Forked node {}: cannot send '{}' (it may be exiting already)", nodeId, command, e);
        }
        Duration wait = controlledShutdownTimeout.plus(EXIT_GRACE);
        try {
            if (!process.waitFor(wait.toMillis(), TimeUnit.MILLISECONDS)) {
                LOG.warn("Forked node {} did not exit within {} of '{}'; killing it", nodeId, wait, command);
                process.destroyForcibly();
                process.waitFor(EXIT_GRACE.toMillis(), TimeUnit.MILLISECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
        reap();
    }

    /** SIGKILL: the process gets no chance to flush, close sockets politely or deregister. */
    @Override
    public synchronized void kill() {
        if (process == null) {
            return;
        }
        process.destroyForcibly();
        try {
            if (!process.waitFor(EXIT_GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
                LOG.warn("Forked node {} (pid {}) still alive after SIGKILL", nodeId, process.pid());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        reap();
    }

    @Override
    public synchronized boolean isRunning() {
        return process != null && process.isAlive();
    }

    @Override
    public long bytesSent(String listener) {
        throw new UnsupportedOperationException("node " + nodeId + " is forked: its socket-server metrics live in its own JVM;"
                + " read bytes served per broker from an in-JVM cluster");
    }

    @Override
    public double socketServerMetric(String listener, String metric) {
        throw new UnsupportedOperationException("node " + nodeId + " is forked: its socket-server metrics live in its own JVM;"
                + " read " + metric + " from an in-JVM cluster");
    }

    @Override
    public synchronized OptionalLong pid() {
        return isRunning() ? OptionalLong.of(process.pid()) : OptionalLong.empty();
    }

    /** Forgets an exited child: joins its output pump (which ends at end of stream) and closes its pipes. */
    private void reap() {
        if (process == null || process.isAlive()) {
            return;
        }
        ChildProcesses.reap(process, outputPump, EXIT_GRACE, "Forked node " + nodeId);
        outputPump = null;
        process = null;
    }

    private void pumpOutput(Process child, CompletableFuture<String> ready) {
        try (BufferedReader out = new BufferedReader(
                new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = out.readLine()) != null) {
                if (line.startsWith(READY)) {
                    ready.complete(line);
                } else if (!line.startsWith(STOPPED)) {
                    LOG.info("[node {}] {}", nodeId, line);
                    synchronized (tail) {
                        if (tail.size() == TAIL_LINES) {
                            tail.removeFirst();
                        }
                        tail.addLast(line);
                    }
                }
            }
        } catch (IOException e) {
            LOG.debug("Forked node {}: output stream ended with an error", nodeId, e);
        } finally {
            ready.completeExceptionally(new IllegalStateException("end of output"));
        }
    }

    private String tailText() {
        synchronized (tail) {
            return String.join("\n", tail);
        }
    }

    private static String exitCodeText(Process child) {
        try {
            return child.waitFor(5, TimeUnit.SECONDS) ? " (exit code " + child.exitValue() + ")" : "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }

    @Override
    public String toString() {
        return "ForkedNode[" + nodeId + (isRunning() ? ", pid " + process.pid() + "]" : ", stopped]");
    }
}
