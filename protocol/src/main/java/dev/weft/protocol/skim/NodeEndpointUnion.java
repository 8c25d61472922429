package dev.weft.protocol.skim;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.util.Arrays;

/**
 * The {@code node_endpoints} a merged or rewritten response carries: the endpoints of one or more
 * upstream responses, each passed through a {@link NodeEndpointRewriter}, in the order added, one per
 * client-facing node id (the first one added wins). Written as the tagged field's compact array.
 *
 * <p>Holds references to the upstream buffers (borrowed, never retained) and to the rewriter's host and
 * rack strings until {@link #clear()}; write before the upstream frames are released. Reused: one per
 * builder, no object per endpoint.
 */
public final class NodeEndpointUnion {

    private final NodeEndpoint edit = new NodeEndpoint();
    private int count;
    private int[] nodeId = new int[8];
    private int[] port = new int[8];
    /** Upstream list and entry index, for host/rack bytes the rewriter kept. */
    private NodeEndpointList[] upstream = new NodeEndpointList[8];
    private int[] upstreamIndex = new int[8];
    private CharSequence[] host = new CharSequence[8];
    private boolean[] rackReplaced = new boolean[8];
    private CharSequence[] rack = new CharSequence[8];
    private int[] hostBytes = new int[8];
    private int[] rackBytes = new int[8];

    public void clear() {
        Arrays.fill(upstream, 0, count, null);
        Arrays.fill(host, 0, count, null);
        Arrays.fill(rack, 0, count, null);
        count = 0;
    }

    public int count() {
        return count;
    }

    public int nodeId(int k) {
        return nodeId[k];
    }

    /** Adds every endpoint of {@code list} (from upstream {@code source}) as the rewriter decides. */
    public void addAll(int source, NodeEndpointList list, NodeEndpointRewriter rewriter) {
        for (int j = 0; j < list.count(); j++) {
            edit.reset(source, list, j, rewriter.nodeId(source, list.nodeId(j)));
            rewriter.endpoint(edit);
            if (!edit.omitted && !contains(edit.nodeId)) {
                append(edit);
            }
        }
    }

    private boolean contains(int id) {
        for (int k = 0; k < count; k++) {
            if (nodeId[k] == id) {
                return true;
            }
        }
        return false;
    }

    private void append(NodeEndpoint e) {
        if (count == nodeId.length) {
            grow();
        }
        int k = count++;
        nodeId[k] = e.nodeId;
        port[k] = e.port;
        upstream[k] = e.upstreamList();
        upstreamIndex[k] = e.upstreamIndex();
        host[k] = e.host;
        hostBytes[k] = e.host != null ? ByteBufUtil.utf8Bytes(e.host) : e.upstreamList().hostLength(e.upstreamIndex());
        rackReplaced[k] = e.rackReplaced;
        rack[k] = e.rack;
        rackBytes[k] = e.rackReplaced
                ? (e.rack == null ? -1 : ByteBufUtil.utf8Bytes(e.rack))
                : e.upstreamList().rackLength(e.upstreamIndex());
    }

    /** Bytes of the compact array (the tagged field's data). */
    public int encodedSize() {
        int size = WireWrite.sizeOfArrayLength(true, count);
        for (int k = 0; k < count; k++) {
            size += 4 + WireWrite.sizeOfStringLength(true, hostBytes[k]) + hostBytes[k]
                    + 4 + WireWrite.sizeOfStringLength(true, rackBytes[k]) + Math.max(0, rackBytes[k])
                    + 1;
        }
        return size;
    }

    /** Bytes of the whole tagged field: tag, size, data. */
    public int taggedFieldSize(int tag) {
        int data = encodedSize();
        return WireWrite.sizeOfUnsignedVarint(tag) + WireWrite.sizeOfUnsignedVarint(data) + data;
    }

    /** Writes tag, size and the compact array. Borrows {@code out}. */
    public void writeTaggedField(ByteBuf out, int tag) {
        WireWrite.writeUnsignedVarint(out, tag);
        WireWrite.writeUnsignedVarint(out, encodedSize());
        WireWrite.writeArrayLength(out, true, count);
        for (int k = 0; k < count; k++) {
            out.writeInt(nodeId[k]);
            NodeEndpointList src = upstream[k];
            int j = upstreamIndex[k];
            WireWrite.writeStringLength(out, true, hostBytes[k]);
            if (host[k] != null) {
                ByteBufUtil.reserveAndWriteUtf8(out, host[k], hostBytes[k]);
            } else {
                out.writeBytes(src.buffer(), src.hostOffset(j), hostBytes[k]);
            }
            out.writeInt(port[k]);
            WireWrite.writeStringLength(out, true, rackBytes[k]);
            if (rackBytes[k] > 0) {
                if (rackReplaced[k]) {
                    ByteBufUtil.reserveAndWriteUtf8(out, rack[k], rackBytes[k]);
                } else {
                    out.writeBytes(src.buffer(), src.rackOffset(j), rackBytes[k]);
                }
            }
            WireWrite.writeEmptyTaggedFields(out);
        }
    }

    private void grow() {
        int n = nodeId.length * 2;
        nodeId = Arrays.copyOf(nodeId, n);
        port = Arrays.copyOf(port, n);
        upstream = Arrays.copyOf(upstream, n);
        upstreamIndex = Arrays.copyOf(upstreamIndex, n);
        host = Arrays.copyOf(host, n);
        rackReplaced = Arrays.copyOf(rackReplaced, n);
        rack = Arrays.copyOf(rack, n);
        hostBytes = Arrays.copyOf(hostBytes, n);
        rackBytes = Arrays.copyOf(rackBytes, n);
    }
}
