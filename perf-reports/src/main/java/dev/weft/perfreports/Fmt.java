package dev.weft.perfreports;

import java.util.Locale;

/** Number formatting for tables; null and non-finite values show as an em dash. */
public final class Fmt {
  private Fmt() {}

  public static final String NONE = "—";

  static String plain(double v) {
    return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
  }

  /** Thousands-separated integer ("123,457"). */
  public static String count(Double v) {
    if (v == null || !Double.isFinite(v)) return NONE;
    return String.format(Locale.ROOT, "%,d", Math.round(v));
  }

  public static String count(Long v) {
    return v == null ? NONE : String.format(Locale.ROOT, "%,d", v);
  }

  /** Fixed decimals. */
  public static String dec(Double v, int decimals) {
    if (v == null || !Double.isFinite(v)) return NONE;
    return String.format(Locale.ROOT, "%,." + decimals + "f", v);
  }

  /** Three significant figures for values below 100, whole numbers with separators above. */
  public static String sig(Double v) {
    if (v == null || !Double.isFinite(v)) return NONE;
    double a = Math.abs(v);
    if (a >= 100) return count(v);
    if (a >= 10) return String.format(Locale.ROOT, "%.1f", v);
    if (a >= 1) return String.format(Locale.ROOT, "%.2f", v);
    return String.format(Locale.ROOT, "%.3f", v);
  }

  public static String ratio(Double v) {
    if (v == null || !Double.isFinite(v)) return NONE;
    return String.format(Locale.ROOT, "%.2f×", v);
  }

  /** Signed percent, one decimal ("+5.0%", "-10.0%"). */
  public static String pct(Double v) {
    if (v == null || Double.isNaN(v)) return NONE;
    if (Double.isInfinite(v)) return v > 0 ? "+∞%" : "-∞%";
    return String.format(Locale.ROOT, "%+.1f%%", v);
  }

  public static String mib(Long bytes) {
    if (bytes == null) return NONE;
    return String.format(Locale.ROOT, "%,.0f", bytes / (1024.0 * 1024.0));
  }

  public static String orNone(String s) {
    return s == null || s.isBlank() ? NONE : s;
  }

  /** (cur - base) / base in percent; null when either is missing or base is 0. */
  public static Double deltaPct(Double base, Double cur) {
    if (base == null || cur == null || !Double.isFinite(base) || !Double.isFinite(cur) || base == 0) return null;
    return (cur - base) / base * 100.0;
  }
}
