package dev.weft.proxy.gateway;

import dev.weft.proxy.config.WeftConfig.SniNames;
import dev.weft.proxy.session.SessionSettings;
import dev.weft.proxy.session.SessionTarget;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.SniCompletionEvent;
import java.util.function.IntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Waits for the TLS server name of a new connection, then puts the client session for that name in
 * its own place in the pipeline: the bootstrap for {@code bootstrapHost} (or no name at all, as when a
 * client connects by IP address), a virtual broker for a broker host name. Unknown names are refused.
 */
final class SniRouter extends ChannelInboundHandlerAdapter {

    private static final Logger LOG = LoggerFactory.getLogger(SniRouter.class);

    private final SniNames names;
    private final SessionSettings sessions;
    private final SessionTarget bootstrapTarget;
    private final IntFunction<SessionTarget> brokerTarget;
    private final String gateway;

    SniRouter(SniNames names, SessionSettings sessions, SessionTarget bootstrapTarget,
            IntFunction<SessionTarget> brokerTarget, String gateway) {
        this.names = names;
        this.sessions = sessions;
        this.bootstrapTarget = bootstrapTarget;
        this.brokerTarget = brokerTarget;
        this.gateway = gateway;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        ctx.read(); // reads are off until a session takes over: fetch the ClientHello
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (!(evt instanceof SniCompletionEvent sni)) {
            ctx.fireUserEventTriggered(evt);
            return;
        }
        if (!sni.isSuccess()) {
            LOG.warn("{} ({}): TLS ClientHello could not be read: {}; closing", ctx.channel().remoteAddress(), gateway,
                    sni.cause() == null ? "?" : sni.cause().getMessage());
            ctx.close();
            return;
        }
        String host = sni.hostname();
        SessionTarget target = null;
        if (host == null || host.equalsIgnoreCase(names.bootstrapHost())) {
            target = bootstrapTarget;
        } else {
            int nodeId = names.nodeIdOf(host);
            if (nodeId >= 0) {
                target = brokerTarget.apply(nodeId);
            }
        }
        if (target == null) {
            LOG.warn("{} ({}): asked for server name '{}', which is neither {} nor {}; closing",
                    ctx.channel().remoteAddress(), gateway, host, names.bootstrapHost(),
                    names.brokerHostPrefix() + SniNames.NODE_ID_PLACEHOLDER + names.brokerHostSuffix());
            ctx.close();
            return;
        }
        GatewayListeners.addSession(ctx.pipeline(), sessions, target);
        ctx.fireChannelActive(); // the session starts as if the connection had just opened
        ctx.pipeline().remove(this);
    }
}
