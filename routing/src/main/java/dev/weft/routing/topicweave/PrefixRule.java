package dev.weft.routing.topicweave;

import java.util.Objects;

/** Ids (group ids, transactional ids, new topic names) starting with {@code prefix} belong to route {@code route}. */
public record PrefixRule(String prefix, String route) {
    public PrefixRule {
        Objects.requireNonNull(prefix, "prefix");
        Objects.requireNonNull(route, "route");
    }
}
