package dev.weft.perfreports;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.perfreports.jmh.JmhJson;
import dev.weft.perfreports.jmh.JmhResult;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JmhCompareTest {

  static final Path COMMITTED = Path.of("results/jmh-codec-2026-11-30.json");
  static final Path COMMITTED_QUICK = Path.of("results/jmh-codec-2026-11-30-quick-plain-threads.json");

  @Test
  void readsTheCommittedJmhResults() throws Exception {
    List<JmhResult> rs = JmhJson.read(COMMITTED);
    assertEquals(70, rs.size());
    Set<String> names = new TreeSet<>();
    for (JmhResult r : rs) names.add(r.className() + "." + r.method());
    assertEquals(new TreeSet<>(List.of(
        "ProduceRequestBenchmark.fullParse", "ProduceRequestBenchmark.skim", "ProduceRequestBenchmark.skimOffsetsOnly",
        "ProduceRequestBenchmark.split", "ProduceRequestBenchmark.splitFullEncode",
        "ProduceResponseBenchmark.fullParse", "ProduceResponseBenchmark.merge", "ProduceResponseBenchmark.skim",
        "RecordBatchRewriteBenchmark.rewriteProducerIdAndCrc")), names);
    JmhResult first = rs.getFirst();
    assertEquals("shape=1x1024 version=13", first.paramsText());
    assertEquals(323.58720225520614, first.score(), 1e-9);
    assertEquals("ns/op", first.scoreUnit());
    assertTrue(first.allocBytesPerOp() != null && first.allocBytesPerOp() > 0);
  }

  @Test
  void committedFilesCompareIntoTablesPerClass() throws Exception {
    List<JmhCompare.Run> runs = List.of(
        new JmhCompare.Run("A", "quick", JmhJson.read(COMMITTED_QUICK)),
        new JmhCompare.Run("B", "full", JmhJson.read(COMMITTED)));
    Comparison c = JmhCompare.compare(runs, 0, Thresholds.DEFAULT);
    assertEquals(List.of("runs", "ProduceRequestBenchmark (score ns/op, allocation B/op)",
        "ProduceResponseBenchmark (score ns/op, allocation B/op)",
        "RecordBatchRewriteBenchmark (score ns/op, allocation B/op)"), c.tables().stream().map(Table::title).toList());
    Table t = c.table("ProduceRequestBenchmark");
    assertEquals("324", t.cell("B score", "fullParse", "shape=1x1024 version=13"));
    assertEquals("774", t.cell("A score", "fullParse", "shape=1x1024 version=13"));
    assertEquals("-58.2%", t.cell("Δscore B", "fullParse", "shape=1x1024 version=13"));
    // skimOffsetsOnly exists only in the full run
    assertEquals("—", t.cell("A score", "skimOffsetsOnly", "shape=1x1024 version=13"));
    assertEquals("—", t.cell("Δscore B", "skimOffsetsOnly", "shape=1x1024 version=13"));
  }

  static String jmhJson(String mode, double score, double allocNorm) {
    return String.format(Locale.ROOT, """
        [{"benchmark":"dev.weft.jmh.X.m","mode":"%s","threads":1,"params":{"n":"1"},
          "primaryMetric":{"score":%s,"scoreError":1.0,"scoreUnit":"%s"},
          "secondaryMetrics":{"gc.alloc.rate.norm":{"score":%s,"scoreUnit":"B/op"}}}]""",
        mode, score, mode.equals("thrpt") ? "ops/s" : "ns/op", allocNorm);
  }

  static int cli(String... args) {
    return PerfReportsMain.run(args, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
        new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
  }

  @Test
  void scoreAndAllocationRegressionsGateTheExitCode(@TempDir Path dir) throws Exception {
    Path base = Files.writeString(dir.resolve("base.json"), jmhJson("avgt", 100, 0.001));
    Path slower = Files.writeString(dir.resolve("slower.json"), jmhJson("avgt", 115, 0.002));
    Path same = Files.writeString(dir.resolve("same.json"), jmhJson("avgt", 104, 0.5));
    Path allocs = Files.writeString(dir.resolve("allocs.json"), jmhJson("avgt", 100, 24));
    String[] gate = {"--fail-on-regression"};
    assertEquals(1, cli(concat(new String[] {"compare", base.toString(), slower.toString()}, gate)));
    assertEquals(0, cli(concat(new String[] {"compare", base.toString(), slower.toString(), "--threshold", "score=20%"}, gate)));
    assertEquals(0, cli(concat(new String[] {"compare", base.toString(), same.toString()}, gate)), "+4% and sub-byte allocation pass");
    assertEquals(1, cli(concat(new String[] {"compare", base.toString(), allocs.toString()}, gate)), "0 → 24 B/op fails");

    Comparison c = JmhCompare.compare(List.of(
        new JmhCompare.Run("A", "base", JmhJson.read(base)), new JmhCompare.Run("B", "allocs", JmhJson.read(allocs))),
        0, Thresholds.DEFAULT);
    assertEquals("+24 B", c.table("X").cell("ΔB/op B", "m"));
    assertEquals("✗ alloc B", c.table("X").cell("flag", "m"));

    // throughput mode: a higher score is better, so a drop regresses and a rise does not
    Path tBase = Files.writeString(dir.resolve("tb.json"), jmhJson("thrpt", 1000, 0));
    Path tUp = Files.writeString(dir.resolve("tu.json"), jmhJson("thrpt", 1300, 0));
    Path tDown = Files.writeString(dir.resolve("td.json"), jmhJson("thrpt", 850, 0));
    assertEquals(0, cli(concat(new String[] {"compare", tBase.toString(), tUp.toString()}, gate)));
    assertEquals(1, cli(concat(new String[] {"compare", tBase.toString(), tDown.toString()}, gate)));
  }

  @Test
  void htmlOfCommittedFilesEmbedsAChartPerBenchmark(@TempDir Path dir) throws Exception {
    Path html = dir.resolve("jmh.html");
    assertEquals(0, cli("compare", COMMITTED_QUICK.toString(), COMMITTED.toString(), "--html", html.toString()));
    String s = Files.readString(html);
    assertFalse(s.contains("http://") || s.contains("https://"));
    int images = s.split("src=\"data:image/png;base64,", -1).length - 1;
    assertEquals(9, images, "one chart per class × method");
    assertTrue(s.contains("ProduceRequestBenchmark.fullParse"));
  }

  static String[] concat(String[] a, String[] b) {
    String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
