package dev.weft.proxy.upstream;

import dev.weft.proxy.config.WeftConfig;
import io.netty.channel.EventLoop;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import org.agrona.collections.Long2ObjectHashMap;

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
public final class UpstreamLinks implements UpstreamLink.Owner {

    /**
     * The client connection whose links these are (its session), on whose event loop they run. It logs
     * what happens to them: one logger for client and upstream connection life.
     */
    public interface Client {
        /** The client connection's event loop: links connect on it. */
        EventLoop eventLoop();

        boolean isClosed();

        /** The cluster behind {@code route}. */
        UpstreamCluster cluster(int route);

        /**
         * Whether the client's own SaslHandshake and SaslAuthenticate go to the broker over the bound link
         * ({@link UpstreamLinks#bound()}: a router that forwards them, on a virtual cluster that does not
         * terminate SASL itself): that link then does not authenticate itself; every other link to a
         * cluster with {@code sasl} credentials does ({@link UpstreamSaslHandshake}).
         */
        boolean forwardsClientSasl();

        /**
         * The user the client authenticated as at the proxy (SASL termination or a client certificate),
         * or null: the links of a principal with its own credentials for a cluster
         * ({@code clusters.NAME.principals}) log in with those.
         */
        String principalUser();

        /**
         * A link ended while the client connection is open (failed, or closed by its broker).
         *
         * @param bound whether it was the link the connection is bound to ({@link UpstreamLinks#bound()}):
         *     the client connection closes; otherwise its broker's partitions are answered retriably a while
         */
        void onLinkEnded(UpstreamLink link, boolean bound);

        /** A link for part of the requests failed, the first time in an outage: it backs off (for the log). */
        void onLinkBackingOff(UpstreamLink link);

        /** A link became writable or not, or a backed-up one closed: {@link UpstreamLinks#allWritable()} may differ. */
        void onLinkWritabilityChanged();

        /** A link's batch of reads is done: answers it completed can be flushed to the client. */
        void onLinkReadComplete();
    }

    private static final int ANY = -1;
    /** After a link failed, requests for its broker fail at once for this long before it is tried again. */
    private static final long RETRY_FIRST_NANOS = java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(100);
    private static final long RETRY_MAX_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(2);
    /** Per failed (route, broker): when it may be tried again, and the current backoff. */
    private final Long2ObjectHashMap<long[]> retry = new Long2ObjectHashMap<>();

    private final Client client;
    private final LinkSettings settings;
    private final UpstreamRequestCounters requests;
    private final int ownRoute;
    /**
     * Every link by {@link #key}: primitive keys and a reused iterator, because it is looked up per split
     * part and walked per flush and per backpressure change on the forward path (a {@code HashMap<Long, _>}
     * boxed the key and allocated an iterator each time).
     */
    private final Long2ObjectHashMap<UpstreamLink> byKey = new Long2ObjectHashMap<>();
    private UpstreamLink own;
    private int ownNodeId;
    /** A bootstrap connection's forwarding link (to any broker of the first route), opened when first needed. */
    private UpstreamLink boundAny;
    /** Links that said they are not writable and have not said otherwise since (reads pause while any is). */
    private int unwritable;
    /** Whether the client's SASL passes through the bound link (null: not asked yet). */

    /**
     * @param requests where the links count their requests
     * @param ownRoute the route of the connection's own broker, or -1 (a bootstrap connection)
     */
    public UpstreamLinks(Client client, LinkSettings settings, UpstreamRequestCounters requests, int ownRoute) {
        this.client = client;
        this.settings = settings;
        this.requests = requests;
        this.ownRoute = ownRoute;
    }

    /** Key bit of a side link (branch copies), apart from the same broker's link for client requests. */
    private static final long SIDE = 1L << 62;
    /** How long a closed session's side links wait for their copies' answers (a broker's request timeout is 30 s). */
    private static final long SIDE_ANSWER_WAIT_MILLIS = 35_000;

    private static long key(int route, int nodeId) {
        return ((long) route << 32) | (nodeId & 0xffffffffL);
    }

    /** Opens the link to the connection's own broker, real broker {@code realNodeId} of its own route. */
    public void openOwn(int realNodeId) {
        ownNodeId = realNodeId;
        own = open(ownRoute, realNodeId, false, true);
    }

