package dev.weft.iocore.metrics;

/**
 * A counter declared in a {@link MetricsLayout}; the same id addresses that counter on every core.
 *
 * @param index position in the layout (dense, from 0)
 * @param name  exported name, e.g. {@code requests_total}
 */
public record CounterId(int index, String name) {
}
