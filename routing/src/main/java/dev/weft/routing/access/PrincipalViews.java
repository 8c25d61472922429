package dev.weft.routing.access;

import dev.weft.routing.TopicRouting;
import dev.weft.routing.api.HotCatalog;

/**
 * One principal's topic views over one catalog snapshot: for describing (what it sees at all) and for
 * each operation, plus the hot catalogs Produce (WRITE) and Fetch (READ) are planned with. Each view is
 * made when first asked for (off the hot path's steady state: once per snapshot); immutable once made.
 */
public final class PrincipalViews {

    private final HotCatalog base;
    private final AccessRules rules;
    private final TopicRouting[] byOperation = new TopicRouting[TopicOperation.values().length];
    private TopicRouting describable;
    private HotCatalog readCatalog;
    private HotCatalog writeCatalog;

    private final RouteScope scope;

    PrincipalViews(HotCatalog base, AccessRules rules, RouteScope scope) {
        this.base = base;
        this.rules = rules;
        this.scope = scope;
    }

    /** Where the principal's requests may go. */
    public RouteScope scope() {
        return scope;
    }

    /** The router's catalog snapshot these views are of. */
    public HotCatalog base() {
        return base;
    }

    public AccessRules rules() {
        return rules;
    }

    /** The topics the principal may see (describe) at all. */
    public TopicRouting describable() {
        TopicRouting v = describable;
        if (v == null) {
            v = describable = new PrincipalTopicView(base.topics(), rules, null, scope);
        }
        return v;
    }

    /** The topics the principal may {@code op}. */
    public TopicRouting allowing(TopicOperation op) {
        TopicRouting v = byOperation[op.ordinal()];
        if (v == null) {
            v = byOperation[op.ordinal()] = new PrincipalTopicView(base.topics(), rules, op, scope);
        }
        return v;
    }

    /** The hot catalog of the topics the principal may {@code op} (READ for Fetch, WRITE for Produce). */
    public HotCatalog hotCatalog(TopicOperation op) {
        if (op == TopicOperation.WRITE) {
            HotCatalog c = writeCatalog;
            return c != null ? c : (writeCatalog = HotCatalog.of(allowing(op)));
        }
        HotCatalog c = readCatalog;
        return c != null ? c : (readCatalog = HotCatalog.of(allowing(TopicOperation.READ)));
    }
}
