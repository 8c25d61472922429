package dev.weft.protocol.skim;

import dev.weft.protocol.header.ResponseHeaderView;
import dev.weft.protocol.wire.MalformedFrameException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.Arrays;

/**
 * A skimmed response (Produce, Fetch): {@link PartitionSkim} plus what both responses carry for the
 * proxy to rewrite: each partition's {@code current_leader} (a tagged field; its {@code leader_id} is an
 * int32 patchable in place, outside any CRC) and the top-level {@code node_endpoints} tagged field.
 *
 * <p>A response does not name its API: the caller passes the version of the request it answers.
 * Borrows its frame; not thread-safe.
 */
public abstract class ResponseSkim extends PartitionSkim {

    private final ResponseHeaderView header = new ResponseHeaderView();
    private final NodeEndpointList endpoints = new NodeEndpointList();
    private final short firstNodeEndpointsVersion;
    private NodeEndpointRewrite endpointRewrite;

    protected int frameOffset;
    protected int bodyOffset;
    /** Offset of throttle_time_ms, set by the subclass while parsing. */
    protected int throttleOffset;
    /** Offset of the top-level tagged fields (== endOffset for non-flexible versions). */
    protected int trailerOffset;
    /** Per partition: offset of current_leader.leader_id, or -1. */
    protected int[] currentLeaderOffset = new int[16];

    protected ResponseSkim(String api, short apiKey, short oldestVersion, short latestVersion,
                           short firstFlexibleVersion, short firstTopicIdVersion, short firstNodeEndpointsVersion) {
        super(api, apiKey, oldestVersion, latestVersion, firstFlexibleVersion, firstTopicIdVersion);
        this.firstNodeEndpointsVersion = firstNodeEndpointsVersion;
    }

    /**
     * Skims the response of {@code version} whose header starts at {@code offset}. Borrows {@code frame}.
     *
     * @throws MalformedFrameException when the bytes are not a well-formed response of that version
     */
    protected final void skim(ByteBuf frame, int offset, int limit, short version) {
        this.buf = null;
        if (version < oldestVersion || version > latestVersion) {
            throw new MalformedFrameException(api + " v" + version + " responses cannot be skimmed");
        }
        version(version);
        this.frameOffset = offset;
        header.wrap(frame, offset);
        bodyOffset = offset + header.headerLength(apiKey, version);
        startBody(frame, bodyOffset, limit, "response");
        endpoints.clear();
        parseBody(frame);
        this.buf = frame;
    }

    /** Reads the body at the cursor, version and flexibility set; ends with {@link #parseTrailer}. */
    protected abstract void parseBody(ByteBuf frame);

    /** Reads the top-level tagged fields (flexible versions), node_endpoints among them, to the end. */
    protected final void parseTrailer(ByteBuf frame) {
        trailerOffset = cursor.position();
        if (flexible) {
            int fields = SkimReads.taggedFieldCount(cursor);
            for (int k = 0; k < fields; k++) {
                int tag = cursor.readUnsignedVarint();
                int size = SkimReads.taggedFieldSize(cursor, tag);
                int data = cursor.position();
                cursor.skip(size, "tagged field");
                if (tag == NodeEndpointRewrite.NODE_ENDPOINTS_TAG && version >= firstNodeEndpointsVersion) {
                    endpoints.parse(frame, data, size);
                }
            }
        }
        endOffset = cursor.position();
    }

    @Override
    protected void growPartitions(int length) {
        currentLeaderOffset = Arrays.copyOf(currentLeaderOffset, length);
    }

    public final int throttleTimeMs() {
        return buf.getInt(throttleOffset);
    }

    public int correlationId() {
        return buf.getInt(frameOffset + ResponseHeaderView.CORRELATION_ID_OFFSET);
    }

    /**
     * Absolute offset of partition {@code i}'s {@code current_leader.leader_id} (an int32; the leader
     * epoch follows it), or -1 when the response carries no current_leader for it.
     */
    public int currentLeaderOffset(int i) {
        return currentLeaderOffset[i];
    }

    /** current_leader.leader_id, or -1 when absent. */
    public int currentLeaderId(int i) {
        return currentLeaderOffset[i] < 0 ? -1 : buf.getInt(currentLeaderOffset[i]);
    }

    /** current_leader.leader_epoch, or -1 when absent. */
    public int currentLeaderEpoch(int i) {
        return currentLeaderOffset[i] < 0 ? -1 : buf.getInt(currentLeaderOffset[i] + 4);
    }

    /** The node_endpoints (empty when absent or before the version that has them). Borrowed view, valid with the skim. */
    public NodeEndpointList nodeEndpoints() {
        return endpoints;
    }

    /** Offset of the top-level tagged fields (flexible versions), where node_endpoints lives. */
    public int trailerOffset() {
        return trailerOffset;
    }

    /**
     * This response with its node_endpoints passed through the rewriter (see
     * {@link NodeEndpointRewrite}); for versions without node_endpoints, the response unchanged. Node
     * ids inside partitions are not touched.
     *
     * @return a whole frame, size prefix included, made of one retained slice of this frame and a small
     *     new trailer; the caller takes ownership. This frame stays borrowed.
     */
    public ByteBuf rewriteNodeEndpoints(NodeEndpointRewriter rewriter, int source, ByteBufAllocator alloc) {
        if (endpointRewrite == null) {
            endpointRewrite = new NodeEndpointRewrite();
        }
        return endpointRewrite.rewrite(buf, frameOffset, trailerOffset, endOffset, flexible, endpoints, source,
                rewriter, alloc);
    }
}
