package dev.weft.iocore.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import ch.qos.logback.classic.Level;
import dev.weft.iocore.testing.LogCapture;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.uring.IoUring;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TransportSelectorTest {

    private static final Throwable NO_URING = new UnsupportedOperationException("io_uring_setup: Operation not permitted");
    private static final Throwable NO_EPOLL = new UnsatisfiedLinkError("libnetty_transport_native_epoll not found");

    /** This host's kernel supports io_uring: auto must pick it (and only it). */
    @Test
    void autoSelectsIoUringWhenThisHostSupportsIt() {
        assumeTrue(IoUring.isAvailable(), () -> "io_uring unavailable here: " + IoUring.unavailabilityCause());
        TransportSelection selection = TransportSelector.select(TransportPreference.AUTO);
        assertSame(Transport.IO_URING, selection.transport());
        assertFalse(selection.isFallback());
        assertEquals("transport io_uring selected (configured: auto)", selection.describe());
    }

    @Test
    void transportAvailabilityMatchesNetty() {
        assertEquals(IoUring.isAvailable(), Transport.IO_URING.isAvailable());
        assertEquals(Epoll.isAvailable(), Transport.EPOLL.isAvailable());
        assertTrue(Transport.NIO.isAvailable());
        if (!IoUring.isAvailable()) {
            assertSame(IoUring.unavailabilityCause(), Transport.IO_URING.unavailabilityCause());
        }
    }

    @Test
    void autoFallsBackToEpollAndLogsWhyIoUringWasSkipped() {
        TransportSelection selection;
        try (LogCapture log = LogCapture.of(TransportSelector.class)) {
            selection = TransportSelector.select(TransportPreference.AUTO, only(Map.of(Transport.IO_URING, NO_URING)));
            TransportSelector.log(selection);
            assertEquals(List.of("transport epoll selected (configured: auto); io_uring unavailable: "
                    + "UnsupportedOperationException: io_uring_setup: Operation not permitted"), log.messages(Level.WARN));
            assertEquals(List.of(), log.messages(Level.INFO));
        }
        assertSame(Transport.EPOLL, selection.transport());
        assertTrue(selection.isFallback());
        assertSame(NO_URING, selection.skipped().get(Transport.IO_URING));
    }

    @Test
    void autoFallsBackToNioNamingBothCauses() {
        TransportSelection selection = TransportSelector.select(TransportPreference.AUTO,
                only(Map.of(Transport.IO_URING, NO_URING, Transport.EPOLL, NO_EPOLL)));
        assertSame(Transport.NIO, selection.transport());
        assertEquals(List.of(Transport.IO_URING, Transport.EPOLL), List.copyOf(selection.skipped().keySet()));
        assertEquals("transport nio selected (configured: auto); io_uring unavailable: UnsupportedOperationException: "
                + "io_uring_setup: Operation not permitted; epoll unavailable: UnsatisfiedLinkError: "
                + "libnetty_transport_native_epoll not found", selection.describe());
    }

    @Test
    void selectionWithoutFallbackLogsOneInfoLine() {
        try (LogCapture log = LogCapture.of(TransportSelector.class)) {
            TransportSelector.log(TransportSelector.select(TransportPreference.AUTO, only(Map.of())));
            assertEquals(List.of("transport io_uring selected (configured: auto)"), log.messages(Level.INFO));
            assertEquals(List.of(), log.messages(Level.WARN));
        }
    }

    @Test
    void forcingAnUnavailableTransportIsAnErrorNamingTheCause() {
        TransportUnavailableException error = assertThrows(TransportUnavailableException.class,
                () -> TransportSelector.select(TransportPreference.IO_URING, only(Map.of(Transport.IO_URING, NO_URING))));
        assertSame(Transport.IO_URING, error.transport());
        assertSame(NO_URING, error.getCause());
        assertEquals("transport: 'io_uring' is configured but unavailable on this host: UnsupportedOperationException: "
                + "io_uring_setup: Operation not permitted (set transport to 'auto' to fall back to the best available one)",
                error.getMessage());
    }

    @Test
    void forcingDoesNotFallBackEvenWhenABetterTransportExists() {
        TransportSelection selection = TransportSelector.select(TransportPreference.NIO, only(Map.of()));
        assertSame(Transport.NIO, selection.transport());
        assertFalse(selection.isFallback());
        assertEquals("transport nio selected (configured: nio)", selection.describe());
    }

    @Test
    void forcingEveryAvailableTransportOnThisHostWorks() {
        for (Transport transport : Transport.values()) {
            TransportPreference forced = TransportPreference.forcing(transport);
            if (transport.isAvailable()) {
                assertSame(transport, TransportSelector.select(forced).transport());
            } else {
                TransportUnavailableException error =
                        assertThrows(TransportUnavailableException.class, () -> TransportSelector.select(forced));
                assertSame(transport.unavailabilityCause(), error.getCause());
            }
        }
    }

    @Test
    void parsesConfigurationValues() {
        assertSame(TransportPreference.AUTO, TransportPreference.parse("auto"));
        assertSame(TransportPreference.IO_URING, TransportPreference.parse("io_uring"));
        assertSame(TransportPreference.IO_URING, TransportPreference.parse(" IO-URING "));
        assertSame(TransportPreference.IO_URING, TransportPreference.parse("iouring"));
        assertSame(TransportPreference.EPOLL, TransportPreference.parse("Epoll"));
        assertSame(TransportPreference.NIO, TransportPreference.parse("nio"));
        IllegalArgumentException error =
                assertThrows(IllegalArgumentException.class, () -> TransportPreference.parse("kqueue"));
        assertEquals("transport: 'kqueue' is not one of auto, io_uring, epoll, nio", error.getMessage());
        assertThrows(IllegalArgumentException.class, () -> TransportPreference.parse(null));
        for (Transport transport : Transport.values()) {
            assertSame(transport, TransportPreference.forcing(transport).forced());
            assertSame(TransportPreference.forcing(transport), TransportPreference.parse(transport.configName()));
        }
    }

    /** Availability where exactly the given transports are unavailable, with the given causes. */
    private static TransportSelector.Availability only(Map<Transport, Throwable> unavailable) {
        return unavailable::get;
    }
}
