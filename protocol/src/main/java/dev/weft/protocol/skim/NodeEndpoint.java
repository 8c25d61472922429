package dev.weft.protocol.skim;

import io.netty.buffer.ByteBuf;

/**
 * One {@code node_endpoints} entry on its way to the client, handed to
 * {@link NodeEndpointRewriter#endpoint(NodeEndpoint)}: the upstream's values to read, and the
 * client-facing values to set. Host and rack the rewriter does not set are copied as the upstream's
 * bytes, without decoding them. A flyweight re-initialised for every entry: do not keep it.
 */
public final class NodeEndpoint {

    private NodeEndpointList upstream;
    private int index;
    private int source;

    int nodeId;
    int port;
    boolean omitted;
    /** Non-null when the rewriter replaced the host. */
    CharSequence host;
    boolean rackReplaced;
    CharSequence rack;

    void reset(int source, NodeEndpointList upstream, int index, int nodeId) {
        this.source = source;
        this.upstream = upstream;
        this.index = index;
        this.nodeId = nodeId;
        this.port = upstream.port(index);
        this.omitted = false;
        this.host = null;
        this.rackReplaced = false;
        this.rack = null;
    }

    /** Index of the upstream (route) this endpoint came from. */
    public int source() {
        return source;
    }

    public int upstreamNodeId() {
        return upstream.nodeId(index);
    }

    public int upstreamPort() {
        return upstream.port(index);
    }

    /** The upstream's host (allocates a String). */
    public String upstreamHost() {
        return upstream.host(index);
    }

    /** The upstream's rack, or null (allocates a String). */
    public String upstreamRack() {
        return upstream.rack(index);
    }

    /** The buffer holding the upstream's host/rack bytes, for comparisons without decoding. Borrowed. */
    public ByteBuf upstreamBuffer() {
        return upstream.buffer();
    }

    public int upstreamHostOffset() {
        return upstream.hostOffset(index);
    }

    public int upstreamHostLength() {
        return upstream.hostLength(index);
    }

    /** The client-facing node id (initially the mapped upstream id). */
    public int nodeId() {
        return nodeId;
    }

    public NodeEndpoint nodeId(int nodeId) {
        this.nodeId = nodeId;
        return this;
    }

    public int port() {
        return port;
    }

    public NodeEndpoint port(int port) {
        this.port = port;
        return this;
    }

    /** Replaces the host (kept by reference until written: pass a string that outlives the call). */
    public NodeEndpoint host(CharSequence host) {
        if (host == null) {
            throw new IllegalArgumentException("node endpoint host may not be null");
        }
        this.host = host;
        return this;
    }

    /** Replaces the rack; null writes a null rack. */
    public NodeEndpoint rack(CharSequence rack) {
        this.rackReplaced = true;
        this.rack = rack;
        return this;
    }

    /** Leaves this endpoint out of the response. */
    public NodeEndpoint omit() {
        this.omitted = true;
        return this;
    }

    int upstreamIndex() {
        return index;
    }

    NodeEndpointList upstreamList() {
        return upstream;
    }
}
