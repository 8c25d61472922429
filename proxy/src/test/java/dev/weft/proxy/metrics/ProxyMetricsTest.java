package dev.weft.proxy.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.iocore.metrics.MetricsSnapshot;
import dev.weft.proxy.session.SessionMetrics;
import dev.weft.proxy.session.SessionMetrics.SessionError;
import io.netty.channel.EventLoop;
import io.netty.channel.embedded.EmbeddedChannel;
import java.lang.management.ManagementFactory;
import java.util.List;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Per-core session metrics: the right instance per (virtual cluster, loop), per-core values, no allocation. */
class ProxyMetricsTest {

    private final EmbeddedChannel channel0 = new EmbeddedChannel();
    private final EmbeddedChannel channel1 = new EmbeddedChannel();
    private final EmbeddedChannel stranger = new EmbeddedChannel();
    private final EventLoop core0 = channel0.eventLoop();
    private final EventLoop core1 = channel1.eventLoop();
    private final ProxyMetrics metrics = new ProxyMetrics(List.of("main", "other"), 2,
            loop -> loop == core0 ? 0 : loop == core1 ? 1 : -1);

    @AfterEach
    void closeChannels() {
        channel0.finishAndReleaseAll();
        channel1.finishAndReleaseAll();
        stranger.finishAndReleaseAll();
    }

    @Test
    void oneInstancePerVirtualClusterAndCore() {
        SessionMetrics main0 = metrics.metricsFor("main", core0);
        assertSame(main0, metrics.metricsFor("main", core0));
        assertTrue(main0 != metrics.metricsFor("main", core1));
        assertTrue(main0 != metrics.metricsFor("other", core0));
    }

    @Test
    void unknownVirtualClusterOrForeignLoopIsRefusedByName() {
        IllegalArgumentException vc = assertThrows(IllegalArgumentException.class, () -> metrics.metricsFor("nope", core0));
        assertTrue(vc.getMessage().contains("'nope'") && vc.getMessage().contains("[main, other]"), vc.getMessage());
        IllegalArgumentException loop = assertThrows(IllegalArgumentException.class,
                () -> metrics.metricsFor("main", stranger.eventLoop()));
        assertTrue(loop.getMessage().contains("2 cores"), loop.getMessage());
    }

    @Test
    void eachCoreCountsItsOwnAndTheExporterSumsThem() {
        SessionMetrics a = metrics.metricsFor("main", core0);
        SessionMetrics b = metrics.metricsFor("main", core1);
        a.connectionOpened();
        a.connectionOpened();
        b.connectionOpened();
        a.connectionClosed();
        a.requestForwarded(ApiKeys.PRODUCE.id, 1000);
        b.requestForwarded(ApiKeys.PRODUCE.id, 500);
        b.responseReturned(ApiKeys.PRODUCE.id, 80, 2_000_000);
        a.connectionError(SessionError.UNSUPPORTED_REQUEST, (short) 9999);
        a.connectionError(SessionError.UNSUPPORTED_REQUEST, (short) -7);
        b.connectionError(SessionError.UPSTREAM_UNREACHABLE, (short) -1);

        SessionMetricsLayout l = metrics.layout();
        MetricsSnapshot s = metrics.collect().get("main");
        assertEquals(3, s.total(l.connectionsOpened()));
        assertEquals(2, s.perCore(l.connectionsOpened(), 0));
        assertEquals(1, s.perCore(l.connectionsOpened(), 1));
        assertEquals(1, s.total(l.connectionsClosed()));
        int produce = slot(l, ApiKeys.PRODUCE.name);
        assertEquals(2, s.total(l.requests(produce)));
        assertEquals(1500, s.total(l.requestBytes(produce)));
        assertEquals(1, s.total(l.responses(produce)));
        assertEquals(80, s.total(l.responseBytes(produce)));
        assertEquals(1, s.cumulative(l.latency(produce)).getTotalCount());
        int unknown = slot(l, SessionMetricsLayout.UNKNOWN_LABEL);
        int none = slot(l, SessionMetricsLayout.NONE_LABEL);
        assertEquals(2, s.total(l.errors(SessionError.UNSUPPORTED_REQUEST, unknown)), "garbage keys fold into 'unknown'");
        assertEquals(1, s.total(l.errors(SessionError.UPSTREAM_UNREACHABLE, none)));
        MetricsSnapshot other = metrics.collect().get("other");
        assertEquals(0, other.total(l.connectionsOpened()), "virtual clusters are counted apart");
    }

    @Test
    void hotPathAllocatesNothing() {
        SessionMetrics m = metrics.metricsFor("main", core0);
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        exercise(m, 20_000); // warm up (class init, JIT)
        long before = threads.getCurrentThreadAllocatedBytes();
        exercise(m, 100_000);
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        assertTrue(allocated < 1024, () -> allocated + " bytes allocated for 100,000 rounds of session metrics calls");
    }

    private static void exercise(SessionMetrics m, int rounds) {
        for (int i = 0; i < rounds; i++) {
            short key = (short) (i % 70);
            m.connectionOpened();
            m.requestForwarded(key, 100 + i % 1000);
            m.responseReturned(key, 200 + i % 1000, 1_000 + i * 37L);
            m.connectionError(SessionError.UPSTREAM_FAILED, (short) (i % 3 == 0 ? -1 : key));
            m.connectionClosed();
        }
    }

    private static int slot(SessionMetricsLayout l, String label) {
        for (int s = 0; s < l.slotCount(); s++) {
            if (l.apiLabel(s).equals(label)) {
                return s;
            }
        }
        throw new AssertionError("no slot " + label);
    }
}
