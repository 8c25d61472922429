package dev.weft.routing.access;

import dev.weft.routing.api.HotCatalog;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The principals' views of one virtual cluster, shared by its connections on every core: one
 * {@link PrincipalViews} per rules and catalog snapshot, replaced when the catalog changes. Two cores
 * that ask at once may both build one; either is right, and one is kept.
 */
public final class AccessViewCache {

    private final AccessPolicy policy;
    private final ConcurrentHashMap<AccessRules, PrincipalViews> views = new ConcurrentHashMap<>();

    public AccessViewCache(AccessPolicy policy) {
        this.policy = policy;
    }

    public AccessPolicy policy() {
        return policy;
    }

    /** The views of {@code rules} over {@code catalog}. */
    public PrincipalViews views(AccessRules rules, HotCatalog catalog) {
        PrincipalViews v = views.get(rules);
        if (v != null && v.base() == catalog) {
            return v;
        }
        PrincipalViews made = new PrincipalViews(catalog, rules);
        views.put(rules, made);
        return made;
    }
}
