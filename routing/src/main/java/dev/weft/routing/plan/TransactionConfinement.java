package dev.weft.routing.plan;

import dev.weft.routing.VisibleTopic;

/**
 * Transactions are confined to their transactional id's home route (DESIGN §5): a transaction that
 * touches a partition elsewhere could never commit atomically, so it is refused before anything of it
 * reaches any cluster. The messages say which topic, which cluster, and which home.
 */
final class TransactionConfinement {

    private TransactionConfinement() {
    }

    /** A topic of the request with partitions behind {@code route}, another route than the transaction's home. */
    record Elsewhere(VisibleTopic topic, int route) {
    }

    /**
     * The first of the request's topics with partitions behind another route than {@code home} (for a
     * partition-woven topic: a named partition whose segment is elsewhere), or null.
     */
    static Elsewhere firstElsewhere(TopicsByRoute<?> topics, int home) {
        for (int i = 0; i < topics.size(); i++) {
            for (int route : topics.routesOf(i)) {
                if (route != home) {
                    return new Elsewhere(topics.resolved(i), route);
                }
            }
        }
        return null;
    }

    static String topicElsewhere(PlanContext ctx, String transactionalId, int home, Elsewhere e) {
        return "transaction '" + transactionalId + "' is confined to cluster '" + ctx.routeName(home)
                + "' (its home); topic '" + e.topic().virtualName() + "' " + (e.topic().woven()
                        ? "has partitions on cluster '" : "lives on cluster '") + ctx.routeName(e.route())
                + "'; the transaction is refused and must be aborted";
    }

    static String groupElsewhere(PlanContext ctx, String transactionalId, int home, String groupId, int groupHome) {
        return "transaction '" + transactionalId + "' is confined to cluster '" + ctx.routeName(home)
                + "' (its home); consumer group '" + groupId + "' lives on cluster '" + ctx.routeName(groupHome)
                + "'; the transaction is refused and must be aborted";
    }
}
