package dev.weft.perfreports;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.weft.perfreports.Gate.Outcome;
import dev.weft.perfreports.Gate.Verdict;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The gate on small hand-written reports: every kind of goal passes, fails, or is not measured. */
class GateTest {

  static final Path ISSUE_10 = Path.of("gates/issue-10.json");

  /** One result: MB/s, produce p99 µs, phase CPU s/GB and peak RSS (either may be null: left out). */
  static String result(String target, String scenario, String mode, double mb, double p99, Double cpu, Long rss) {
    String proxy = cpu == null ? "" : String.format(Locale.ROOT,
        ", \"proxy\": {\"cpuSecondsPerGB\": %s, \"peakRssBytes\": %s, \"phase\": {\"phase\": \"%s\", \"cpuSecondsPerGB\": %s}}",
        cpu, rss, scenario, cpu);
    return String.format(Locale.ROOT,
        "{\"target\": \"%s\", \"scenario\": \"%s\", \"mode\": \"%s\", \"mbPerSec\": %s, \"medianSliceRecordsPerSec\": %s,"
            + " \"latencyMicros\": {\"p99\": %s}%s}",
        target, scenario, mode, mb, mb * 1000, p99, proxy);
  }

  static JsonNode report(String... results) throws Exception {
    return new ObjectMapper().readTree("{\"schema\": \"weft-report/v1\", \"kind\": \"load\", \"results\": ["
        + String.join(",\n", results) + "]}");
  }

  /**
   * A max-throughput run: direct 100 MB/s both ways; weft at {@code weftShare} of it with CPU {@code weftCpu}
   * s/GB against HAProxy's 1.0 and RSS {@code rssMiB}; woven and collapsed at {@code wovenShare} of weft.
   */
  static JsonNode maxRun(double weftShare, double weftCpu, long rssMiB, double wovenShare) throws Exception {
    List<String> r = new ArrayList<>();
    for (String s : List.of("produce", "consume")) {
      double weft = 100 * weftShare;
      r.add(result("direct", s, "max-throughput", 100, 2000, null, null));
      r.add(result("weft", s, "max-throughput", weft, 2100, weftCpu, rssMiB << 20));
      r.add(result("haproxy", s, "max-throughput", 97, 2050, 1.0, 20L << 20));
      r.add(result("woven", s, "max-throughput", weft * wovenShare, 2200, weftCpu, 150L << 20));
      r.add(result("collapsed", s, "max-throughput", weft * wovenShare, 2200, weftCpu, 150L << 20));
    }
    return report(r.toArray(String[]::new));
  }

  static Map<String, Verdict> verdicts(Gate gate, JsonNode report) {
    return gate.check(report).stream().collect(Collectors.toMap(o -> o.goal().name(), Outcome::verdict));
  }

  @Test
  void issue10GoalsPassAndFailOnAMaxThroughputRun() throws Exception {
    Gate gate = Gate.read(ISSUE_10);
    Map<String, Verdict> good = verdicts(gate, maxRun(0.99, 0.5, 100, 0.97));
    assertEquals(Verdict.PASS, good.get("weft consume throughput (median of rounds) >= 0.95x direct"));
    assertEquals(Verdict.PASS, good.get("weft produce throughput (median of rounds) >= 0.98x direct"));
    assertEquals(Verdict.PASS, good.get("weft produce CPU s/GB <= 0.6x haproxy"));
    assertEquals(Verdict.PASS, good.get("weft consume CPU s/GB <= 0.6x haproxy"));
    assertEquals(Verdict.PASS, good.get("woven produce throughput (median of rounds) >= 0.95x weft (pass-through)"));
    assertEquals(Verdict.PASS, good.get("collapsed consume throughput (median of rounds) >= 0.90x weft"));
    assertEquals(Verdict.PASS, good.get("weft peak RSS <= 128 MiB"));
    // a max-throughput run does not measure the fixed-rate latency goal
    assertEquals(Verdict.NOT_MEASURED, good.get("weft produce p99 <= direct + 500 us (fixed rate)"));

    // weft at 0.96x direct: consume (0.95) passes, produce (0.98) fails; CPU 0.7 > 0.6 x 1.0; RSS 129 MiB;
    // woven and collapsed at 0.92x weft: woven (0.95) fails, collapsed (0.90) passes
    Map<String, Verdict> bad = verdicts(gate, maxRun(0.96, 0.7, 129, 0.92));
    assertEquals(Verdict.PASS, bad.get("weft consume throughput (median of rounds) >= 0.95x direct"));
    assertEquals(Verdict.FAIL, bad.get("weft produce throughput (median of rounds) >= 0.98x direct"));
    assertEquals(Verdict.FAIL, bad.get("weft produce CPU s/GB <= 0.6x haproxy"));
    assertEquals(Verdict.FAIL, bad.get("weft consume CPU s/GB <= 0.6x haproxy"));
    assertEquals(Verdict.FAIL, bad.get("woven consume throughput (median of rounds) >= 0.95x weft (pass-through)"));
    assertEquals(Verdict.PASS, bad.get("collapsed produce throughput (median of rounds) >= 0.90x weft"));
    assertEquals(Verdict.FAIL, bad.get("weft peak RSS <= 128 MiB"));
    assertEquals(Verdict.FAIL, verdicts(gate, maxRun(0.94, 0.5, 100, 0.89)).get("weft consume throughput (median of rounds) >= 0.95x direct"));
    assertEquals(Verdict.FAIL, verdicts(gate, maxRun(0.99, 0.5, 100, 0.89)).get("collapsed produce throughput (median of rounds) >= 0.90x weft"));
  }

