package dev.weft.routing.topology;

import java.util.Collection;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The current {@link ClusterTopology} of one upstream cluster, shared by every core.
 *
 * <p>Any thread may publish: event loops when they see a Metadata response, the discovery thread when
 * it refreshes. Publication is a compare-and-set of an immutable snapshot, so readers never lock and
 * never see a half-built topology. Listeners (for example a gateway that binds a port per broker) are
 * told of every change, on the publishing thread.
 */
public final class TopologyHolder {

    private final String clusterName;
    private final AtomicReference<ClusterTopology> current = new AtomicReference<>(ClusterTopology.empty());
    private final CopyOnWriteArrayList<Consumer<ClusterTopology>> listeners = new CopyOnWriteArrayList<>();

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
}
