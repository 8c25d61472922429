package dev.weft.proxy.upstream;

import dev.weft.protocol.ApiKeyTable;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Requests a virtual cluster sent to each upstream broker, by API: how a split shows (one client
 * Produce, three sub-requests to three brokers). A link takes its broker's counters once, when it is
 * opened; counting a request is then one {@link LongAdder} increment, no lookup. Read by the exporter.
 */
public final class UpstreamRequestCounters {

    /** The broker label of a link opened to "any broker" of a cluster (bootstrap, cold-path requests). */
    public static final String ANY_BROKER = "any";

    private final String virtualCluster;
    private final List<String> clusterOfRoute;
    private final Map<String, Map<String, LongAdder[]>> byClusterAndBroker = new ConcurrentHashMap<>();
    private final LongAdder fetchBytesDiscarded = new LongAdder();

    /** @param clusterOfRoute the name of the cluster behind each route, in route order */
    public UpstreamRequestCounters(String virtualCluster, List<String> clusterOfRoute) {
        this.virtualCluster = virtualCluster;
        this.clusterOfRoute = List.copyOf(clusterOfRoute);
    }

    public String virtualCluster() {
        return virtualCluster;
    }

    /** The counters (by API key) of requests to broker {@code broker} (a real id, or {@link #ANY_BROKER}) behind {@code route}. */
    LongAdder[] forBroker(int route, String broker) {
        return byClusterAndBroker.computeIfAbsent(clusterOfRoute.get(route), c -> new ConcurrentHashMap<>())
                .computeIfAbsent(broker, b -> {
                    LongAdder[] a = new LongAdder[ApiKeyTable.size()];
                    for (int i = 0; i < a.length; i++) {
                        a[i] = new LongAdder();
                    }
                    return a;
                });
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
        byClusterAndBroker.forEach((cluster, brokers) -> brokers.forEach((broker, counts) -> {
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
}