  @Test
  void fixedRateLatencyGoalIsAnOffsetOverDirect() throws Exception {
    Gate gate = Gate.read(ISSUE_10);
    String goal = "weft produce p99 <= direct + 500 us (fixed rate)";
    JsonNode within = report(result("direct", "produce", "fixed-rate", 10, 2000, null, null),
        result("weft", "produce", "fixed-rate", 10, 2500, 0.5, 100L << 20));
    JsonNode beyond = report(result("direct", "produce", "fixed-rate", 10, 2000, null, null),
        result("weft", "produce", "fixed-rate", 10, 2501, 0.5, 100L << 20));
    Outcome ok = gate.check(within).stream().filter(o -> o.goal().name().equals(goal)).findFirst().orElseThrow();
    assertEquals(Verdict.PASS, ok.verdict());
    assertEquals(2500.0, ok.bound());
    assertEquals("<= direct 2,000 + 500 = 2,500", ok.detail());
    assertEquals(Verdict.FAIL, verdicts(gate, beyond).get(goal));
    // throughput goals need a max-throughput run: not measured here
    Outcome mb = gate.check(within).get(1);
    assertEquals(Verdict.NOT_MEASURED, mb.verdict());
    assertEquals("run is fixed-rate, goal needs max-throughput", mb.detail());
  }

  @Test
  void absentTargetsAndFiguresAreNotMeasured() throws Exception {
    Gate gate = Gate.read(ISSUE_10);
    // an old report: direct and weft only, no proxy.phase, no HAProxy, no woven/collapsed
    JsonNode old = report(
        result("direct", "produce", "max-throughput", 100, 2000, null, null),
        "{\"target\": \"weft\", \"scenario\": \"produce\", \"mode\": \"max-throughput\", \"mbPerSec\": 99,"
            + " \"medianSliceRecordsPerSec\": 99000, \"proxy\": {\"cpuSecondsPerGB\": 0.3, \"peakRssBytes\": 100000000}}");
    Map<String, Outcome> o = gate.check(old).stream().collect(Collectors.toMap(x -> x.goal().name(), x -> x));
    assertEquals(Verdict.PASS, o.get("weft produce throughput (median of rounds) >= 0.98x direct").verdict());
    assertEquals("no weft consume result", o.get("weft consume throughput (median of rounds) >= 0.95x direct").detail());
    assertEquals("weft has no proxy.phase.cpuSecondsPerGB", o.get("weft produce CPU s/GB <= 0.6x haproxy").detail());
    assertEquals("no woven produce result", o.get("woven produce throughput (median of rounds) >= 0.95x weft (pass-through)").detail());
    assertEquals(Verdict.PASS, o.get("weft peak RSS <= 128 MiB").verdict());
    long notMeasured = o.values().stream().filter(x -> x.verdict() == Verdict.NOT_MEASURED).count();
    assertEquals(8, notMeasured);
    // the reference absent: weft has a phase CPU figure, the run has no haproxy
    JsonNode noHaproxy = report(result("weft", "consume", "max-throughput", 99, 2000, 0.4, 1L));
    assertEquals("no haproxy consume result", gate.check(noHaproxy).stream()
        .filter(x -> x.goal().name().equals("weft consume CPU s/GB <= 0.6x haproxy")).findFirst().orElseThrow().detail());
  }