    /** The link to the connection's own broker, or null on a bootstrap connection. */
    public UpstreamLink own() {
        return own;
    }

    /**
     * The link the connection is bound to: its own broker's, or for a bootstrap connection one broker of
     * the first route (every forwarded request of the connection goes over it, in order, so SASL passes
     * through). Its failure closes the client connection.
     */
    public UpstreamLink bound() {
        if (own != null) {
            return own;
        }
        if (boundAny == null || boundAny.isClosed()) {
            boundAny = openLink(0, ANY, "cluster '" + client.cluster(0).name() + "' (bootstrap)", true);
        }
        return boundAny;
    }

    /** The route of {@link #bound()}. */
    public int boundRoute() {
        return own != null ? ownRoute : 0;
    }

    /** True when no link the session waits on is backed up. */
    public boolean allWritable() {
        return unwritable == 0;
    }

    /** A link to any broker of {@code route}. */
    public UpstreamLink any(int route) {
        return link(route, ANY);
    }

    /** A link to real broker {@code nodeId} of {@code route} (the own link when that is the one). */
    public UpstreamLink broker(int route, int nodeId) {
        if (own != null && route == ownRoute && nodeId == ownNodeId) {
            return own;
        }
        return link(route, nodeId);
    }

    /**
     * A link for branch copies to real broker {@code nodeId} of {@code route}: its own connection, apart
     * from the links the client's requests use, and never waited on — a backed-up side link does not
     * pause the client's reads (the sender drops copies instead), and its failure fails only the copies.
     */
    public UpstreamLink side(int route, int nodeId) {
        return link(route, nodeId, true);
    }

    private UpstreamLink link(int route, int nodeId) {
        return link(route, nodeId, false);
    }

    private UpstreamLink link(int route, int nodeId, boolean side) {
        long k = key(route, nodeId) | (side ? SIDE : 0);
        UpstreamLink l = byKey.get(k);
        if (l == null || l.isClosed()) {
            long[] backoff = retry.get(k);
            if (l != null && backoff != null && backoff[0] - System.nanoTime() > 0) {
                return l; // failed a moment ago: what is sent fails at once (retriable), no connect storm
            }
            l = open(route, nodeId, side, false);
        }
        return l;
    }

    /** @param bound whether it is the link the connection is bound to ({@link #bound()}) */
    private UpstreamLink open(int route, int nodeId, boolean side, boolean bound) {
        UpstreamCluster cluster = client.cluster(route);
        UpstreamLink link = openLink(route, nodeId, "cluster '" + cluster.name() + "' "
                + (nodeId == ANY ? "(any broker)" : "broker " + nodeId) + (side ? " (branch copies)" : ""), bound);
        link.side = side;
        byKey.put(key(route, nodeId) | (side ? SIDE : 0), link);
        return link;
    }

    private UpstreamLink openLink(int route, int nodeId, String name, boolean bound) {
        UpstreamCluster cluster = client.cluster(route);
        UpstreamLink link = new UpstreamLink(route, name, this, requests
                .forBroker(route, nodeId == ANY ? UpstreamRequestCounters.ANY_BROKER : Integer.toString(nodeId)));
        // the proxy's own connections authenticate with the cluster's credentials; a bound link of a
        // router that forwards SASL carries the client's own SaslHandshake/SaslAuthenticate instead
        UpstreamCluster.Identity identity = cluster.identityFor(client.principalUser());
        link.identity = identity;
        WeftConfig.SaslCredentials sasl = bound && client.forwardsClientSasl() ? null : identity.sasl();
        if (nodeId == ANY) {
            connect(link, cluster, cluster.anyBroker(), identity.tls(), sasl);
        } else {
            cluster.resolveBroker(nodeId, (address, error) -> client.eventLoop().execute(() -> {
                if (error != null) {
                    link.failUnresolved(error.getMessage());
                } else {
                    connect(link, cluster, address, identity.tls(), sasl);
                }
            }));
        }
        return link;
    }

    private void connect(UpstreamLink link, UpstreamCluster cluster, InetSocketAddress address, io.netty.handler.ssl.SslContext tls,
            WeftConfig.SaslCredentials sasl) {
        if (link.isClosed() && !link.draining()) {
            return; // the session closed and nothing is left to send
        }
        link.connect(settings, client.eventLoop(), address, tls, sasl, cluster.saslWarnings());
    }

