package dev.weft.soak.load;

import dev.weft.soak.common.HaproxyProcess;
import dev.weft.soak.common.Reports;
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
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A few seconds per target: direct, weft and collapsed (and haproxy where it is installed) all produce
 * figures; the collapsed target's slices carry the proxy's per-broker sub-request counts.
 */
class LoadToolTest {

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    @SuppressWarnings("unchecked")
    void sideBySideFigures(@TempDir Path dir) throws Exception {
        String targets = HaproxyProcess.available() ? "direct,weft,collapsed,haproxy" : "direct,weft,collapsed";
        Path out = dir.resolve("load.json");
        LoadTool.run(LoadTool.Options.parse(new String[] {
            "--targets", targets, "--duration", "3s", "--rounds", "1", "--warmup", "1s", "--out", out.toString(),
            "--weft-jvm-opts", "-Xmx512m"}));

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
                }
            }
        }
        assertTrue(!((List<?>) report.get("timeline")).isEmpty(), "timeline");

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
            assertEquals(0L, ((Number) slice.get("produceErrors")).longValue(), slice.toString());
            assertEquals(0L, ((Number) slice.get("notConsumed")).longValue(), slice.toString());
            assertNotNull(slice.get("loadAverage"), slice.toString());
        }
    }

    /** The woven targets: a second cluster, one Weft process over both, renamed topics; figures for each. */
    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    @SuppressWarnings("unchecked")
    void wovenTargets(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("load-woven.json");
        LoadTool.run(LoadTool.Options.parse(new String[] {
            "--targets", "direct,woven,woven-b", "--duration", "3s", "--rounds", "1", "--warmup", "1s",
            "--out", out.toString(), "--weft-jvm-opts", "-Xmx512m"}));
        Map<String, Object> report = Reports.read(out);
        List<Map<String, Object>> results = (List<Map<String, Object>>) report.get("results");
        for (String target : List.of("woven", "woven-b")) {
            for (String scenario : List.of("produce", "e2e", "consume")) {
                Map<String, Object> r = results.stream()
                        .filter(x -> target.equals(x.get("target")) && scenario.equals(x.get("scenario")))
                        .findFirst().orElseThrow(() -> new AssertionError("no " + target + "/" + scenario));
                assertTrue(((Number) r.get("recordsPerSec")).doubleValue() > 0, r.toString());
                assertNotNull(r.get("ratioToDirect"), r.toString());
                Map<String, Object> proxy = (Map<String, Object>) r.get("proxy");
                assertNotNull(proxy, r.toString());
                assertTrue(((Number) proxy.get("peakRssBytes")).longValue() > 0, r.toString());
            }
        }
        assertTrue(((Map<String, Object>) report.get("config")).containsKey("woven"), "config names the woven setup");
    }
}
