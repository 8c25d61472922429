package dev.weft.routing.access;

import dev.weft.routing.api.HotCatalog;

/**
 * What one client connection's principal may do, and its views of the current catalog snapshot (found
 * again in the virtual cluster's {@link AccessViewCache} when the snapshot changes; otherwise a field
 * read). One per session, made when its principal is known; event loop only.
 */
public final class ConnectionAccess {

    private final AccessViewCache cache;
    private final AccessRules rules;
    private PrincipalViews views;

    public ConnectionAccess(AccessViewCache cache, AccessRules rules) {
        this.cache = cache;
        this.rules = rules;
    }

    public AccessRules rules() {
        return rules;
    }

    public HiddenTopics hiddenTopics() {
        return cache.policy().hiddenTopics();
    }

    /** The views last asked for: those the request in progress was planned with. */
    public PrincipalViews lastViews() {
        return views;
    }

    /** The principal's views of {@code current} (the router's catalog snapshot in force). */
    public PrincipalViews views(HotCatalog current) {
        PrincipalViews v = views;
        if (v == null || v.base() != current) {
            v = views = cache.views(rules, current);
        }
        return v;
    }

    /**
     * Whether a request naming the topic {@code clientName}, which is not among the topics the principal
     * may describe, is answered TOPIC_AUTHORIZATION_FAILED (its grants do not cover the name, and hidden
     * topics are answered so) rather than as unknown (the name is the principal's to use: it just does
     * not exist).
     */
    public boolean deniesHidden(String clientName) {
        return hiddenTopics() == HiddenTopics.AUTHORIZATION_FAILED
                && (rules.topicOperations(clientName) & TopicOperation.DESCRIBE.bit()) == 0;
    }
}
