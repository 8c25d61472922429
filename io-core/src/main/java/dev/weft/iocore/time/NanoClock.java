package dev.weft.iocore.time;

/**
 * A monotonic clock in nanoseconds, read once per duty cycle and passed down.
 *
 * <p>Why an interface and not {@link System#nanoTime()} everywhere: logic that takes {@code now} from a
 * clock can be tested by stepping time by hand ({@link ManualNanoClock}) to just short of a deadline and
 * then past it, without sleeping. Values are only meaningful relative to each other: compare them by
 * subtraction ({@link Deadlines}), never with {@code <} on raw values, because they may wrap.
 */
@FunctionalInterface
public interface NanoClock {

    /** The current time in nanoseconds, from an arbitrary origin. */
    long nanoTime();

    /** The JVM's monotonic clock ({@link System#nanoTime()}). */
    static NanoClock system() {
        return SystemNanoClock.INSTANCE;
    }
}
