package dev.weft.perfreports.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReportJsonTest {

  @Test
  void roundTripsEveryFieldIncludingTheHistogram(@TempDir Path dir) throws Exception {
    Histogram h = new Histogram(3_600_000_000L, 3);
    for (int i = 1; i <= 1000; i++) h.recordValue(i);
    Report r = Report.builder(Report.KIND_SOAK)
        .title("t").createdAt("2026-11-30T12:00:00Z").gitCommit("abc123").command("run --x")
        .machine(new Machine(2, 25_000_000_000L, "6.8", "25.0.3", "Linux"))
        .version("weft", "0.1.0-SNAPSHOT").version("kafka", "4.4.0")
        .config("partitions", 12).config("nested", Map.of("a", List.of(1, 2)))
        .result(Result.measured("direct", "produce-max", null, 1024, 10.0, 1_000_000, h))
        .result(Result.measured("weft", "produce-fixed", 5000.0, 100, 2.0, 9_000, h)
            .withProxy(new ProxyStats(3.2, 300_000_000L)).withRatioToDirect(new RatioToDirect(0.97, 1.1)))
        .timeline(new TimelinePoint(12.0, "weft", 50_000.0, 2100.0))
        .fault(new Fault(60.0, "broker-kill", "broker 1"))
        .integrity(new Integrity(100L, 100L, 0L, 0L))
        .build();
    Path f = dir.resolve("sub/r.json");
    ReportJson.write(r, f);
    Report back = ReportJson.read(f);
    assertEquals(r, back);
    Result direct = back.result("produce-max", "direct");
    assertEquals(100_000.0, direct.recordsPerSec(), 1e-9);
    assertEquals(102.4, direct.mbPerSec(), 1e-9);
    assertEquals(Result.MAX_THROUGHPUT, direct.mode());
    assertEquals(Result.FIXED_RATE, back.result("produce-fixed", "weft").mode());
    assertEquals(1000L, direct.latencyMicros().count());
    assertEquals(500.0, direct.latencyMicros().p50(), 1.0);
    assertEquals(h, direct.decodeHistogram());
    String text = Files.readString(f);
    assertTrue(text.contains("\"schema\" : \"weft-report/v1\""), text);
    assertTrue(text.contains("\"p999\""), text);
    assertTrue(text.contains("\"cpuSecondsPerGB\" : 3.2"), text);
  }

  @Test
  void phaseStatsRoundTripAndOldProxyObjectsStillRead() {
    PhaseStats phase = new PhaseStats("produce", 2_000_000_000L, 0.41, 812.5, null, 95.0, 30.1, 12.0);
    PhaseStats noPerf = new PhaseStats("consume", 1_000_000_000L, 0.2, null, "perf not on PATH", 40.0, 1.0, 2.0);
    Report r = Report.builder(Report.KIND_LOAD)
        .result(Result.measured("weft", "produce", null, 1024, 1.0, 10, null).withProxy(new ProxyStats(0.3, 1L, phase)))
        .result(Result.measured("weft", "consume", null, 1024, 1.0, 10, null).withProxy(new ProxyStats(0.3, 1L, noPerf)))
        .build();
    String json = ReportJson.toJson(r);
    assertEquals(r, ReportJson.parse(json));
    assertTrue(json.contains("\"syscallsAbsent\" : \"perf not on PATH\""), json);
    assertTrue(!json.contains("\"syscallsPerMB\" : null"), "an absent count is left out, never written as 0 or null");
    // a report written before proxy.phase existed
    Report old = ReportJson.parse("""
        {"schema":"weft-report/v1","kind":"load","results":[{"target":"weft","scenario":"produce",
         "proxy":{"cpuSecondsPerGB":0.35,"peakRssBytes":220000000}}]}""");
    assertEquals(new ProxyStats(0.35, 220_000_000L), old.results().getFirst().proxy());
    assertNull(old.results().getFirst().proxy().phase());
  }

  @Test
  void minimalReportReadsWithAbsentFieldsAsNull() {
    Report r = ReportJson.parse("""
        {"schema":"weft-report/v1","kind":"load","results":[{"target":"weft","scenario":"s","unknown":1}],
         "extra":{"x":1}}""");
    assertEquals(1, r.results().size());
    Result x = r.results().getFirst();
    assertNull(x.recordsPerSec());
    assertNull(x.latencyMicros());
    assertNull(x.decodeHistogram());
    assertNull(r.machine());
    assertTrue(r.timeline().isEmpty());
    assertTrue(r.faults().isEmpty());
  }

  @Test
  void rejectsOtherSchemasAndMissingResults() {
    assertThrows(IllegalArgumentException.class, () -> ReportJson.parse("{\"schema\":\"x\",\"kind\":\"load\",\"results\":[]}"));
    assertThrows(IllegalArgumentException.class, () -> ReportJson.parse("{\"schema\":\"weft-report/v1\",\"kind\":\"load\"}"));
    assertThrows(IllegalArgumentException.class, () -> ReportJson.parse("[1]"));
    assertThrows(IllegalArgumentException.class, () -> Histograms.decode("bm90IGEgaGlzdG9ncmFt"));
  }
}
