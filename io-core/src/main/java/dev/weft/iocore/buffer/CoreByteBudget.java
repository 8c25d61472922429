package dev.weft.iocore.buffer;

import java.util.ArrayDeque;

/**
 * How many bytes the connections of one core (event loop) may hold in inbound messages that have not
 * fully arrived yet: a Kafka frame whose size prefix is in but whose body is still coming.
 *
 * <p>A holder asks for the whole message's size up front ({@link #tryGrant}) once it knows it, and
 * gives it back when the message is complete or the connection closes ({@link #release}). A request is
 * granted when
 * <ul>
 *   <li>it fits: what is granted on this core plus the request stays within {@link #limitBytes()}, or
 *       nothing at all is granted on this core (so a message bigger than the whole budget can still be
 *       assembled, alone); and
 *   <li>it is not <em>large</em> (above {@link #largeAboveBytes()}), or no other holder of this core has
 *       a large grant: large messages are assembled one at a time per core, so a few of them cannot take
 *       the whole budget from everyone else.
 * </ul>
 * A holder that is refused {@linkplain #await waits} (its connection stops reading) and is asked again,
 * in arrival order, each time bytes are released. The order is not strict: a waiter that still does not
 * fit stays in the queue while later ones that fit go ahead, so small messages are never stuck behind
 * a large one; the price is that a large message can wait for long on a core kept near its limit.
 *
 * <p>Besides the grants the budget keeps {@link #heldBytes()}, the bytes holders report they really
 * buffer (grants are promises; a connection that waits still holds the one read that brought the size).
 *
 * <p>Single-threaded: one instance per event loop, called only on that loop, so plain fields and no
 * locks or atomics. A thread that wants a consistent reading (a test, a metrics scrape) asks the loop.
 */
public final class CoreByteBudget {

    /** A holder refused by {@link #tryGrant}, waiting for bytes to be released. */
    @FunctionalInterface
    public interface Waiter {
        /**
         * Bytes were released: try again ({@link #tryGrant}). Called on the budget's loop.
         *
         * @return true when done waiting (granted, or no longer interested); false to keep waiting
         */
        boolean budgetReleased();
    }

    private final long limitBytes;
    private final long largeAboveBytes;
    private final ArrayDeque<Waiter> waiters = new ArrayDeque<>();
    private long grantedBytes;
    private long heldBytes;
    private Object largeHolder;
    private long refusals;
    private boolean waking;
    private boolean releasedWhileWaking;

    /**
     * @param limitBytes what the core's holders may be granted together
     * @param largeAboveBytes requests above this are large: one holder at a time per core
     */
    public CoreByteBudget(long limitBytes, long largeAboveBytes) {
        if (limitBytes <= 0) {
            throw new IllegalArgumentException("limitBytes must be positive, was " + limitBytes);
        }
        if (largeAboveBytes <= 0 || largeAboveBytes > limitBytes) {
            throw new IllegalArgumentException("largeAboveBytes must be from 1 to limitBytes (" + limitBytes + "), was "
                    + largeAboveBytes);
        }
        this.limitBytes = limitBytes;
        this.largeAboveBytes = largeAboveBytes;
    }

    /**
     * Grants {@code bytes} to {@code holder} if the rules above allow it. A holder keeps at most one
     * grant at a time (one incomplete message per connection).
     *
     * @return true when granted (the holder must {@link #release} it); false when it must wait
     */
    public boolean tryGrant(Object holder, long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("cannot grant " + bytes + " bytes");
        }
        boolean large = bytes > largeAboveBytes;
        if ((large && largeHolder != null && largeHolder != holder)
                || (grantedBytes != 0 && grantedBytes + bytes > limitBytes)) {
            refusals++;
            return false;
        }
        grantedBytes += bytes;
        if (large) {
            largeHolder = holder;
        }
        return true;
    }

    /** Gives back a grant of {@code bytes} made to {@code holder}, then asks the waiters again. */
    public void release(Object holder, long bytes) {
        if (bytes < 0 || bytes > grantedBytes) {
            throw new IllegalStateException("releasing " + bytes + " bytes but only " + grantedBytes + " are granted");
        }
        grantedBytes -= bytes;
        if (largeHolder == holder) {
            largeHolder = null;
        }
        wakeWaiters();
    }

    /** Queues a refused holder; it is asked again at each release until it says it is done. */
    public void await(Waiter waiter) {
        waiters.addLast(waiter);
    }

    /** Takes a waiter out of the queue (its connection closed); no effect if it is not waiting. */
    public void cancel(Waiter waiter) {
        waiters.remove(waiter);
    }

    /** A holder now buffers {@code delta} more bytes (negative: fewer) than it last reported. */
    public void held(long delta) {
        heldBytes += delta;
    }

    private void wakeWaiters() {
        if (waking) {
            releasedWhileWaking = true; // a waiter released something: the loop below goes round once more
            return;
        }
        waking = true;
        try {
            do {
                releasedWhileWaking = false;
                for (int n = waiters.size(); n > 0; n--) {
                    Waiter w = waiters.pollFirst();
                    if (w == null) {
                        break;
                    }
                    if (!w.budgetReleased()) {
                        waiters.addLast(w);
                    }
                }
            } while (releasedWhileWaking && !waiters.isEmpty());
        } finally {
            waking = false;
        }
    }

    /** What the core's holders may be granted together. */
    public long limitBytes() {
        return limitBytes;
    }

    /** Requests above this are large (one at a time per core). */
    public long largeAboveBytes() {
        return largeAboveBytes;
    }

    /** Bytes granted now. */
    public long grantedBytes() {
        return grantedBytes;
    }

    /** Bytes the holders report they buffer now. */
    public long heldBytes() {
        return heldBytes;
    }

    /** Whether some holder of this core has the large grant now. */
    public boolean largeGrantTaken() {
        return largeHolder != null;
    }

    /** Holders waiting now. */
    public int waiting() {
        return waiters.size();
    }

    /** Refused requests since the budget was made (each makes a connection wait). */
    public long refusals() {
        return refusals;
    }

    @Override
    public String toString() {
        return "CoreByteBudget[granted " + grantedBytes + " of " + limitBytes + " bytes, held " + heldBytes
                + ", large above " + largeAboveBytes + (largeHolder != null ? " (taken)" : "") + ", " + waiters.size()
                + " waiting]";
    }
}
