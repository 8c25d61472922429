package dev.weft.proxy.admin;

import io.netty.buffer.PooledByteBufAllocator;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.Unit;

/**
 * {@code weft_buffer_pool_bytes{state}}: the direct memory of the process's one buffer pool, where every
 * read lands and records stay while they pass through. {@code allocated} is what the pool holds from the
 * operating system (its chunks: part of the process's RSS once touched), {@code in_use} what live buffers
 * take of it (reads waiting to complete a frame, frames waiting for a slow peer). A high {@code in_use}
 * with few connections points at a slow reader or a large partial frame; {@code allocated} far above
 * {@code in_use} is the pool keeping chunks for the next burst.
 */
public final class BufferPoolCollector implements MultiCollector {

    static final String NAME = "weft_buffer_pool_bytes";

    private final PooledByteBufAllocator pool;

    public BufferPoolCollector(PooledByteBufAllocator pool) {
        this.pool = pool;
    }

    @Override
    public MetricSnapshots collect() {
        GaugeSnapshot gauge = GaugeSnapshot.builder().name(NAME).unit(Unit.BYTES)
                .help("Direct memory of the buffer pool: allocated from the OS, and in use by live buffers")
                .dataPoint(point("allocated", pool.metric().usedDirectMemory()))
                .dataPoint(point("in_use", pool.pinnedDirectMemory()))
                .build();
        return MetricSnapshots.of(gauge);
    }

    private static GaugeDataPointSnapshot point(String state, long bytes) {
        return GaugeDataPointSnapshot.builder().labels(Labels.of("state", state)).value(bytes).build();
    }
}
