package dev.weft.perfreports;

import dev.weft.perfreports.jmh.JmhResult;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Compares JMH result files: a table per benchmark class, a row per method × params, and per run the
 * score and {@code gc.alloc.rate.norm} side by side, then the deltas of each run to the baseline. A row
 * regresses when the score gets worse beyond {@code score}% (time/op up, or ops/time down in thrpt mode)
 * or allocation grows beyond {@code alloc}% and by at least {@link #ALLOC_NOISE_BYTES} B/op.
 */
public final class JmhCompare {
  private JmhCompare() {}

  /** Allocation growth under this many bytes per operation is noise (TLAB accounting), never a regression. */
  public static final double ALLOC_NOISE_BYTES = 1.0;

  public record Run(String name, String label, List<JmhResult> results) {
    JmhResult find(String key) {
      for (JmhResult r : results) if (r.key().equals(key)) return r;
      return null;
    }
  }

  public static Comparison compare(List<Run> runs, int baseline, Thresholds th) {
    List<Table> tables = new ArrayList<>();
    List<Regression> regressions = new ArrayList<>();
    Table legend = new Table("runs", List.of("run", "file", "benchmarks"), 3);
    for (int i = 0; i < runs.size(); i++) {
      Run r = runs.get(i);
      legend.addRow(List.of(r.name() + (i == baseline ? " (baseline)" : ""), r.label(),
          Integer.toString(r.results().size())), false);
    }
    tables.add(legend);

    // class -> ordered keys, in first-seen order over all runs
    Map<String, Set<String>> byClass = new LinkedHashMap<>();
    Map<String, JmhResult> sample = new LinkedHashMap<>();
    for (Run run : runs) {
      for (JmhResult r : run.results()) {
        byClass.computeIfAbsent(r.className(), k -> new LinkedHashSet<>()).add(r.key());
        sample.putIfAbsent(r.key(), r);
      }
    }
    Run base = runs.get(baseline);
    for (Map.Entry<String, Set<String>> cls : byClass.entrySet()) {
      String unit = sample.get(cls.getValue().iterator().next()).scoreUnit();
      List<String> headers = new ArrayList<>(List.of("benchmark", "params"));
      for (Run run : runs) {
        headers.add(run.name() + " score");
        headers.add(run.name() + " B/op");
      }
      for (Run run : runs) {
        if (run == base) continue;
        headers.add("Δscore " + run.name());
        headers.add("ΔB/op " + run.name());
      }
      headers.add("flag");
      Table t = new Table(cls.getKey() + " (score " + unit + ", allocation B/op)", headers, 2);
      for (String key : cls.getValue()) {
        JmhResult s = sample.get(key);
        List<String> row = new ArrayList<>(List.of(s.method(), s.paramsText()));
        for (Run run : runs) {
          JmhResult r = run.find(key);
          row.add(r == null ? Fmt.NONE : Fmt.sig(r.score()));
          row.add(r == null ? Fmt.NONE : Fmt.sig(r.allocBytesPerOp()));
        }
        JmhResult b = base.find(key);
        List<String> flags = new ArrayList<>();
        for (Run run : runs) {
          if (run == base) continue;
          JmhResult r = run.find(key);
          Double dScore = b == null || r == null ? null : Fmt.deltaPct(b.score(), r.score());
          Double dAlloc = b == null || r == null ? null : Fmt.deltaPct(b.allocBytesPerOp(), r.allocBytesPerOp());
          String where = run.name() + " " + s.className() + "." + s.method() + " " + s.paramsText();
          if (dScore != null) {
            double worse = s.higherIsBetter() ? -dScore : dScore;
            if (worse > th.score()) {
              flags.add("score " + run.name());
              regressions.add(new Regression(where, "score", b.score(), r.score(), dScore, th.score()));
            }
          }
          String allocCell = Fmt.pct(dAlloc);
          if (b != null && r != null && b.allocBytesPerOp() != null && r.allocBytesPerOp() != null) {
            double grow = r.allocBytesPerOp() - b.allocBytesPerOp();
            boolean nearZeroBase = b.allocBytesPerOp() < ALLOC_NOISE_BYTES;
            boolean beyond = grow >= ALLOC_NOISE_BYTES && (nearZeroBase || (dAlloc != null && dAlloc > th.alloc()));
            if (Math.abs(grow) < ALLOC_NOISE_BYTES) {
              allocCell = "±0";
            } else if (nearZeroBase) {
              allocCell = String.format(java.util.Locale.ROOT, "%+.0f B", grow); // a percentage of ~0 says nothing
            }
            if (beyond) {
              flags.add("alloc " + run.name());
              regressions.add(new Regression(where, "B/op", b.allocBytesPerOp(), r.allocBytesPerOp(),
                  nearZeroBase ? null : dAlloc, th.alloc()));
            }
          }
          row.add(Fmt.pct(dScore));
          row.add(allocCell);
        }
        row.add(flags.isEmpty() ? "" : "✗ " + String.join(",", flags));
        t.addRow(row, !flags.isEmpty());
      }
      tables.add(t);
    }
    return new Comparison(tables, regressions);
  }
}
