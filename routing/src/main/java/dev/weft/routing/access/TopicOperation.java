package dev.weft.routing.access;

import java.util.Locale;

/**
 * What a principal may do to a topic (Kafka's ACL operations on topics, as allow-lists name them).
 * READ, WRITE, DELETE and ALTER imply DESCRIBE, as in Kafka: whoever may write a topic may see it.
 */
public enum TopicOperation {
    READ,
    WRITE,
    CREATE,
    DELETE,
    ALTER,
    DESCRIBE;

    /** This operation's bit in an operation mask. */
    public int bit() {
        return 1 << ordinal();
    }

    /** Every operation's bit. */
    public static final int ALL = (1 << values().length) - 1;

    /** {@code mask} with what its operations imply added. */
    public static int withImplied(int mask) {
        int implying = READ.bit() | WRITE.bit() | DELETE.bit() | ALTER.bit();
        return (mask & implying) != 0 ? mask | DESCRIBE.bit() : mask;
    }

    /** The operation a config names ({@code read}, ...; case-insensitive), or null. */
    public static TopicOperation named(String name) {
        for (TopicOperation op : values()) {
            if (op.name().equalsIgnoreCase(name)) {
                return op;
            }
        }
        return null;
    }

    public String configName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
