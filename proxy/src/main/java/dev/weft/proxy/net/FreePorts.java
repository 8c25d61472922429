package dev.weft.proxy.net;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
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

    /** A run of {@code count} free ports at a random place in 20000–59999 (away from the ephemeral range). */
    public static int randomRange(int count) {
        for (int attempt = 0; attempt < 200; attempt++) {
            int start = 20_000 + ThreadLocalRandom.current().nextInt(40_000 - count);
            if (allFree(start, count)) {
                return start;
            }
        }
        throw new IllegalStateException("no " + count + " consecutive free ports found on the loopback address");
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
