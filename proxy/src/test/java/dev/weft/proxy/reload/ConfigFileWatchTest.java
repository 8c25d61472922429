package dev.weft.proxy.reload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.proxy.config.ConfigLoader;
import dev.weft.proxy.net.FreePorts;
import dev.weft.proxy.server.WeftProxy;
import dev.weft.proxy.testing.ProxyFixture;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code weft run --watch}, one look at a time (no timer, no sleeps): a change is reloaded once it held
 * still for a look, once; a file written in steps is reloaded when the last step stays; a broken file is
 * tried once; a file missing for a moment is waited for; and a ConfigMap-style swap (the kubelet
 * re-points a {@code ..data} symlink) of a real proxy's config starts the virtual cluster it adds.
 */
class ConfigFileWatchTest {

    @TempDir
    Path dir;

    @Test
    void aChangeIsReloadedOnceAfterItHeldStillForALook() throws Exception {
        Path file = Files.writeString(dir.resolve("weft.yaml"), "a: 1\n");
        AtomicInteger reloads = new AtomicInteger();
        ConfigFileWatch watch = new ConfigFileWatch(file, reloads::incrementAndGet);
        assertFalse(watch.look(), "unchanged");
        Files.writeString(file, "a: 2\n");
        assertFalse(watch.look(), "changed: waits a look");
        assertTrue(watch.look(), "still changed: reloads");
        assertFalse(watch.look());
        assertFalse(watch.look());
        assertEquals(1, reloads.get());

        Files.writeString(file, "a: 3\n"); // written in two steps, a look in between
        assertFalse(watch.look());
        Files.writeString(file, "a: 3\nb: 4\n");
        assertFalse(watch.look(), "it changed again: waits for it to stay");
        assertTrue(watch.look());
        assertEquals(2, reloads.get());

        Files.writeString(file, "a: 2\nb: 4\n");
        assertFalse(watch.look());
        Files.writeString(file, "a: 3\nb: 4\n"); // back to what was loaded before the look could reload
        assertFalse(watch.look());
        assertFalse(watch.look());
        assertEquals(2, reloads.get(), "back to the loaded content: nothing to reload");
    }

    @Test
    void aFileMissingForAMomentIsWaitedForAndAFailingReloadIsNotRetried() throws Exception {
        Path file = Files.writeString(dir.resolve("weft.yaml"), "a: 1\n");
        AtomicInteger reloads = new AtomicInteger();
        ConfigFileWatch watch = new ConfigFileWatch(file, () -> {
            reloads.incrementAndGet();
            throw new IllegalStateException("refused");
        });
        Files.delete(file);
        assertFalse(watch.look());
        assertFalse(watch.look(), "missing: the running config stays");
        Files.writeString(file, "a: 1\n");
        assertFalse(watch.look(), "back as it was: nothing to do");
        Files.writeString(file, "broken: [\n");
        assertFalse(watch.look());
        assertTrue(watch.look());
        assertFalse(watch.look());
        assertFalse(watch.look());
        assertEquals(1, reloads.get(), "tried once; again only when the file changes");
    }

    @Test
    void aConfigMapStyleSwapReloadsTheRunningProxy() throws Exception {
        int p = FreePorts.randomRange(2);
        int q = FreePorts.randomRange(2);
        String upstream = "127.0.0.1:" + FreePorts.randomRange(1);
        String one = ProxyFixture.singleClusterConfig("enabled: false", upstream, 1, "", p, 0, 0);
        String two = ProxyFixture.withSecondVirtualCluster(one, q);
        // as the kubelet mounts a ConfigMap: weft.yaml -> ..data/weft.yaml, ..data -> ..v1
        Files.createDirectories(dir.resolve("..v1"));
        Files.writeString(dir.resolve("..v1/weft.yaml"), one);
        Files.createSymbolicLink(dir.resolve("..data"), Path.of("..v1"));
        Path file = Files.createSymbolicLink(dir.resolve("weft.yaml"), Path.of("..data/weft.yaml"));
        try (WeftProxy proxy = WeftProxy.start(ConfigLoader.load(file))) {
            ConfigFileWatch watch = new ConfigFileWatch(file, proxy::reload);
            Files.createDirectories(dir.resolve("..v2"));
            Files.writeString(dir.resolve("..v2/weft.yaml"), two);
            Files.createSymbolicLink(dir.resolve("..tmp"), Path.of("..v2"));
            Files.move(dir.resolve("..tmp"), dir.resolve("..data"), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            assertFalse(watch.look());
            assertTrue(watch.look());
            assertEquals(1, proxy.reloads().applied());
            try (Socket s = new Socket("127.0.0.1", q)) {
                assertTrue(s.isConnected(), "the virtual cluster the swapped file adds listens");
            }
        }
    }
}
