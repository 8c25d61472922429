package dev.weft.protocol.skim;

/**
 * A mirrored-topology rewriter for tests: node {@code b} of route {@code k} becomes {@code b × routes + k};
 * even routes' endpoints get the proxy's host and port, odd routes' keep them and get another rack;
 * upstream node 5 is omitted from node_endpoints.
 */
public final class TestRewriter implements NodeEndpointRewriter {

    public static final int OMITTED_NODE = 5;
    public static final String PROXY_RACK = "proxy-rack";

    private final int routes;
    private final String[] hosts = new String[1024];

    public TestRewriter(int routes) {
        this.routes = routes;
        for (int i = 0; i < hosts.length; i++) {
            hosts[i] = "weft-" + i + ".proxy.example";
        }
    }

    @Override
    public int nodeId(int source, int upstreamNodeId) {
        return upstreamNodeId < 0 ? upstreamNodeId : upstreamNodeId * routes + source;
    }

    @Override
    public void endpoint(NodeEndpoint endpoint) {
        if (endpoint.upstreamNodeId() == OMITTED_NODE) {
            endpoint.omit();
        } else if (endpoint.source() % 2 == 0) {
            endpoint.host(host(endpoint.nodeId())).port(19000 + endpoint.nodeId());
        } else {
            endpoint.rack(PROXY_RACK);
        }
    }

    private String host(int id) {
        return id >= 0 && id < hosts.length ? hosts[id] : "weft-" + id + ".proxy.example"; // corrupted ids in fuzz tests
    }

    /** What {@link #endpoint} makes of an upstream endpoint, or null when it is omitted. */
    public Expected expected(int source, int nodeId, String host, int port, String rack) {
        if (nodeId == OMITTED_NODE) {
            return null;
        }
        int id = nodeId(source, nodeId);
        return source % 2 == 0
                ? new Expected(id, host(id), 19000 + id, rack)
                : new Expected(id, host, port, PROXY_RACK);
    }

    public record Expected(int nodeId, String host, int port, String rack) {
    }
}
