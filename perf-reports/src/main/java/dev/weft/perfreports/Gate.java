package dev.weft.perfreports;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Goals checked within ONE weft-report/v1 run ({@code compare --gate FILE}, format {@code weft-gate/v1}).
 * Each goal takes one figure of {@code target} in {@code scenario} (a dotted path into that result's JSON,
 * e.g. {@code mbPerSec}, {@code latencyMicros.p99}, {@code proxy.phase.cpuSecondsPerGB}) and compares it
 * with {@code op} to a bound: {@code factor × the same figure of reference + offset} (a target of the
 * same run), or an absolute {@code value}. A goal whose results or figures are absent, or whose
 * {@code mode} is not the run's, is "not measured": neither pass nor fail.
 */
public record Gate(String title, List<Goal> goals) {

  public static final String SCHEMA = "weft-gate/v1";
  private static final Set<String> OPS = Set.of(">=", "<=", ">", "<");
  private static final Set<String> GOAL_KEYS = Set.of("name", "scenario", "mode", "target", "metric", "op",
      "reference", "factor", "offset", "value");

  /** One goal; {@code reference} xor {@code value}; {@code factor} (default 1) and {@code offset} (0) only with a reference. */
  public record Goal(String name, String scenario, String mode, String target, String metric, String op,
      String reference, double factor, double offset, Double value) {}

  public enum Verdict { PASS, FAIL, NOT_MEASURED }

  /** The check of one goal in one run; {@code detail} is how the bound was made, or why it was not measured. */
  public record Outcome(Goal goal, Verdict verdict, Double measured, Double bound, String detail) {}

  public static Gate read(Path file) {
    try {
      return parse(Files.readString(file));
    } catch (IOException | IllegalArgumentException e) {
      throw new IllegalArgumentException("--gate " + file + ": " + e.getMessage());
    }
  }

  /** Parses a gate file; IllegalArgumentException naming the first bad goal (unknown keys are errors: a typo must not drop a condition). */
  public static Gate parse(String json) {
    JsonNode root;
    try {
      root = new ObjectMapper().readTree(json);
    } catch (IOException e) {
      throw new IllegalArgumentException("not JSON: " + e.getMessage());
    }
    if (root == null || !SCHEMA.equals(root.path("schema").asText(null))) {
      throw new IllegalArgumentException("schema must be " + SCHEMA);
    }
    if (!root.path("goals").isArray() || root.path("goals").isEmpty()) throw new IllegalArgumentException("no goals array");
    List<Goal> goals = new ArrayList<>();
    for (JsonNode g : root.path("goals")) {
      String at = "goal " + (goals.size() + 1);
      g.fieldNames().forEachRemaining(k -> {
        if (!GOAL_KEYS.contains(k)) throw new IllegalArgumentException(at + ": unknown key '" + k + "' (known: " + GOAL_KEYS + ")");
      });
      String op = required(g, "op", at);
      if (!OPS.contains(op)) throw new IllegalArgumentException(at + ": op '" + op + "' is not one of " + OPS);
      boolean hasRef = g.hasNonNull("reference");
      if (hasRef == g.hasNonNull("value")) throw new IllegalArgumentException(at + ": give either reference or value");
      if (!hasRef && (g.has("factor") || g.has("offset"))) throw new IllegalArgumentException(at + ": factor/offset need a reference");
      goals.add(new Goal(required(g, "name", at), required(g, "scenario", at), g.path("mode").asText(null),
          required(g, "target", at), required(g, "metric", at), op, g.path("reference").asText(null),
          number(g, "factor", 1, at), number(g, "offset", 0, at), hasRef ? null : number(g, "value", 0, at)));
    }
    return new Gate(root.path("title").asText("gate"), goals);
  }

  private static String required(JsonNode g, String key, String at) {
    if (!g.path(key).isTextual() || g.path(key).asText().isBlank()) throw new IllegalArgumentException(at + ": no " + key);
    return g.path(key).asText();
  }

