package dev.weft.iocore.testing;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Turns every Netty leak report into a test failure.
 *
 * <p>Registered through {@code META-INF/services} and JUnit's extension auto-detection (enabled by the
 * parent POM's surefire configuration), so every test class of every module that has the io-core
 * test-jar on its class path is covered without opting in. Tests run with
 * {@code -Dio.netty.leakDetection.level=paranoid}: every buffer is tracked.
 *
 * <p>Netty reports a leak only when a later allocation polls the reference queue after a GC, so after
 * each test class this extension collects garbage, allocates to trigger the poll, and fails the class
 * if anything was reported — naming the leaked resource and its access records.
 */
public final class LeakFailExtension implements AfterAllCallback {

    private static final ConcurrentLinkedQueue<String> LEAKS = new ConcurrentLinkedQueue<>();

    static {
        ResourceLeakDetectorFactory.setResourceLeakDetectorFactory(new RecordingFactory());
    }

    @Override
    public void afterAll(ExtensionContext context) {
        List<String> found = drainAfterGc();
        if (!found.isEmpty()) {
            throw new AssertionError("Netty reported " + found.size() + " leaked buffer(s) in "
                    + context.getDisplayName() + ":\n" + String.join("\n----\n", found));
        }
    }

    /** Forces the leak detector to look, then returns (and forgets) what it reported. */
    public static List<String> drainAfterGc() {
        for (int round = 0; round < 3; round++) {
            System.gc();
            System.runFinalization();
            // Tracking a new buffer is what makes the detector poll its reference queue.
            for (int i = 0; i < 64; i++) {
                ByteBuf probe = PooledByteBufAllocator.DEFAULT.directBuffer(16);
                probe.release();
            }
        }
        List<String> out = new ArrayList<>();
        String leak;
        while ((leak = LEAKS.poll()) != null) {
            out.add(leak);
        }
        return out;
    }

    private static final class RecordingFactory extends ResourceLeakDetectorFactory {
        @Override
        public <T> ResourceLeakDetector<T> newResourceLeakDetector(
                Class<T> resource, int samplingInterval, long maxActive) {
            return new RecordingDetector<>(resource, samplingInterval);
        }
    }

    private static final class RecordingDetector<T> extends ResourceLeakDetector<T> {
        RecordingDetector(Class<T> resource, int samplingInterval) {
            super(resource, samplingInterval);
        }

        @Override
        protected void reportTracedLeak(String resourceType, String records) {
            LEAKS.add("LEAK " + resourceType + records);
            super.reportTracedLeak(resourceType, records);
        }

        @Override
        protected void reportUntracedLeak(String resourceType) {
            LEAKS.add("LEAK " + resourceType + " (no access records)");
            super.reportUntracedLeak(resourceType);
        }
    }
}
