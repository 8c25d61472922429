package dev.weft.routing.access;

/**
 * What a principal may do to the cluster itself: DESCRIBE for APIs that list what the brokers hold
 * (log dirs, reassignments, broker configs), ALTER for those that change it (reassignments, leader
 * elections, broker configs). Kafka's CLUSTER resource, reduced to the two operations Weft's planned
 * APIs need.
 */
public enum ClusterOperation {
    DESCRIBE,
    ALTER;

    public int bit() {
        return 1 << ordinal();
    }
}
