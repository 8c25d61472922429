package dev.weft.proxy.upstream;

import dev.weft.protocol.ApiKeyTable;
import dev.weft.routing.topology.TopologyHolder;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Requests a virtual cluster sent to each upstream broker, by API: how a split shows (one client
 * Produce, three sub-requests to three brokers); and the Fetch answer bytes each broker sent, by zone
 * (what rack-aware fetch keeps in the proxy's zone). A link takes its broker's counters once, when it
 * is opened; counting is then one {@link LongAdder} increment, no lookup. Read by the exporter.
 */
public final class UpstreamRequestCounters {

    /** The broker label of a link opened to "any broker" of a cluster (bootstrap, cold-path requests). */
    public static final String ANY_BROKER = "any";

    private final String virtualCluster;
    private final List<String> clusterOfRoute;
    private final Map<String, Map<String, BrokerCounters>> byClusterAndBroker = new ConcurrentHashMap<>();
    private final LongAdder fetchBytesDiscarded = new LongAdder();
    private final String zone;
    private final Map<String, TopologyHolder> topologyOfCluster;

    /** @param clusterOfRoute the name of the cluster behind each route, in route order */
    public UpstreamRequestCounters(String virtualCluster, List<String> clusterOfRoute) {
        this(virtualCluster, clusterOfRoute, null, Map.of());
    }

    /**
     * @param zone the proxy's zone for this virtual cluster (rack-aware fetch), or null
     * @param topologyOfCluster each cluster's topology (by name), where brokers' racks are read
     */
    public UpstreamRequestCounters(String virtualCluster, List<String> clusterOfRoute, String zone,
            Map<String, TopologyHolder> topologyOfCluster) {
        this.virtualCluster = virtualCluster;
        this.clusterOfRoute = List.copyOf(clusterOfRoute);
        this.zone = zone;
        this.topologyOfCluster = Map.copyOf(topologyOfCluster);
    }

    public String virtualCluster() {
        return virtualCluster;
    }

    /** One broker's counters: requests by API key, and Fetch answer bytes. */
    static final class BrokerCounters {
        final LongAdder[] requestsByApi = new LongAdder[ApiKeyTable.size()];
        final LongAdder fetchBytes = new LongAdder();
        /** The broker's rack once known: kept, so a broker missing from the topology for a while keeps its series. */
        volatile String rack;

        BrokerCounters() {
            for (int i = 0; i < requestsByApi.length; i++) {
                requestsByApi[i] = new LongAdder();
            }
        }
    }

    /** The counters of broker {@code broker} (a real id, or {@link #ANY_BROKER}) behind {@code route}. */
    BrokerCounters forBroker(int route, String broker) {
        return byClusterAndBroker.computeIfAbsent(clusterOfRoute.get(route), c -> new ConcurrentHashMap<>())
                .computeIfAbsent(broker, b -> new BrokerCounters());
    }

    /**
     * Record bytes of a split Fetch's part that answered after the client had been answered (the client
     * fetches them again; see {@code proxy.exchange.SplitAnswer}).
     */
    public void fetchBytesDiscarded(long bytes) {
        fetchBytesDiscarded.add(bytes);
    }

    public long fetchBytesDiscarded() {
        return fetchBytesDiscarded.sum();
    }

    /** Calls {@code out} for every (cluster, broker, API) that has requests. */
    public void forEach(Visitor out) {
        byClusterAndBroker.forEach((cluster, brokers) -> brokers.forEach((broker, counters) -> {
            LongAdder[] counts = counters.requestsByApi;
            for (short k = 0; k < counts.length; k++) {
                long n = counts[k].sum();
                if (n > 0) {
                    out.count(cluster, broker, ApiKeyTable.name(k), n);
                }
            }
        }));
    }

    @FunctionalInterface
    public interface Visitor {
        void count(String cluster, String broker, String api, long requests);
    }

    /**
     * Calls {@code out} for every broker that sent Fetch answers: its rack (null: none or not known) and
     * zone, {@code "in"} (its rack is the proxy's zone), {@code "cross"} (another rack) or
     * {@code "unknown"} (no zone configured, or the broker's rack is not known).
     */
    public void forEachFetchBytes(FetchBytesVisitor out) {
        byClusterAndBroker.forEach((cluster, brokers) -> brokers.forEach((broker, counters) -> {
            long bytes = counters.fetchBytes.sum();
            if (bytes == 0) {
                return;
            }
            String rack = counters.rack;
            if (rack == null) {
                rack = rackOf(cluster, broker);
                counters.rack = rack;
            }
            String where = zone == null || rack == null ? "unknown" : zone.equals(rack) ? "in" : "cross";
            out.bytes(cluster, broker, rack, where, bytes);
        }));
    }

    private String rackOf(String cluster, String broker) {
        TopologyHolder topology = topologyOfCluster.get(cluster);
        if (topology == null || broker.equals(ANY_BROKER)) {
            return null;
        }
        return topology.current().rack(Integer.parseInt(broker));
    }

    @FunctionalInterface
    public interface FetchBytesVisitor {
        void bytes(String cluster, String broker, String rack, String zone, long bytes);
    }
}
