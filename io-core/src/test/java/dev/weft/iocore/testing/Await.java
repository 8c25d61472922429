package dev.weft.iocore.testing;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Polls a condition until it holds or a deadline passes: the no-{@code Thread.sleep} way to wait. */
public final class Await {

    private Await() {
    }

    /**
     * Spins (yielding) until {@code condition} holds.
     *
     * @throws AssertionError with {@code description} when {@code timeout} passes first
     */
    public static void until(Duration timeout, BooleanSupplier condition, Supplier<String> description) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (deadline - System.nanoTime() < 0) {
                throw new AssertionError("timed out after " + timeout + " waiting for: " + description.get());
            }
            Thread.yield();
        }
    }
}
