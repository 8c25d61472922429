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

    /** The first of the request's topics behind another route than {@code home}, or null. */
    static VisibleTopic firstElsewhere(TopicsByRoute<?> topics, int home) {
        for (int i = 0; i < topics.size(); i++) {
            VisibleTopic v = topics.resolved(i);
            if (v != null && v.route() != home) {
                return v;
            }
        }
        return null;
    }

    static String topicElsewhere(PlanContext ctx, String transactionalId, int home, VisibleTopic topic) {
        return "transaction '" + transactionalId + "' is confined to cluster '" + ctx.routeName(home)
                + "' (its home); topic '" + topic.virtualName() + "' lives on cluster '" + ctx.routeName(topic.route())
                + "'; the transaction is refused and must be aborted";
    }

    static String groupElsewhere(PlanContext ctx, String transactionalId, int home, String groupId, int groupHome) {
        return "transaction '" + transactionalId + "' is confined to cluster '" + ctx.routeName(home)
                + "' (its home); consumer group '" + groupId + "' lives on cluster '" + ctx.routeName(groupHome)
                + "'; the transaction is refused and must be aborted";
    }
}
