package dev.weft.proxy.reload;

import java.util.concurrent.atomic.AtomicLong;

/** How config reloads went, for {@code /metrics}: counts and the time of the last of each outcome. */
public final class ReloadCounters {

    private final AtomicLong applied = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();
    private volatile long lastAppliedMillis;
    private volatile long lastRefusedMillis;
    private volatile boolean lastSucceeded = true;

    public void count(ReloadOutcome outcome, long nowMillis) {
        if (outcome.applied()) {
            applied.incrementAndGet();
            lastAppliedMillis = nowMillis;
        } else {
            refused.incrementAndGet();
            lastRefusedMillis = nowMillis;
        }
        lastSucceeded = outcome.applied();
    }

    public long applied() {
        return applied.get();
    }

    public long refused() {
        return refused.get();
    }

    /** Epoch millis of the last applied reload, 0 before any. */
    public long lastAppliedMillis() {
        return lastAppliedMillis;
    }

    /** Epoch millis of the last refused reload, 0 before any. */
    public long lastRefusedMillis() {
        return lastRefusedMillis;
    }

    /** Whether the last reload was applied (true before any): false means the file on disk is not what runs. */
    public boolean lastSucceeded() {
        return lastSucceeded;
    }
}
