package dev.weft.soak.common;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/** Helpers for child processes the tools start. */
public final class Procs {

    private Procs() {
    }

    /** The {@code java} executable running this JVM. */
    public static String javaCommand() {
        return ProcessHandle.current().info().command().orElse(System.getProperty("java.home") + "/bin/java");
    }

    /** The path of an executable {@code name} on the PATH (or in /usr/sbin, /usr/local/sbin), or null. */
    public static String which(String name) {
        for (String dir : (System.getenv().getOrDefault("PATH", "") + ":/usr/sbin:/usr/local/sbin").split(":")) {
            if (!dir.isEmpty() && java.nio.file.Files.isExecutable(java.nio.file.Path.of(dir, name))) {
                return java.nio.file.Path.of(dir, name).toString();
            }
        }
        return null;
    }

    /** Copies a stream's lines to {@code sink} on a daemon thread. */
    public static void pump(java.io.InputStream in, String name, Consumer<String> sink) {
        Thread t = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    sink.accept(line);
                }
            } catch (IOException e) {
                // stream closed
            }
        }, name);
        t.setDaemon(true);
        t.start();
    }

    /** True once a TCP connection to host:port is accepted within {@code timeout}. */
    public static boolean awaitPort(String host, int port, Duration timeout, Process owner) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (owner != null && !owner.isAlive()) {
                return false;
            }
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(host, port), 500);
                return true;
            } catch (IOException e) {
                TimeUnit.MILLISECONDS.sleep(50); // polling a port that is not bound yet
            }
        }
        return false;
    }

    /** SIGTERM, then SIGKILL after {@code grace}; waits for the exit. */
    public static void stop(Process p, Duration grace) {
        if (p == null) {
            return;
        }
        p.destroy();
        try {
            if (!p.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                p.waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    /** Sends a signal ({@code STOP}, {@code CONT}, {@code KILL}, ...) with {@code kill -SIG pid}. */
    public static void signal(long pid, String signal) {
        try {
            Process k = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).redirectErrorStream(true).start();
            String out = new String(k.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (k.waitFor() != 0) {
                throw new IllegalStateException("kill -" + signal + " " + pid + " failed: " + out.trim());
            }
        } catch (IOException e) {
            throw new IllegalStateException("kill -" + signal + " " + pid + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
