package dev.weft.perfreports;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.weft.perfreports.jmh.JmhJson;
import dev.weft.perfreports.model.ReportJson;
import dev.weft.perfreports.model.Result;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * {@code compare A.json B.json [C.json ...] [--html out.html] [--baseline A] [--threshold ...]
 * [--gate FILE] [--fail-on-regression]}. Exit codes: 0 done (regressions only printed), 1 regressions
 * found or gate goals missed with --fail-on-regression, 2 bad usage or unreadable input.
 */
public final class PerfReportsMain {
  public static final int OK = 0;
  public static final int REGRESSION = 1;
  public static final int USAGE = 2;

  static final String USAGE_TEXT = """
      usage: compare.sh compare RUN.json [RUN.json ...] [options]
        RUN.json            weft-report/v1 files (load/soak) or JMH -rf json files; all of one sort
        --html FILE         also write one self-contained HTML file with the tables and charts
        --baseline RUN      the run others are compared to: its letter (A, B, ...), file name or path;
                            default the first file
        --threshold SPEC    e.g. throughput=5%,p99=10%,p999=20%,score=10%,alloc=5% (defaults shown)
        --gate FILE         check the goals of a weft-gate/v1 file within each weft-report run on its own
                            (e.g. perf-reports/gates/issue-10.json): prints each goal, figure, pass/fail
        --fail-on-regression  exit 1 when any regression is found or any gate goal is missed
      exit codes: 0 ok, 1 regression or missed goal (with --fail-on-regression), 2 usage or input error
      """;

  private PerfReportsMain() {}

  public static void main(String[] args) {
    System.setProperty("java.awt.headless", "true");
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    PrintStream err = new PrintStream(System.err, true, StandardCharsets.UTF_8);
    System.exit(run(args, out, err));
  }

  /** Runs the CLI and returns the exit code (the tests call this). */
  public static int run(String[] args, PrintStream out, PrintStream err) {
    System.setProperty("java.awt.headless", "true");
    if (args.length == 0 || args[0].equals("-h") || args[0].equals("--help") || args[0].equals("help")) {
      (args.length == 0 ? err : out).print(USAGE_TEXT);
      return args.length == 0 ? USAGE : OK;
    }
    if (!args[0].equals("compare")) {
      err.println("unknown command: " + args[0]);
      err.print(USAGE_TEXT);
      return USAGE;
    }
    List<Path> files = new ArrayList<>();
    Path html = null;
    String baseline = null;
    Thresholds th = Thresholds.DEFAULT;
    boolean failOnRegression = false;
    Gate gate = null;
    try {
      for (int i = 1; i < args.length; i++) {
        String a = args[i];
        switch (a) {
          case "--html" -> html = Path.of(value(args, ++i, a));
          case "--baseline" -> baseline = value(args, ++i, a);
          case "--threshold", "--thresholds" -> th = Thresholds.parse(value(args, ++i, a));
          case "--fail-on-regression" -> failOnRegression = true;
          case "--gate" -> gate = Gate.read(Path.of(value(args, ++i, a)));
          default -> {
            if (a.startsWith("--")) throw new IllegalArgumentException("unknown option " + a);
            files.add(Path.of(a));
          }
        }
      }
      if (files.isEmpty()) throw new IllegalArgumentException("no report files given");
    } catch (IllegalArgumentException e) {
      err.println("error: " + e.getMessage());
      err.print(USAGE_TEXT);
      return USAGE;
    }

    Comparison cmp;
    List<Table> gateTables = new ArrayList<>();
    List<String> missed = new ArrayList<>();
    List<String> gateSummaries = new ArrayList<>();
    List<Html.Image> images = new ArrayList<>();
    String kind;
    try {
      List<String> names = new ArrayList<>();
      List<String> labels = labels(files);
      for (int i = 0; i < files.size(); i++) names.add(runName(i));
      int base = baselineIndex(baseline, files, names, labels);
      ObjectMapper mapper = new ObjectMapper();
      List<JsonNode> trees = new ArrayList<>();
      for (Path f : files) {
        if (!Files.isRegularFile(f)) throw new IllegalArgumentException(f + ": no such file");
        try {
          trees.add(mapper.readTree(f.toFile()));
        } catch (IOException e) {
          throw new IllegalArgumentException(f + ": not JSON: " + e.getMessage());
        }
      }
      boolean allJmh = trees.stream().allMatch(JmhJson::isJmh);
      boolean allReports = trees.stream().allMatch(ReportJson::isReport);
      if (allReports) {
        kind = "weft-report";
        List<LoadCompare.Run> runs = new ArrayList<>();
        for (int i = 0; i < files.size(); i++) {
          try {
            runs.add(new LoadCompare.Run(names.get(i), labels.get(i), ReportJson.parse(trees.get(i).toString())));
          } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(files.get(i) + ": " + e.getMessage());
          }
        }
        cmp = LoadCompare.compare(runs, base, th);
        if (html != null) images = loadCharts(runs);
        for (int i = 0; gate != null && i < runs.size(); i++) {
          String run = runs.get(i).name() + " (" + runs.get(i).label() + ")";
          List<Gate.Outcome> outcomes = gate.check(trees.get(i));
          gateTables.add(gate.table(run, outcomes));
          gateSummaries.add("Gate " + gate.title() + ", run " + run + ": " + Gate.summary(outcomes) + ".");
          for (Gate.Outcome o : outcomes) {
            if (o.verdict() == Gate.Verdict.FAIL) {
              missed.add("goal missed, run " + runs.get(i).name() + ": " + o.goal().name() + ": " + Fmt.sig(o.measured()) + ", needs " + o.detail());
            }
          }
        }
      } else if (allJmh) {
        if (gate != null) throw new IllegalArgumentException("--gate checks weft-report/v1 files, not JMH");
        kind = "JMH";
        List<JmhCompare.Run> runs = new ArrayList<>();
        for (int i = 0; i < files.size(); i++) {
          runs.add(new JmhCompare.Run(names.get(i), labels.get(i), JmhJson.fromTree(trees.get(i))));
        }
        cmp = JmhCompare.compare(runs, base, th);
        if (html != null) images = Charts.jmhScores(runs);
      } else {
        List<String> bad = new ArrayList<>();
        for (int i = 0; i < files.size(); i++) {
          String sort = JmhJson.isJmh(trees.get(i)) ? "JMH" : ReportJson.isReport(trees.get(i)) ? "weft-report/v1" : "unknown";
          bad.add(files.get(i) + " (" + sort + ")");
        }
        throw new IllegalArgumentException(
            "files must all be weft-report/v1 or all JMH JSON: " + String.join(", ", bad));
      }
    } catch (IllegalArgumentException e) {
      err.println("error: " + e.getMessage());
      return USAGE;
    }

