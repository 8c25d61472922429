package dev.weft.proxy.testing;

import dev.weft.proxy.conformance.Prerequisites;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.IntUnaryOperator;

/**
 * HAProxy (Debian's {@code haproxy}) as the TCP load balancer in front of a Weft fleet: one
 * {@code mode tcp} listener per port of a port range on {@code frontHost}, each spreading its
 * connections round-robin over the same port on every backend host (one Weft replica per loopback
 * address). One thread, so round-robin is exact: the first connection of a listener goes to the backend
 * {@code firstBackend} picks for it, the next to the next one, and so on. Runs in the foreground as a
 * child of the test JVM; {@link #close} stops it.
 */
public final class HaproxyFleetBalancer implements AutoCloseable {

    private static final Duration START_TIMEOUT = Duration.ofSeconds(20);

    private final Process process;
    private final Path config;
    private final Path log;

    private HaproxyFleetBalancer(Process process, Path config, Path log) {
        this.process = process;
        this.config = config;
        this.log = log;
    }

    /**
     * @param frontHost where clients connect (the address the replicas advertise)
     * @param firstPort the first port of the range (the bootstrap port)
     * @param ports how many ports
     * @param backendHosts the replicas' bind addresses, listening on the same ports
     * @param firstBackend for each port's offset in the range, the index of the backend its first
     *     connection goes to
     */
    public static HaproxyFleetBalancer start(Path dir, String frontHost, int firstPort, int ports, List<String> backendHosts,
            IntUnaryOperator firstBackend) throws InterruptedException {
        StringBuilder cfg = new StringBuilder("""
                global
                  nbthread 1
                  maxconn 2000
                defaults
                  mode tcp
                  timeout connect 5s
                  timeout client 300s
                  timeout server 300s
                """);
        for (int i = 0; i < ports; i++) {
            int port = firstPort + i;
            cfg.append("listen port").append(port).append('\n')
                    .append("  bind ").append(frontHost).append(':').append(port).append('\n')
                    .append("  balance roundrobin\n");
            int first = firstBackend.applyAsInt(i);
            for (int k = 0; k < backendHosts.size(); k++) {
                int b = (first + k) % backendHosts.size();
                cfg.append("  server replica").append(b).append(' ').append(backendHosts.get(b)).append(':').append(port).append('\n');
            }
        }
        Path config = dir.resolve("haproxy.cfg");
        Path log = dir.resolve("haproxy.log");
        Process process;
        try {
            Files.writeString(config, cfg, StandardCharsets.US_ASCII);
            process = new ProcessBuilder(Prerequisites.haproxy().toString(), "-db", "-f", config.toString())
                    .redirectErrorStream(true).redirectOutput(log.toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile())).start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start haproxy with " + config, e);
        }
        HaproxyFleetBalancer balancer = new HaproxyFleetBalancer(process, config, log);
        try {
            balancer.awaitBound(frontHost, firstPort, ports);
        } catch (RuntimeException | InterruptedException e) {
            balancer.close();
            throw e;
        }
        return balancer;
    }

    /**
     * Waits until haproxy holds every port: probed by binding it (not by connecting, which would take a
     * round-robin turn).
     */
    private void awaitBound(String host, int firstPort, int ports) throws InterruptedException {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        List<Integer> free = new ArrayList<>();
        for (int p = firstPort; p < firstPort + ports; p++) {
            free.add(p);
        }
        while (!free.isEmpty()) {
            if (!process.isAlive()) {
                throw new IllegalStateException("haproxy exited with " + process.exitValue() + ": " + output());
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("haproxy did not bind " + host + " ports " + free + " within "
                        + START_TIMEOUT + ": " + output());
            }
            free.removeIf(port -> {
                try (ServerSocket s = new ServerSocket()) {
                    s.setReuseAddress(false);
                    s.bind(new InetSocketAddress(host, port));
                    return false;
                } catch (BindException e) {
                    return true;
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            if (!free.isEmpty()) {
                Thread.sleep(50);
            }
        }
    }

    /** What haproxy printed (warnings, alerts). */
    public String output() {
        try {
            return Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            return "(cannot read " + log + ": " + e + ")";
        }
    }

    public Path config() {
        return config;
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
