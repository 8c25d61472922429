package dev.weft.proxy.rewrite;

import dev.weft.protocol.skim.NodeEndpoint;
import dev.weft.protocol.skim.NodeEndpointRewriter;

/**
 * Node ids and endpoints in a Produce/Fetch answer of a collapsed virtual cluster: the clients' brokers
 * are proxy nodes, and a real broker's id means nothing to them. A leader hint (Produce v10+ and Fetch
 * v12+ {@code current_leader}, Fetch {@code preferred_read_replica}) becomes "unknown" (-1) and
 * {@code node_endpoints} are left out, so a client told NOT_LEADER_OR_FOLLOWER refreshes its Metadata,
 * whose leaders are the proxy nodes' (the proxy learns the new real leader from that same Metadata).
 */
public final class CollapsedEndpoints implements NodeEndpointRewriter {

    public static final CollapsedEndpoints INSTANCE = new CollapsedEndpoints();

    private CollapsedEndpoints() {
    }

    @Override
    public int nodeId(int source, int upstreamNodeId) {
        return upstreamNodeId < 0 ? upstreamNodeId : -1;
    }

    @Override
    public void endpoint(NodeEndpoint endpoint) {
        endpoint.omit();
    }
}
