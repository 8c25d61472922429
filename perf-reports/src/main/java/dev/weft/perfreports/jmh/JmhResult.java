package dev.weft.perfreports.jmh;

import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * One entry of JMH's {@code -rf json} output: the primary score (with its error and unit) and, when
 * the gc profiler ran, {@code gc.alloc.rate.norm} in bytes per operation.
 */
public record JmhResult(String benchmark, String mode, int threads, Map<String, String> params, double score,
    Double scoreError, String scoreUnit, Double allocBytesPerOp) {

  public JmhResult {
    Objects.requireNonNull(benchmark, "benchmark");
    params = params == null ? Map.of() : Map.copyOf(new TreeMap<>(params));
  }

  /** Class part of the benchmark name ("ProduceRequestBenchmark"). */
  public String className() {
    int dot = benchmark.lastIndexOf('.');
    String cls = dot < 0 ? "" : benchmark.substring(0, dot);
    return cls.substring(cls.lastIndexOf('.') + 1);
  }

  /** Method part of the benchmark name ("fullParse"). */
  public String method() {
    return benchmark.substring(benchmark.lastIndexOf('.') + 1);
  }

  /** "shape=1x1024 version=13" (params sorted by name), plus "threads=N" when not 1. */
  public String paramsText() {
    String p = new TreeMap<>(params).entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
        .collect(Collectors.joining(" "));
    if (threads != 1) p = (p.isEmpty() ? "" : p + " ") + "threads=" + threads;
    return p;
  }

  /** What identifies the same measurement across runs. */
  public String key() {
    return benchmark + "|" + mode + "|" + paramsText();
  }

  /** True when a higher score is better (throughput mode); time-per-op modes are lower-is-better. */
  public boolean higherIsBetter() {
    return "thrpt".equals(mode);
  }
}
