package dev.weft.proxy.security;

import io.netty.channel.Channel;
import io.netty.util.AttributeKey;

/**
 * Who a client connection authenticated as at a terminating gateway ({@code User:alice}, Kafka's form),
 * kept on the channel for what routes or audits by principal: set by SASL termination, or from a client
 * certificate ({@link TlsClientPrincipal}, mechanism {@code SSL}; a later SASL login replaces it). Absent
 * on connections that do not authenticate at the proxy.
 */
public record ClientPrincipal(String user, String mechanism) {

    static final AttributeKey<ClientPrincipal> KEY = AttributeKey.valueOf("weft.client.principal");

    /**
     * Fired down the pipeline when a connection's principal is set (a SASL login, a client certificate),
     * not on a re-authentication, which keeps it: the session's broker links may log in as it
     * ({@code clusters.NAME.principals}).
     */
    public record Established(ClientPrincipal principal) {}

    /** Sets the connection's principal and tells the handlers after {@code ctx} ({@link Established}). */
    static void establish(io.netty.channel.ChannelHandlerContext ctx, ClientPrincipal principal) {
        ctx.channel().attr(KEY).set(principal);
        ctx.fireUserEventTriggered(new Established(principal));
    }

    /** The connection's principal, or null. */
    public static ClientPrincipal of(Channel channel) {
        return channel.attr(KEY).get();
    }

    @Override
    public String toString() {
        return "User:" + user;
    }
}
