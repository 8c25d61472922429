package dev.weft.routing.topology;

import java.util.Collection;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * An immutable snapshot of one upstream cluster's brokers, as last seen in a Metadata (or
 * DescribeCluster) response.
 *
 * <p>Snapshots are published by reference between threads (see {@link TopologyHolder}); nothing in
 * one ever changes, so event loops read them without locks. It says where brokers are, never who may
 * do what: it is not for authorization.
 */
public final class ClusterTopology {

    private static final ClusterTopology EMPTY = new ClusterTopology(null, Map.of(), 0);

    private final String clusterId;
    private final Map<Integer, BrokerEndpoint> brokers;
    private final long version;
    /** Node ids ascending, and each one's rack (null: none): rack lookups on the hot path box nothing. */
    private final int[] ids;
    private final String[] racks;

    private ClusterTopology(String clusterId, Map<Integer, BrokerEndpoint> brokers, long version) {
        this.clusterId = clusterId;
        this.brokers = brokers;
        this.version = version;
        this.ids = new int[brokers.size()];
        this.racks = new String[brokers.size()];
        int i = 0;
        for (BrokerEndpoint b : brokers.values()) { // a TreeMap's values: ascending ids
            ids[i] = b.nodeId();
            racks[i++] = b.rack();
        }
    }

    public static ClusterTopology empty() {
        return EMPTY;
    }

    /** A new snapshot replacing this one's brokers; its version is one higher. */
    public ClusterTopology withBrokers(String clusterId, Collection<BrokerEndpoint> brokers) {
        Map<Integer, BrokerEndpoint> byId = new TreeMap<>();
        for (BrokerEndpoint b : brokers) {
            byId.put(b.nodeId(), b);
        }
        return new ClusterTopology(clusterId, Collections.unmodifiableMap(byId), version + 1);
    }

    /** The broker with this node id, or null when this snapshot does not know it. */
    public BrokerEndpoint broker(int nodeId) {
        return brokers.get(nodeId);
    }

    /**
     * The rack ({@code broker.rack}) of broker {@code nodeId}, or null when it has none or this snapshot
     * does not know it. Allocation-free (rack-aware fetch asks it per partition).
     */
    public String rack(int nodeId) {
        int i = java.util.Arrays.binarySearch(ids, nodeId);
        return i >= 0 ? racks[i] : null;
    }

    /** Whether broker {@code nodeId} is known and in {@code rack}. */
    public boolean inRack(int nodeId, String rack) {
        return rack != null && rack.equals(rack(nodeId));
    }

    public Collection<BrokerEndpoint> brokers() {
        return brokers.values();
    }

    public boolean isEmpty() {
        return brokers.isEmpty();
    }

    /** The cluster id the brokers reported, or null when not yet known. */
    public String clusterId() {
        return clusterId;
    }

    /** Grows by one with every snapshot derived from this one: lets readers tell snapshots apart. */
    public long version() {
        return version;
    }

    /** True when {@code other} lists exactly the same brokers at the same addresses and racks. */
    public boolean sameBrokersAs(Collection<BrokerEndpoint> other) {
        if (other.size() != brokers.size()) {
            return false;
        }
        for (BrokerEndpoint b : other) {
            if (!b.equals(brokers.get(b.nodeId()))) {
                return false;
            }
        }
        return true;
    }

    @Override
    public String toString() {
        return "ClusterTopology{clusterId=" + clusterId + ", version=" + version + ", brokers=" + brokers.values() + "}";
    }
}
