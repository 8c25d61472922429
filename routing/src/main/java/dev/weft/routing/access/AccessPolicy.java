package dev.weft.routing.access;

import java.util.Map;

/**
 * A virtual cluster's authorization ({@code virtualClusters.NAME.authorization}): the rules of each
 * principal by user name, the rules of every other authenticated principal ({@code *}, or none: they may
 * do nothing), and how hidden topics are answered. Compiled at load, immutable.
 *
 * @param byUser rules per principal user name (the {@code alice} of {@code User:alice})
 * @param others rules for principals not named, or null: they are allowed nothing
 * @param hiddenTopics the answer to a topic the principal may not describe
 */
public record AccessPolicy(Map<String, AccessRules> byUser, AccessRules others, HiddenTopics hiddenTopics) {

    public AccessPolicy {
        byUser = Map.copyOf(byUser);
    }

    /** The rules of principal {@code user} (null: a connection that did not authenticate, named ANONYMOUS as Kafka does). */
    public AccessRules rulesFor(String user) {
        String name = user == null ? "ANONYMOUS" : user;
        AccessRules r = byUser.get(name);
        if (r != null) {
            return r;
        }
        return others != null ? others : AccessRules.denyAll(name);
    }
}
