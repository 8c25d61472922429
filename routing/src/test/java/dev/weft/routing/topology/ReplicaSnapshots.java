package dev.weft.routing.topology;

import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponsePartition;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic;

/**
 * Real topology snapshots for the rack-aware fetch tests, built from kafka-clients' Metadata answers:
 * three brokers 0, 1, 2 in racks a, b, c, and partitions with explicit leaders, replicas and ISRs.
 */
public final class ReplicaSnapshots {

    public static final String CLUSTER = "c0";
    /** Leader epoch of every partition these helpers describe. */
    public static final int EPOCH = 5;
    public static final List<Integer> ALL_REPLICAS = List.of(0, 1, 2);

    private ReplicaSnapshots() {
    }

    public static BrokerEndpoint broker(int nodeId, String rack) {
        return new BrokerEndpoint(nodeId, "broker-" + nodeId + ".test", 9092 + nodeId, rack);
    }

    /** Brokers 0, 1, 2 in racks a, b, c. */
    public static ClusterTopology racked() {
        return ClusterTopology.empty().withBrokers(CLUSTER, List.of(broker(0, "a"), broker(1, "b"), broker(2, "c")));
    }

    /** Brokers 0, 1, 2 with no {@code broker.rack}. */
    public static ClusterTopology rackless() {
        return ClusterTopology.empty().withBrokers(CLUSTER, List.of(broker(0, null), broker(1, null), broker(2, null)));
    }

    /** Partition {@code index} led by {@code leader}, replicas 0, 1, 2, in-sync replicas {@code isr}. */
    public static MetadataResponsePartition partition(int index, int leader, int... isr) {
        return partition(index, leader, ALL_REPLICAS, isr);
    }

    /** Partition {@code index} led by {@code leader}, with these replicas and in-sync replicas. */
    public static MetadataResponsePartition partition(int index, int leader, List<Integer> replicas, int... isr) {
        List<Integer> inSync = new ArrayList<>();
        for (int id : isr) {
            inSync.add(id);
        }
        return new MetadataResponsePartition().setPartitionIndex(index).setLeaderId(leader).setLeaderEpoch(EPOCH)
                .setReplicaNodes(replicas).setIsrNodes(inSync);
    }

    public static MetadataResponseTopic topic(String name, Uuid id, MetadataResponsePartition... partitions) {
        return new MetadataResponseTopic().setName(name).setTopicId(id).setPartitions(List.of(partitions));
    }

    public static MetadataResponseData metadata(MetadataResponseTopic... topics) {
        MetadataResponseData response = new MetadataResponseData();
        for (MetadataResponseTopic t : topics) {
            response.topics().add(t.duplicate());
        }
        return response;
    }

    /** What the topology cache knows after one Metadata answer listing {@code topics}. */
    public static PartitionLeadership leadership(MetadataResponseTopic... topics) {
        return PartitionLeadership.empty().merge(metadata(topics));
    }
}
