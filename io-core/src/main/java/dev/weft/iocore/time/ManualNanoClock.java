package dev.weft.iocore.time;

import java.time.Duration;

/**
 * A {@link NanoClock} that only moves when told to: tests drive time by hand.
 *
 * <p>Typically one test thread advances it while an event loop reads it, so the value is
 * {@code volatile}: written by whoever drives the test (usually one thread), read by any thread.
 */
public final class ManualNanoClock implements NanoClock {

    // Written by the test driver through set/advance, read by any thread: volatile for visibility.
    private volatile long nanoTime;

    /** Starts at {@code startNanos}; any value works, including ones near {@link Long#MAX_VALUE}. */
    public ManualNanoClock(long startNanos) {
        this.nanoTime = startNanos;
    }

    /** Starts at 0. */
    public ManualNanoClock() {
        this(0L);
    }

    @Override
    public long nanoTime() {
        return nanoTime;
    }

    /** Sets the time to {@code nanos}; time may even go backwards here, for tests that need it. */
    public ManualNanoClock set(long nanos) {
        this.nanoTime = nanos;
        return this;
    }

    /**
     * Moves time forward by {@code nanos} (wrapping like {@link System#nanoTime()} would). Not atomic
     * against a concurrent {@code advance}: one thread drives a manual clock.
     */
    public ManualNanoClock advance(long nanos) {
        if (nanos < 0) {
            throw new IllegalArgumentException("advance must not go backwards: " + nanos + " ns");
        }
        this.nanoTime = nanoTime + nanos;
        return this;
    }

    /** Moves time forward by {@code duration}. */
    public ManualNanoClock advance(Duration duration) {
        return advance(duration.toNanos());
    }

    @Override
    public String toString() {
        return "ManualNanoClock[" + nanoTime + " ns]";
    }
}
