package dev.weft.proxy.session;

import dev.weft.proxy.upstream.UpstreamCluster;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;

/**
 * The upstream connections of one session: its own broker's (a broker port's, or for a bootstrap
 * connection of a forwarding router one broker of the first route), one to "any broker" per route
 * (Metadata, admin requests), and one per other real broker it reaches (split parts in the collapsed
 * topology, coordinators). Opened on first use, on the session's event loop; a broken one is tried
 * again after a backoff.
 *
 * <p>Per session, not shared by the sessions of a core (DESIGN §3 sketches per-core connections):
 * a Kafka broker processes the requests of one connection one at a time, in order, so a shared
 * connection would put every client's Produce behind another client's long-polling Fetch or a
 * JoinGroup waiting for its rebalance. One connection per client and broker keeps clients independent,
 * as they are when they connect to the brokers directly.
 */
final class UpstreamLinks implements UpstreamLink.Owner {

    private static final int ANY = -1;
    /** Connection events go to the sessions' logger (one logger for client and upstream connection life). */
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(Session.class);
    /** After a link failed, requests for its broker fail at once for this long before it is tried again. */
    private static final long RETRY_FIRST_NANOS = java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(100);
    private static final long RETRY_MAX_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(2);
    /** Per failed (route, broker): when it may be tried again, and the current backoff. */
    private final Map<Long, long[]> retry = new HashMap<>();

    private final Session session;
    private final Map<Long, UpstreamLink> byKey = new HashMap<>();
    private UpstreamLink own;
    /** A bootstrap connection's forwarding link (to any broker of the first route), opened when first needed. */
    private UpstreamLink boundAny;
    /** Links that said they are not writable and have not said otherwise since (reads pause while any is). */
    private int unwritable;

    UpstreamLinks(Session session) {
        this.session = session;
    }

    private static long key(int route, int nodeId) {
        return ((long) route << 32) | (nodeId & 0xffffffffL);
    }

    void openOwn(int realNodeId) {
        own = open(session.ownRoute, realNodeId);
    }

    UpstreamLink own() {
        return own;
    }

    /**
     * The link the connection is bound to: its own broker's, or for a bootstrap connection one broker of
     * the first route (every forwarded request of the connection goes over it, in order, so SASL passes
     * through). Its failure closes the client connection.
     */
    UpstreamLink bound() {
        if (own != null) {
            return own;
        }
        if (boundAny == null || boundAny.isClosed()) {
            boundAny = openLink(0, ANY, "cluster '" + session.runtime.cluster(0).name() + "' (bootstrap)");
        }
        return boundAny;
    }

    /** The route of {@link #bound()}. */
    int boundRoute() {
        return own != null ? session.ownRoute : 0;
    }

    /** True when no link the session waits on is backed up. */
    boolean allWritable() {
        return unwritable == 0;
    }

    /** A link to any broker of {@code route}. */
    UpstreamLink any(int route) {
        return link(route, ANY);
    }

    /** A link to real broker {@code nodeId} of {@code route} (the own link when that is the one). */
    UpstreamLink broker(int route, int nodeId) {
        if (own != null && route == session.ownRoute && nodeId == session.runtime.bijection().realNodeId(session.virtualNodeId)) {
            return own;
        }
        return link(route, nodeId);
    }

    private UpstreamLink link(int route, int nodeId) {
        UpstreamLink l = byKey.get(key(route, nodeId));
        if (l == null || l.isClosed()) {
            long[] backoff = retry.get(key(route, nodeId));
            if (l != null && backoff != null && backoff[0] - System.nanoTime() > 0) {
                return l; // failed a moment ago: what is sent fails at once (retriable), no connect storm
            }
            l = open(route, nodeId);
        }
        return l;
    }

    private UpstreamLink open(int route, int nodeId) {
        UpstreamCluster cluster = session.runtime.cluster(route);
        UpstreamLink link = openLink(route, nodeId,
                "cluster '" + cluster.name() + "' " + (nodeId == ANY ? "(any broker)" : "broker " + nodeId));
        byKey.put(key(route, nodeId), link);
        return link;
    }

