package dev.weft.proxy.session;

import dev.weft.iocore.time.AtMostEvery;
import io.netty.channel.Channel;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How many client connections one IP address may hold on this proxy at once, over every gateway and
 * virtual cluster, as Kafka brokers bound it ({@code max.connections.per.ip} and its overrides):
 * {@code server.maxConnectionsPerIp}, {@code server.maxConnectionsPerIpOverrides}. A connection past
 * it is closed as it is accepted, before a byte is read; the client retries after its reconnect
 * backoff, as it would with a broker. One WARN line per address every 10 s at most says so.
 *
 * <p>Counted at accept and close, off the hot path; the counts are shared by every core (a client's
 * connections land on different cores), in one concurrent map. Without a limit nothing is counted.
 */
public final class ConnectionsPerIp {

    private static final Logger LOG = LoggerFactory.getLogger(ConnectionsPerIp.class);

    /** No limit: every connection is admitted and none is counted. */
    public static final ConnectionsPerIp UNLIMITED = new ConnectionsPerIp(Integer.MAX_VALUE, Map.of());

    private final int limit;
    private final Map<InetAddress, Integer> overrides;
    private final ConcurrentHashMap<InetAddress, Integer> open = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<InetAddress, AtMostEvery> warnings = new ConcurrentHashMap<>();

    /**
     * @param limit connections an address may hold ({@link Integer#MAX_VALUE}: no limit)
     * @param overrides per address, its own limit (0 refuses it)
     */
    public ConnectionsPerIp(int limit, Map<InetAddress, Integer> overrides) {
        this.limit = limit;
        this.overrides = Map.copyOf(overrides);
    }

    private boolean limits() {
        return limit != Integer.MAX_VALUE || !overrides.isEmpty();
    }

    /** The limit of {@code address}. */
    public int limitOf(InetAddress address) {
        return overrides.getOrDefault(address, limit);
    }

    /** Connections {@code address} holds now (0 when nothing is counted). */
    public int openFrom(InetAddress address) {
        return open.getOrDefault(address, 0);
    }

    /**
     * Counts a newly accepted client connection, or refuses it when its address already holds its
     * limit (logged here); a counted one is uncounted when it closes.
     *
     * @param where the gateway, for the log line ("gateway 'plain' of virtual cluster 'main'")
     * @return whether the connection may go on; if not, the caller closes it
     */
    public boolean admit(Channel client, String where) {
        if (!limits() || !(client.remoteAddress() instanceof InetSocketAddress peer)) {
            return true;
        }
        InetAddress address = peer.getAddress();
        int max = limitOf(address);
        boolean[] admitted = {false};
        open.compute(address, (a, n) -> {
            int now = n == null ? 0 : n;
            if (now >= max) {
                return n;
            }
            admitted[0] = true;
            return now + 1;
        });
        if (!admitted[0]) {
            AtMostEvery w = warnings.computeIfAbsent(address, a -> new AtMostEvery(Duration.ofSeconds(10)));
            if (w.tryPass()) {
                LOG.warn("{}: {} already holds {} client connection(s), its limit (server.maxConnectionsPerIp{}); closing the"
                        + " new one from port {} (said at most once per 10 s per address)", where, address.getHostAddress(), max,
                        overrides.containsKey(address) ? "Overrides" : "", peer.getPort());
            }
            return false;
        }
        client.closeFuture().addListener(f -> open.computeIfPresent(address, (a, n) -> {
            if (n > 1) {
                return n - 1;
            }
            warnings.remove(a); // an address that holds nothing keeps nothing here
            return null;
        }));
        return true;
    }
}
