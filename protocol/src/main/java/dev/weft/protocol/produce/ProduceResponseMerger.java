package dev.weft.protocol.produce;

import dev.weft.protocol.skim.FrameAssembler;
import dev.weft.protocol.skim.MergeBookkeeping;
import dev.weft.protocol.skim.NodeEndpointRewriter;
import dev.weft.protocol.skim.TopicTable;
import dev.weft.protocol.skim.UpstreamPartitions;
import dev.weft.protocol.skim.UpstreamTopicKeys;
import dev.weft.protocol.skim.WireWrite;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * Merges the responses to a split Produce request into the one response the client expects (DESIGN
 * §5 "Merging responses"):
 * <ul>
 *   <li>topics and partitions in the order of the client's request, each topic keyed by the client's
 *       own name (or topic id) bytes and each partition by the client's partition index; upstream
 *       results are found by the key and partition index that were sent upstream (the client's, or their
 *       replacements when the parts were built with {@link UpstreamTopicKeys} and
 *       {@link UpstreamPartitions});</li>
 *   <li>each partition's result copied from the upstream response its route points at, with
 *       {@code current_leader.leader_id} mapped through the {@link NodeEndpointRewriter};</li>
 *   <li>a partition whose upstream failed (its response is {@code null}) or whose upstream response
 *       does not mention it gets a synthesized entry: the given error code, base offset, log append
 *       time and log start offset -1, no record errors, null error message: nothing is silently
 *       dropped;</li>
 *   <li>{@code throttle_time_ms} is the largest of the upstream responses';</li>
 *   <li>v10+: {@code node_endpoints} is the union of the upstreams' endpoints through the rewriter, in
 *       route order, one per client-facing node id. Unknown tagged fields at the topic and top level of
 *       the upstream responses are dropped; partition-level tagged fields are kept.</li>
 * </ul>
 * The correlation id is the client's request's. Output: a whole frame, <b>size prefix included</b>,
 * of newly written metadata (no records in Produce responses). All upstream responses must have the
 * request's version.
 *
 * <p>One instance per core, reused; not thread-safe.
 */
public final class ProduceResponseMerger {

    /** Error code NOT_LEADER_OR_FOLLOWER: retriable, makes clients refresh metadata. */
    public static final short NOT_LEADER_OR_FOLLOWER = 6;

    private static final ProduceResponseSkim[] NO_RESPONSES = new ProduceResponseSkim[0];

    private final FrameAssembler out = new FrameAssembler();
    private final MergeBookkeeping merge = new MergeBookkeeping();

    /**
     * Merges the upstream responses of a split request.
     *
     * @param request the client's request, skimmed (borrowed)
     * @param routeOf per request partition, the index into {@code responses} it was sent to (the same
     *     array given to {@link ProduceRequestBuilder#build(ProduceRequestSkim, int[], int, int, ByteBufAllocator)})
     * @param responses per route, the skimmed upstream response, or null when that upstream failed
     *     (borrowed: their frames must stay alive until this returns, and are not released by it)
     * @param failedErrorCode the error code for partitions whose upstream failed, e.g.
     *     {@link #NOT_LEADER_OR_FOLLOWER}
     * @param rewriter maps node ids and endpoints; the route index is the {@code source}
     * @return the client's response, size prefix included; the caller takes ownership
     */
    public ByteBuf merge(ProduceRequestSkim request, int[] routeOf, ProduceResponseSkim[] responses,
                         short failedErrorCode, NodeEndpointRewriter rewriter, ByteBufAllocator alloc) {
        return merge(request, routeOf, responses, null, failedErrorCode, rewriter, alloc);
    }

    /**
     * Merges the upstream responses of a split request whose parts were built with renamed topics
     * ({@link ProduceRequestBuilder#topicKeys}): each request partition is matched in its upstream's
     * response by the key that was sent (the upstream name before v13, topic id from v13), and the
     * merged response carries the client's own key.
     *
     * @param topicKeys the keys the parts were built with (the same object, same answers), or null when
     *     the client's keys were sent; kept only for the call
     * @see #merge(ProduceRequestSkim, int[], ProduceResponseSkim[], short, NodeEndpointRewriter, ByteBufAllocator)
     */
    public ByteBuf merge(ProduceRequestSkim request, int[] routeOf, ProduceResponseSkim[] responses,
                         UpstreamTopicKeys topicKeys, short failedErrorCode, NodeEndpointRewriter rewriter,
                         ByteBufAllocator alloc) {
        return merge(request, routeOf, responses, topicKeys, null, failedErrorCode, rewriter, alloc);
    }

