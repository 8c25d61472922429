package dev.weft.proxy.weave;

import dev.weft.protocol.skim.NodeEndpoint;
import dev.weft.protocol.skim.NodeEndpointRewriter;
import dev.weft.proxy.gateway.BrokerAddressBook;
import dev.weft.routing.node.NodeIdMapping;

/**
 * Node ids and endpoints in a Produce/Fetch answer from a broker of one route: ids become that route's
 * virtual ids, endpoints the gateway's addresses. The merge's own "source" index is ignored: a woven
 * connection's answers all come from its one route.
 */
final class FixedRouteEndpoints implements NodeEndpointRewriter {

    private final BrokerAddressBook addresses;
    private final NodeIdMapping bijection;
    private final int route;

    FixedRouteEndpoints(BrokerAddressBook addresses, NodeIdMapping bijection, int route) {
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
