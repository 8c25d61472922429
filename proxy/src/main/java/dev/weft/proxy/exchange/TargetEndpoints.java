package dev.weft.proxy.exchange;

import dev.weft.protocol.skim.NodeEndpoint;
import dev.weft.protocol.skim.NodeEndpointRewriter;
import dev.weft.routing.api.RoutePlan;

/**
 * Node ids and endpoints in a merged Produce/Fetch answer: the mergers name each upstream answer by its
 * target in the plan; this maps a target to its leaf's virtual node ids and the gateway's addresses.
 * One per session and API, pointed at the plan being merged (event loop only).
 */
final class TargetEndpoints implements NodeEndpointRewriter {

    private final ExchangeHost host;
    private RoutePlan plan;

    TargetEndpoints(ExchangeHost host) {
        this.host = host;
    }

    TargetEndpoints of(RoutePlan plan) {
        this.plan = plan;
        return this;
    }

    private NodeEndpointRewriter leaf(int target) {
        int route = target >= 0 && plan.targetCount() > 0 ? plan.targetLeaf(target) : Math.max(0, host.ownRoute());
        return host.endpoints(route);
    }

    @Override
    public int nodeId(int target, int upstreamNodeId) {
        return leaf(target).nodeId(target, upstreamNodeId);
    }

    @Override
    public void endpoint(NodeEndpoint endpoint) {
        leaf(0).endpoint(endpoint); // the gateway's addresses for a virtual id do not depend on the leaf
    }
}