    List<String> preamble = List.of(
        "Compared " + files.size() + " " + kind + " file(s); baseline " + cmp.tables().getFirst().rows().stream()
            .filter(r -> r.getFirst().endsWith("(baseline)")).map(r -> r.get(1)).findFirst().orElse("?") + ".",
        "Thresholds: " + th + (failOnRegression ? "; --fail-on-regression" : "") + ".");
    for (String p : preamble) out.println(p);
    out.println();
    for (Table t : cmp.tables()) {
      out.print(t.renderText());
      out.println();
    }
    List<String> regs = cmp.regressions().stream().map(Regression::describe).toList();
    if (regs.isEmpty()) {
      out.println("No regressions beyond the thresholds.");
    } else {
      out.println("✗ " + regs.size() + " regression(s):");
      for (String r : regs) out.println("  ✗ " + r);
    }
    for (Table t : gateTables) {
      out.println();
      out.print(t.renderText());
    }
    for (String s : gateSummaries) out.println(s);
    for (String m : missed) out.println("  ✗ " + m);
    if (html != null) {
      List<Table> tables = new ArrayList<>(cmp.tables());
      tables.addAll(gateTables);
      List<String> problems = new ArrayList<>(regs);
      problems.addAll(missed);
      try {
        Html.write(html, Html.render("Weft performance comparison (" + kind + ")", preamble, tables, problems, images));
        out.println("HTML: " + html.toAbsolutePath());
      } catch (IOException e) {
        err.println("error: writing " + html + ": " + e.getMessage());
        return USAGE;
      }
    }
    return failOnRegression && !(regs.isEmpty() && missed.isEmpty()) ? REGRESSION : OK;
  }

  static List<Html.Image> loadCharts(List<LoadCompare.Run> runs) {
    List<Html.Image> images = new ArrayList<>();
    Set<String> scenarios = new LinkedHashSet<>();
    for (LoadCompare.Run run : runs) for (Result r : run.report().results()) scenarios.add(String.valueOf(r.scenario()));
    for (String s : scenarios) {
      Html.Image im = Charts.latencyPercentiles(s, runs);
      if (im != null) images.add(im);
    }
    Html.Image tl = Charts.throughputTimeline(runs);
    if (tl != null) images.add(tl);
    for (String s : scenarios) {
      Html.Image im = Charts.throughputBars(s, runs);
      if (im != null) images.add(im);
    }
    return images;
  }

  private static String value(String[] args, int i, String opt) {
    if (i >= args.length) throw new IllegalArgumentException(opt + " needs a value");
    return args[i];
  }

  /** A, B, ..., Z, AA, AB, ... */
  static String runName(int i) {
    return i < 26 ? String.valueOf((char) ('A' + i)) : runName(i / 26 - 1) + (char) ('A' + i % 26);
  }

  /** File names without ".json"; the parent folder is added where names collide. */
  static List<String> labels(List<Path> files) {
    List<String> out = new ArrayList<>();
    for (Path f : files) {
      String n = f.getFileName().toString();
      out.add(n.endsWith(".json") ? n.substring(0, n.length() - 5) : n);
    }
    for (int i = 0; i < out.size(); i++) {
      if (out.indexOf(out.get(i)) != out.lastIndexOf(out.get(i))) {
        Path parent = files.get(i).toAbsolutePath().getParent();
        out.set(i, (parent == null ? "" : parent.getFileName() + "/") + out.get(i) + "#" + (i + 1));
      }
    }
    return out;
  }

  static int baselineIndex(String baseline, List<Path> files, List<String> names, List<String> labels) {
    if (baseline == null) return 0;
    for (int i = 0; i < files.size(); i++) {
      if (names.get(i).equalsIgnoreCase(baseline) || labels.get(i).equals(baseline)
          || files.get(i).getFileName().toString().equals(baseline) || files.get(i).toString().equals(baseline)
          || files.get(i).toAbsolutePath().normalize().equals(Path.of(baseline).toAbsolutePath().normalize())) {
        return i;
      }
    }
    throw new IllegalArgumentException("--baseline " + baseline + " matches none of " + names + " / " + files);
  }
}
