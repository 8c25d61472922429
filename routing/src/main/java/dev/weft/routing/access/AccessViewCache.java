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
    private final java.util.Map<AccessRules, RouteScope> scopes = new java.util.IdentityHashMap<>();

    /** A policy whose rules name no routes (every principal on every route, the router's homes). */
    public AccessViewCache(AccessPolicy policy) {
        this(policy, java.util.List.of());
    }

    /**
     * @param routeNames the router's routes in index order, which rules' {@code routes} and {@code home} name
     * @throws IllegalArgumentException "principals.USER.routes: ..." for a route the router does not have
     */
    public AccessViewCache(AccessPolicy policy, java.util.List<String> routeNames) {
        this.policy = policy;
        java.util.Map<String, AccessRules> all = new java.util.LinkedHashMap<>(policy.byUser());
        if (policy.others() != null) {
            all.put("*", policy.others());
        }
        all.forEach((user, rules) -> {
            try {
                scopes.put(rules, RouteScope.of(rules, routeNames));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("principals." + user + "." + e.getMessage(), e);
            }
        });
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
        PrincipalViews made = new PrincipalViews(catalog, rules, scopes.getOrDefault(rules, RouteScope.ANY));
        views.put(rules, made);
        return made;
    }
}