    private UpstreamLink openLink(int route, int nodeId, String name) {
        UpstreamCluster cluster = session.runtime.cluster(route);
        UpstreamLink link = new UpstreamLink(route, name, this, session.runtime.upstreamRequests()
                .forBroker(route, nodeId == ANY ? UpstreamRequestCounters.ANY_BROKER : Integer.toString(nodeId)));
        if (nodeId == ANY) {
            connect(link, cluster, cluster.anyBroker());
        } else {
            cluster.resolveBroker(nodeId, (address, error) -> session.client.eventLoop().execute(() -> {
                if (error != null) {
                    link.failUnresolved(error.getMessage());
                } else {
                    connect(link, cluster, address);
                }
            }));
        }
        return link;
    }

    private void connect(UpstreamLink link, UpstreamCluster cluster, InetSocketAddress address) {
        if (link.isClosed() && !link.draining()) {
            return; // the session closed and nothing is left to send
        }
        link.connect(session.settings, session.client.eventLoop(), address, cluster.tls());
    }

    void flushAll() {
        if (own != null) {
            own.flush();
        }
        if (boundAny != null) {
            boundAny.flush();
        }
        for (UpstreamLink l : byKey.values()) {
            if (l != own) {
                l.flush();
            }
        }
    }

    void setAutoRead(boolean read) {
        for (UpstreamLink l : byKey.values()) {
            l.setAutoRead(read);
        }
        if (boundAny != null) {
            boundAny.setAutoRead(read);
        }
    }

    void closeAll() {
        for (UpstreamLink l : new ArrayList<>(byKey.values())) {
            l.closeAfterWrites();
        }
        byKey.clear();
        if (boundAny != null) {
            boundAny.closeAfterWrites();
        }
    }

    @Override
    public void onLinkClosed(UpstreamLink link) {
        if (link != own && link != boundAny && !session.isClosed()) {
            backOff(link);
        } else {
            byKey.values().remove(link);
        }
        if (link.countedUnwritable) {
            link.countedUnwritable = false;
            unwritable--;
        }
        if (session.isClosed()) {
            return; // closed by the session itself
        }
        session.runtime.reportTrouble(link.route(), link.name(), link.closeReason());
        if (link == own || link == boundAny) {
            session.onOwnLinkEnded(link);
        } else {
            session.onLinkWritabilityChanged();
        }
    }

    /**
     * A link the session opened for a part of its requests failed (not its own: that closes the client):
     * it stays (closed) in the map for a backoff, during which what is sent to that broker fails at once
     * (retriable per partition, e.g. NOT_LEADER_OR_FOLLOWER), then the next request opens a new one. The
     * backoff doubles while connecting keeps failing; one log line per outage, not per attempt.
     */
    private void backOff(UpstreamLink link) {
        long k = Long.MIN_VALUE;
        for (Map.Entry<Long, UpstreamLink> e : byKey.entrySet()) {
            if (e.getValue() == link) {
                k = e.getKey();
            }
        }
        if (k == Long.MIN_VALUE) {
            return;
        }
        long[] backoff = retry.get(k);
        boolean firstFailure = backoff == null || link.everConnected();
        if (backoff == null) {
            backoff = new long[2];
            retry.put(k, backoff);
        }
        backoff[1] = firstFailure ? RETRY_FIRST_NANOS : Math.min(RETRY_MAX_NANOS, backoff[1] * 2);
        backoff[0] = System.nanoTime() + backoff[1];
        if (firstFailure) {
            LOG.info("{}: {}; its partitions are answered with retriable errors until it is back",
                    session.describe(), link.endedBecause());
        }
    }

    @Override
    public void onLinkWritabilityChanged(UpstreamLink link, boolean writable) {
        if (writable == !link.countedUnwritable) {
            return;
        }
        link.countedUnwritable = !writable;
        unwritable += writable ? -1 : 1;
        session.onLinkWritabilityChanged();
    }

    @Override
    public void onLinkReadComplete() {
        session.flushClient();
    }


}
