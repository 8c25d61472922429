package dev.weft.proxy.net;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class FreePortsTest {

    /**
     * A run inside the ephemeral range could be handed to an outbound connection while a test's proxy is
     * down between restarts, and the restart would then find its own port taken for as long as that
     * connection lives (a CI run lost a suite to exactly this).
     */
    @Test
    void runsAreFreeAndOutsideTheEphemeralRange() throws IOException {
        int[] ephemeral = FreePorts.ephemeralRange();
        assertTrue(ephemeral[0] <= ephemeral[1], () -> ephemeral[0] + "-" + ephemeral[1]);
        for (int i = 0; i < 50; i++) {
            int count = 1 + i % 20;
            int start = FreePorts.randomRange(count);
            int end = start + count - 1;
            assertTrue(end < ephemeral[0] || start > ephemeral[1],
                    () -> start + "-" + end + " overlaps the ephemeral range " + ephemeral[0] + "-" + ephemeral[1]);
            assertTrue(start >= FreePorts.LOWEST && end <= 65_535, () -> start + "-" + end);
            List<ServerSocket> bound = new ArrayList<>();
            try {
                for (int p = start; p <= end; p++) {
                    ServerSocket s = new ServerSocket();
                    bound.add(s);
                    s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), p));
                }
            } finally {
                for (ServerSocket s : bound) {
                    s.close();
                }
            }
        }
    }
}
