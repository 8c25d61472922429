package dev.weft.proxy.session;

import io.netty.channel.ChannelHandler;
import io.netty.handler.ssl.SslContext;
import java.net.InetSocketAddress;
import java.util.function.BiConsumer;

/**
 * Where a client connection's upstream connection goes: for a bootstrap port any broker of the
 * cluster, for a broker port the real broker behind that virtual node. Also supplies the response
 * rewriters of the gateway the client came in through.
 */
public interface SessionTarget {

    /**
     * Finds the upstream broker address, possibly after a topology refresh; calls back exactly once,
     * on any thread, with the address or with an error naming why there is none.
     */
    void resolve(BiConsumer<InetSocketAddress, Throwable> callback);

    /** The name of the virtual cluster this target belongs to (metrics are per virtual cluster). */
    String virtualCluster();

    /** For log lines: "bootstrap of virtual cluster 'main'" or "node 2 of virtual cluster 'main'". */
    String describe();

    /** The rewriter for responses of this API key, or null to forward them opaquely. */
    ResponseRewriter rewriterFor(short apiKey);

    /** TLS for the upstream connection, or null for plaintext. */
    SslContext upstreamTls();

    /** Tells the topology that a connection to this address failed, so it can be refreshed. */
    void reportUnreachable(InetSocketAddress address, Throwable cause);

    /** The handler serving one accepted client connection: a {@link ClientSession} unless the target says otherwise. */
    default ChannelHandler newSession(SessionSettings settings) {
        return new ClientSession(this, settings);
    }
}
