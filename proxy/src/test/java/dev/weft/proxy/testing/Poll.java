package dev.weft.proxy.testing;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Polls a condition with a deadline, parking briefly between looks (never a blind sleep, never a busy spin). */
public final class Poll {

    private static final long PAUSE_NANOS = Duration.ofMillis(10).toNanos();

    private Poll() {
    }

    /** Returns once {@code condition} holds; fails naming {@code what} and {@code state} after {@code timeout}. */
    public static void until(Duration timeout, String what, BooleanSupplier condition, Supplier<String> state) {
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

    public static void until(Duration timeout, String what, BooleanSupplier condition) {
        until(timeout, what, condition, () -> "");
    }

    /** Like {@link #until}, returning whether the condition held instead of failing. */
    public static boolean within(Duration timeout, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline >= 0) {
                return false;
            }
            LockSupport.parkNanos(PAUSE_NANOS);
        }
        return true;
    }

    /** Like {@link #until} for a condition that may throw: a throw counts as "not yet" and is reported. */
    public static void untilNoThrow(Duration timeout, String what, ThrowingCondition condition) {
        Throwable[] last = new Throwable[1];
        until(timeout, what, () -> {
            try {
                boolean ok = condition.check();
                last[0] = null;
                return ok;
            } catch (Exception e) {
                last[0] = e;
                return false;
            }
        }, () -> last[0] == null ? "condition false" : "last failure: " + last[0]);
    }

    @FunctionalInterface
    public interface ThrowingCondition {
        boolean check() throws Exception;
    }
}
