package dev.weft.soak.common;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * HAProxy (Debian's {@code haproxy} package) as an L4 anchor: {@code mode tcp}, one frontend per broker
 * on the port that broker advertises for its HAProxy listener, forwarding to that listener's bound
 * port. Runs in the foreground ({@code -db}) as a child of this JVM.
 */
public final class HaproxyProcess implements AutoCloseable {

    private final Path config;
    private final Map<Integer, Integer> frontendPorts;
    private Process process;

    /**
     * @param frontends frontend port of each broker id
     * @param backends  {@code host:port} of each broker id's HAProxy listener
     */
    public HaproxyProcess(Path dir, Map<Integer, Integer> frontends, Map<Integer, String> backends) {
        this.frontendPorts = Map.copyOf(frontends);
        StringBuilder cfg = new StringBuilder("""
                global
                  maxconn 4000
                  nbthread 1
                defaults
                  mode tcp
                  timeout connect 5s
                  timeout client 300s
                  timeout server 300s
                """);
        frontends.forEach((id, port) -> cfg.append("""
                frontend broker%1$d
                  bind 127.0.0.1:%2$d
                  default_backend broker%1$d
                backend broker%1$d
                  server b%1$d %3$s
                """.formatted(id, port, backends.get(id))));
        this.config = dir.resolve("haproxy.cfg");
        try {
            Files.createDirectories(dir);
            Files.writeString(config, cfg.toString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** True when an {@code haproxy} binary is on the PATH (or in /usr/sbin). */
    public static boolean available() {
        return executable() != null;
    }

    private static String executable() {
        return Procs.which("haproxy");
    }

    public long pid() {
        return process == null ? -1 : process.pid();
    }

    public HaproxyProcess start() throws InterruptedException {
        String exe = executable();
        if (exe == null) {
            throw new IllegalStateException("haproxy not found: install it with apt-get install haproxy");
        }
        try {
            process = new ProcessBuilder(exe, "-db", "-f", config.toString()).redirectErrorStream(true).start();
            process.getOutputStream().close();
            Procs.pump(process.getInputStream(), "haproxy-out", line -> System.err.println("[haproxy] " + line));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        for (int port : frontendPorts.values()) {
            if (!Procs.awaitPort("127.0.0.1", port, Duration.ofSeconds(20), process)) {
                throw new IllegalStateException("haproxy did not bind 127.0.0.1:" + port + " (config " + config + ")");
            }
        }
        return this;
    }

    @Override
    public void close() {
        Procs.stop(process, Duration.ofSeconds(5));
    }
}
