package dev.weft.protocol.skim;

import dev.weft.protocol.wire.WireCursor;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * Rewrites the top-level {@code node_endpoints} of a single, otherwise forwarded response (Produce
 * v10+, Fetch v16+) without touching anything before it.
 *
 * <p>Both responses end with their top-level tagged fields, so the new frame is
 * <pre>
 *  [size prefix] [retained slice: response header .. last byte before the tagged fields] [new tagged fields]
 * </pre>
 * where the new tagged fields hold {@code node_endpoints} (tag 0) passed through the rewriter and any
 * other top-level tags copied as they were. Record data, wherever it is in the response, stays in the
 * one retained slice: nothing proportional to the payload is copied or allocated.
 *
 * <p>One instance per response skim; not thread-safe.
 */
public final class NodeEndpointRewrite {

    /** Tag of {@code node_endpoints} in the top-level tagged fields of Produce and Fetch responses. */
    public static final int NODE_ENDPOINTS_TAG = 0;

    private final FrameAssembler out = new FrameAssembler();
    private final NodeEndpointUnion union = new NodeEndpointUnion();
    private final WireCursor cursor = new WireCursor();

    /**
     * Builds the rewritten frame.
     *
     * @param frame the response; borrowed (the result holds a retained slice of it)
     * @param frameOffset where the response header starts
     * @param taggedOffset where the top-level tagged fields start (ignored when not {@code flexible})
     * @param endOffset the end of the response
     * @param endpoints the skimmed upstream endpoints
     * @param source the upstream index handed to the rewriter
     * @return a whole frame, size prefix included; the caller takes ownership
     */
    public ByteBuf rewrite(ByteBuf frame, int frameOffset, int taggedOffset, int endOffset, boolean flexible,
                           NodeEndpointList endpoints, int source, NodeEndpointRewriter rewriter,
                           ByteBufAllocator alloc) {
        union.clear();
        out.begin(alloc, 64);
        try {
            if (!flexible) {
                out.appendSlice(frame, frameOffset, endOffset - frameOffset);
                return out.finish();
            }
            union.addAll(source, endpoints, rewriter);
            out.appendSlice(frame, frameOffset, taggedOffset - frameOffset);
            cursor.wrap(frame, taggedOffset, endOffset);
            int fields = SkimReads.taggedFieldCount(cursor);
            int others = 0;
            for (int k = 0; k < fields; k++) {
                int tag = cursor.readUnsignedVarint();
                cursor.skip(SkimReads.taggedFieldSize(cursor, tag), "tagged field");
                if (tag != NODE_ENDPOINTS_TAG) {
                    others++;
                }
            }
            boolean withEndpoints = union.count() > 0;
            ByteBuf meta = out.meta(5 + (withEndpoints ? union.taggedFieldSize(NODE_ENDPOINTS_TAG) : 0));
            WireWrite.writeUnsignedVarint(meta, others + (withEndpoints ? 1 : 0));
            if (withEndpoints) {
                union.writeTaggedField(meta, NODE_ENDPOINTS_TAG);
            }
            cursor.wrap(frame, taggedOffset, endOffset);
            cursor.readUnsignedVarint();
            for (int k = 0; k < fields; k++) {
                int start = cursor.position();
                int tag = cursor.readUnsignedVarint();
                cursor.skip(cursor.readUnsignedVarint(), "tagged field");
                if (tag != NODE_ENDPOINTS_TAG) {
                    out.copy(frame, start, cursor.position());
                }
            }
            return out.finish();
        } catch (RuntimeException | Error e) {
            out.abort();
            throw e;
        } finally {
            union.clear();
        }
    }
}