    /**
     * Merges the upstream responses of a split request whose parts were built with renamed topics and
     * renumbered partitions ({@link ProduceRequestBuilder#topicKeys}, {@link ProduceRequestBuilder#partitions}:
     * partition weaving): each request partition is matched in its upstream's response by the key sent
     * for it (per partition when {@link UpstreamTopicKeys#keysPerPartition()}) and the partition index
     * sent, and the merged response carries the client's own key and index, the rest of each partition's
     * result (error, base offset, log append time, log start offset, record errors, error message, tagged
     * fields) as the upstream wrote it, {@code current_leader.leader_id} mapped.
     *
     * @param topicKeys the keys the parts were built with (the same object, same answers), or null when
     *     the client's keys were sent; kept only for the call
     * @param partitions the partition indexes the parts were built with (same answers), or null when the
     *     client's indexes were sent; kept only for the call
     * @see #merge(ProduceRequestSkim, int[], ProduceResponseSkim[], short, NodeEndpointRewriter, ByteBufAllocator)
     */
    public ByteBuf merge(ProduceRequestSkim request, int[] routeOf, ProduceResponseSkim[] responses,
                         UpstreamTopicKeys topicKeys, UpstreamPartitions partitions, short failedErrorCode,
                         NodeEndpointRewriter rewriter, ByteBufAllocator alloc) {
        merge.start(request, responses, topicKeys, partitions);
        short version = request.version();
        boolean flexible = request.flexible();
        int partitionCount = request.partitionCount();

        // pass 1: find each partition's result and size the metadata
        int errorEntry = errorEntryBytes(version);
        long metadata = 4 + 4 + 1 + 5 + 4 + 1;
        TopicTable topics = request.topics();
        ByteBuf src = request.buffer();
        for (int t = 0; t < topics.count(); t++) {
            metadata += topics.keyEnd(t) - topics.entryOffset(t) + 5 + 1;
        }
        for (int i = 0; i < partitionCount; i++) {
            int route = routeOf == null ? -1 : routeOf[i];
            ProduceResponseSkim response = route >= 0 && route < responses.length ? responses[route] : null;
            int j = response == null ? -1 : merge.find(request, i, response, route);
            merge.match(i, j);
            metadata += j < 0 ? errorEntry : response.partitionEnd(j) - response.partitionOffset(j);
        }
        int endpointBytes = merge.collect(responses, version, ProduceResponseSkim.FIRST_NODE_ENDPOINTS_VERSION, rewriter);

        out.begin(alloc, (int) Math.min(Integer.MAX_VALUE, metadata + endpointBytes));
        try {
            MergeBookkeeping.writeResponseHeader(out.meta(5), request.correlationId(), flexible);
            WireWrite.writeArrayLength(out.meta(5), flexible, topics.count());
            for (int t = 0; t < topics.count(); t++) {
                out.copy(src, topics.entryOffset(t), topics.keyEnd(t));
                WireWrite.writeArrayLength(out.meta(5), flexible, topics.partitionCount(t));
                int first = topics.firstPartition(t);
                for (int i = first; i < first + topics.partitionCount(t); i++) {
                    int j = merge.match(i);
                    if (j < 0) {
                        writeErrorEntry(out.meta(errorEntry), version, request.partitionIndex(i),
                                dev.weft.protocol.skim.DeniedPartitions.errorCode(routeOf, i, failedErrorCode));
                    } else {
                        int route = routeOf[i];
                        copyEntry(request.partitionIndex(i), responses[route], j, route, rewriter);
                    }
                }
                if (flexible) {
                    WireWrite.writeEmptyTaggedFields(out.meta(1));
                }
            }
            out.meta(4).writeInt(merge.throttleTimeMs());
            merge.writeTrailer(out, flexible);
            return out.finish();
        } catch (RuntimeException | Error e) {
            out.abort();
            throw e;
        } finally {
            merge.clear();
        }
    }

    /**
     * The response for a request none of whose upstreams answered: every partition gets
     * {@code errorCode}, throttle time 0.
     *
     * @return the client's response, size prefix included; the caller takes ownership
     */
    public ByteBuf errorResponse(ProduceRequestSkim request, short errorCode, ByteBufAllocator alloc) {
        return merge(request, null, NO_RESPONSES, errorCode, NodeEndpointRewriter.IDENTITY, alloc);
    }

    /** Writes the client's partition index, then the upstream's entry after its index, then patches the leader id. */
    private void copyEntry(int clientIndex, ProduceResponseSkim response, int j, int route, NodeEndpointRewriter rewriter) {
        int from = response.partitionOffset(j);
        int to = response.partitionEnd(j);
        ByteBuf meta = out.meta(to - from);
        int at = meta.writerIndex();
        meta.writeInt(clientIndex);
        meta.writeBytes(response.buffer(), from + 4, to - from - 4);
        int leader = response.currentLeaderOffset(j);
        if (leader >= 0) {
            int patch = at + (leader - from);
            meta.setInt(patch, rewriter.nodeId(route, meta.getInt(patch)));
        }
    }

    static int errorEntryBytes(short version) {
        int bytes = version >= ProduceResponseSkim.FIRST_LOG_START_OFFSET_VERSION
                ? ProduceResponseSkim.FIXED_BYTES_V5 : ProduceResponseSkim.FIXED_BYTES_V3;
        if (version >= ProduceResponseSkim.FIRST_RECORD_ERRORS_VERSION) {
            bytes += version >= ProduceRequestSkim.FIRST_FLEXIBLE_VERSION ? 1 + 1 + 1 : 4 + 2;
        }
        return bytes;
    }

    private static void writeErrorEntry(ByteBuf meta, short version, int index, short errorCode) {
        boolean flexible = version >= ProduceRequestSkim.FIRST_FLEXIBLE_VERSION;
        meta.writeInt(index);
        meta.writeShort(errorCode);
        meta.writeLong(-1L); // base_offset
        meta.writeLong(-1L); // log_append_time_ms
        if (version >= ProduceResponseSkim.FIRST_LOG_START_OFFSET_VERSION) {
            meta.writeLong(-1L);
        }
        if (version >= ProduceResponseSkim.FIRST_RECORD_ERRORS_VERSION) {
            WireWrite.writeArrayLength(meta, flexible, 0);   // record_errors
            WireWrite.writeStringLength(meta, flexible, -1); // error_message
        }
        if (flexible) {
            WireWrite.writeEmptyTaggedFields(meta);
        }
    }
}
