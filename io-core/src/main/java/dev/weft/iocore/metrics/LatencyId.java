package dev.weft.iocore.metrics;

/**
 * A latency histogram declared in a {@link MetricsLayout}; the same id addresses it on every core.
 *
 * @param index                  position in the layout (dense, from 0)
 * @param name                   exported name, e.g. {@code produce_latency}
 * @param highestTrackableNanos  larger values are recorded as this value
 * @param significantDigits      HdrHistogram precision (2 = 1% value resolution, 3 = 0.1%)
 */
public record LatencyId(int index, String name, long highestTrackableNanos, int significantDigits) {
}
