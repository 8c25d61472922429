package dev.weft.proxy.branch;

import dev.weft.proxy.upstream.UpstreamCluster;
import dev.weft.routing.Router;
import dev.weft.routing.branch.transform.TransformSpec;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A virtual cluster's branch writers: one per side route its router transforms or holds transactions
 * for ({@link Router#sideTransforms}), started with the virtual cluster and closed with it. Routes whose
 * copies go out as they are, on the event loops, have none.
 */
public final class BranchWriters implements AutoCloseable {

    /** Batches one event loop's lane holds before it drops: a few seconds of a busy partition's batches. */
    static final int LANE_BATCHES = 4096;
    /** Record bytes one event loop's lane holds before it drops. */
    static final long LANE_BYTES = 32L << 20;
    /** Record bytes of open transactions one writer holds ({@code transactional: hold}) before it drops one. */
    static final long HOLD_BYTES = 64L << 20;

    private static final Logger LOG = LoggerFactory.getLogger(BranchWriters.class);
    private static final BranchWriters NONE = new BranchWriters(new BranchWriter[0], List.of());

    private final BranchWriter[] byRoute;
    private final List<String> routeNames;

    private BranchWriters(BranchWriter[] byRoute, List<String> routeNames) {
        this.byRoute = byRoute;
        this.routeNames = routeNames;
    }

    /** Starts the writers {@code router} asks for; {@code routes} are its routes' clusters, in route order. */
    public static BranchWriters start(String virtualCluster, Router router, List<UpstreamCluster> routes) {
        BranchWriter[] writers = new BranchWriter[routes.size()];
        List<String> names = new ArrayList<>();
        boolean any = false;
        try {
            int count = Math.min(routes.size(), router.routes().size());
            for (int r = 0; r < count; r++) {
                String routeName = router.routes().get(r).name();
                names.add(routeName);
                TransformSpec spec = router.sideTransforms(r);
                if (spec == null) {
                    continue;
                }
                String name = virtualCluster + "/" + router.name() + "/" + routeName;
                writers[r] = new BranchWriter(name, routes.get(r).clientConfig(), spec.newChain(replicaId()), spec.fixedTopic(),
                        LANE_BATCHES, LANE_BYTES, spec.holdsTransactions() ? HOLD_BYTES : 0, new BranchWriterCounters()).start();
                any = true;
                LOG.info("virtual cluster '{}': branch '{}' writes {} copies to cluster '{}'{}{}", virtualCluster, routeName,
                        writers[r].chain().isIdentity() ? "exact" : "transformed", routes.get(r).name(),
                        spec.fixedTopic() == null ? "" : ", topic '" + spec.fixedTopic() + "'",
                        spec.holdsTransactions() ? "; transactional records once their transaction committed" : "");
            }
        } catch (RuntimeException e) {
            new BranchWriters(writers, names).close();
            throw e;
        }
        return any ? new BranchWriters(writers, List.copyOf(names)) : NONE;
    }

    /** The writer of side route {@code route}, or null when its copies go out as they are. */
    public BranchWriter of(int route) {
        return route < byRoute.length ? byRoute[route] : null;
    }

    /**
     * A client's EndTxn was answered without error by the primary: the writers that hold transactional
     * batches write (commit) or drop (abort) that producer's. Any event loop.
     */
    public void transactionEnded(long producerId, boolean committed) {
        for (BranchWriter w : byRoute) {
            if (w != null) {
                w.transactionEnded(producerId, committed);
            }
        }
    }

    /** Every writer with its route's name, for the metrics. */
    public void forEach(BiConsumer<String, BranchWriter> out) {
        for (int r = 0; r < byRoute.length; r++) {
            if (byRoute[r] != null) {
                out.accept(routeNames.get(r), byRoute[r]);
            }
        }
    }

    /** Names this replica in the records a {@code count} transform derives: the host name. */
    private static String replicaId() {
        String host = System.getenv("HOSTNAME");
        if (host != null && !host.isBlank()) {
            return host;
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "unknown-host";
        }
    }

    @Override
    public void close() {
        for (BranchWriter w : byRoute) {
            if (w != null) {
                w.close();
            }
        }
    }
}
