package dev.weft.proxy.session;

import dev.weft.proxy.upstream.UpstreamCluster;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;

/**
 * The upstream connections of one woven session: its own broker's (if it is a broker connection),
 * one to "any broker" per route (Metadata, admin requests), and one per other real broker it had to
 * reach (coordinators). Opened on first use, on the session's event loop; a broken one is dropped
 * and opened again by the next request that needs it.
 */
final class UpstreamLinks implements UpstreamLink.Owner {

    private static final int ANY = -1;

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
        if (session.isClosed()) {
            link.close();
            return;
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
            l.close();
        }
        byKey.clear();
        if (boundAny != null) {
            boundAny.close();
        }
    }

    @Override
    public void onLinkClosed(UpstreamLink link) {
        byKey.values().remove(link);
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
