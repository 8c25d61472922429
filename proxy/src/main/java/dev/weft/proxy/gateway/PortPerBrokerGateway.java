package dev.weft.proxy.gateway;

import dev.weft.iocore.EventLoops;
import dev.weft.iocore.buffer.BufferPolicy;
import dev.weft.protocol.frame.KafkaFrameDecoder;
import dev.weft.proxy.config.WeftConfig.GatewayConfig;
import dev.weft.proxy.session.ClientSession;
import dev.weft.proxy.session.SessionSettings;
import dev.weft.proxy.session.SessionTarget;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.timeout.IdleStateHandler;
import dev.weft.proxy.tls.TlsContexts;
import java.util.concurrent.TimeUnit;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A gateway that gives every virtual broker its own port: clients bootstrap on {@code bind}, and
 * Metadata tells them virtual node {@code n} is at {@code advertisedHost:brokerPort(n)}. All ports are
 * bound at start, so a client never races a bind after reading Metadata.
 */
public final class PortPerBrokerGateway implements BrokerAddressBook, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(PortPerBrokerGateway.class);

    private final String virtualCluster;
    private final GatewayConfig config;
    private final String configPath;
    private final List<Channel> listeners = new ArrayList<>();
    private final SslContext tls;

    /**
     * @param virtualCluster the virtual cluster's name, for logs
     * @param config the gateway's settings
     * @param configPath where the gateway is in the config file, for error messages
     */
    public PortPerBrokerGateway(String virtualCluster, GatewayConfig config, String configPath) {
        this.virtualCluster = virtualCluster;
        this.config = config;
        this.configPath = configPath;
        this.tls = config.tls() == null ? null : TlsContexts.server(config.tls(), configPath + ".tls");
    }

    /**
     * Binds the bootstrap port and one port per node id in the range.
     *
     * @param bootstrapTarget where bootstrap connections go
     * @param brokerTarget where connections to virtual node {@code n} go
     * @throws GatewayBindException naming the address, the port's purpose and the config path
     */
    public void bind(EventLoops loops, BufferPolicy buffers, SessionSettings sessions,
            SessionTarget bootstrapTarget, IntFunction<SessionTarget> brokerTarget) {
        bindOne(loops, buffers, sessions, config.bind().port(), bootstrapTarget, "bootstrap", configPath + ".bind");
        for (int nodeId = config.nodeIds().first(); nodeId <= config.nodeIds().last(); nodeId++) {
            bindOne(loops, buffers, sessions, config.brokerPort(nodeId), brokerTarget.apply(nodeId),
                    "node " + nodeId, configPath + ".brokerPorts");
        }
        LOG.info("virtual cluster '{}', gateway '{}': bootstrap {}:{}, brokers {}:{}-{} for node ids {}",
                virtualCluster, config.name(), config.bind().host(), config.bind().port(), config.bind().host(),
                config.brokerPortStart(), config.brokerPortStart() + config.nodeIds().size() - 1, config.nodeIds());
    }

    private void bindOne(EventLoops loops, BufferPolicy buffers, SessionSettings sessions, int port,
            SessionTarget target, String purpose, String path) {
        InetSocketAddress address = new InetSocketAddress(config.bind().host(), port);
        SslContext tls = this.tls;
        ChannelFuture bound = loops.serverBootstrap(buffers)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.AUTO_READ, false)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        if (tls != null) {
                            ch.pipeline().addLast(tls.newHandler(ch.alloc()));
                        }
                        long checkMillis = Math.min(sessions.partialFrameTimeoutMillis(), sessions.idleTimeoutMillis());
                        ch.pipeline().addLast(
                                new IdleStateHandler(checkMillis, 0, 0, TimeUnit.MILLISECONDS),
                                new KafkaFrameDecoder(sessions.maxFrameBytes(), "client", true),
                                new ClientSession(target, sessions));
                    }
                })
                .bind(address)
                .awaitUninterruptibly();
        if (!bound.isSuccess()) {
            close();
            throw new GatewayBindException(path + ": cannot listen on " + address + " (" + purpose + " of gateway '"
                    + config.name() + "' of virtual cluster '" + virtualCluster + "'): " + bound.cause().getMessage(),
                    bound.cause());
        }
        listeners.add(bound.channel());
    }

    @Override
    public String advertisedHost() {
        return config.advertisedHost();
    }

    @Override
    public int bootstrapPort() {
        return config.bind().port();
    }

    @Override
    public int brokerPort(int virtualNodeId) {
        return config.brokerPort(virtualNodeId);
    }

    @Override
    public String describeRange() {
        return "gateway '" + config.name() + "' serves node ids " + config.nodeIds() + ", " + configPath + ".brokerPorts.nodeIds";
    }

    public GatewayConfig config() {
        return config;
    }

    /** The bootstrap address clients are given: advertised host and bootstrap port. */
    public String bootstrapAddress() {
        return config.advertisedHost() + ":" + config.bind().port();
    }

    /** Stops accepting; connections already open stay up until their sessions end. */
    @Override
    public void close() {
        for (Channel listener : listeners) {
            listener.close().awaitUninterruptibly();
        }
        listeners.clear();
    }
}
