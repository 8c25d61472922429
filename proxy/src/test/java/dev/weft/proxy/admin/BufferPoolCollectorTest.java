package dev.weft.proxy.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The pool gauge follows a live buffer: in use while it lives, back to nothing in use once released. */
class BufferPoolCollectorTest {

    @Test
    void inUseFollowsLiveBuffersAndAllocatedCoversThem() throws IOException {
        // A pool of its own (no thread caches), so other tests' buffers do not show in it.
        PooledByteBufAllocator pool = new PooledByteBufAllocator(true, 0, 1, 8192, 9, 0, 0, false);
        PrometheusRegistry registry = new PrometheusRegistry();
        registry.register(new BufferPoolCollector(pool));
        assertEquals(0, inUse(registry));

        ByteBuf read = pool.directBuffer(256 * 1024);
        try {
            PromText m = scrape(registry);
            assertTrue(inUse(registry) >= 256 * 1024, m::toString);
            assertTrue(m.value("weft_buffer_pool_bytes", Map.of("state", "allocated")) >= inUse(registry), m::toString);
        } finally {
            read.release();
        }
        assertEquals(0, inUse(registry));
    }

    private static double inUse(PrometheusRegistry registry) throws IOException {
        return scrape(registry).value("weft_buffer_pool_bytes", Map.of("state", "in_use"));
    }

    private static PromText scrape(PrometheusRegistry registry) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrometheusTextFormatWriter.create().write(out, registry.scrape());
        return PromText.parse(out.toString(StandardCharsets.UTF_8));
    }
}
