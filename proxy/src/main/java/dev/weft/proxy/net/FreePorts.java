package dev.weft.proxy.net;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Finds runs of consecutive free loopback ports, for a port-per-broker gateway that needs a bootstrap
 * port plus one port per node (the demo, tests). A port found free can still be taken by someone else
 * before it is bound: callers bind promptly, and tests retry on a bind failure.
 */
public final class FreePorts {

    private FreePorts() {
    }

    /** The first run of {@code count} free ports starting at or after {@code preferred}. */
    public static int rangeFrom(int preferred, int count) {
        for (int start = preferred; start + count <= 65535; start += count) {
            if (allFree(start, count)) {
                return start;
            }
        }
        throw new IllegalStateException("no " + count + " consecutive free ports on the loopback address from " + preferred);
    }

    /**
     * A run of {@code count} free ports at a random place outside the kernel's ephemeral range (Linux:
     * {@code net.ipv4.ip_local_port_range}). Outside it, no outbound connection can be given one of these
     * ports as its local port, so a caller that stops and restarts a listener on the same ports (a test
     * restarting a proxy under connected clients) finds them free again unless another listener took them.
     */
    public static int randomRange(int count) {
        int[] ephemeral = ephemeralRange();
        int lowSpan = Math.max(ephemeral[0] - LOWEST - count, 0);
        int highSpan = Math.max(65_535 - ephemeral[1] - count, 0);
        if (lowSpan + highSpan == 0) {
            throw new IllegalStateException("no room for " + count + " consecutive ports outside the ephemeral range "
                    + ephemeral[0] + "-" + ephemeral[1]);
        }
        for (int attempt = 0; attempt < 200; attempt++) {
            int pick = ThreadLocalRandom.current().nextInt(lowSpan + highSpan);
            int start = pick < lowSpan ? LOWEST + pick : ephemeral[1] + 1 + pick - lowSpan;
            if (allFree(start, count)) {
                return start;
            }
        }
        throw new IllegalStateException("no " + count + " consecutive free ports found on the loopback address");
    }

    /** Below this, ports are left to well-known and registered services. */
    static final int LOWEST = 10_000;

    /** The kernel's ephemeral port range; Linux's default when it cannot be read. */
    static int[] ephemeralRange() {
        try {
            String[] parts = Files.readString(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).trim().split("\\s+");
            return new int[] {Integer.parseInt(parts[0]), Integer.parseInt(parts[1])};
        } catch (IOException | RuntimeException e) {
            return new int[] {32_768, 60_999};
        }
    }

    private static boolean allFree(int start, int count) {
        for (int p = start; p < start + count; p++) {
            try (ServerSocket s = new ServerSocket()) {
                s.setReuseAddress(true);
                s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), p));
            } catch (IOException e) {
                return false;
            }
        }
        return true;
    }
}
