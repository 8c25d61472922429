package dev.weft.protocol.skim;

/**
 * How node ids and broker addresses in Produce and Fetch responses become the ones the client must
 * see (DESIGN §4): a leader id in {@code current_leader}, a Fetch {@code preferred_read_replica}, and
 * each {@code node_endpoints} entry.
 *
 * <p>{@code source} says which upstream the id came from: the index the caller gave the response
 * (its route), so a mirrored topology can compute {@code b × N + k}. Called on the event loop that
 * owns the frame; implementations must not allocate on the hot path (return pre-built strings).
 */
@FunctionalInterface
public interface NodeEndpointRewriter {

    /** Leaves every node id and endpoint as the upstream sent it. */
    NodeEndpointRewriter IDENTITY = (source, upstreamNodeId) -> upstreamNodeId;

    /**
     * The node id the client sees for node {@code upstreamNodeId} of upstream {@code source}.
     * Negative ids are sentinels ("unknown leader", "no preferred replica") and must come back
     * unchanged.
     */
    int nodeId(int source, int upstreamNodeId);

    /**
     * Edits one {@code node_endpoints} entry before it is written. On entry the endpoint's node id is
     * already {@link #nodeId(int, int)} of the upstream's, and host, port and rack are the upstream's;
     * change what the client must see differently, or {@link NodeEndpoint#omit() omit} it. The default
     * only maps the node id.
     */
    default void endpoint(NodeEndpoint endpoint) {
    }
}
