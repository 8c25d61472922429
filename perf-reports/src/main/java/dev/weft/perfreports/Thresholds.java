package dev.weft.perfreports;

import java.util.Locale;

/**
 * Regression thresholds in percent of the baseline. {@code throughput}: records/s may drop by at most
 * this much; {@code p99}, {@code p999}: latency may grow by at most this much; {@code score}: a JMH
 * score may get worse (time/op up, ops/time down) by at most this much; {@code alloc}: JMH
 * {@code gc.alloc.rate.norm} may grow by at most this much (and growth under 1 B/op is ignored as noise).
 */
public record Thresholds(double throughput, double p99, double p999, double score, double alloc) {

  public static final Thresholds DEFAULT = new Thresholds(5, 10, 20, 10, 5);

  /** Parses "throughput=5%,p99=10%" (the % is optional); keys not given keep their defaults. */
  public static Thresholds parse(String spec) {
    Thresholds t = DEFAULT;
    if (spec == null || spec.isBlank()) return t;
    for (String part : spec.split(",")) {
      String p = part.strip();
      if (p.isEmpty()) continue;
      int eq = p.indexOf('=');
      if (eq <= 0) throw new IllegalArgumentException("threshold '" + p + "' is not key=N%");
      String key = p.substring(0, eq).strip().toLowerCase(Locale.ROOT);
      String v = p.substring(eq + 1).strip();
      if (v.endsWith("%")) v = v.substring(0, v.length() - 1).strip();
      double pct;
      try {
        pct = Double.parseDouble(v);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("threshold '" + p + "': " + v + " is not a number");
      }
      if (!(pct >= 0) || Double.isInfinite(pct)) throw new IllegalArgumentException("threshold '" + p + "' must be >= 0");
      t = switch (key) {
        case "throughput", "rps", "records" -> new Thresholds(pct, t.p99, t.p999, t.score, t.alloc);
        case "p99" -> new Thresholds(t.throughput, pct, t.p999, t.score, t.alloc);
        case "p999", "p99.9" -> new Thresholds(t.throughput, t.p99, pct, t.score, t.alloc);
        case "score" -> new Thresholds(t.throughput, t.p99, t.p999, pct, t.alloc);
        case "alloc", "allocation" -> new Thresholds(t.throughput, t.p99, t.p999, t.score, pct);
        default -> throw new IllegalArgumentException(
            "unknown threshold '" + key + "' (throughput, p99, p999, score, alloc)");
      };
    }
    return t;
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "throughput=%s%%,p99=%s%%,p999=%s%%,score=%s%%,alloc=%s%%",
        Fmt.plain(throughput), Fmt.plain(p99), Fmt.plain(p999), Fmt.plain(score), Fmt.plain(alloc));
  }
}
