package dev.weft.iocore.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.iocore.EventLoops;
import dev.weft.iocore.EventLoopsConfig;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class MetricsTest {

    private static final int CORES = 4;
    private static final int RECORDS_PER_CORE = 200_000;
    private static final int CHUNK = 1_000;

    @Test
    void exporterSumsCountersAndMergesHistogramsWhileCoresRecord() throws Exception {
        MetricsLayout.Builder builder = MetricsLayout.builder();
        CounterId requests = builder.counter("requests_total");
        CounterId bytes = builder.counter("bytes_total");
        LatencyId latency = builder.latency("request_latency", TimeUnit.SECONDS.toNanos(10), 3);
        MetricsLayout layout = builder.build();

        try (EventLoops loops = EventLoops.start(EventLoopsConfig.defaults().withLoopCount(CORES))) {
            List<CoreMetrics> metrics = new ArrayList<>();
            for (int i = 0; i < CORES; i++) {
                metrics.add(layout.newCoreMetrics(i));
            }
            MetricsExporter exporter = new MetricsExporter(metrics);

            // The exporter thread collects continuously while the cores record: nothing may be lost or
            // counted twice between intervals.
            AtomicBoolean recording = new AtomicBoolean(true);
            CompletableFuture<long[]> exported = new CompletableFuture<>();
            Thread exporterThread = Thread.ofPlatform().name("exporter").start(() -> {
                try {
                    long intervalCounts = 0;
                    long collections = 0;
                    long lastTotal = 0;
                    while (recording.get()) {
                        MetricsSnapshot snapshot = exporter.collect();
                        intervalCounts += snapshot.interval(latency).getTotalCount();
                        long total = snapshot.total(requests);
                        assertTrue(total >= lastTotal, "a counter total went backwards");
                        lastTotal = total;
                        collections++;
                    }
                    exported.complete(new long[] {intervalCounts, collections});
                } catch (Throwable t) {
                    exported.completeExceptionally(t);
                }
            });

            List<CompletableFuture<Void>> done = new ArrayList<>();
            for (int i = 0; i < CORES; i++) {
                CoreMetrics core = metrics.get(i);
                for (int from = 0; from < RECORDS_PER_CORE; from += CHUNK) {
                    int start = from;
                    CompletableFuture<Void> chunk = new CompletableFuture<>();
                    done.add(chunk);
                    // Recording happens on the core's own loop: the single writer.
                    loops.core(i).execute(() -> {
                        for (int k = start; k < start + CHUNK; k++) {
                            core.increment(requests);
                            core.add(bytes, 100);
                            core.recordNanos(latency, valueFor(core.coreIndex(), k));
                        }
                        chunk.complete(null);
                    });
                }
            }
            CompletableFuture.allOf(done.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
            recording.set(false);
            long[] whileRecording = exported.get(60, TimeUnit.SECONDS);
            exporterThread.join(10_000);

            MetricsSnapshot last = exporter.collect();
            long total = (long) CORES * RECORDS_PER_CORE;
            assertEquals(total, whileRecording[0] + last.interval(latency).getTotalCount(),
                    "intervals over " + whileRecording[1] + " concurrent collections add up to every recording");
            assertEquals(total, last.cumulative(latency).getTotalCount());
            assertEquals(total, last.total(requests));
            assertEquals(total * 100, last.total(bytes));
            for (int i = 0; i < CORES; i++) {
                assertEquals(RECORDS_PER_CORE, last.perCore(requests, i));
                assertEquals(RECORDS_PER_CORE, metrics.get(i).get(requests));
            }

            long[] exact = new long[(int) total];
            int n = 0;
            for (int core = 0; core < CORES; core++) {
                for (int k = 0; k < RECORDS_PER_CORE; k++) {
                    exact[n++] = valueFor(core, k);
                }
            }
            Arrays.sort(exact);
            Histogram merged = last.cumulative(latency);
            for (double percentile : new double[] {50, 90, 99, 99.9, 100}) {
                long expected = exact[(int) Math.ceil(percentile / 100 * exact.length) - 1];
                long reported = merged.getValueAtPercentile(percentile);
                assertTrue(merged.valuesAreEquivalent(expected, reported),
                        "p" + percentile + ": exact " + expected + ", histogram " + reported);
            }
            double exactMean = Arrays.stream(exact).average().orElseThrow();
            assertEquals(exactMean, merged.getMean(), exactMean * 0.001, "mean within 3-digit precision");
            assertTrue(merged.valuesAreEquivalent(exact[0], merged.getMinValue()));
        }
    }

    @Test
    void countersPublishedByTheOwnerAreSeenWholeAndMonotonicByAReader() throws Exception {
        MetricsLayout.Builder builder = MetricsLayout.builder();
        CounterId events = builder.counter("events_total");
        CoreMetrics core = builder.build().newCoreMetrics(0);
        int increments = 2_000_000;
        try (EventLoops loops = EventLoops.start(EventLoopsConfig.defaults().withLoopCount(1))) {
            CompletableFuture<Void> written = new CompletableFuture<>();
            loops.core(0).execute(() -> {
                for (int i = 0; i < increments; i++) {
                    core.increment(events);
                }
                written.complete(null);
            });
            long last = 0;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (last < increments) {
                long now = core.get(events);
                assertTrue(now >= last && now <= increments, "read " + now + " after " + last);
                last = now;
                assertTrue(deadline - System.nanoTime() > 0, "owner never published " + increments);
            }
            written.get(60, TimeUnit.SECONDS);
        }
    }

    @Test
    void outOfRangeLatenciesAreClampedNotThrown() {
        MetricsLayout.Builder builder = MetricsLayout.builder();
        LatencyId latency = builder.latency("tiny_range", 1_000_000, 2);
        CoreMetrics core = builder.build().newCoreMetrics(0);
        core.recordNanos(latency, 5_000_000_000L);
        core.recordNanos(latency, -3);
        Histogram interval = core.latency(latency).intervalHistogram();
        assertEquals(2, interval.getTotalCount());
        assertTrue(interval.valuesAreEquivalent(1_000_000, interval.getMaxValue()));
        assertEquals(0, interval.getMinValue());
        assertEquals(0, core.latency(latency).intervalHistogram().getTotalCount(), "an interval starts empty");
    }

    @Test
    void layoutValidatesDeclarations() {
        MetricsLayout.Builder builder = MetricsLayout.builder();
        CounterId first = builder.counter("a");
        CounterId second = builder.counter("b");
        assertEquals(0, first.index());
        assertEquals(1, second.index());
        IllegalArgumentException twice = assertThrows(IllegalArgumentException.class, () -> builder.counter("a"));
        assertEquals("metric 'a' is declared twice", twice.getMessage());
        assertThrows(IllegalArgumentException.class, () -> builder.latency("c", 1, 2));
        assertThrows(IllegalArgumentException.class, () -> builder.latency("d", 1000, 6));
        MetricsLayout layout = builder.build();
        assertEquals(List.of(first, second), layout.counters());
        assertThrows(IllegalStateException.class, () -> builder.counter("late"));

        MetricsLayout other = MetricsLayout.builder().build();
        assertThrows(IllegalArgumentException.class,
                () -> new MetricsExporter(List.of(layout.newCoreMetrics(0), other.newCoreMetrics(1))));
        assertThrows(IndexOutOfBoundsException.class, () -> layout.newCoreMetrics(0).counters().get(2));
    }

    /** Deterministic, spread over three orders of magnitude, different per core. */
    private static long valueFor(int core, int k) {
        return 1_000L * (core + 1) + (k * 7919L) % 5_000_000L;
    }
}
