package dev.weft.routing;

/**
 * The home route of each consumer group: FindCoordinator, JoinGroup, SyncGroup, Heartbeat, LeaveGroup
 * and DescribeGroups go there (DESIGN §5). Allocation-free.
 */
@FunctionalInterface
public interface GroupRouting {

    /** The route index of the group's home. */
    int homeRoute(String groupId);
}
