package dev.weft.soak.load;

import dev.weft.perfreports.model.Report;
import dev.weft.perfreports.model.ReportJson;
import dev.weft.perfreports.model.Result;
import dev.weft.soak.common.HaproxyProcess;
import dev.weft.soak.common.PerfSyscalls;
import dev.weft.soak.common.Reports;
import dev.weft.soak.common.WeftProcess;
import dev.weft.testkit.KafkaCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A few seconds per target: direct, weft, a Weft variant (epoll) and collapsed (and haproxy where it is
 * installed) all produce figures, the proxies their per-phase costs, the Weft targets their clients' request bytes; the collapsed target's slices carry the proxy's per-broker
 * sub-request counts; a {@code --peer} is measured like the proxies the tool starts; the woven targets, the
 * branch targets (on the woven targets' second cluster, one with a SIGSTOP of it) and the partition-woven one
 * ({@code pwoven}) work like the others. Slices are 1-2 s without warm-up: the cases check the tool's plumbing
 * (CI's time budget), not its figures.
 */
class LoadToolTest {

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    @SuppressWarnings("unchecked")
    void sideBySideFigures(@TempDir Path dir) throws Exception {
        String targets = HaproxyProcess.available() ? "direct,weft,weft:epoll,collapsed,haproxy" : "direct,weft,weft:epoll,collapsed";
        Path out = dir.resolve("load.json");
        LoadTool.run(LoadTool.Options.parse(new String[] {
            "--targets", targets, "--duration", "1s", "--rounds", "1", "--warmup", "0s", "--out", out.toString(),
            "--weft-jvm-opts", "-Xmx384m", "--weft-variant", "epoll=transport=epoll"}));

        // perf-reports' own reader accepts it (weft-report/v1)
        dev.weft.perfreports.model.Report model = dev.weft.perfreports.model.ReportJson.read(out);
        assertEquals("load", model.kind());
        assertFalse(model.results().isEmpty());
        assertFalse(model.timeline().isEmpty());
        Map<String, Object> report = Reports.read(out);
        assertEquals("weft-report/v1", report.get("schema"));
        assertEquals("load", report.get("kind"));
        List<Map<String, Object>> results = (List<Map<String, Object>>) report.get("results");
        for (String target : targets.split(",")) {
            for (String scenario : List.of("produce", "e2e", "consume")) {
                Map<String, Object> r = results.stream()
                        .filter(x -> target.equals(x.get("target")) && scenario.equals(x.get("scenario")))
                        .findFirst().orElseThrow(() -> new AssertionError("no " + target + "/" + scenario));
                assertTrue(((Number) r.get("recordsPerSec")).doubleValue() > 0, r.toString());
                Map<String, Object> lat = (Map<String, Object>) r.get("latencyMicros");
                assertTrue(((Number) lat.get("count")).longValue() > 0, r.toString());
                Map<String, Object> ratio = (Map<String, Object>) r.get("ratioToDirect");
                assertNotNull(ratio, r.toString());
                assertNotNull(ratio.get("recordsPerSec"), r.toString());
                if (target.equals("direct")) {
                    assertEquals(1.0, ((Number) ratio.get("recordsPerSec")).doubleValue(), 1e-9);
                } else {
                    Map<String, Object> proxy = (Map<String, Object>) r.get("proxy");
                    assertNotNull(proxy, r.toString());
                    assertTrue(((Number) proxy.get("cpuSecondsPerGB")).doubleValue() > 0, r.toString());
                    assertTrue(((Number) proxy.get("peakRssBytes")).longValue() > 0, r.toString());
                    assertPhase(scenario, (Map<String, Object>) proxy.get("phase"));
                    assertNotNull(model.result(scenario, target).proxy().phase(), "the model reads proxy.phase");
                }
            }
        }
        assertTrue(!((List<?>) report.get("timeline")).isEmpty(), "timeline");

        // the launcher's JVM options, then --weft-jvm-opts; the variant's server: keys
        Map<String, Object> config = (Map<String, Object>) report.get("config");
        assertEquals("-Xmx384m", config.get("weftJvmOpts"));
        String jvm = (String) config.get("weftJvmOptions");
        assertTrue(jvm.startsWith(String.join(" ", WeftProcess.launcherJvmOptions(null))) && jvm.endsWith(" -Xmx384m"), jvm);
        assertTrue(jvm.contains("-XX:SharedArchiveFile=" + WeftProcess.cdsArchive()), jvm);
        assertEquals(Map.of("weft:epoll", Map.of("transport", "epoll")), config.get("weftVariants"));
        assertEquals(java.util.Set.of("weft", "weft:epoll", "collapsed"), ((Map<String, Object>) config.get("weftCdsArchiveMapped")).keySet());
        Map<String, Object> epollVsWeft = (Map<String, Object>) results.stream()
                .filter(x -> "weft:epoll".equals(x.get("target")) && "produce".equals(x.get("scenario"))).findFirst().orElseThrow()
                .get("ratioToWeft");
        assertNotNull(epollVsWeft.get("recordsPerSec"), epollVsWeft.toString());

        // collapsed: one broker here, so no split, but the counters the 3-broker runs read are there:
        // client Produce/Fetch requests and the sub-requests the proxy sent to real broker 0.
        Map<String, Object> split = (Map<String, Object>) report.get("collapsedSplit");
        assertNotNull(split, "collapsedSplit");
        assertEquals(6, ((Map<String, Object>) split.get("partitionLeaders")).size(), split.toString());
        Map<String, Object> measured = (Map<String, Object>) split.get("measuredSlices");
        Map<String, Object> upstream = (Map<String, Object>) ((Map<String, Object>) measured.get("upstreamRequests")).get("upstream/0");
        assertNotNull(upstream, measured.toString());
        assertTrue(((Number) upstream.get("Produce")).longValue() > 0, measured.toString());
        assertTrue(((Number) upstream.get("Fetch")).longValue() > 0, measured.toString());
        Map<String, Object> client = (Map<String, Object>) measured.get("clientRequests");
        assertTrue(((Number) client.get("Produce")).longValue() > 0, measured.toString());
        for (Map<String, Object> slice : (List<Map<String, Object>>) report.get("slices")) {
            if (!"direct".equals(slice.get("target"))) {
                Map<String, Object> usage = (Map<String, Object>) slice.get("proxyUsage");
                assertPhase("produce", (Map<String, Object>) usage.get("produce"));
                assertPhase("consume", (Map<String, Object>) usage.get("consume"));
            } else {
                assertFalse(slice.containsKey("proxyUsage"), "direct: no proxy process measured");
            }
            if (String.valueOf(slice.get("target")).startsWith("weft") && !Boolean.TRUE.equals(slice.get("warmup"))) {
                // what the clients sent: Produce and Fetch request bytes, and the mean Fetch request size
                Map<String, Object> w = (Map<String, Object>) slice.get("weftCounters");
                Map<String, Object> bytes = (Map<String, Object>) w.get("clientRequestBytes");
                assertTrue(((Number) bytes.get("Produce")).longValue() > 0, w.toString());
                assertTrue(((Number) bytes.get("Fetch")).longValue() > 0, w.toString());
                assertTrue(((Number) w.get("fetchRequestBytesPerRequest")).doubleValue() > 0, w.toString());
            }
            assertEquals(0L, ((Number) slice.get("produceErrors")).longValue(), slice.toString());
            assertEquals(0L, ((Number) slice.get("notConsumed")).longValue(), slice.toString());
            assertNotNull(slice.get("loadAverage"), slice.toString());
        }
    }

    /** A proxy's phase figures: CPU and context switches per byte, and a syscall count or the reason it is absent. */
    static void assertPhase(String scenario, Map<String, Object> phase) {
        assertNotNull(phase, scenario);
        assertEquals(scenario.equals("consume") ? "consume" : "produce", phase.get("phase"), phase.toString());
        assertTrue(((Number) phase.get("bytes")).longValue() > 0, phase.toString());
        assertTrue(((Number) phase.get("contextSwitchesPerMB")).doubleValue() > 0, phase.toString());
        assertTrue(((Number) phase.get("syscrPerMB")).doubleValue() >= 0, phase.toString());
        assertTrue(phase.get("syscallsPerMB") instanceof Number n ? n.doubleValue() > 0 : phase.get("syscallsAbsent") instanceof String,
                "a syscall count, or why there is none: " + phase);
        assertEquals(PerfSyscalls.unavailable() == null, phase.containsKey("syscallsPerMB"), phase.toString());
    }

    /**
     * {@code --peer}: an already-running proxy (here a Weft process in front of a cluster of its own, which the
     * tool did not start) is a target, measured through its pid; its topic is created through its bootstrap.
     */
    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void peerTarget(@TempDir Path dir) throws Exception {
        try (KafkaCluster other = KafkaCluster.builder().brokers(1).forked(true).heap("512m").build().start();
             WeftProcess peer = new WeftProcess(other.bootstrapServers(), 0, dir.resolve("peer"),
                     WeftProcess.launcherJvmOptions("-Xmx256m"), true).start()) {
            Path out = dir.resolve("load-peer.json");
            LoadTool.run(LoadTool.Options.parse(new String[] {
                "--targets", "direct", "--peer", "ext=" + peer.bootstrap() + ",pid=" + peer.pid(),
                "--duration", "1s", "--rounds", "1", "--warmup", "0s", "--out", out.toString()}));
            Report model = ReportJson.read(out);
            for (String scenario : List.of("produce", "e2e", "consume")) {
                Result r = model.result(scenario, "ext");
                assertNotNull(r, scenario);
                assertTrue(r.recordsPerSec() > 0, r.toString());
                assertTrue(r.proxy().cpuSecondsPerGB() > 0, r.toString());
                assertTrue(r.proxy().peakRssBytes() > 0, r.toString());
                assertTrue(r.proxy().phase().contextSwitchesPerMB() > 0, r.toString());
                assertNull(model.result(scenario, "direct").proxy(), "direct: no proxy figures");
            }
        }
    }


    /** Branch target names, the YAML Weft reads, and JSON values that carry their send time. */
    @Test
    void branchSpecs(@TempDir Path dir) throws Exception {
        assertNull(BranchTargets.spec("weft"));
        BranchTargets.Spec s = BranchTargets.spec("branch-redact!kill");
        assertEquals("kill", s.fault());
        assertTrue(s.redact());
        assertEquals("load-branch-redact-kill", s.topic());
        assertEquals("shadow.load-branch-redact-kill", s.branchTopic());
        assertNull(BranchTargets.spec("branch-copy").fault());
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> BranchTargets.spec("branch-copy!pause"));
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> BranchTargets.spec("weft!kill"));
        for (String t : List.of("branch-copy", "branch-redact!stop")) {
            WeftProcess w = BranchTargets.weft(BranchTargets.spec(t), "127.0.0.1:9092", "127.0.0.1:9093", 1, dir.resolve(t.replace('!', '-')),
                    List.of(), true);
            String yaml = java.nio.file.Files.readString(w.configFile());
            assertTrue(yaml.contains("type: branch") && yaml.contains("naming: { prefix: \"shadow.\" }"), yaml);
            assertEquals(t.startsWith("branch-redact"), yaml.contains("value-fields: [\"$.customer.email\"]"), yaml);
            dev.weft.proxy.config.ConfigLoader.parse(yaml, "branch.yaml"); // Weft's own reader accepts it
        }
        byte[] v = dev.weft.soak.common.Payload.json(1024, 0x1234_5678_9abcL, 7);
        assertEquals(1024, v.length);
        assertEquals(0x1234_5678_9abcL, dev.weft.soak.common.Payload.intendedNanos(v));
        String json = new String(v, java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(json.contains("\"customer\":{\"id\":7,\"email\":\"user-7@example.com\"}") && json.endsWith("\"}"), json);
        new com.fasterxml.jackson.databind.ObjectMapper().readTree(v); // well-formed JSON
        assertEquals(99L, dev.weft.soak.common.Payload.intendedNanos(dev.weft.soak.common.Payload.create(64, 99, 1)));
        assertEquals(LoadTool.Options.parse(new String[] {"--targets", "branch-copy!kill"}).branchFaultFor(), java.time.Duration.ofSeconds(10));
    }


    /** The rotated segments (every partition renumbered), their virtual → physical map, and a config Weft reads. */
    @Test
    void rotatedSegments(@TempDir Path dir) throws Exception {
        assertEquals(List.of(new WeftProcess.Segment("a", "t", 3, 5), new WeftProcess.Segment("a", "t", 0, 2)),
                LoadTool.rotatedSegments("a", "t", 6));
        assertEquals(List.of(new WeftProcess.Segment("a", "t", 2, 4), new WeftProcess.Segment("a", "t", 0, 1)),
                LoadTool.rotatedSegments("a", "t", 5));
        assertEquals(List.of(new WeftProcess.Segment("a", "t", 0, 0)), LoadTool.rotatedSegments("a", "t", 1));
        for (int n : new int[] {1, 2, 5, 6, 1000}) {
            var physical = LoadTool.physicalPartitions(LoadTool.rotatedSegments("a", "t", n));
            java.util.Set<Integer> seen = new java.util.HashSet<>();
            for (int v = 0; v < n; v++) {
                assertEquals((v + n / 2) % n, physical.applyAsInt(v), "n " + n + " virtual " + v);
                seen.add(physical.applyAsInt(v));
            }
            assertEquals(n, seen.size(), "every physical partition once");
        }
        WeftProcess w = WeftProcess.partitionWoven(List.of("a"), List.of("127.0.0.1:9092"),
                Map.of("load-pwoven", LoadTool.rotatedSegments("a", "load-pwoven", 6)), 3, dir, List.of(), true);
        String yaml = java.nio.file.Files.readString(w.configFile());
        assertTrue(yaml.contains("type: partition-weave"), yaml);
        assertTrue(yaml.contains("- { route: a, topic: \"load-pwoven\", partitions: 3-5 }"), yaml);
        assertTrue(yaml.contains("nodeIds: \"0-2\""), yaml);
        dev.weft.proxy.config.ConfigLoader.parse(yaml, "pwoven.yaml"); // Weft's own reader accepts it
    }
}
