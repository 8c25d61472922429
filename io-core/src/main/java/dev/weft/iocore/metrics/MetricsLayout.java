package dev.weft.iocore.metrics;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The fixed set of counters and latency histograms every core keeps, declared once at startup.
 * Declaring returns an id that addresses the metric by array index on the hot path (no map lookups).
 *
 * <pre>{@code
 * MetricsLayout.Builder b = MetricsLayout.builder();
 * CounterId requests = b.counter("requests_total");
 * LatencyId produce = b.latency("produce_latency");
 * MetricsLayout layout = b.build();
 * CoreMetrics core0 = layout.newCoreMetrics(0);   // one per core, written only by that core's loop
 * }</pre>
 */
public final class MetricsLayout {

    /** Default highest trackable latency: one minute. */
    public static final long DEFAULT_HIGHEST_TRACKABLE_NANOS = TimeUnit.MINUTES.toNanos(1);
    /** Default precision: 2 significant digits (1%), a few KiB per histogram instead of ~100 KiB for 3. */
    public static final int DEFAULT_SIGNIFICANT_DIGITS = 2;

    private final List<CounterId> counters;
    private final List<LatencyId> latencies;

    private MetricsLayout(List<CounterId> counters, List<LatencyId> latencies) {
        this.counters = List.copyOf(counters);
        this.latencies = List.copyOf(latencies);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Counters in declaration order ({@code counters().get(i).index() == i}). */
    public List<CounterId> counters() {
        return counters;
    }

    /** Latency histograms in declaration order. */
    public List<LatencyId> latencies() {
        return latencies;
    }

    /** A fresh set of this layout's metrics for core {@code coreIndex}, all zero. */
    public CoreMetrics newCoreMetrics(int coreIndex) {
        return new CoreMetrics(this, coreIndex);
    }

    /** Declares metrics; not thread-safe, used once at startup. */
    public static final class Builder {
        private final List<CounterId> counters = new ArrayList<>();
        private final List<LatencyId> latencies = new ArrayList<>();
        private final Set<String> names = new HashSet<>();
        private boolean built;

        private Builder() {
        }

        /** Declares a counter (a monotonically increasing per-core total, summed across cores on export). */
        public CounterId counter(String name) {
            CounterId id = new CounterId(counters.size(), claim(name));
            counters.add(id);
            return id;
        }

        /** Declares a latency histogram tracking 1 ns .. 1 min at 2 significant digits. */
        public LatencyId latency(String name) {
            return latency(name, DEFAULT_HIGHEST_TRACKABLE_NANOS, DEFAULT_SIGNIFICANT_DIGITS);
        }

        /** Declares a latency histogram tracking 1 ns .. {@code highestTrackableNanos}. */
        public LatencyId latency(String name, long highestTrackableNanos, int significantDigits) {
            if (highestTrackableNanos < 2) {
                throw new IllegalArgumentException("latency '" + name + "': highestTrackableNanos "
                        + highestTrackableNanos + " must be >= 2");
            }
            if (significantDigits < 0 || significantDigits > 5) {
                throw new IllegalArgumentException("latency '" + name + "': significantDigits "
                        + significantDigits + " is outside 0..5");
            }
            LatencyId id = new LatencyId(latencies.size(), claim(name), highestTrackableNanos, significantDigits);
            latencies.add(id);
            return id;
        }

        public MetricsLayout build() {
            built = true;
            return new MetricsLayout(counters, latencies);
        }

        private String claim(String name) {
            if (built) {
                throw new IllegalStateException("metric '" + name + "' declared after build()");
            }
            if (name == null || name.isBlank()) {
                throw new IllegalArgumentException("metric name must not be blank");
            }
            if (!names.add(name)) {
                throw new IllegalArgumentException("metric '" + name + "' is declared twice");
            }
            return name;
        }
    }
}
