package dev.weft.iocore.transport;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The outcome of {@link TransportSelector#select}: which transport runs, what was asked for, and why
 * every better transport was skipped.
 *
 * @param transport  the transport chosen
 * @param preference what the configuration asked for
 * @param skipped    each transport preferred over {@code transport} that was unavailable, with the cause
 *                   Netty gave (insertion order = preference order); empty when nothing was skipped
 */
public record TransportSelection(Transport transport, TransportPreference preference, Map<Transport, Throwable> skipped) {

    public TransportSelection {
        Objects.requireNonNull(transport, "transport");
        Objects.requireNonNull(preference, "preference");
        skipped = Collections.unmodifiableMap(new LinkedHashMap<>(skipped));
    }

    /** True when a better transport was unavailable (worth a warning: throughput and latency suffer). */
    public boolean isFallback() {
        return !skipped.isEmpty();
    }

    /**
     * The startup log line, e.g. {@code transport io_uring selected (configured: auto)} or
     * {@code transport epoll selected (configured: auto); io_uring unavailable: <cause>}.
     */
    public String describe() {
        StringBuilder line = new StringBuilder("transport ")
                .append(transport.configName())
                .append(" selected (configured: ")
                .append(preference.configName())
                .append(')');
        skipped.forEach((t, cause) -> line.append("; ")
                .append(t.configName())
                .append(" unavailable: ")
                .append(TransportUnavailableException.describe(cause)));
        return line.toString();
    }
}
