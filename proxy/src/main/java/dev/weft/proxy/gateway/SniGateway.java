package dev.weft.proxy.gateway;

import dev.weft.iocore.EventLoops;
import dev.weft.iocore.buffer.BufferPolicy;
import dev.weft.proxy.config.WeftConfig.GatewayConfig;
import dev.weft.proxy.config.WeftConfig.SniNames;
import dev.weft.proxy.security.TlsClientPrincipal;
import dev.weft.proxy.session.SessionSettings;
import dev.weft.proxy.session.SessionTarget;
import dev.weft.proxy.tls.TlsContexts;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.ssl.SniHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.util.DomainWildcardMappingBuilder;
import java.net.InetSocketAddress;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One TLS port for a whole virtual cluster: the server name a client puts in its TLS ClientHello
 * (SNI) says where it wants to go — {@code bootstrapHost}, or {@code broker-$(nodeId)...} for a virtual
 * broker. Metadata advertises every broker at its own host name and this one port, so a client needs
 * a DNS name per broker (usually a wildcard record) and no port range.
 */
public final class SniGateway implements Gateway {

    private static final Logger LOG = LoggerFactory.getLogger(SniGateway.class);

    private final String virtualCluster;
    private final GatewayConfig config;
    private final String configPath;
    private final SniNames names;
    private final ServerTls tls;
    private Channel listener;

    public SniGateway(String virtualCluster, GatewayConfig config, String configPath) {
        this.virtualCluster = virtualCluster;
        this.config = config;
        this.configPath = configPath;
        this.names = config.sni();
        this.tls = ServerTls.of(config.tls(), configPath + ".tls");
    }

    @Override
    public void bind(EventLoops loops, BufferPolicy buffers, SessionSettings sessions,
            SessionTarget bootstrapTarget, IntFunction<SessionTarget> brokerTarget) {
        String describe = "gateway '" + config.name() + "' of virtual cluster '" + virtualCluster + "'";
        Supplier<ChannelHandler> certificatePrincipals = TlsClientPrincipal.forGateway(config.tls(), describe);
        listener = GatewayListeners.bind(loops, buffers, new InetSocketAddress(config.bind().host(), config.bind().port()),
                new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(tls.newSniHandler()); // replaced by the SslHandler for the name
                        if (certificatePrincipals != null) {
                            ch.pipeline().addLast(certificatePrincipals.get());
                        }
                        ch.pipeline().addLast(new SniRouter(names, sessions, bootstrapTarget, brokerTarget, describe));
                    }
                }, describe, configPath + ".bind", sessions, virtualCluster);
        LOG.info("virtual cluster '{}', gateway '{}': TLS with SNI on {}:{} (bootstrap {}, brokers {})",
                virtualCluster, config.name(), config.bind().host(), config.bind().port(), names.bootstrapHost(),
                names.brokerHostPrefix() + SniNames.NODE_ID_PLACEHOLDER + names.brokerHostSuffix());
    }

    @Override
    public Runnable prepareTlsReload() {
        return tls.prepareReload();
    }

    @Override
    public String brokerHost(int virtualNodeId) {
        return names.brokerHost(virtualNodeId);
    }

    @Override
    public int brokerPort(int virtualNodeId) {
        return names.advertisedPort();
    }

    @Override
    public String bootstrapHost() {
        return names.bootstrapHost();
    }

    @Override
    public int bootstrapPort() {
        return names.advertisedPort();
    }

    @Override
    public String describeRange() {
        return "gateway '" + config.name() + "' names every node id by " + configPath + ".sni.brokerHostPattern";
    }

    @Override
    public GatewayConfig config() {
        return config;
    }

    @Override
    public void close() {
        if (listener != null) {
            listener.close().awaitUninterruptibly();
            listener = null;
        }
    }
}
