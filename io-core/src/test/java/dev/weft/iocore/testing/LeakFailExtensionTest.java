package dev.weft.iocore.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Proves {@link LeakFailExtension} sees a real leak. Each test leaks one buffer on purpose and consumes
 * the report itself, so the extension's own after-all check on this class still finds nothing.
 */
class LeakFailExtensionTest {

    private static final long TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(30);

    @Test
    void drainReportsADeliberatelyLeakedBuffer() {
        String marker = leakOneBuffer();

        List<String> mine = new ArrayList<>();
        List<String> others = new ArrayList<>();
        long deadline = System.nanoTime() + TIMEOUT_NANOS;
        // The reference queue is fed by the JVM's reference handler after a GC, asynchronously: poll.
        while (mine.isEmpty() && deadline - System.nanoTime() > 0) {
            for (String leak : LeakFailExtension.drainAfterGc()) {
                (leak.contains(marker) ? mine : others).add(leak);
            }
        }

        assertEquals(List.of(), others, "leaks from other tests surfaced here; they are real leaks");
        assertEquals(1, mine.size(), "the deliberate leak should be reported once");
        assertTrue(mine.getFirst().startsWith("LEAK"), mine.getFirst());
    }

    @Test
    void afterAllFailsTheClassNamingTheLeak() {
        String marker = leakOneBuffer();
        LeakFailExtension extension = new LeakFailExtension();
        ExtensionContext context = displayNameOnly("LeakyTestClass");

        long deadline = System.nanoTime() + TIMEOUT_NANOS;
        while (deadline - System.nanoTime() > 0) {
            try {
                extension.afterAll(context);
            } catch (AssertionError expected) {
                String message = expected.getMessage();
                assertTrue(message.contains(marker), "the failure should carry the leak's records:\n" + message);
                assertTrue(message.contains("LeakyTestClass"), message);
                assertTrue(message.startsWith("Netty reported 1 leaked buffer(s)"), message);
                return;
            }
        }
        fail("afterAll never reported the deliberate leak " + marker);
    }

    /** Leaks a tracked buffer whose access records carry a unique marker; returns the marker. */
    private static String leakOneBuffer() {
        String marker = "weft-deliberate-leak-" + UUID.randomUUID();
        ByteBuf buffer = PooledByteBufAllocator.DEFAULT.heapBuffer(16);
        buffer.writeInt(42);
        buffer.touch(marker);
        // No release: the last reference goes away when this method returns.
        return marker;
    }

    private static ExtensionContext displayNameOnly(String name) {
        return (ExtensionContext) Proxy.newProxyInstance(ExtensionContext.class.getClassLoader(),
                new Class<?>[] {ExtensionContext.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "getDisplayName" -> name;
                    case "toString" -> "ExtensionContext[" + name + "]";
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }
}
