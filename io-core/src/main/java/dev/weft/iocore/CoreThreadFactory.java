package dev.weft.iocore;

import dev.weft.iocore.affinity.CpuAffinity;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates event loop threads named {@code <prefix>-<n>}, optionally pinning the {@code n}-th thread to
 * {@code cpus[n % cpus.length]} as the first thing it does, before it runs its loop.
 *
 * <p>Threads are Netty {@code FastThreadLocalThread}s (via {@link DefaultThreadFactory}) so Netty's
 * thread-local buffer caches take the fast path. A thread that cannot be pinned still runs its loop (a
 * dead loop thread would wedge Netty's executor); the failure is logged and kept in
 * {@link #pinningFailures()}, which {@link EventLoops#start} checks to fail startup.
 */
public final class CoreThreadFactory implements ThreadFactory {

    private static final Logger LOG = LoggerFactory.getLogger(CoreThreadFactory.class);

    private final String prefix;
    private final int[] cpus;
    private final ThreadFactory delegate;
    private final AtomicInteger nextOrdinal = new AtomicInteger();
    private final ConcurrentLinkedQueue<RuntimeException> pinningFailures = new ConcurrentLinkedQueue<>();

    /**
     * @param prefix thread name prefix, e.g. {@code weft-core}
     * @param cpus   CPUs to pin the threads to, in creation order; empty for no pinning
     */
    public CoreThreadFactory(String prefix, int[] cpus) {
        this.prefix = Objects.requireNonNull(prefix, "prefix");
        this.cpus = cpus.clone();
        this.delegate = new DefaultThreadFactory(prefix, false, Thread.NORM_PRIORITY);
    }

    /** Whether threads from this factory pin themselves. */
    public boolean pins() {
        return cpus.length > 0;
    }

    /** The CPU the {@code ordinal}-th thread is pinned to, or -1 without pinning. */
    public int cpuForOrdinal(int ordinal) {
        return cpus.length == 0 ? -1 : cpus[ordinal % cpus.length];
    }

    @Override
    public Thread newThread(Runnable loop) {
        int ordinal = nextOrdinal.getAndIncrement();
        int cpu = cpuForOrdinal(ordinal);
        Thread thread;
        if (cpu < 0) {
            thread = delegate.newThread(loop);
            thread.setName(prefix + "-" + ordinal);
        } else {
            thread = delegate.newThread(() -> {
                pinOrRecord(cpu);
                loop.run();
            });
            thread.setName(prefix + "-" + ordinal + "-cpu" + cpu);
        }
        return thread;
    }

    /** Failures to pin, in the order they happened; empty when every thread was pinned. */
    public List<RuntimeException> pinningFailures() {
        return List.copyOf(pinningFailures);
    }

    private void pinOrRecord(int cpu) {
        try {
            CpuAffinity.pinCurrentThread(cpu);
        } catch (RuntimeException e) {
            LOG.error("could not pin event loop thread {} to cpu {}: {}", Thread.currentThread().getName(), cpu,
                    e.getMessage());
            pinningFailures.add(e);
        }
    }
}
