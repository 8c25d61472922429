package dev.weft.perfreports;

import java.util.Locale;

/**
 * One metric beyond its threshold: {@code where} names the table and row, {@code metric} the column,
 * {@code deltaPct} the change to the baseline (signed), {@code thresholdPct} the limit it broke.
 * A regression with a null baseline is absolute (e.g. records lost in a soak run).
 */
public record Regression(String where, String metric, Double baseline, Double current, Double deltaPct,
    Double thresholdPct) {

  public String describe() {
    if (deltaPct == null) {
      return baseline == null
          ? String.format(Locale.ROOT, "%s: %s = %s", where, metric, Fmt.sig(current))
          : String.format(Locale.ROOT, "%s: %s %s → %s", where, metric, Fmt.sig(baseline), Fmt.sig(current));
    }
    return String.format(Locale.ROOT, "%s: %s %s (baseline %s → %s, limit %s%%)", where, metric,
        Fmt.pct(deltaPct), Fmt.sig(baseline), Fmt.sig(current), Fmt.plain(thresholdPct));
  }
}
