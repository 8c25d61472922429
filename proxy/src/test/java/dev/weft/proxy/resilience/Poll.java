package dev.weft.proxy.resilience;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Polls a condition with a deadline, parking briefly between looks (never a blind sleep, never a busy spin). */
final class Poll {

    private static final long PAUSE_NANOS = Duration.ofMillis(10).toNanos();

    private Poll() {
    }

    /** Returns once {@code condition} holds; fails naming {@code what} and {@code state} after {@code timeout}. */
    static void until(Duration timeout, String what, BooleanSupplier condition, Supplier<String> state) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline >= 0) {
                throw new AssertionError("timed out after " + timeout + " waiting for " + what + "; " + state.get());
            }
            if (Thread.interrupted()) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while waiting for " + what);
            }
            LockSupport.parkNanos(PAUSE_NANOS);
        }
    }

    static void until(Duration timeout, String what, BooleanSupplier condition) {
        until(timeout, what, condition, () -> "");
    }

    /** Like {@link #until}, returning whether the condition held instead of failing. */
    static boolean within(Duration timeout, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline >= 0) {
                return false;
            }
            LockSupport.parkNanos(PAUSE_NANOS);
        }
        return true;
    }
}
