package dev.weft.proxy.server;

import dev.weft.iocore.EventLoops;
import dev.weft.iocore.buffer.BufferPolicy;
import dev.weft.protocol.ApiKeyTable;
import dev.weft.proxy.config.WeftConfig.GatewayConfig;
import dev.weft.proxy.config.WeftConfig.VirtualClusterConfig;
import dev.weft.proxy.gateway.Gateway;
import dev.weft.proxy.rewrite.ApiVersionsClamp;
import dev.weft.proxy.rewrite.BrokerAddressRewriter;
import dev.weft.proxy.rewrite.NodeEndpointForwarder;
import dev.weft.proxy.session.ResponseRewriter;
import dev.weft.proxy.session.SessionSettings;
import dev.weft.proxy.session.SessionTarget;
import dev.weft.proxy.upstream.UpstreamCluster;
import dev.weft.routing.node.NodeIdBijection;
import io.netty.handler.ssl.SslContext;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * One virtual cluster over one upstream cluster (mirrored topology): its gateways, the node id
 * bijection, and the session targets that send each client connection to the right broker.
 */
final class VirtualClusterRuntime implements AutoCloseable {

    /** Upstream route of the single cluster behind this virtual cluster. */
    private static final int ROUTE = 0;
    private static final ApiVersionsClamp API_VERSIONS_CLAMP = new ApiVersionsClamp();

    private final VirtualClusterConfig config;
    private final UpstreamCluster cluster;
    private final NodeIdBijection bijection = NodeIdBijection.single();
    private final List<Gateway> gateways = new ArrayList<>();

    VirtualClusterRuntime(VirtualClusterConfig config, UpstreamCluster cluster) {
        this.config = config;
        this.cluster = cluster;
    }

    void bind(EventLoops loops, BufferPolicy buffers, SessionSettings sessions) {
        for (int i = 0; i < config.gateways().size(); i++) {
            GatewayConfig g = config.gateways().get(i);
            Gateway gateway = Gateway.create(config.name(), g, "virtualClusters." + config.name() + ".gateways[" + i + "]");
            ResponseRewriter[] rewriters = rewriters(gateway);
            gateway.bind(loops, buffers, sessions,
                    new Target(rewriters, -1), virtualId -> new Target(rewriters, virtualId));
            gateways.add(gateway);
        }
    }

    private ResponseRewriter[] rewriters(Gateway gateway) {
        ResponseRewriter[] byApiKey = new ResponseRewriter[ApiKeyTable.size()];
        BrokerAddressRewriter addresses = new BrokerAddressRewriter(gateway, bijection, ROUTE, cluster.topology(),
                "virtual cluster '" + config.name() + "', gateway '" + gateway.config().name() + "'");
        byApiKey[ApiKeys.METADATA.id] = addresses;
        byApiKey[ApiKeys.FIND_COORDINATOR.id] = addresses;
        byApiKey[ApiKeys.DESCRIBE_CLUSTER.id] = addresses;
        byApiKey[ApiKeys.API_VERSIONS.id] = API_VERSIONS_CLAMP;
        NodeEndpointForwarder endpoints = new NodeEndpointForwarder(gateway, bijection, ROUTE);
        byApiKey[ApiKeys.PRODUCE.id] = endpoints;
        byApiKey[ApiKeys.FETCH.id] = endpoints;
        return byApiKey;
    }

    String name() {
        return config.name();
    }

    List<Gateway> gateways() {
        return gateways;
    }

    @Override
    public void close() {
        for (Gateway g : gateways) {
            g.close();
        }
    }

    /** Bootstrap connections ({@code virtualId < 0}) go to any broker, broker ports to their broker. */
    private final class Target implements SessionTarget {
        private final ResponseRewriter[] rewriters;
        private final int virtualId;

        Target(ResponseRewriter[] rewriters, int virtualId) {
            this.rewriters = rewriters;
            this.virtualId = virtualId;
        }

        @Override
        public void resolve(BiConsumer<InetSocketAddress, Throwable> callback) {
            if (virtualId < 0) {
                callback.accept(cluster.anyBroker(), null);
            } else {
                cluster.resolveBroker(bijection.realNodeId(virtualId), callback);
            }
        }

        @Override
        public String virtualCluster() {
            return config.name();
        }

        @Override
        public String describe() {
            return (virtualId < 0 ? "bootstrap" : "node " + virtualId) + " of '" + config.name() + "'";
        }

        @Override
        public ResponseRewriter rewriterFor(short apiKey) {
            return apiKey >= 0 && apiKey < rewriters.length ? rewriters[apiKey] : null;
        }

        @Override
        public SslContext upstreamTls() {
            return cluster.tls();
        }

        @Override
        public void reportUnreachable(InetSocketAddress address, Throwable cause) {
            cluster.refresh();
        }
    }
}
