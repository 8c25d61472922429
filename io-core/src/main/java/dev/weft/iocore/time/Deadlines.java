package dev.weft.iocore.time;

/**
 * Deadline arithmetic on {@link NanoClock} values.
 *
 * <p>Nano times may wrap around {@link Long#MAX_VALUE}, so two instants are compared by the sign of
 * their difference ({@code deadline - now < 0}), never with {@code now > deadline}: the subtraction is
 * correct as long as the two instants are within ~292 years of each other, the raw comparison breaks at
 * the wrap.
 */
public final class Deadlines {

    private Deadlines() {
    }

    /** The deadline {@code timeoutNanos} after {@code nowNanos} (may wrap; that is fine). */
    public static long deadline(long nowNanos, long timeoutNanos) {
        if (timeoutNanos < 0) {
            throw new IllegalArgumentException("timeout must be >= 0 ns, was " + timeoutNanos);
        }
        return nowNanos + timeoutNanos;
    }

    /**
     * True once {@code nowNanos} is strictly after {@code deadlineNanos}. At exactly the deadline it has
     * not passed yet, so a timeout of T fires on the first clock read later than T.
     */
    public static boolean hasPassed(long deadlineNanos, long nowNanos) {
        return deadlineNanos - nowNanos < 0;
    }

    /** Nanoseconds left until the deadline; 0 when it is reached or passed. Useful to size a wait. */
    public static long remaining(long deadlineNanos, long nowNanos) {
        long left = deadlineNanos - nowNanos;
        return left > 0 ? left : 0;
    }

    /** The earlier of two deadlines, by subtraction (so it holds across the wrap). */
    public static long earliest(long a, long b) {
        return a - b <= 0 ? a : b;
    }
}
