package dev.weft.proxy.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.proxy.config.ConfigLoader;
import dev.weft.proxy.net.FreePorts;
import dev.weft.proxy.server.WeftProxy;
import dev.weft.proxy.testing.Poll;
import dev.weft.proxy.testing.ProxyFixture;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code weft run} reloads its config file on SIGHUP: the signal is raised in this JVM (as {@code kill -HUP}
 * does from outside) and the virtual cluster the file gained starts listening; a second signal with a
 * broken file is refused and counted. The upstream need not be reachable: a pass-through virtual
 * cluster starts without listing topics.
 */
class ReloadOnHangupTest {

    @Test
    @SuppressWarnings("removal")
    void sighupReadsTheFileAgainAndAppliesIt(@TempDir Path dir) throws Exception {
        int p = FreePorts.randomRange(2);
        int q = FreePorts.randomRange(2);
        String upstream = "127.0.0.1:" + FreePorts.randomRange(1);
        String one = ProxyFixture.singleClusterConfig("enabled: false", upstream, 1, "", p, 0, 0);
        String two = ProxyFixture.withSecondVirtualCluster(one, q);
        Path file = dir.resolve("weft.yaml");
        Files.writeString(file, one);
        try (WeftProxy proxy = WeftProxy.start(ConfigLoader.load(file))) {
            WeftMain.reloadOnHangup(proxy);
            Files.writeString(file, two);
            sun.misc.Signal.raise(new sun.misc.Signal("HUP"));
            Poll.until(Duration.ofSeconds(20), "the reload on SIGHUP", () -> proxy.reloads().applied() == 1);
            assertEquals("127.0.0.1:" + q, proxy.bootstrapAddresses("second").get(0));
            try (Socket s = new Socket("127.0.0.1", q)) {
                assertTrue(s.isConnected(), "the added virtual cluster listens");
            }

            Files.writeString(file, two.replace("second:", "second:\n    topolgy: mirrored"));
            sun.misc.Signal.raise(new sun.misc.Signal("HUP"));
            Poll.until(Duration.ofSeconds(20), "the refused reload on SIGHUP", () -> proxy.reloads().refused() == 1);
            assertEquals(1, proxy.reloads().applied());
            assertEquals("127.0.0.1:" + q, proxy.bootstrapAddresses("second").get(0), "the old config keeps serving");
        }
    }
}
