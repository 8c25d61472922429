package dev.weft.soak;

import dev.weft.soak.common.Reports;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The 60-second soak smoke (CI): forked 3-broker cluster, Weft in its own process, all three faults. */
class SoakSmokeTest {

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    @SuppressWarnings("unchecked")
    void sixtySecondsWithFaultsLoseNothing(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("soak-smoke.json");
        SoakRun.run(SoakRun.Options.parse(new String[] {"--smoke", "--out", out.toString()}));

        // perf-reports' own reader accepts it (weft-report/v1)
        dev.weft.perfreports.model.Report model = dev.weft.perfreports.model.ReportJson.read(out);
        assertEquals("soak", model.kind());
        assertFalse(model.results().isEmpty());
        assertFalse(model.timeline().isEmpty());
        Map<String, Object> report = Reports.read(out);
        assertEquals("weft-report/v1", report.get("schema"));
        assertEquals("soak", report.get("kind"));
        for (String key : List.of("title", "createdAt", "gitCommit", "command", "machine", "versions", "config", "results")) {
            assertTrue(report.containsKey(key), key);
        }
        Map<String, Object> integrity = (Map<String, Object>) report.get("integrity");
        long acknowledged = ((Number) integrity.get("acknowledged")).longValue();
        assertTrue(acknowledged > 10_000, "acknowledged " + integrity);
        assertEquals(0L, ((Number) integrity.get("lost")).longValue(), "lost records: " + integrity);

        List<Map<String, Object>> timeline = (List<Map<String, Object>>) report.get("timeline");
        assertTrue(timeline.size() >= 50, "timeline of " + timeline.size() + " seconds");
        List<Map<String, Object>> faults = (List<Map<String, Object>>) report.get("faults");
        List<Object> kinds = faults.stream().map(f -> f.get("kind")).toList();
        assertTrue(kinds.containsAll(List.of("broker-kill", "broker-stop", "proxy-restart")), "faults " + faults);
        for (Map<String, Object> f : faults) {
            assertTrue(f.containsKey("recovery") && f.containsKey("detail"), f.toString());
        }

        for (Map<String, Object> r : (List<Map<String, Object>>) report.get("results")) {
            Histogram h = Reports.decode((String) r.get("histogram"));
            assertEquals(((Number) ((Map<String, Object>) r.get("latencyMicros")).get("count")).longValue(), h.getTotalCount());
        }
        Map<String, Object> logs = (Map<String, Object>) report.get("histogramLogs");
        for (Object name : logs.values()) {
            Path log = dir.resolve((String) name);
            assertTrue(Files.size(log) > 0, log.toString());
            assertFalse(Files.readAllLines(log).stream().filter(l -> !l.startsWith("#") && !l.startsWith("\"")).toList().isEmpty());
        }
    }
}
