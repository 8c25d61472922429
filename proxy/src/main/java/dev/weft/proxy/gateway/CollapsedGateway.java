package dev.weft.proxy.gateway;

import dev.weft.iocore.EventLoops;
import dev.weft.iocore.buffer.BufferPolicy;
import dev.weft.proxy.config.WeftConfig.GatewayConfig;
import dev.weft.proxy.security.TlsClientPrincipal;
import dev.weft.proxy.session.SessionSettings;
import dev.weft.proxy.session.SessionTarget;
import dev.weft.proxy.tls.TlsContexts;
import dev.weft.routing.node.CollapsedNodes;
import dev.weft.routing.node.ProxyNode;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.ssl.SslContext;
import java.net.InetSocketAddress;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A listener of a collapsed virtual cluster (DESIGN §4): the brokers clients see are the proxy nodes
 * of the virtual cluster's {@code nodes} list, each at its configured address; this replica listens on
 * its gateway's {@code bind} address and serves every request that arrives there, whichever node the
 * client thinks it reached (any proxy node serves any partition). TLS is optional.
 */
public final class CollapsedGateway implements Gateway {

    private static final Logger LOG = LoggerFactory.getLogger(CollapsedGateway.class);

    private final String virtualCluster;
    private final GatewayConfig config;
    private final String configPath;
    private final CollapsedNodes nodes;
    private final ServerTls tls; // null: plaintext
    private final Supplier<ChannelHandler> certificatePrincipals; // null: no client certificates asked for
    private Channel listener;

    public CollapsedGateway(String virtualCluster, GatewayConfig config, String configPath, CollapsedNodes nodes) {
        this.virtualCluster = virtualCluster;
        this.config = config;
        this.configPath = configPath;
        this.nodes = nodes;
        this.tls = ServerTls.of(config.tls(), configPath + ".tls");
        this.certificatePrincipals = TlsClientPrincipal.forGateway(config.tls(),
                "gateway '" + config.name() + "' of virtual cluster '" + virtualCluster + "'");
    }

    @Override
    public void bind(EventLoops loops, BufferPolicy buffers, SessionSettings sessions,
            SessionTarget bootstrapTarget, IntFunction<SessionTarget> brokerTarget) {
        ServerTls tls = this.tls;
        Supplier<ChannelHandler> certificatePrincipals = this.certificatePrincipals;
        listener = GatewayListeners.bind(loops, buffers, new InetSocketAddress(config.bind().host(), config.bind().port()),
                new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        if (tls != null) {
                            ch.pipeline().addLast(tls.newHandler(ch.alloc()));
                            if (certificatePrincipals != null) {
                                ch.pipeline().addLast(certificatePrincipals.get());
                            }
                        }
                        GatewayListeners.addSession(ch.pipeline(), sessions, bootstrapTarget);
                    }
                },
                "listener of gateway '" + config.name() + "' of collapsed virtual cluster '" + virtualCluster + "'",
                configPath + ".bind", sessions, virtualCluster);
        LOG.info("virtual cluster '{}' (collapsed), gateway '{}': listening on {}:{}{}; proxy nodes {}", virtualCluster,
                config.name(), config.bind().host(), config.bind().port(), tls != null ? ", TLS" : "",
                nodes.nodes().stream().map(n -> n.id() + "@" + n.hostPort()).toList());
    }

    @Override
    public String brokerHost(int virtualNodeId) {
        ProxyNode n = nodes.node(virtualNodeId);
        return n == null ? bootstrapHost() : n.host();
    }

    @Override
    public int brokerPort(int virtualNodeId) {
        ProxyNode n = nodes.node(virtualNodeId);
        return n == null ? -1 : n.port();
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
        return "the proxy nodes of collapsed virtual cluster '" + virtualCluster + "' are " + configPath.replaceAll("\\.gateways\\[\\d+\\]$", "") + ".nodes";
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
        if (listener != null) {
            listener.close().awaitUninterruptibly();
            listener = null;
        }
    }
}
