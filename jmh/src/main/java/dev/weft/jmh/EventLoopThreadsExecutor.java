package dev.weft.jmh;

import io.netty.util.concurrent.DefaultThreadFactory;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Runs JMH's benchmark threads as Netty {@link io.netty.util.concurrent.FastThreadLocalThread}s, like
 * the proxy's event loops. It matters for allocation: Netty 4.2's {@code Recycler} pools derived
 * buffers (the retained slices Weft hands around) only on such threads, so on a plain JMH thread
 * every {@code retainedSlice} allocates (~16 B each) while on an event loop it allocates nothing.
 *
 * <p>Selected with {@code -Djmh.executor=CUSTOM -Djmh.executor.class=dev.weft.jmh.EventLoopThreadsExecutor}
 * (the codec benchmarks' {@code @Fork} does it); JMH calls the {@code (int, String)} constructor.
 */
public final class EventLoopThreadsExecutor extends ThreadPoolExecutor {

    public EventLoopThreadsExecutor(int maxThreads, String prefix) {
        super(maxThreads, maxThreads, 0L, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(),
                new DefaultThreadFactory(prefix, true));
    }
}
