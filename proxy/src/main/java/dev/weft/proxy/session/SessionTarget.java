package dev.weft.proxy.session;

import io.netty.channel.ChannelHandler;

/**
 * What a gateway's listening socket serves: the bootstrap connections or the connections for one
 * virtual node of one virtual cluster. Each accepted connection gets its own {@link Session}.
 */
public interface SessionTarget {

    /** The name of the virtual cluster this target belongs to (metrics are per virtual cluster). */
    String virtualCluster();

    /** For log lines: "bootstrap of 'main'" or "node 2 of 'main'". */
    String describe();

    /** The handler serving one accepted client connection. */
    ChannelHandler newSession(SessionSettings settings);

    /**
     * The handler that authenticates one accepted connection before its session sees anything but
     * ApiVersions (SASL termination), or null when the virtual cluster does not authenticate clients.
     */
    default ChannelHandler newAuthenticator() {
        return null;
    }
}
