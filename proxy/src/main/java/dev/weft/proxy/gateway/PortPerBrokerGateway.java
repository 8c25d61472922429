package dev.weft.proxy.gateway;

import dev.weft.iocore.EventLoops;
import dev.weft.iocore.buffer.BufferPolicy;
import dev.weft.proxy.config.WeftConfig.GatewayConfig;
import dev.weft.proxy.security.TlsClientPrincipal;
import dev.weft.proxy.session.SessionSettings;
import dev.weft.proxy.session.SessionTarget;
import dev.weft.proxy.tls.TlsContexts;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.ssl.SslContext;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A gateway that gives every virtual broker its own port: clients bootstrap on {@code bind}, and
 * Metadata tells them virtual node {@code n} is at {@code advertisedHost:brokerPort(n)}. All ports are
 * bound at start, so a client never races a bind after reading Metadata. TLS is optional.
 */
public final class PortPerBrokerGateway implements Gateway {

    private static final Logger LOG = LoggerFactory.getLogger(PortPerBrokerGateway.class);

    private final String virtualCluster;
    private final GatewayConfig config;
    private final String configPath;
    private final ServerTls tls; // null: plaintext
    private final Supplier<ChannelHandler> certificatePrincipals; // null: no client certificates asked for
    private final List<Channel> listeners = new ArrayList<>();

    /**
     * @param virtualCluster the virtual cluster's name, for logs
     * @param config the gateway's settings
     * @param configPath where the gateway is in the config file, for error messages
     */
    public PortPerBrokerGateway(String virtualCluster, GatewayConfig config, String configPath) {
        this.virtualCluster = virtualCluster;
        this.config = config;
        this.configPath = configPath;
        this.tls = ServerTls.of(config.tls(), configPath + ".tls");
        this.certificatePrincipals = TlsClientPrincipal.forGateway(config.tls(),
                "gateway '" + config.name() + "' of virtual cluster '" + virtualCluster + "'");
    }

    @Override
    public void bind(EventLoops loops, BufferPolicy buffers, SessionSettings sessions,
            SessionTarget bootstrapTarget, IntFunction<SessionTarget> brokerTarget) {
        try {
            bindOne(loops, buffers, sessions, config.bind().port(), bootstrapTarget, "bootstrap", configPath + ".bind");
            for (int nodeId = config.nodeIds().first(); nodeId <= config.nodeIds().last(); nodeId++) {
                bindOne(loops, buffers, sessions, config.brokerPort(nodeId), brokerTarget.apply(nodeId),
                        "node " + nodeId, configPath + ".brokerPorts");
            }
        } catch (GatewayBindException e) {
            close();
            throw e;
        }
        LOG.info("virtual cluster '{}', gateway '{}': bootstrap {}:{}, brokers {}:{}-{} for node ids {}{}",
                virtualCluster, config.name(), config.bind().host(), config.bind().port(), config.bind().host(),
                config.brokerPortStart(), config.brokerPortStart() + config.nodeIds().size() - 1, config.nodeIds(),
                tls != null ? ", TLS" : "");
    }

    private void bindOne(EventLoops loops, BufferPolicy buffers, SessionSettings sessions, int port,
            SessionTarget target, String purpose, String path) {
        ServerTls tls = this.tls;
        Supplier<ChannelHandler> certificatePrincipals = this.certificatePrincipals;
        listeners.add(GatewayListeners.bind(loops, buffers, new InetSocketAddress(config.bind().host(), port),
                new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        if (tls != null) {
                            ch.pipeline().addLast(tls.newHandler(ch.alloc()));
                            if (certificatePrincipals != null) {
                                ch.pipeline().addLast(certificatePrincipals.get());
                            }
                        }
                        GatewayListeners.addSession(ch.pipeline(), sessions, target);
                    }
                },
                purpose + " of gateway '" + config.name() + "' of virtual cluster '" + virtualCluster + "'", path, sessions,
                virtualCluster));
    }

    @Override
    public String brokerHost(int virtualNodeId) {
        return config.advertisedHost();
    }

    @Override
    public int brokerPort(int virtualNodeId) {
        return config.brokerPort(virtualNodeId);
    }

    @Override
    public String bootstrapHost() {
        return config.advertisedHost();
    }

    @Override
    public int bootstrapPort() {
        return config.bind().port();
    }

    @Override
    public String describeRange() {
        return "gateway '" + config.name() + "' serves node ids " + config.nodeIds() + ", " + configPath + ".brokerPorts.nodeIds";
    }

    @Override
    public Runnable prepareTlsReload() {
        return tls == null ? () -> { } : tls.prepareReload();
    }

    @Override
    public GatewayConfig config() {
        return config;
    }

    @Override
    public void close() {
        for (Channel listener : listeners) {
            listener.close().awaitUninterruptibly();
        }
        listeners.clear();
    }
}
