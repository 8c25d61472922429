package dev.weft.soak.load;

import dev.weft.soak.common.Procs;
import dev.weft.soak.common.WeftProcess;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code --weft-variant NAME=KEY=VALUE[;KEY=VALUE...]}: parsing, targets, one-line errors; and the Weft option defaults. */
class WeftVariantTest {

    @Test
    void parsesIntoAServerSection() {
        LoadTool.WeftVariant zc = LoadTool.WeftVariant.parse("zc=zeroCopySendThreshold=16KiB");
        assertEquals("zc", zc.name());
        assertEquals("weft:zc", zc.target());
        assertEquals(Map.of("zeroCopySendThreshold", "16KiB"), zc.server());
        assertEquals("server:\n  zeroCopySendThreshold: 16KiB\n", zc.serverYaml());
        LoadTool.WeftVariant two = LoadTool.WeftVariant.parse("epoll-1=transport=epoll; eventLoops=1");
        assertEquals(List.of("transport", "eventLoops"), List.copyOf(two.server().keySet()));
        assertEquals("server:\n  transport: epoll\n  eventLoops: 1\n", two.serverYaml());
    }

    @Test
    void variantsAreTargetsAppendedUnlessNamed() {
        LoadTool.Options o = LoadTool.Options.parse(new String[] {"--targets", "direct,weft,weft:zc",
            "--weft-variant", "zc=zeroCopySendThreshold=16KiB", "--weft-variant=epoll=transport=epoll"});
        assertEquals(List.of("direct", "weft", "weft:zc", "weft:epoll"), o.targets());
        assertEquals(2, o.variants().size());
        assertEquals("epoll", o.variant("weft:epoll").server().get("transport"));
        assertEquals(null, o.variant("weft"));
    }

    @Test
    void malformedSpecsAreOneLineErrors() {
        for (String bad : List.of("zc", "=transport=epoll", "zc=", "zc=transport", "zc=transport=", "z c=transport=epoll",
                "zc=transport=epoll;", "zc=trans port=epoll", "zc=transport=a:b", "zc:1=transport=epoll", "zc=9x=1")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> LoadTool.WeftVariant.parse(bad), bad);
            assertTrue(e.getMessage().startsWith("--weft-variant '" + bad + "': expected NAME=KEY=VALUE[;KEY=VALUE...]"), e.getMessage());
            assertFalse(e.getMessage().contains("\n"), e.getMessage());
        }
        // keys and values Weft's own config reader refuses
        IllegalArgumentException transport = assertThrows(IllegalArgumentException.class,
                () -> LoadTool.WeftVariant.parse("x=transport=carrier-pigeon"));
        assertTrue(transport.getMessage().startsWith("--weft-variant 'x=transport=carrier-pigeon': server.transport"), transport.getMessage());
        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class, () -> LoadTool.WeftVariant.parse("x=noSuchKey=1"));
        assertTrue(unknown.getMessage().contains("noSuchKey"), unknown.getMessage());
        assertFalse(unknown.getMessage().contains("\n"), unknown.getMessage());
        assertThrows(IllegalArgumentException.class, () -> LoadTool.WeftVariant.parse("x=transport=epoll;transport=nio"));
        assertThrows(IllegalArgumentException.class, () -> LoadTool.Options.parse(new String[] {
            "--weft-variant", "a=transport=epoll", "--weft-variant", "a=transport=nio"}));
        IllegalArgumentException undefined = assertThrows(IllegalArgumentException.class,
                () -> LoadTool.Options.parse(new String[] {"--targets", "direct,weft:zc"}));
        assertTrue(undefined.getMessage().startsWith("target 'weft:zc': no --weft-variant zc"), undefined.getMessage());
        assertThrows(IllegalArgumentException.class, () -> LoadTool.Peer.parse("weft:x=127.0.0.1:9192,pid=" + ProcessHandle.current().pid()));
    }

    /** The tool itself: a malformed spec is one line on stderr (after it the usage) and exit code 2. */
    @Test
    void theToolExitsWith2() throws Exception {
        Process p = new ProcessBuilder(Procs.javaCommand(), "-cp", System.getProperty("java.class.path"),
                LoadTool.class.getName(), "--weft-variant", "zc").redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(2, p.exitValue(), err);
        assertEquals("load: --weft-variant 'zc': expected NAME=KEY=VALUE[;KEY=VALUE...] (NAME: letters, digits, _ and -)",
                err.lines().findFirst().orElse(""), err);
    }

    @Test
    void weftJvmOptsDefaultToTheLaunchers() {
        LoadTool.Options o = LoadTool.Options.parse(new String[0]);
        assertEquals(List.of(), o.weftJvmOpts());
        assertEquals(WeftProcess.launcherJvmOptions(null), o.weftJvmOptions());
        LoadTool.Options big = LoadTool.Options.parse(new String[] {"--weft-jvm-opts", "-Xmx1g -XX:+UseG1GC"});
        assertEquals(List.of("-Xmx1g", "-XX:+UseG1GC"), big.weftJvmOpts());
        assertEquals(List.of("-Xmx1g", "-XX:+UseG1GC"), big.weftJvmOptions().subList(big.weftJvmOptions().size() - 2, big.weftJvmOptions().size()));
    }

    /** {@code fetchRequestBytesPerRequest}: the slice's Fetch request bytes over its Fetch requests. */
    @Test
    void fetchRequestBytesPerRequest() {
        Map<String, Object> before = new LinkedHashMap<>();
        before.put("clientRequests", new LinkedHashMap<>(Map.of("Fetch", 10L, "Produce", 5L)));
        before.put("clientRequestBytes", new LinkedHashMap<>(Map.of("Fetch", 1_000L, "Produce", 50_000L)));
        Map<String, Object> after = new LinkedHashMap<>();
        after.put("clientRequests", new LinkedHashMap<>(Map.of("Fetch", 14L, "Produce", 9L)));
        after.put("clientRequestBytes", new LinkedHashMap<>(Map.of("Fetch", 1_500L, "Produce", 90_000L)));
        Map<String, Object> d = LoadTool.withMeans(LoadTool.counterDelta(before, after));
        assertEquals(Map.of("Fetch", 500L, "Produce", 40_000L), d.get("clientRequestBytes"));
        assertEquals(125.0, d.get("fetchRequestBytesPerRequest"));
        Map<String, Object> noFetch = LoadTool.withMeans(LoadTool.counterDelta(after, after));
        assertFalse(noFetch.containsKey("fetchRequestBytesPerRequest"), noFetch.toString());
    }
}
