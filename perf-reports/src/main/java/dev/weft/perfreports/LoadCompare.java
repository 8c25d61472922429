package dev.weft.perfreports;

import dev.weft.perfreports.model.Integrity;
import dev.weft.perfreports.model.Latency;
import dev.weft.perfreports.model.Machine;
import dev.weft.perfreports.model.PhaseStats;
import dev.weft.perfreports.model.RatioToDirect;
import dev.weft.perfreports.model.Report;
import dev.weft.perfreports.model.Result;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Compares weft-report/v1 runs: a "Runs" table, then one table per scenario with a row per run ×
 * target. Ratios to {@code direct} are recomputed within each run (falling back to the writer's
 * {@code ratioToDirect}); deltas are to the same scenario × target of the baseline run. A row regresses
 * when records/s drops, or p99 / p99.9 grows, beyond its threshold; a run regresses when it lost records.
 */
public final class LoadCompare {
  private LoadCompare() {}

  /** A report with its short name (A, B, ...) and label (file name). */
  public record Run(String name, String label, Report report) {}

  public static final List<String> SCENARIO_HEADERS = List.of(
      "run", "target", "rec/s", "MB/s", "p50 µs", "p99 µs", "p99.9 µs", "max µs", "CPU s/GB",
      "phase CPU s/GB", "syscalls/MB", "ctx sw/MB", "syscr/syscw per MB", "RSS MiB",
      "rec/s ×direct", "p99 ×direct", "Δrec/s", "Δp99", "Δp99.9", "flag");

  static final String PHASE_NOTE = "CPU s/GB: whole slices; phase CPU s/GB, syscalls/MB, context switches/MB, syscr/syscw"
      + " (/proc/PID/io) per MB: of the phase the row measures (produce, e2e: producer + concurrent consumer;"
      + " consume: the catch-up read), per 10^9 / 10^6 record bytes the proxy moved in it";

  public static Comparison compare(List<Run> runs, int baseline, Thresholds th) {
    List<Table> tables = new ArrayList<>();
    List<Regression> regressions = new ArrayList<>();
    tables.add(runsTable(runs, baseline, regressions));

    Set<String> scenarios = new LinkedHashSet<>();
    for (Run run : runs) for (Result r : run.report().results()) scenarios.add(String.valueOf(r.scenario()));
    Run base = runs.get(baseline);
    for (String scenario : scenarios) {
      Set<String> targets = new LinkedHashSet<>();
      Result first = null;
      for (Run run : runs) {
        for (Result r : run.report().results(scenario)) {
          if (Result.DIRECT.equals(r.target())) targets.add(r.target());
          if (first == null) first = r;
        }
      }
      for (Run run : runs) for (Result r : run.report().results(scenario)) targets.add(String.valueOf(r.target()));
      Table t = new Table("scenario " + scenario + describe(first), SCENARIO_HEADERS, 2);
      Map<String, List<String>> syscallsAbsent = new LinkedHashMap<>();
      boolean anyPhase = false;
      for (Run run : runs) {
        for (String target : targets) {
          Result r = run.report().result(scenario, target);
          if (r == null) continue;
          Result direct = run.report().result(scenario, Result.DIRECT);
          Result b = run == base ? null : base.report().result(scenario, target);
          String where = run.name() + " " + scenario + "/" + target;
          List<String> flags = new ArrayList<>();
          Double dRps = b == null ? null : Fmt.deltaPct(b.recordsPerSec(), r.recordsPerSec());
          Double dP99 = b == null ? null : Fmt.deltaPct(p(b, 99), p(r, 99));
          Double dP999 = b == null ? null : Fmt.deltaPct(p(b, 999), p(r, 999));
          if (dRps != null && dRps < -th.throughput()) {
            flags.add("rec/s");
            regressions.add(new Regression(where, "rec/s", b.recordsPerSec(), r.recordsPerSec(), dRps, th.throughput()));
          }
          if (dP99 != null && dP99 > th.p99()) {
            flags.add("p99");
            regressions.add(new Regression(where, "p99", p(b, 99), p(r, 99), dP99, th.p99()));
          }
          if (dP999 != null && dP999 > th.p999()) {
            flags.add("p99.9");
            regressions.add(new Regression(where, "p99.9", p(b, 999), p(r, 999), dP999, th.p999()));
          }
          Double rpsRatio;
          Double p99Ratio;
          if (direct != null) {
            rpsRatio = ratio(r.recordsPerSec(), direct.recordsPerSec());
            p99Ratio = ratio(p(r, 99), p(direct, 99));
          } else {
            RatioToDirect given = r.ratioToDirect();
            rpsRatio = given == null ? null : given.recordsPerSec();
            p99Ratio = given == null ? null : given.p99();
          }
          boolean isBase = run == base;
          PhaseStats ph = r.proxy() == null ? null : r.proxy().phase();
          anyPhase |= ph != null;
          if (ph != null && ph.syscallsAbsent() != null) {
            syscallsAbsent.computeIfAbsent(ph.syscallsAbsent(), k -> new ArrayList<>()).add(run.name() + " " + target);
          }
          t.addRow(List.of(
              run.name(), target,
              Fmt.count(r.recordsPerSec()), Fmt.dec(r.mbPerSec(), 1),
              Fmt.count(p(r, 50)), Fmt.count(p(r, 99)), Fmt.count(p(r, 999)), Fmt.count(p(r, 0)),
              r.proxy() == null ? Fmt.NONE : Fmt.dec(r.proxy().cpuSecondsPerGB(), 2),
              ph == null ? Fmt.NONE : Fmt.dec(ph.cpuSecondsPerGB(), 2), ph == null ? Fmt.NONE : Fmt.sig(ph.syscallsPerMB()),
              ph == null ? Fmt.NONE : Fmt.sig(ph.contextSwitchesPerMB()),
              ph == null ? Fmt.NONE : Fmt.sig(ph.syscrPerMB()) + " / " + Fmt.sig(ph.syscwPerMB()),
              r.proxy() == null ? Fmt.NONE : Fmt.mib(r.proxy().peakRssBytes()),
              Fmt.ratio(rpsRatio), Fmt.ratio(p99Ratio),
              isBase ? "base" : Fmt.pct(dRps), isBase ? "base" : Fmt.pct(dP99), isBase ? "base" : Fmt.pct(dP999),
              flags.isEmpty() ? "" : "✗ " + String.join(",", flags)), !flags.isEmpty());
        }
      }
      syscallsAbsent.forEach((why, rows) -> t.addNote("syscalls/MB absent (" + String.join(", ", rows) + "): " + why));
      if (anyPhase) t.addNote(PHASE_NOTE);
      tables.add(t);
    }
    return new Comparison(tables, regressions);
  }

