package dev.weft.proxy.security;

import java.net.InetAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * Failed authentications per peer address, for one virtual cluster: after {@code limit} failures
 * within {@code windowNanos}, the peer's next attempts are refused without looking at its credentials
 * until the window has passed (password guessing gets {@code limit} tries per window, not thousands a
 * second). Shared by every event loop: a concurrent map of small immutable windows.
 */
public final class FailedAuthentications {

    private record Window(long startNanos, int failures) {
    }

    /** Past this many peers, windows that are over are swept (an attacker with many addresses cannot grow the map forever). */
    private static final int SWEEP_AT = 10_000;

    private final int limit;
    private final long windowNanos;
    private final LongSupplier clock;
    private final ConcurrentHashMap<InetAddress, Window> byPeer = new ConcurrentHashMap<>();

    public FailedAuthentications(int limit, long windowNanos, LongSupplier clock) {
        this.limit = limit;
        this.windowNanos = windowNanos;
        this.clock = clock;
    }

    /** Nanoseconds until {@code peer} may try again, or 0 when it may try now. */
    long blockedForNanos(InetAddress peer) {
        Window w = byPeer.get(peer);
        if (w == null || w.failures < limit) {
            return 0;
        }
        long left = w.startNanos + windowNanos - clock.getAsLong();
        return Math.max(0, left);
    }

    void failed(InetAddress peer) {
        long now = clock.getAsLong();
        byPeer.compute(peer, (p, w) -> w == null || now - w.startNanos >= windowNanos ? new Window(now, 1)
                : new Window(w.startNanos, w.failures + 1));
        if (byPeer.size() > SWEEP_AT) {
            byPeer.values().removeIf(w -> now - w.startNanos >= windowNanos);
        }
    }

    int limit() {
        return limit;
    }
}
