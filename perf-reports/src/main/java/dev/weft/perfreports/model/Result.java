package dev.weft.perfreports.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import org.HdrHistogram.AbstractHistogram;
import org.HdrHistogram.Histogram;

/**
 * One target × scenario measurement of a run. {@code mode} is {@link #MAX_THROUGHPUT} or
 * {@link #FIXED_RATE} ({@code targetRatePerSec} set only for fixed rate). {@code histogram} is optional
 * (see {@link Histograms}); {@code proxy} is set for proxy targets.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record Result(
    String target,
    String scenario,
    String mode,
    Integer recordBytes,
    Double targetRatePerSec,
    Double durationSec,
    Double recordsPerSec,
    Double mbPerSec,
    Latency latencyMicros,
    String histogram,
    ProxyStats proxy,
    RatioToDirect ratioToDirect) {

  public static final String MAX_THROUGHPUT = "max-throughput";
  public static final String FIXED_RATE = "fixed-rate";
  public static final String DIRECT = "direct";

  /**
   * A result measured as {@code records} records of {@code recordBytes} in {@code durationSec}, with
   * latencies (microseconds) in {@code micros}: records/s, MB/s (10^6 bytes), the latency summary and
   * the encoded histogram are derived. {@code targetRatePerSec} null for max throughput.
   */
  public static Result measured(String target, String scenario, Double targetRatePerSec, int recordBytes,
      double durationSec, long records, AbstractHistogram micros) {
    double rps = records / durationSec;
    return new Result(target, scenario, targetRatePerSec == null ? MAX_THROUGHPUT : FIXED_RATE,
        recordBytes, targetRatePerSec, durationSec, rps, rps * recordBytes / 1e6,
        micros == null ? null : Latency.of(micros), micros == null ? null : Histograms.encode(micros),
        null, null);
  }

  public Result withProxy(ProxyStats p) {
    return new Result(target, scenario, mode, recordBytes, targetRatePerSec, durationSec, recordsPerSec,
        mbPerSec, latencyMicros, histogram, p, ratioToDirect);
  }

  public Result withRatioToDirect(RatioToDirect r) {
    return new Result(target, scenario, mode, recordBytes, targetRatePerSec, durationSec, recordsPerSec,
        mbPerSec, latencyMicros, histogram, proxy, r);
  }

  public Result withHistogram(AbstractHistogram micros) {
    return new Result(target, scenario, mode, recordBytes, targetRatePerSec, durationSec, recordsPerSec,
        mbPerSec, latencyMicros == null ? Latency.of(micros) : latencyMicros, Histograms.encode(micros),
        proxy, ratioToDirect);
  }

  /** The decoded histogram, or null when the result has none. */
  public Histogram decodeHistogram() {
    return histogram == null || histogram.isBlank() ? null : Histograms.decode(histogram);
  }
}
