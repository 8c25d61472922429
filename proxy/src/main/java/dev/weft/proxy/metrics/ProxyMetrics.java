package dev.weft.proxy.metrics;

import dev.weft.iocore.EventLoops;
import dev.weft.iocore.metrics.CoreMetrics;
import dev.weft.iocore.metrics.MetricsExporter;
import dev.weft.iocore.metrics.MetricsSnapshot;
import dev.weft.proxy.session.SessionMetrics;
import dev.weft.proxy.session.SessionMetricsFactory;
import io.netty.channel.EventLoop;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToIntFunction;

/**
 * The proxy's traffic metrics: for every virtual cluster, one {@link CoreSessionMetrics} per event loop
 * (written only by that loop) and one io-core {@link MetricsExporter} that reads them all.
 *
 * <p>Everything is built up front, so {@link #metricsFor} (once per connection, on the connection's
 * loop) is a read-only map lookup and an array load on state that never changes after construction.
 * {@link #collect} is the single reader of the cores' interval histograms and runs on the exporter's
 * thread (the admin endpoint's); it is synchronized so that two scrapes never read them at once.
 */
public final class ProxyMetrics implements SessionMetricsFactory {

    private final SessionMetricsLayout layout;
    private final ToIntFunction<EventLoop> coreIndexOf;
    private final int coreCount;
    // Replaced whole (copy on write) when a config reload adds or removes a virtual cluster; sessions
    // read it once when they open.
    private volatile Map<String, PerVirtualCluster> byVirtualCluster;
    private volatile List<String> order;

    /**
     * @param virtualClusters the names of every virtual cluster sessions may report for
     * @param loops the proxy's event loops (one set of metrics per loop)
     */
    public ProxyMetrics(Collection<String> virtualClusters, EventLoops loops) {
        this(virtualClusters, loops.coreCount(), loops::coreIndexOf);
    }

    /**
     * @param coreCount how many event loops there are
     * @param coreIndexOf which core (0 .. coreCount-1) a loop is, or -1 when it is none of them
     */
    public ProxyMetrics(Collection<String> virtualClusters, int coreCount, ToIntFunction<EventLoop> coreIndexOf) {
        this.layout = new SessionMetricsLayout();
        this.coreIndexOf = coreIndexOf;
        this.coreCount = coreCount;
        Map<String, PerVirtualCluster> map = new LinkedHashMap<>();
        for (String vc : virtualClusters) {
            map.put(vc, new PerVirtualCluster(vc, layout, coreCount));
        }
        this.byVirtualCluster = Map.copyOf(map);
        this.order = List.copyOf(map.keySet());
    }

    /** What the metrics are laid out as, for the exporter's conversion. */
    public SessionMetricsLayout layout() {
        return layout;
    }

    /**
     * Metrics for the virtual clusters a config reload added (kept for those it still has) and none for
     * those it removed, in the new config's order.
     */
    public synchronized void reconfigure(java.util.Collection<String> virtualClusters) {
        Map<String, PerVirtualCluster> map = new LinkedHashMap<>();
        for (String vc : virtualClusters) {
            PerVirtualCluster kept = byVirtualCluster.get(vc);
            map.put(vc, kept != null ? kept : new PerVirtualCluster(vc, layout, coreCount));
        }
        this.order = List.copyOf(map.keySet());
        this.byVirtualCluster = Map.copyOf(map);
    }

    /** Virtual cluster names, in config order. */
    public List<String> virtualClusters() {
        return order;
    }

    @Override
    public SessionMetrics metricsFor(String virtualCluster, EventLoop loop) {
        PerVirtualCluster vc = byVirtualCluster.get(virtualCluster);
        if (vc == null) {
            throw new IllegalArgumentException("no metrics for virtual cluster '" + virtualCluster
                    + "' (known: " + order + ")");
        }
        int core = coreIndexOf.applyAsInt(loop);
        if (core < 0 || core >= vc.sessions.length) {
            throw new IllegalArgumentException("event loop " + loop + " is not one of the proxy's "
                    + vc.sessions.length + " cores");
        }
        return vc.sessions[core];
    }

    /**
     * Reads every core's metrics now. Exporter thread; synchronized because each core's interval
     * histograms must have a single reader.
     *
     * @return virtual cluster name → what its cores recorded, in config order
     */
    public synchronized Map<String, MetricsSnapshot> collect() {
        Map<String, MetricsSnapshot> out = new LinkedHashMap<>();
        Map<String, PerVirtualCluster> now = byVirtualCluster;
        for (String name : order) {
            PerVirtualCluster vc = now.get(name);
            if (vc != null) {
                out.put(name, vc.exporter.collect());
            }
        }
        return out;
    }

    private static final class PerVirtualCluster {
        final CoreSessionMetrics[] sessions;
        final MetricsExporter exporter;

        PerVirtualCluster(String name, SessionMetricsLayout layout, int coreCount) {
            if (coreCount < 1) {
                throw new IllegalArgumentException("virtual cluster '" + name + "': no cores to keep metrics for");
            }
            sessions = new CoreSessionMetrics[coreCount];
            List<CoreMetrics> cores = new ArrayList<>(coreCount);
            for (int i = 0; i < coreCount; i++) {
                CoreMetrics core = layout.layout().newCoreMetrics(i);
                cores.add(core);
                sessions[i] = new CoreSessionMetrics(layout, core);
            }
            exporter = new MetricsExporter(cores);
        }
    }
}