  @Test
  void badGateFilesAreRejected() {
    String goal = "\"name\": \"g\", \"scenario\": \"produce\", \"target\": \"weft\", \"metric\": \"mbPerSec\"";
    assertThrows(IllegalArgumentException.class, () -> Gate.parse("{\"schema\": \"x\", \"goals\": []}"));
    assertThrows(IllegalArgumentException.class, () -> Gate.parse("{\"schema\": \"weft-gate/v1\", \"goals\": []}"));
    String[] bad = {
        goal + ", \"op\": \"=>\", \"value\": 1",
        goal + ", \"op\": \">=\"",
        goal + ", \"op\": \">=\", \"value\": 1, \"reference\": \"direct\"",
        goal + ", \"op\": \">=\", \"value\": 1, \"factor\": 2",
        goal + ", \"op\": \">=\", \"reference\": \"direct\", \"factr\": 0.9",
        goal + ", \"op\": \">=\", \"reference\": \"direct\", \"factor\": \"0.9\"",
        "\"name\": \"g\", \"target\": \"weft\", \"metric\": \"mbPerSec\", \"op\": \">=\", \"value\": 1"};
    for (String g : bad) {
      assertThrows(IllegalArgumentException.class, () -> Gate.parse("{\"schema\": \"weft-gate/v1\", \"goals\": [{" + g + "}]}"), g);
    }
    Gate ok = Gate.parse("{\"schema\": \"weft-gate/v1\", \"goals\": [{" + goal + ", \"op\": \"<\", \"value\": 5}]}");
    assertEquals(5.0, ok.goals().getFirst().value());
  }

  @Test
  void cliPrintsEachGoalAndFailsOnAMissedOneOnlyWhenAsked(@TempDir Path dir) throws Exception {
    Path good = dir.resolve("good.json");
    Path bad = dir.resolve("bad.json");
    Files.writeString(good, maxRun(0.99, 0.5, 100, 0.97).toString());
    Files.writeString(bad, maxRun(0.96, 0.5, 100, 0.97).toString());
    String gate = ISSUE_10.toString();

    CompareTest.Out pass = CompareTest.cli("compare", good.toString(), "--gate", gate, "--fail-on-regression");
    assertEquals(0, pass.code(), pass.stdout() + pass.stderr());
    assertTrue(pass.stdout().contains("== gate issue #10 — run A (good) =="), pass.stdout());
    assertTrue(pass.stdout().contains("Gate issue #10, run A (good): 9 pass, 0 fail, 1 not measured."), pass.stdout());
    assertTrue(pass.stdout().contains(">= 0.95 × direct 100,000 = 95,000"), pass.stdout());
    assertTrue(pass.stdout().contains("not measured: run is max-throughput, goal needs fixed-rate"), pass.stdout());

    CompareTest.Out fail = CompareTest.cli("compare", good.toString(), bad.toString(), "--gate", gate, "--fail-on-regression",
        "--threshold", "throughput=10%", "--html", dir.resolve("g.html").toString());
    assertEquals(1, fail.code(), fail.stdout() + fail.stderr());
    assertTrue(fail.stdout().contains("goal missed, run B: weft produce throughput (median of rounds) >= 0.98x direct: 96,000, needs >= 0.98 × direct 100,000 = 98,000"),
        fail.stdout());
    String html = Files.readString(dir.resolve("g.html"));
    assertTrue(html.contains("gate issue #10 — run B (bad)") && html.contains("✗ fail"), "gate tables in the HTML");
    assertEquals(0, CompareTest.cli("compare", bad.toString(), "--gate", gate).code(), "reported, not failed, without --fail-on-regression");

    Path typo = dir.resolve("typo.json");
    Files.writeString(typo, "{\"schema\": \"weft-gate/v1\", \"goals\": [{\"name\": \"g\"}]}");
    CompareTest.Out usage = CompareTest.cli("compare", good.toString(), "--gate", typo.toString());
    assertEquals(2, usage.code());
    assertTrue(usage.stderr().contains("goal 1: no"), usage.stderr());
    assertEquals(2, CompareTest.cli("compare", "results/jmh-codec-2026-11-30.json", "--gate", gate).code());
  }
}
