package dev.weft.iocore.time;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Lets something happen at most once per interval, across threads: a refresh asked for by many
 * requests, a warning that must not flood the log. {@link #tryPass()} is true for the first caller once
 * the interval since the last pass is over (one compare-and-set; the losers of a race are told no), and
 * true at once for the first call ever. Allocates nothing.
 */
public final class AtMostEvery {

    private final long intervalNanos;
    private final NanoClock clock;
    private final AtomicLong lastNanos;

    public AtMostEvery(Duration interval) {
        this(interval, NanoClock.system());
    }

    public AtMostEvery(Duration interval, NanoClock clock) {
        this.intervalNanos = interval.toNanos();
        this.clock = clock;
        this.lastNanos = new AtomicLong(clock.nanoTime() - intervalNanos);
    }

    /** Whether the caller may go ahead now (and the interval starts again). */
    public boolean tryPass() {
        long now = clock.nanoTime();
        long last = lastNanos.get();
        return now - last >= intervalNanos && lastNanos.compareAndSet(last, now);
    }
}
