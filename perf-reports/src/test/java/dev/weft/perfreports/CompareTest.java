package dev.weft.perfreports;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.perfreports.model.Fault;
import dev.weft.perfreports.model.Integrity;
import dev.weft.perfreports.model.Machine;
import dev.weft.perfreports.model.PhaseStats;
import dev.weft.perfreports.model.ProxyStats;
import dev.weft.perfreports.model.Report;
import dev.weft.perfreports.model.ReportJson;
import dev.weft.perfreports.model.Result;
import dev.weft.perfreports.model.TimelinePoint;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.imageio.ImageIO;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CompareTest {

  /** Values 1..n × step microseconds, once each. */
  static Histogram uniform(int n, int step) {
    Histogram h = new Histogram(3_600_000_000L, 3);
    for (int i = 1; i <= n; i++) h.recordValue((long) i * step);
    return h;
  }

  /**
   * A run with direct at 100,000 rec/s (latency 1..1000 µs) and weft at {@code weftRps} (latency
   * 2..2000 µs × {@code weftLatencyScale}), 1 KiB records, a timeline and a broker kill at t=5.
   */
  static Report run(String title, double weftRps, int weftLatencyScale, long lost) {
    Histogram direct = uniform(1000, 1);
    Histogram weft = uniform(1000, 2 * weftLatencyScale);
    Report.Builder b = Report.builder(Report.KIND_SOAK).title(title).createdAt("2026-11-30T12:00:00Z")
        .gitCommit("abc123").command("soak --duration 10s").machine(new Machine(2, 25_000_000_000L, "6.8", "25.0.3", "Linux"))
        .version("weft", "0.1.0-SNAPSHOT").version("kafka", "4.4.0")
        .result(Result.measured("direct", "produce-max", null, 1000, 10.0, 1_000_000, direct))
        .result(Result.measured("weft", "produce-max", null, 1000, 10.0, Math.round(weftRps * 10), weft)
            .withProxy(new ProxyStats(3.25, 300L * 1024 * 1024)))
        .fault(new Fault(5.0, "broker-kill", "broker 1"))
        .integrity(new Integrity(1000L, 1000L - lost, lost, 0L));
    for (int t = 0; t <= 10; t++) {
      b.timeline(new TimelinePoint(t, "direct", 100_000.0, 990.0));
      b.timeline(new TimelinePoint(t, "weft", t == 5 || t == 6 ? weftRps / 3 : weftRps, 1980.0));
    }
    return b.build();
  }

  record Out(int code, String stdout, String stderr) {}

  static Out cli(String... args) {
    ByteArrayOutputStream o = new ByteArrayOutputStream();
    ByteArrayOutputStream e = new ByteArrayOutputStream();
    int code = PerfReportsMain.run(args, new PrintStream(o, true, StandardCharsets.UTF_8),
        new PrintStream(e, true, StandardCharsets.UTF_8));
    return new Out(code, o.toString(StandardCharsets.UTF_8), e.toString(StandardCharsets.UTF_8));
  }

  static List<LoadCompare.Run> runs(Report... reports) {
    List<LoadCompare.Run> out = new ArrayList<>();
    for (int i = 0; i < reports.length; i++) {
      out.add(new LoadCompare.Run(PerfReportsMain.runName(i), "run" + i, reports[i]));
    }
    return out;
  }

  @Test
  void tableHasRatiosToDirectAndDeltasToBaseline() {
    Comparison c = LoadCompare.compare(runs(run("base", 95_000, 1, 0), run("slower", 85_500, 1, 0)), 0, Thresholds.DEFAULT);
    Table t = c.table("scenario produce-max");
    assertEquals("100,000", t.cell("rec/s", "A", "direct"));
    assertEquals("95,000", t.cell("rec/s", "A", "weft"));
    assertEquals("85,500", t.cell("rec/s", "B", "weft"));
    assertEquals("100.0", t.cell("MB/s", "A", "direct"));
    assertEquals("500", t.cell("p50 µs", "A", "direct"));
    assertEquals("990", t.cell("p99 µs", "A", "direct"));
    assertEquals("999", t.cell("p99.9 µs", "A", "direct"));
    assertEquals("1,000", t.cell("max µs", "A", "direct"));
    assertEquals("1,980", t.cell("p99 µs", "A", "weft"));
    assertEquals("3.25", t.cell("CPU s/GB", "A", "weft"));
    assertEquals("300", t.cell("RSS MiB", "A", "weft"));
    assertEquals("—", t.cell("CPU s/GB", "A", "direct"));
    assertEquals("0.95×", t.cell("rec/s ×direct", "A", "weft"));
    assertEquals("2.00×", t.cell("p99 ×direct", "A", "weft"));
    assertEquals("0.86×", t.cell("rec/s ×direct", "B", "weft"));
    assertEquals("1.00×", t.cell("rec/s ×direct", "A", "direct"));
    assertEquals("base", t.cell("Δrec/s", "A", "weft"));
    assertEquals("-10.0%", t.cell("Δrec/s", "B", "weft"));
    assertEquals("+0.0%", t.cell("Δrec/s", "B", "direct"));
    assertEquals("+0.0%", t.cell("Δp99", "B", "weft"));
    assertEquals("✗ rec/s", t.cell("flag", "B", "weft"));
    assertEquals("", t.cell("flag", "B", "direct"));
    assertEquals(1, c.regressions().size());
    Regression r = c.regressions().getFirst();
    assertEquals("rec/s", r.metric());
    assertEquals(-10.0, r.deltaPct(), 1e-9);
    assertTrue(t.renderText().contains("✗ rec/s"), t.renderText());
  }

  @Test
  void phaseCostsShowBesideCpuWithTheReasonWhenSyscallsAreAbsent() {
    Histogram h = uniform(100, 1);
    Report r = Report.builder(Report.KIND_LOAD)
        .result(Result.measured("direct", "produce", null, 1000, 1.0, 1000, h))
        .result(Result.measured("weft", "produce", null, 1000, 1.0, 1000, h).withProxy(new ProxyStats(0.5, 1L << 27,
            new PhaseStats("produce", 1_000_000L, 0.42, 812.5, null, 95.25, 30.0, 12.5))))
        .result(Result.measured("haproxy", "produce", null, 1000, 1.0, 1000, h).withProxy(new ProxyStats(0.6, 1L << 24,
            new PhaseStats("produce", 1_000_000L, 0.61, null, "perf stat failed: no permission", 120.0, 0.5, 0.25))))
        .build();
    Table t = LoadCompare.compare(runs(r), 0, Thresholds.DEFAULT).table("scenario produce");
    assertEquals("0.50", t.cell("CPU s/GB", "A", "weft"));
    assertEquals("0.42", t.cell("phase CPU s/GB", "A", "weft"));
    assertEquals("813", t.cell("syscalls/MB", "A", "weft"));
    assertEquals("95.3", t.cell("ctx sw/MB", "A", "weft"));
    assertEquals("30.0 / 12.5", t.cell("syscr/syscw per MB", "A", "weft"));
    assertEquals("128", t.cell("RSS MiB", "A", "weft"));
    assertEquals("—", t.cell("syscalls/MB", "A", "haproxy"));
    assertEquals("—", t.cell("syscalls/MB", "A", "direct"));
    assertTrue(t.notes().contains("syscalls/MB absent (A haproxy): perf stat failed: no permission"), t.notes().toString());
    assertTrue(t.notes().contains(LoadCompare.PHASE_NOTE), t.notes().toString());
    assertTrue(t.renderHtml().contains("syscalls/MB absent"), "the HTML has the same table and notes");
  }

  @Test
  void latencyGrowthBeyondThresholdIsFlagged() {
    Comparison c = LoadCompare.compare(runs(run("base", 95_000, 1, 0), run("slow tail", 95_000, 2, 0)), 0, Thresholds.DEFAULT);
    Table t = c.table("scenario produce-max");
    // p99 doubles: 1,980 µs → 3,960 µs within HdrHistogram's 3 significant digits
    assertTrue(t.cell("Δp99", "B", "weft").startsWith("+100."), t.cell("Δp99", "B", "weft"));
    assertEquals("✗ p99,p99.9", t.cell("flag", "B", "weft"));
    // the same runs pass with thresholds above the growth
    Comparison lax = LoadCompare.compare(runs(run("base", 95_000, 1, 0), run("slow tail", 95_000, 2, 0)), 0,
        Thresholds.parse("p99=150%,p999=150%"));
    assertTrue(lax.regressions().isEmpty(), lax.regressions().toString());
  }

  @Test
  void lostRecordsAreARegression() {
    Comparison c = LoadCompare.compare(runs(run("base", 95_000, 1, 0), run("lossy", 95_000, 1, 3)), 0, Thresholds.DEFAULT);
    assertEquals("✗ lost", c.table("runs").cell("flag", "B"));
    assertEquals("3", c.table("runs").cell("lost", "B"));
    assertEquals(1, c.regressions().size());
  }

  @Test
  void missingFieldsShowADash() {
    Report bare = ReportJson.parse("""
        {"schema":"weft-report/v1","kind":"load","results":[{"target":"weft","scenario":"produce-max"}]}""");
    Comparison c = LoadCompare.compare(runs(bare, bare), 0, Thresholds.DEFAULT);
    Table t = c.table("scenario produce-max");
    for (String h : List.of("rec/s", "MB/s", "p50 µs", "p99 µs", "p99.9 µs", "max µs", "CPU s/GB", "phase CPU s/GB",
        "syscalls/MB", "ctx sw/MB", "syscr/syscw per MB", "RSS MiB",
        "rec/s ×direct", "p99 ×direct", "Δrec/s", "Δp99", "Δp99.9")) {
      assertEquals("—", t.cell(h, "B", "weft"), h);
    }
    assertEquals("—", c.table("runs").cell("title", "A (baseline)"));
    assertTrue(c.regressions().isEmpty());
  }

  @Test
  void cliExitCodeGatesOnRegressionAndHtmlIsSelfContained(@TempDir Path dir) throws Exception {
    Path a = dir.resolve("base.json");
    Path b = dir.resolve("drop10.json");
    ReportJson.write(run("base", 95_000, 1, 0), a);
    ReportJson.write(run("drop", 85_500, 1, 0), b);
    Path html = dir.resolve("out/compare.html");

    Out fail = cli("compare", a.toString(), b.toString(), "--threshold", "throughput=5%", "--fail-on-regression",
        "--html", html.toString());
    assertEquals(1, fail.code(), fail.stdout() + fail.stderr());
    assertTrue(fail.stdout().contains("✗ B produce-max/weft: rec/s -10.0%"), fail.stdout());

    Out pass = cli("compare", a.toString(), b.toString(), "--threshold", "throughput=15%", "--fail-on-regression");
    assertEquals(0, pass.code(), pass.stdout() + pass.stderr());
    assertTrue(pass.stdout().contains("No regressions"), pass.stdout());

    Out reported = cli("compare", a.toString(), b.toString());
    assertEquals(0, reported.code(), "without --fail-on-regression a regression is reported, not failed");
    assertTrue(reported.stdout().contains("✗"), reported.stdout());

    // baseline by letter: B as the baseline makes A 11.1% faster, no regression
    Out swapped = cli("compare", a.toString(), b.toString(), "--baseline", "B", "--fail-on-regression");
    assertEquals(0, swapped.code(), swapped.stdout());
    assertTrue(swapped.stdout().contains("+11.1%"), swapped.stdout());

    assertTrue(Files.isRegularFile(html));
    String s = Files.readString(html);
    assertFalse(Pattern.compile("(src|href)\\s*=\\s*[\"']?\\s*https?://", Pattern.CASE_INSENSITIVE).matcher(s).find());
    assertFalse(s.contains("http://") || s.contains("https://"), "no external URL at all");
    Matcher m = Pattern.compile("src=\"data:image/png;base64,([A-Za-z0-9+/=]+)\"").matcher(s);
    List<BufferedImage> images = new ArrayList<>();
    while (m.find()) images.add(ImageIO.read(new ByteArrayInputStream(Base64.getDecoder().decode(m.group(1)))));
    // latency percentiles, throughput timeline with the fault, records/s bars
    assertEquals(3, images.size(), "charts embedded");
    for (BufferedImage im : images) {
      assertNotNull(im);
      assertEquals(Charts.W, im.getWidth());
      assertEquals(Charts.H, im.getHeight());
    }
    assertTrue(s.contains("Latency by percentile — produce-max"));
    assertTrue(s.contains("Throughput over time"));
    assertTrue(s.contains("Records/s — produce-max"));
    assertTrue(s.contains("<tr class=bad>"), "the regressed row is marked");
    assertTrue(s.contains("-10.0%"));
  }

  @Test
  void usageErrorsExitTwo(@TempDir Path dir) throws Exception {
    Path a = dir.resolve("a.json");
    ReportJson.write(run("base", 95_000, 1, 0), a);
    assertEquals(2, cli().code());
    assertEquals(2, cli("compare").code());
    assertEquals(2, cli("compare", a.toString(), "--bogus").code());
    assertEquals(2, cli("compare", a.toString(), "--threshold", "latency=5%").code());
    assertEquals(2, cli("compare", a.toString(), dir.resolve("missing.json").toString()).code());
    assertEquals(2, cli("compare", a.toString(), a.toString(), "--baseline", "Z").code());
    Out mixed = cli("compare", a.toString(), "results/jmh-codec-2026-11-30.json");
    assertEquals(2, mixed.code());
    assertTrue(mixed.stderr().contains("all be weft-report/v1 or all JMH"), mixed.stderr());
  }

  @Test
  void thresholdsParse() {
    Thresholds t = Thresholds.parse("throughput=5%,p99=10%,p999=20%");
    assertEquals(new Thresholds(5, 10, 20, Thresholds.DEFAULT.score(), Thresholds.DEFAULT.alloc()), t);
    assertEquals(2.5, Thresholds.parse("score=2.5").score());
    assertEquals(7, Thresholds.parse(" alloc = 7 % ").alloc());
    assertEquals(Thresholds.DEFAULT, Thresholds.parse(Thresholds.DEFAULT.toString()));
  }

  @Test
  void everyCommittedWeftReportReadsAndCompares() throws Exception {
    List<Path> reports = new ArrayList<>();
    try (var files = Files.list(Path.of("results"))) {
      for (Path f : files.filter(f -> f.toString().endsWith(".json")).sorted().toList()) {
        if (ReportJson.isReport(new com.fasterxml.jackson.databind.ObjectMapper().readTree(f.toFile()))) reports.add(f);
      }
    }
    for (Path f : reports) {
      Report r = ReportJson.read(f);
      assertFalse(r.results().isEmpty(), f.toString());
      Comparison c = LoadCompare.compare(runs(r, r), 0, Thresholds.DEFAULT);
      long scenarios = r.results().stream().map(Result::scenario).distinct().count();
      assertEquals(scenarios + 1, c.tables().size(), f.toString());
      assertTrue(c.regressions().stream().allMatch(x -> x.metric().equals("lost records")),
          "a run compared with itself regresses only by losing records: " + c.regressions());
    }
  }
}