  private static String describe(Result r) {
    if (r == null) return "";
    List<String> parts = new ArrayList<>();
    if (r.mode() != null) parts.add(r.mode());
    if (r.recordBytes() != null) parts.add(r.recordBytes() + " B records");
    if (r.targetRatePerSec() != null && r.targetRatePerSec() > 0) parts.add("target " + Fmt.count(r.targetRatePerSec()) + " rec/s");
    if (r.durationSec() != null) parts.add(Fmt.sig(r.durationSec()) + " s");
    return parts.isEmpty() ? "" : " (" + String.join(", ", parts) + ")";
  }

  /** Percentile of a result: 50, 99, 999 (p99.9) or 0 for max; null when absent. */
  static Double p(Result r, int which) {
    Latency l = r.latencyMicros();
    if (l == null) return null;
    return switch (which) {
      case 50 -> l.p50();
      case 99 -> l.p99();
      case 999 -> l.p999();
      case 0 -> l.max();
      default -> throw new IllegalArgumentException("percentile " + which);
    };
  }

  private static Double ratio(Double a, Double b) {
    if (a == null || b == null || b == 0) return null;
    return a / b;
  }

  private static Table runsTable(List<Run> runs, int baseline, List<Regression> regressions) {
    Table t = new Table("runs", List.of("run", "file", "kind", "title", "created", "commit", "machine",
        "versions", "faults", "acked", "consumed", "lost", "dups", "flag"), 8);
    for (int i = 0; i < runs.size(); i++) {
      Run run = runs.get(i);
      Report r = run.report();
      Machine m = r.machine();
      String machine = m == null ? Fmt.NONE : String.format(Locale.ROOT, "%s cpu, %s GiB, %s, JDK %s",
          m.cpus() == null ? "?" : m.cpus(),
          m.memoryBytes() == null ? "?" : Fmt.dec(m.memoryBytes() / (1024.0 * 1024 * 1024), 1),
          Objects.toString(m.os(), "?") + (m.kernel() == null ? "" : " " + m.kernel()), Objects.toString(m.jdk(), "?"));
      String versions = r.versions() == null || r.versions().isEmpty() ? Fmt.NONE
          : String.join(" ", r.versions().entrySet().stream().map(Map.Entry::toString).toList());
      Integrity in = r.integrity();
      boolean lost = in != null && in.lost() != null && in.lost() > 0;
      if (lost) regressions.add(new Regression(run.name() + " integrity", "lost records", null, in.lost().doubleValue(), null, null));
      t.addRow(List.of(
          run.name() + (i == baseline ? " (baseline)" : ""), Fmt.orNone(run.label()), Fmt.orNone(r.kind()), Fmt.orNone(r.title()),
          Fmt.orNone(r.createdAt()), Fmt.orNone(r.gitCommit()), machine, versions,
          Integer.toString(r.faults().size()),
          in == null ? Fmt.NONE : Fmt.count(in.acknowledged()), in == null ? Fmt.NONE : Fmt.count(in.consumed()),
          in == null ? Fmt.NONE : Fmt.count(in.lost()), in == null ? Fmt.NONE : Fmt.count(in.duplicates()),
          lost ? "✗ lost" : ""), lost);
      if (r.command() != null) t.addNote(run.name() + " command: " + r.command());
    }
    return t;
  }
}