  private static double number(JsonNode g, String key, double def, String at) {
    if (!g.has(key)) return def;
    if (!g.get(key).isNumber()) throw new IllegalArgumentException(at + ": " + key + " is not a number");
    return g.get(key).asDouble();
  }

  /** Checks every goal against one report (its JSON tree). */
  public List<Outcome> check(JsonNode report) {
    List<Outcome> out = new ArrayList<>();
    for (Goal g : goals) out.add(check(g, report));
    return out;
  }

  static Outcome check(Goal g, JsonNode report) {
    JsonNode result = result(report, g.scenario(), g.target());
    if (result == null) return notMeasured(g, "no " + g.target() + " " + g.scenario() + " result");
    String mode = result.path("mode").asText(null);
    if (g.mode() != null && !g.mode().equals(mode)) return notMeasured(g, "run is " + mode + ", goal needs " + g.mode());
    Double measured = figure(result, g.metric());
    if (measured == null) return notMeasured(g, g.target() + " has no " + g.metric());
    double bound;
    String how;
    if (g.reference() == null) {
      bound = g.value();
      how = g.op() + " " + Fmt.sig(bound);
    } else {
      JsonNode ref = result(report, g.scenario(), g.reference());
      Double r = ref == null ? null : figure(ref, g.metric());
      if (r == null) return notMeasured(g, ref == null ? "no " + g.reference() + " " + g.scenario() + " result" : g.reference() + " has no " + g.metric());
      bound = g.factor() * r + g.offset();
      how = g.op() + " " + (g.factor() == 1 ? "" : Fmt.plain(g.factor()) + " × ") + g.reference() + " " + Fmt.sig(r)
          + (g.offset() == 0 ? "" : (g.offset() > 0 ? " + " : " − ") + Fmt.plain(Math.abs(g.offset()))) + " = " + Fmt.sig(bound);
    }
    boolean ok = switch (g.op()) {
      case ">=" -> measured >= bound;
      case "<=" -> measured <= bound;
      case ">" -> measured > bound;
      default -> measured < bound;
    };
    return new Outcome(g, ok ? Verdict.PASS : Verdict.FAIL, measured, bound, how);
  }

  private static Outcome notMeasured(Goal g, String why) {
    return new Outcome(g, Verdict.NOT_MEASURED, null, null, why);
  }

  private static JsonNode result(JsonNode report, String scenario, String target) {
    for (JsonNode r : report.path("results")) {
      if (scenario.equals(r.path("scenario").asText(null)) && target.equals(r.path("target").asText(null))) return r;
    }
    return null;
  }

  /** The number at a dotted path in a result, or null when absent or not a number. */
  static Double figure(JsonNode result, String path) {
    JsonNode n = result;
    for (String part : path.split("\\.")) n = n.path(part);
    return n.isNumber() ? n.asDouble() : null;
  }

  /** One table of a run's outcomes (failed rows marked). */
  public Table table(String run, List<Outcome> outcomes) {
    Table t = new Table("gate " + title + " — run " + run,
        List.of("goal", "result", "scenario", "target", "metric", "measured", "bound"), 5);
    for (Outcome o : outcomes) {
      Goal g = o.goal();
      String verdict = switch (o.verdict()) {
        case PASS -> "pass";
        case FAIL -> "✗ fail";
        case NOT_MEASURED -> "not measured: " + o.detail();
      };
      t.addRow(List.of(g.name(), verdict, g.scenario() + (g.mode() == null ? "" : " (" + g.mode() + ")"), g.target(),
          g.metric(), Fmt.sig(o.measured()), o.verdict() == Verdict.NOT_MEASURED ? Fmt.NONE : o.detail()), o.verdict() == Verdict.FAIL);
    }
    return t;
  }

  /** "N pass, M fail, K not measured". */
  public static String summary(List<Outcome> outcomes) {
    long pass = outcomes.stream().filter(o -> o.verdict() == Verdict.PASS).count();
    long fail = outcomes.stream().filter(o -> o.verdict() == Verdict.FAIL).count();
    return String.format(Locale.ROOT, "%d pass, %d fail, %d not measured", pass, fail, outcomes.size() - pass - fail);
  }
}
