package dev.weft.proxy.gateway;

import dev.weft.iocore.EventLoops;
import dev.weft.iocore.buffer.BufferPolicy;
import dev.weft.protocol.frame.KafkaFrameDecoder;
import dev.weft.proxy.config.StartupException;
import dev.weft.proxy.session.SessionMetrics;
import dev.weft.proxy.session.SessionSettings;
import dev.weft.proxy.session.SessionTarget;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.timeout.IdleStateHandler;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/** What every gateway does alike: bind a listening socket, and put a client session into a pipeline. */
final class GatewayListeners {

    private GatewayListeners() {
    }

    /**
     * Binds {@code address}; accepted channels start with reads off (a session reads once its upstream
     * is connected) and get {@code childHandler}, unless their IP address already holds its limit of
     * client connections ({@link SessionSettings#connectionsPerIp()}): then they are closed as accepted,
     * before a byte is read, and counted in {@code virtualCluster}'s errors.
     *
     * @param describe what the socket is for, in the error message ("bootstrap of gateway 'g' of virtual cluster 'v'")
     * @param configPath where the address comes from in the config
     */
    static Channel bind(EventLoops loops, BufferPolicy buffers, InetSocketAddress address, ChannelHandler childHandler,
            String describe, String configPath, SessionSettings sessions, String virtualCluster) {
        ChannelHandler admitted = new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                if (sessions.connectionsPerIp().admit(ch, describe)) {
                    ch.pipeline().addLast(childHandler);
                } else {
                    sessions.metrics().metricsFor(virtualCluster, ch.eventLoop())
                            .connectionError(SessionMetrics.SessionError.CONNECTIONS_PER_IP, (short) -1);
                    ch.close();
                }
            }
        };
        ChannelFuture bound = loops.serverBootstrap(buffers)
                // A restarted proxy must get its ports back while old connections sit in TIME_WAIT.
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.AUTO_READ, false)
                .childHandler(admitted)
                .bind(address)
                .awaitUninterruptibly();
        if (!bound.isSuccess()) {
            throw new GatewayBindException(StartupException.bindProblem(configPath, address, describe, bound.cause()),
                    bound.cause());
        }
        return bound.channel();
    }

    /**
     * Appends the handlers of a Kafka client session: the idle timer, framing (which also bounds the time
     * and memory of incomplete frames, with the budget of the channel's own core), SASL termination when
     * the virtual cluster authenticates its clients, the session.
     */
    static void addSession(ChannelPipeline pipeline, SessionSettings sessions, SessionTarget target) {
        long checkMillis = Math.min(sessions.partialFrameTimeoutMillis(), sessions.idleTimeoutMillis());
        pipeline.addLast(
                new IdleStateHandler(checkMillis, 0, 0, TimeUnit.MILLISECONDS),
                new KafkaFrameDecoder(sessions.maxFrameBytes(), "client", true,
                        sessions.partialFrames().limitsFor(pipeline.channel().eventLoop())));
        ChannelHandler authenticator = target.newAuthenticator();
        if (authenticator != null) {
            pipeline.addLast(authenticator);
        }
        pipeline.addLast(target.newSession(sessions));
    }
}
