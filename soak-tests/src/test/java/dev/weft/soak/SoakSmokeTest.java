package dev.weft.soak;

import dev.weft.perfreports.Fmt;
import dev.weft.perfreports.PerfReportsMain;
import dev.weft.perfreports.model.Result;
import dev.weft.soak.common.Reports;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The soak smoke (CI; here on a 30 s clock, extended until every fault kind has run and recovered): forked 3-broker cluster, Weft in its own process, all three faults;
 * then the perf-reports compare CLI (the code behind {@code perf-reports/compare.sh}) on its report.
 */
class SoakSmokeTest {

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    @SuppressWarnings("unchecked")
    void aShortSoakWithEveryFaultKindLosesNothing(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("soak-smoke.json");
        // The smoke's every fault kind, on a shorter clock than soak.sh --smoke's 60 s (CI's time budget): the first
        // fault at 5 s, 3 s between faults, a 6 s SIGSTOP (still above the clients' 5 s request timeout); the run
        // is extended until the last fault's recovery window has passed, as --smoke does.
        SoakRun.run(SoakRun.Options.parse(new String[] {"--smoke", "--duration", "30s", "--first-fault", "5s", "--fault-gap", "3s",
            "--sigstop", "6s", "--out", out.toString()}));

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
        double ran = ((Number) ((Map<String, Object>) report.get("config")).get("actualDurationSec")).doubleValue();
        assertTrue(ran >= 30, "ran " + ran + " s");
        // as before (50 points for the 60 s smoke): a point for at least 5 of every 6 seconds of the run
        assertTrue(timeline.size() >= Math.floor(ran * 5 / 6), "timeline of " + timeline.size() + " seconds for a run of " + ran + " s");
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

        compareCliReadsTheReport(out, dir.resolve("soak-smoke.html"), model, faults.size(), acknowledged);
    }

    /**
     * {@code compare.sh compare soak-smoke.json --html soak-smoke.html}, in process: exit code 0, the
     * runs table shows this run's fault and acknowledged counts, the produce scenario has the weft row
     * with the report's records/s, and the HTML embeds PNG charts.
     */
    private static void compareCliReadsTheReport(Path json, Path html, dev.weft.perfreports.model.Report model,
                                                 int faults, long acknowledged) throws Exception {
        ByteArrayOutputStream stdout = new ByteArrayOutputStream();
        ByteArrayOutputStream stderr = new ByteArrayOutputStream();
        int code;
        try (PrintStream o = new PrintStream(stdout, true, StandardCharsets.UTF_8);
             PrintStream e = new PrintStream(stderr, true, StandardCharsets.UTF_8)) {
            code = PerfReportsMain.run(new String[] {"compare", json.toString(), "--html", html.toString()}, o, e);
        }
        String printed = stdout.toString(StandardCharsets.UTF_8);
        String context = "exit " + code + "\n--- stdout\n" + printed + "--- stderr\n" + stderr.toString(StandardCharsets.UTF_8);
        assertEquals(PerfReportsMain.OK, code, context);
        List<String> lines = printed.lines().toList();

        // runs table: "A (baseline)  soak-smoke  soak ... faults acked consumed lost dups [flag]"
        String runRow = lines.stream().filter(l -> l.startsWith("A (baseline)")).findFirst().orElse(null);
        assertNotNull(runRow, "no run row\n" + context);
        Matcher counts = Pattern.compile("\\s(\\d+)\\s+([\\d,]+)\\s+([\\d,]+)\\s+([\\d,]+)\\s+([\\d,]+)\\s*$").matcher(runRow);
        assertTrue(counts.find(), "run row without faults/acked/consumed/lost/dups: " + runRow);
        assertEquals(Integer.toString(faults), counts.group(1), "faults column\n" + context);
        assertEquals(Fmt.count(acknowledged), counts.group(2), "acked column\n" + context);
        assertEquals("0", counts.group(4), "lost column\n" + context);

        // produce scenario: the weft row, with this report's records/s
        int section = lines.indexOf(lines.stream().filter(l -> l.startsWith("== scenario produce")).findFirst()
                .orElseThrow(() -> new AssertionError("no produce scenario table\n" + context)));
        Result produce = model.result("produce", "weft");
        assertNotNull(produce, "report has no produce/weft result");
        String weftRow = lines.subList(section + 1, lines.size()).stream().takeWhile(l -> !l.isBlank())
                .filter(l -> l.matches("A\\s+weft\\s.*")).findFirst()
                .orElseThrow(() -> new AssertionError("no weft row in the produce table\n" + context));
        assertEquals(Fmt.count(produce.recordsPerSec()), weftRow.trim().split("\\s+")[2], "rec/s of " + weftRow);
        assertTrue(lines.contains("No regressions beyond the thresholds."), context);

        // the HTML: written where asked, with the charts inlined as PNG data URIs
        assertTrue(Files.isRegularFile(html), html + " not written\n" + context);
        String page = Files.readString(html);
        Matcher img = Pattern.compile("<img [^>]*src=\"data:image/png;base64,([A-Za-z0-9+/=]+)\"").matcher(page);
        int images = 0;
        while (img.find()) {
            byte[] png = Base64.getDecoder().decode(img.group(1));
            assertTrue(png.length > 100, "image " + images + " of " + png.length + " bytes");
            assertArrayEquals(new byte[] {(byte) 0x89, 'P', 'N', 'G'}, Arrays.copyOf(png, 4), "image " + images + " is not a PNG");
            images++;
        }
        assertTrue(images >= 2, images + " images in " + html);
    }
}
