package dev.weft.perfreports.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import org.HdrHistogram.AbstractHistogram;

/** Latency summary in microseconds; any field may be null. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record Latency(Double p50, Double p99, Double p999, Double max, Long count) {

  /** p50/p99/p99.9/max/count of a histogram whose values are microseconds. */
  public static Latency of(AbstractHistogram micros) {
    if (micros.getTotalCount() == 0) return new Latency(null, null, null, null, 0L);
    return new Latency(
        (double) micros.getValueAtPercentile(50.0),
        (double) micros.getValueAtPercentile(99.0),
        (double) micros.getValueAtPercentile(99.9),
        (double) micros.getMaxValue(),
        micros.getTotalCount());
  }
}
