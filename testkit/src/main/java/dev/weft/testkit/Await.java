package dev.weft.testkit;

import java.time.Duration;
import java.util.concurrent.Callable;

/** Polls a condition until it holds or a deadline passes. */
final class Await {

    private static final long POLL_NANOS = Duration.ofMillis(100).toNanos();

    private Await() {
    }

    /**
     * Returns once {@code condition} returns true. An exception thrown by the condition counts as
     * "not yet" and is reported as the cause if the deadline passes.
     *
     * @throws IllegalStateException naming {@code what} when the deadline passes
     */
    static void until(Duration timeout, String what, Callable<Boolean> condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        Exception last = null;
        while (true) {
            try {
                if (condition.call()) {
                    return;
                }
                last = null;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for " + what, e);
            } catch (Exception e) {
                last = e;
            }
            if (System.nanoTime() - deadline >= 0) {
                throw new IllegalStateException("timed out after " + timeout + " waiting for " + what, last);
            }
            try {
                Thread.sleep(Duration.ofNanos(POLL_NANOS));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for " + what, e);
            }
        }
    }
}
