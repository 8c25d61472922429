package dev.weft.proxy.rewrite;

import dev.weft.protocol.skim.NodeEndpoint;
import dev.weft.protocol.skim.NodeEndpointRewriter;
import dev.weft.proxy.gateway.BrokerAddressBook;
import dev.weft.routing.node.NodeIdMapping;

/**
 * Node ids and endpoints in a Produce/Fetch answer from a broker of one route: ids become that route's
 * virtual ids, endpoints the gateway's addresses (the bootstrap address for a node the gateway has no
 * port for). The caller's "source" index is ignored: a connection's answers all come from one route.
 */
public final class GatewayEndpoints implements NodeEndpointRewriter {

    private final BrokerAddressBook addresses;
    private final NodeIdMapping bijection;
    private final int route;

    public GatewayEndpoints(BrokerAddressBook addresses, NodeIdMapping bijection, int route) {
        this.addresses = addresses;
        this.bijection = bijection;
        this.route = route;
    }

    @Override
    public int nodeId(int source, int upstreamNodeId) {
        return bijection.toVirtual(route, upstreamNodeId);
    }

    @Override
    public void endpoint(NodeEndpoint endpoint) {
        int port = addresses.brokerPort(endpoint.nodeId());
        if (port > 0) {
            endpoint.host(addresses.brokerHost(endpoint.nodeId())).port(port);
        } else {
            endpoint.host(addresses.bootstrapHost()).port(addresses.bootstrapPort());
        }
    }
}