    /** Flushes every link (after a batch of sends). */
    public void flushAll() {
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

    /** Pauses or resumes reading every link (while the client does not read its answers). */
    public void setAutoRead(boolean read) {
        for (UpstreamLink l : byKey.values()) {
            l.setAutoRead(read);
        }
        if (boundAny != null) {
            boundAny.setAutoRead(read);
        }
    }

    /** The client connection closed: what was handed to the links still goes out, then they close. */
    public void closeAll() {
        for (UpstreamLink l : new ArrayList<>(byKey.values())) {
            if (l.side) {
                l.closeAfterAnswers(client.eventLoop(), SIDE_ANSWER_WAIT_MILLIS);
            } else {
                l.closeAfterWrites();
            }
        }
        byKey.clear();
        if (boundAny != null) {
            boundAny.closeAfterWrites();
        }
    }

    /**
     * The client has authenticated at the proxy ({@link Client#principalUser()}). Links opened before —
     * the own broker's at connect, the bootstrap link that carried ApiVersions — logged in as the proxy:
     * where the principal has credentials of its own for their cluster, each is replaced by a link that
     * logs in with those (opened now for the own broker, on first use for the others), and ends once what
     * it still waits for is answered. Nothing else is in flight during a SASL exchange.
     */
    public void principalKnown() {
        String user = client.principalUser();
        if (own != null && needsOtherCredentials(own, user)) {
            retire(own);
            byKey.values().removeIf(l -> l == own);
            openOwn(ownNodeId);
        }
        if (boundAny != null && needsOtherCredentials(boundAny, user)) {
            retire(boundAny);
            boundAny = null;
        }
        for (Long2ObjectHashMap<UpstreamLink>.EntryIterator it = byKey.entrySet().iterator(); it.hasNext(); ) {
            UpstreamLink l = it.next().getValue();
            if (l != own && needsOtherCredentials(l, user)) {
                retire(l);
                it.remove();
            }
        }
    }

    private boolean needsOtherCredentials(UpstreamLink link, String user) {
        if (link.isClosed() || ((link == own || link == boundAny) && client.forwardsClientSasl())) {
            return false; // its client's own SASL went over it: the broker knows the client already
        }
        return client.cluster(link.route()).identityFor(user) != link.identity;
    }

    private void retire(UpstreamLink link) {
        link.replaced = true;
        link.closeAfterAnswers(client.eventLoop(), SIDE_ANSWER_WAIT_MILLIS);
    }

    @Override
    public void onLinkClosed(UpstreamLink link) {
        if (link.replaced) {
            if (link.countedUnwritable) {
                link.countedUnwritable = false;
                unwritable--;
                client.onLinkWritabilityChanged();
            }
            return; // a link a principal's own replaced: not a failure
        }
        if (link != own && link != boundAny && !client.isClosed()) {
            backOff(link);
        } else {
            byKey.values().removeIf(l -> l == link);
        }
        if (link.countedUnwritable) {
            link.countedUnwritable = false;
            unwritable--;
        }
        if (client.isClosed()) {
            return; // closed by the session itself
        }
        client.onLinkEnded(link, link == own || link == boundAny);
    }

    /**
     * A link the session opened for a part of its requests failed (not its own: that closes the client):
     * it stays (closed) in the map for a backoff, during which what is sent to that broker fails at once
     * (retriable per partition, e.g. NOT_LEADER_OR_FOLLOWER), then the next request opens a new one. The
     * backoff doubles while connecting keeps failing; one log line per outage, not per attempt.
     */
    private void backOff(UpstreamLink link) {
        long k = Long.MIN_VALUE;
        for (Long2ObjectHashMap<UpstreamLink>.EntryIterator it = byKey.entrySet().iterator(); it.hasNext(); ) {
            it.next();
            if (it.getValue() == link) {
                k = it.getLongKey();
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
            client.onLinkBackingOff(link);
        }
    }

    @Override
    public void onLinkWritabilityChanged(UpstreamLink link, boolean writable) {
        if (link.side || writable == !link.countedUnwritable) {
            return;
        }
        link.countedUnwritable = !writable;
        unwritable += writable ? -1 : 1;
        client.onLinkWritabilityChanged();
    }

    @Override
    public void onLinkReadComplete() {
        client.onLinkReadComplete();
    }


}
