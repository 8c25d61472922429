package dev.weft.routing.access;

import java.util.List;

/**
 * What one principal may do on a virtual cluster, compiled at load: its tenant prefix (topics whose
 * real names start with it are its topics, named without it; every other topic does not exist for it),
 * the topic grants, and the allowed consumer group ids, transactional ids and cluster operations.
 * Nothing is allowed that no grant names. Immutable; shared by every connection of the principal and
 * every core.
 *
 * @param name what the config calls these rules (the principal, or {@code *}), for messages
 * @param tenant the tenant prefix, or null when the principal sees topics under their own names
 * @param topics topic grants, matched against the names the principal uses
 * @param groups consumer group ids it may use (join, commit, describe, delete)
 * @param transactionalIds transactional ids it may use
 * @param clusterOperations {@link ClusterOperation} bits
 * @param routes the router's routes whose topics the principal sees, by name; empty: every route
 * @param home the route its consumer groups and transactional ids live on, or null: the router's homes decide
 */
public record AccessRules(String name, String tenant, List<TopicGrant> topics, NameMatcher groups, NameMatcher transactionalIds,
        int clusterOperations, List<String> routes, String home) {

    /** Rules allowing nothing: a principal the policy does not name, on a policy without {@code *}. */
    public static AccessRules denyAll(String name) {
        return new AccessRules(name, null, List.of(), NameMatcher.NONE, NameMatcher.NONE, 0);
    }

    /** Rules over every route, with the router's homes. */
    public AccessRules(String name, String tenant, List<TopicGrant> topics, NameMatcher groups, NameMatcher transactionalIds,
            int clusterOperations) {
        this(name, tenant, topics, groups, transactionalIds, clusterOperations, List.of(), null);
    }

    public AccessRules {
        topics = List.copyOf(topics);
        routes = List.copyOf(routes);
        if (tenant != null && tenant.isEmpty()) {
            tenant = null;
        }
    }

    /** The {@link TopicOperation} bits the principal has on the topic it names {@code clientName}. */
    public int topicOperations(String clientName) {
        int ops = 0;
        for (TopicGrant g : topics) {
            if ((ops | g.operations()) != ops && g.names().matches(clientName)) {
                ops |= g.operations();
            }
        }
        return ops;
    }

    public boolean allows(TopicOperation op, String clientName) {
        return (topicOperations(clientName) & op.bit()) != 0;
    }

    public boolean allowsGroup(String groupId) {
        return groupId != null && groups.matches(groupId);
    }

    public boolean allowsTransactionalId(String transactionalId) {
        return transactionalId != null && transactionalIds.matches(transactionalId);
    }

    public boolean allowsCluster(ClusterOperation op) {
        return (clusterOperations & op.bit()) != 0;
    }

    /** The name the principal uses for the topic a catalog names {@code virtualName}, or null when it is not its tenant's. */
    public String clientNameOf(String virtualName) {
        if (tenant == null) {
            return virtualName;
        }
        return virtualName.startsWith(tenant) && virtualName.length() > tenant.length() ? virtualName.substring(tenant.length()) : null;
    }

    /** The catalog's name for the topic the principal names {@code clientName}. */
    public String catalogNameOf(String clientName) {
        return tenant == null ? clientName : tenant + clientName;
    }
}
