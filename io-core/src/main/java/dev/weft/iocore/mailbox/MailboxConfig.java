package dev.weft.iocore.mailbox;

/**
 * Sizing of a {@link CoreMailbox}.
 *
 * @param capacity   the most messages queued at once (rounded up to a power of two); offers beyond it
 *                   are refused, never blocked, so a stuck core cannot make its producers grow memory
 * @param drainBatch the most messages applied per turn of the loop before I/O and other tasks get a go
 */
public record MailboxConfig(int capacity, int drainBatch) {

    public static final int DEFAULT_CAPACITY = 1024;
    public static final int DEFAULT_DRAIN_BATCH = 64;
    /** JCTools needs at least 2 slots. */
    public static final int MIN_CAPACITY = 2;
    public static final int MAX_CAPACITY = 1 << 24;

    public MailboxConfig {
        if (capacity < MIN_CAPACITY || capacity > MAX_CAPACITY) {
            throw new IllegalArgumentException(
                    "mailbox capacity: " + capacity + " is outside " + MIN_CAPACITY + ".." + MAX_CAPACITY);
        }
        if (drainBatch < 1) {
            throw new IllegalArgumentException("mailbox drainBatch: " + drainBatch + " must be >= 1");
        }
    }

    /** 1024 messages, 64 per turn. */
    public static MailboxConfig defaults() {
        return new MailboxConfig(DEFAULT_CAPACITY, DEFAULT_DRAIN_BATCH);
    }
}
