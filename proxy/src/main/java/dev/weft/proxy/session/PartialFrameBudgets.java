package dev.weft.proxy.session;

import dev.weft.iocore.EventLoops;
import dev.weft.iocore.buffer.CoreByteBudget;
import dev.weft.iocore.time.NanoClock;
import dev.weft.protocol.frame.KafkaFrameDecoder;
import dev.weft.protocol.frame.PartialFrameLimits;
import io.netty.util.concurrent.EventExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.ToIntFunction;

/**
 * The bounds on what client connections may hold in incomplete frames: one {@link CoreByteBudget} per
 * event loop ({@code server.maxPartialFrameBytesPerCore}), frames above
 * {@code server.maxPartialFrameBytesPerConnection} assembled one at a time per core, and every frame
 * complete within {@code server.partialFrameTimeoutMs} of its first byte. The policy itself is
 * {@link KafkaFrameDecoder}'s (see its class comment); this class only builds the per-core pieces, up
 * front, so that {@link #limitsFor} (once per connection, on the connection's loop) is an array load.
 *
 * <p>Each core's budget is used only by its own loop. Reading one from another thread (a test) must go
 * through that loop.
 */
public final class PartialFrameBudgets {

    /** Default of {@code server.maxPartialFrameBytesPerConnection}. */
    public static final long DEFAULT_PER_CONNECTION_BYTES = 16L << 20;
    /** Default of {@code server.maxPartialFrameBytesPerCore}. */
    public static final long DEFAULT_PER_CORE_BYTES = 256L << 20;

    private final ToIntFunction<EventExecutor> coreIndexOf;
    private final CoreByteBudget[] budgets;
    private final NanoClock clock;
    private final PartialFrameLimits[] limits;
    private final long perConnectionBytes;
    private final long perCoreBytes;

    /**
     * @param coreCount how many event loops there are
     * @param coreIndexOf which core (0 .. coreCount-1) a loop is, or -1 when it is none of them
     * @param perConnectionBytes frames larger than this are assembled one at a time per core
     * @param perCoreBytes what the incomplete frames of one core may be granted together
     * @param timeoutMillis how long after its first byte a frame must be complete
     * @param clock time for the deadlines
     */
    public PartialFrameBudgets(int coreCount, ToIntFunction<EventExecutor> coreIndexOf, long perConnectionBytes,
            long perCoreBytes, int timeoutMillis, NanoClock clock) {
        if (coreCount < 1) {
            throw new IllegalArgumentException("no cores to keep partial-frame budgets for");
        }
        this.coreIndexOf = coreIndexOf;
        this.clock = clock;
        this.perConnectionBytes = perConnectionBytes;
        this.perCoreBytes = perCoreBytes;
        this.budgets = new CoreByteBudget[coreCount];
        this.limits = new PartialFrameLimits[coreCount];
        long timeoutNanos = TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        for (int i = 0; i < coreCount; i++) {
            budgets[i] = new CoreByteBudget(perCoreBytes, perConnectionBytes);
            limits[i] = new PartialFrameLimits(budgets[i], timeoutNanos, clock);
        }
    }

    /** Where the sessions of these cores read "now" (a manual clock in tests). */
    public NanoClock clock() {
        return clock;
    }

    /** The budgets of {@code loops}' cores, on the system clock. */
    public static PartialFrameBudgets of(EventLoops loops, long perConnectionBytes, long perCoreBytes, int timeoutMillis) {
        return new PartialFrameBudgets(loops.coreCount(), loops::coreIndexOf, perConnectionBytes, perCoreBytes,
                timeoutMillis, NanoClock.system());
    }

    /** The limits for a client connection on {@code loop} (one of the proxy's cores). */
    public PartialFrameLimits limitsFor(EventExecutor loop) {
        return limits[core(loop)];
    }

    /** The budget of {@code loop}'s core; use it on that loop only. */
    public CoreByteBudget budgetOf(EventExecutor loop) {
        return budgets[core(loop)];
    }

    public int coreCount() {
        return budgets.length;
    }

    /** The budget of core {@code index}; use it on that core's loop only. */
    public CoreByteBudget budget(int index) {
        return budgets[index];
    }

    public long perConnectionBytes() {
        return perConnectionBytes;
    }

    public long perCoreBytes() {
        return perCoreBytes;
    }

    private int core(EventExecutor loop) {
        int core = coreIndexOf.applyAsInt(loop);
        if (core < 0 || core >= budgets.length) {
            throw new IllegalArgumentException("event loop " + loop + " is not one of the proxy's " + budgets.length + " cores");
        }
        return core;
    }
}
