package dev.weft.proxy.conformance;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs a client under test as a child process: always with a timeout, stdout and stderr captured to
 * files (no pipe can fill up and stall the child), and the process tree killed in a finally.
 */
public final class ExternalProcess {

    private static final int TAIL_CHARS = 6_000;
    private static final AtomicInteger RUNS = new AtomicInteger();

    private ExternalProcess() {
    }

    /** What a child did. */
    public record Result(List<String> command, int exitCode, boolean timedOut, Duration took, String stdout, String stderr) {

        public boolean succeeded() {
            return !timedOut && exitCode == 0;
        }

        /** The command, how it ended, and the tails of its output: for assertion messages. */
        public String describe() {
            return "\n--- command: " + String.join(" ", command)
                    + "\n--- " + (timedOut ? "killed after the timeout" : "exit code " + exitCode) + " after "
                    + took.toMillis() + " ms"
                    + "\n--- stdout (" + stdout.length() + " chars):\n" + tail(stdout)
                    + "\n--- stderr (" + stderr.length() + " chars):\n" + tail(stderr)
                    + "\n--- end";
        }

        /** Fails (with the output) unless the child exited 0 within the timeout. */
        public Result assertSucceeded(String what) {
            if (!succeeded()) {
                throw new AssertionError(what + " failed" + describe());
            }
            return this;
        }

        private static String tail(String s) {
            return s.length() <= TAIL_CHARS ? s : "[... " + (s.length() - TAIL_CHARS) + " chars ...]\n"
                    + s.substring(s.length() - TAIL_CHARS);
        }
    }

    /**
     * Runs {@code command} in {@code workDir} with extra environment {@code env}, standard input from
     * {@code stdin} (or none), and waits at most {@code timeout}.
     *
     * @param scratch folder for the captured output
     */
    public static Result run(List<String> command, Path workDir, Map<String, String> env, Path stdin, Duration timeout,
                      Path scratch) {
        int run = RUNS.incrementAndGet();
        Path out = scratch.resolve("process-" + run + ".out");
        Path err = scratch.resolve("process-" + run + ".err");
        ProcessBuilder builder = new ProcessBuilder(command)
                .directory(workDir.toFile())
                .redirectOutput(out.toFile())
                .redirectError(err.toFile());
        builder.environment().putAll(env);
        builder.redirectInput(stdin != null ? ProcessBuilder.Redirect.from(stdin.toFile())
                : ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
        long start = System.nanoTime();
        Process process = null;
        boolean timedOut = false;
        int exit = -1;
        try {
            process = builder.start();
            if (process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                exit = process.exitValue();
            } else {
                timedOut = true;
            }
        } catch (IOException e) {
            throw new AssertionError("cannot start " + command + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while running " + command, e);
        } finally {
            if (process != null) {
                kill(process);
            }
        }
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        return new Result(List.copyOf(command), exit, timedOut, took, read(out), read(err));
    }

    /**
     * Starts {@code command} in the background (standard input from nothing), for a client that runs until
     * it is told to stop: its output goes to files in {@code scratch}, readable while it runs
     * ({@link Running#stdout()}); {@link Running#stop} ends it (SIGTERM, then the tree killed).
     * Close the handle in a finally.
     */
    public static Running start(List<String> command, Path workDir, Map<String, String> env, Path scratch) {
        int run = RUNS.incrementAndGet();
        Path out = scratch.resolve("process-" + run + ".out");
        Path err = scratch.resolve("process-" + run + ".err");
        ProcessBuilder builder = new ProcessBuilder(command)
                .directory(workDir.toFile())
                .redirectOutput(out.toFile())
                .redirectError(err.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
        builder.environment().putAll(env);
        try {
            return new Running(List.copyOf(command), builder.start(), System.nanoTime(), out, err);
        } catch (IOException e) {
            throw new AssertionError("cannot start " + command + ": " + e.getMessage(), e);
        }
    }

    /** A child started by {@link #start}. */
    public static final class Running implements AutoCloseable {
        private final List<String> command;
        private final Process process;
        private final long startNanos;
        private final Path out;
        private final Path err;
        private Result result;

        private Running(List<String> command, Process process, long startNanos, Path out, Path err) {
            this.command = command;
            this.process = process;
            this.startNanos = startNanos;
            this.out = out;
            this.err = err;
        }

        public boolean isAlive() {
            return process.isAlive();
        }

        /** What the child wrote to its standard output so far. */
        public String stdout() {
            return read(out);
        }

        /** What the child wrote to its standard error so far. */
        public String stderr() {
            return read(err);
        }

        /**
         * Asks the child to end (SIGTERM), waits up to {@code grace}, then kills its process tree. The
         * result's exit code is the child's (-1 and {@code timedOut} when it had to be killed).
         */
        public synchronized Result stop(Duration grace) {
            if (result != null) {
                return result;
            }
            boolean killed = false;
            int exit = -1;
            try {
                if (process.isAlive()) {
                    process.destroy();
                }
                if (process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
                    exit = process.exitValue();
                } else {
                    killed = true;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                killed = true;
            } finally {
                kill(process);
            }
            result = new Result(command, exit, killed, Duration.ofNanos(System.nanoTime() - startNanos), read(out), read(err));
            return result;
        }

        /** Stops the child (5 s grace) unless {@link #stop} did already. */
        @Override
        public void close() {
            stop(Duration.ofSeconds(5));
        }
    }

    private static void kill(Process process) {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        if (process.isAlive()) {
            process.destroyForcibly();
            try {
                process.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static String read(Path file) {
        try {
            return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            return "(cannot read " + file + ": " + e + ")";
        }
    }
}
