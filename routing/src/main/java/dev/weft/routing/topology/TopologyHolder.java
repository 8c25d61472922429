package dev.weft.routing.topology;

import java.util.Collection;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import org.apache.kafka.common.message.MetadataResponseData;

/**
 * The current {@link ClusterTopology} (brokers) and {@link PartitionLeadership} (partition leaders) of
 * one upstream cluster, shared by every core.
 *
 * <p>Any thread may publish: event loops when they see a Metadata response, the discovery thread when
 * it refreshes. Publication is a compare-and-set of an immutable snapshot, so readers never lock and
 * never see a half-built topology. Listeners (for example a gateway that binds a port per broker) are
 * told of every change of brokers, on the publishing thread.
 *
 * <p>Brokers and partitions are two snapshots, published separately (partitions change far more
 * often, and a broker listener has nothing to do when a leader moves): a leader id may name a broker
 * that {@link #current()} does not list yet; look the broker up and refresh when it is missing.
 */
public final class TopologyHolder {

    private final String clusterName;
    private final AtomicReference<ClusterTopology> current = new AtomicReference<>(ClusterTopology.empty());
    private final CopyOnWriteArrayList<Consumer<ClusterTopology>> listeners = new CopyOnWriteArrayList<>();
    private final AtomicReference<PartitionLeadership> partitions = new AtomicReference<>(PartitionLeadership.empty());

    public TopologyHolder(String clusterName) {
        this.clusterName = clusterName;
    }

    public String clusterName() {
        return clusterName;
    }

    public ClusterTopology current() {
        return current.get();
    }

    /**
     * Publishes the brokers seen in a response when they differ from the current snapshot.
     *
     * @return the snapshot in force afterwards
     */
    public ClusterTopology offer(String clusterId, Collection<BrokerEndpoint> brokers) {
        while (true) {
            ClusterTopology before = current.get();
            boolean sameId = clusterId == null || clusterId.equals(before.clusterId());
            if (sameId && before.sameBrokersAs(brokers)) {
                return before;
            }
            ClusterTopology after = before.withBrokers(clusterId != null ? clusterId : before.clusterId(), brokers);
            if (current.compareAndSet(before, after)) {
                for (Consumer<ClusterTopology> listener : listeners) {
                    listener.accept(after);
                }
                return after;
            }
        }
    }

    public void addListener(Consumer<ClusterTopology> listener) {
        listeners.add(listener);
    }

    /** The current partition leadership; resolve a topic from it once per request, then index partitions. */
    public PartitionLeadership partitions() {
        return partitions.get();
    }

    /**
     * Merges the topics of a Metadata response the proxy saw (see {@link PartitionLeadership#merge}).
     *
     * @return the snapshot in force afterwards
     */
    public PartitionLeadership offerPartitions(MetadataResponseData response) {
        return updatePartitions(p -> p.merge(response));
    }

    /** Marks a partition's leader unknown after NOT_LEADER_OR_FOLLOWER (see {@link PartitionLeadership#invalidate(String, int)}). */
    public PartitionLeadership invalidate(String topic, int partition) {
        return updatePartitions(p -> p.invalidate(topic, partition));
    }

    /** {@link #invalidate(String, int)} for a topic named by id. */
    public PartitionLeadership invalidate(long topicIdMsb, long topicIdLsb, int partition) {
        return updatePartitions(p -> p.invalidate(topicIdMsb, topicIdLsb, partition));
    }

    /** Records the new leader an upstream named (see {@link PartitionLeadership#leaderMoved(String, int, int, int)}). */
    public PartitionLeadership leaderMoved(String topic, int partition, int leaderId, int leaderEpoch) {
        return updatePartitions(p -> p.leaderMoved(topic, partition, leaderId, leaderEpoch));
    }

    /** {@link #leaderMoved(String, int, int, int)} for a topic named by id. */
    public PartitionLeadership leaderMoved(long topicIdMsb, long topicIdLsb, int partition, int leaderId,
            int leaderEpoch) {
        return updatePartitions(p -> p.leaderMoved(topicIdMsb, topicIdLsb, partition, leaderId, leaderEpoch));
    }

    /** Takes a replica out of a partition's ISR until Metadata lists it again (see {@link PartitionLeadership#outOfSync(String, int, int)}). */
    public PartitionLeadership outOfSync(String topic, int partition, int nodeId) {
        return updatePartitions(p -> p.outOfSync(topic, partition, nodeId));
    }

    /** {@link #outOfSync(String, int, int)} for a topic named by id. */
    public PartitionLeadership outOfSync(long topicIdMsb, long topicIdLsb, int partition, int nodeId) {
        return updatePartitions(p -> p.outOfSync(topicIdMsb, topicIdLsb, partition, nodeId));
    }

    /** Takes a broker out of every ISR until Metadata lists it again (see {@link PartitionLeadership#replicaUnreachable}). */
    public PartitionLeadership replicaUnreachable(int nodeId) {
        return updatePartitions(p -> p.replicaUnreachable(nodeId));
    }

    /** Applies a pure change to the current snapshot and publishes the result; retried when another thread won. */
    private PartitionLeadership updatePartitions(UnaryOperator<PartitionLeadership> change) {
        while (true) {
            PartitionLeadership before = partitions.get();
            PartitionLeadership after = change.apply(before);
            if (after == before || partitions.compareAndSet(before, after)) {
                return after;
            }
        }
    }
}
