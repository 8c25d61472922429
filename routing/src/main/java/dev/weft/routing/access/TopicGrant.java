package dev.weft.routing.access;

/**
 * One allow-list entry for topics: the names it covers (as the principal sees them: without its tenant
 * prefix) and the operations it allows on them ({@link TopicOperation} bits, implied ones included).
 */
public record TopicGrant(NameMatcher names, int operations) {

    public TopicGrant {
        operations = TopicOperation.withImplied(operations);
    }
}
