package dev.weft.iocore.transport;

import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Picks the transport once at startup: io_uring when available, else epoll, else NIO, unless the
 * configuration forces one. Logs the choice (and the reason for any fallback) through {@link #log}.
 */
public final class TransportSelector {

    private static final Logger LOG = LoggerFactory.getLogger(TransportSelector.class);

    /** Answers "why is this transport unavailable?" ({@code null}: available). A seam for tests. */
    @FunctionalInterface
    public interface Availability {
        Throwable unavailabilityCause(Transport transport);

        /** What Netty reports on this host. */
        static Availability host() {
            return Transport::unavailabilityCause;
        }
    }

    private TransportSelector() {
    }

    /** Selects against this host's real availability. */
    public static TransportSelection select(TransportPreference preference) {
        return select(preference, Availability.host());
    }

    /**
     * Selects against {@code availability}.
     *
     * @throws TransportUnavailableException when a forced transport is unavailable, naming the cause
     */
    public static TransportSelection select(TransportPreference preference, Availability availability) {
        Transport forced = preference.forced();
        if (forced != null) {
            Throwable cause = availability.unavailabilityCause(forced);
            if (cause != null) {
                throw new TransportUnavailableException(forced, cause);
            }
            return new TransportSelection(forced, preference, Map.of());
        }
        Map<Transport, Throwable> skipped = new LinkedHashMap<>();
        for (Transport candidate : Transport.values()) {
            Throwable cause = availability.unavailabilityCause(candidate);
            if (cause == null) {
                return new TransportSelection(candidate, preference, skipped);
            }
            skipped.put(candidate, cause);
        }
        // NIO is always available on a JVM; reaching here means the availability seam says otherwise.
        throw new IllegalStateException("no transport is available: " + skipped);
    }

    /**
     * Logs the selection: INFO when the best transport runs, WARN with the cause(s) on a fallback. The
     * cause's stack trace goes to DEBUG so the WARN stays one line.
     */
    public static void log(TransportSelection selection) {
        if (selection.isFallback()) {
            LOG.warn(selection.describe());
            if (LOG.isDebugEnabled()) {
                selection.skipped().forEach((t, cause) -> LOG.debug("{} unavailability cause", t, cause));
            }
        } else {
            LOG.info(selection.describe());
        }
    }
}
