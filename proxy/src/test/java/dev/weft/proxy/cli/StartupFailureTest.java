package dev.weft.proxy.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.proxy.net.FreePorts;
import dev.weft.proxy.testing.ProxyFixture;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A start-up failure of {@code weft run} is one line naming the setting and the problem, exit code 2,
 * no stack trace: the admin port or a gateway port already taken (a second Weft on the same host).
 */
class StartupFailureTest {

    @Test
    void aTakenAdminPortIsOneLineNamingAdminBind(@TempDir Path dir) throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            int gateway = FreePorts.randomRange(2);
            Path config = write(dir, "127.0.0.1:" + taken.getLocalPort(), gateway);
            Result result = run(config);
            assertEquals(2, result.code, result.toString());
            assertEquals("admin.bind: cannot listen on 127.0.0.1:" + taken.getLocalPort() + " (admin endpoint): "
                    + "Address already in use (another process listens there, perhaps a second Weft on this host: "
                    + "stop it or change admin.bind)", result.onlyErrorLine());
            assertEquals("", result.out, "nothing announced for a proxy that did not start");
        }
    }

    @Test
    void aTakenGatewayPortIsOneLineNamingTheGatewaysBind(@TempDir Path dir) throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Path config = write(dir, "127.0.0.1:0", taken.getLocalPort());
            Result result = run(config);
            assertEquals(2, result.code, result.toString());
            String line = result.onlyErrorLine();
            assertTrue(line.startsWith("virtualClusters.main.gateways[0].bind: cannot listen on "), line);
            assertTrue(line.contains(":" + taken.getLocalPort() + " ("), line);
            assertTrue(line.endsWith("stop it or change virtualClusters.main.gateways[0].bind)"), line);
        }
    }

    private static Path write(Path dir, String adminBind, int gatewayPort) throws Exception {
        Path config = dir.resolve("weft.yaml");
        Files.writeString(config, ProxyFixture.singleClusterConfig("bind: \"" + adminBind + "\"",
                "127.0.0.1:" + FreePorts.randomRange(1), 1, "", gatewayPort, 0, 0));
        return config;
    }

    private static Result run(Path config) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = WeftMain.run(new String[] {"run", "--config", config.toString()},
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private record Result(int code, String out, String err) {

        String onlyErrorLine() {
            List<String> lines = err.lines().toList();
            assertEquals(1, lines.size(), "one line on stderr, no stack trace: " + err);
            assertFalse(err.contains("Exception"), err);
            return lines.get(0);
        }
    }
}
