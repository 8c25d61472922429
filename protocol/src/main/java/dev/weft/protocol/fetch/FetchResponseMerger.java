package dev.weft.protocol.fetch;

import dev.weft.protocol.skim.DeniedPartitions;
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
 * Merges the responses to a split Fetch request into the one response the client expects. Records
 * travel as <em>retained slices</em> of the upstream frames: the merged frame is a
 * {@link io.netty.buffer.CompositeByteBuf} of small new metadata and those slices, <b>size prefix
 * included</b>, ready for the socket.
 *
 * <p>The rules (DESIGN §5):
 * <ul>
 *   <li><b>order</b>: topics and partitions in the order of the client's request, keyed by the client's
 *       topic name (or id) bytes and partition index; topics left with no partition are omitted;
 *       upstream results are found by the key and partition index that were sent upstream (the client's,
 *       or their replacements when the parts were built with {@link UpstreamTopicKeys} and
 *       {@link UpstreamPartitions});</li>
 *   <li><b>partition results</b> are copied from the upstream response the partition's route points at
 *       (aborted transactions, tagged fields and all), with {@code preferred_read_replica} and
 *       {@code current_leader.leader_id} mapped through the {@link NodeEndpointRewriter};</li>
 *   <li><b>failed upstreams</b>: a partition whose upstream response is {@code null} (the upstream
 *       failed) or carries a non-zero top-level {@code error_code} (e.g. FETCH_SESSION_ID_NOT_FOUND,
 *       which only means something between the proxy and that broker) gets a synthesized entry:
 *       {@code failedErrorCode}, high watermark, last stable offset and log start offset -1, no
 *       aborted transactions, preferred read replica -1, empty records — what a broker writes for a
 *       partition in error;</li>
 *   <li><b>missing partitions</b>: a partition absent from its upstream's (error-free) response is
 *       omitted when that response belongs to an incremental fetch session ({@code session_id != 0}:
 *       brokers leave out unchanged partitions), else it gets the synthesized error entry: nothing is
 *       silently dropped from a full fetch;</li>
 *   <li><b>top level</b>: {@code throttle_time_ms} is the largest of the upstreams'; {@code error_code}
 *       is 0 (upstream errors became partition errors); {@code session_id} is the caller's (0 when the
 *       proxy declines fetch sessions towards the client, so it keeps sending full fetches);</li>
 *   <li>v16+: {@code node_endpoints} is the union of the upstreams' endpoints through the rewriter.
 *       Unknown tagged fields at the topic and top level of upstream responses are dropped.</li>
 * </ul>
 * All upstream responses must have the request's version. One instance per core; not thread-safe.
 */
public final class FetchResponseMerger {

    /** Error code NOT_LEADER_OR_FOLLOWER: retriable, makes clients refresh metadata. */
    public static final short NOT_LEADER_OR_FOLLOWER = 6;

    /**
     * {@code routeOf} value of a partition answered empty with no error (its upstream answer was set
     * aside): the client fetches it again, as it does a partition with no new data.
     */
    public static final int ANSWERED_EMPTY = -3;

    private static final int ERROR_ENTRY = -1;
    private static final int OMITTED = -2;
    private static final FetchResponseSkim[] NO_RESPONSES = new FetchResponseSkim[0];

    private final FrameAssembler out = new FrameAssembler();
    private final MergeBookkeeping merge = new MergeBookkeeping();
    private int[] perTopic = new int[16];

    /**
     * Merges the upstream responses of a split request.
     *
     * @param request the client's request, skimmed (borrowed)
     * @param routeOf per request partition, the index into {@code responses} it was sent to
     * @param responses per route, the skimmed upstream response or null when that upstream failed;
     *     borrowed: the merged frame holds its own retained slices of their records, so the caller
     *     releases the upstream frames as usual once this returns
     * @param failedErrorCode error code for partitions of failed upstreams, e.g. {@link #NOT_LEADER_OR_FOLLOWER}
     * @param sessionId the session_id to give the client (v7+)
     * @param rewriter maps node ids and endpoints; the route index is the {@code source}
     * @return the client's response, size prefix included; the caller takes ownership
     */
    public ByteBuf merge(FetchRequestSkim request, int[] routeOf, FetchResponseSkim[] responses, short failedErrorCode,
                         int sessionId, NodeEndpointRewriter rewriter, ByteBufAllocator alloc) {
        return merge(request, routeOf, responses, null, failedErrorCode, sessionId, rewriter, alloc);
    }

    /**
     * Merges the upstream responses of a split request whose parts were built with renamed topics
     * ({@link FetchRequestBuilder#topicKeys}): each request partition is matched in its upstream's
     * response by the key that was sent (the upstream name before v13, topic id from v13), and the
     * merged response carries the client's own key.
     *
     * @param topicKeys the keys the parts were built with (the same object, same answers), or null when
     *     the client's keys were sent; kept only for the call
     * @see #merge(FetchRequestSkim, int[], FetchResponseSkim[], short, int, NodeEndpointRewriter, ByteBufAllocator)
     */
    public ByteBuf merge(FetchRequestSkim request, int[] routeOf, FetchResponseSkim[] responses,
                         UpstreamTopicKeys topicKeys, short failedErrorCode, int sessionId,
                         NodeEndpointRewriter rewriter, ByteBufAllocator alloc) {
        return merge(request, routeOf, responses, topicKeys, failedErrorCode, failedErrorCode, sessionId, rewriter, alloc);
    }

    /**
     * As {@link #merge(FetchRequestSkim, int[], FetchResponseSkim[], UpstreamTopicKeys, short, int,
     * NodeEndpointRewriter, ByteBufAllocator)}, with one error code for partitions that were not sent
     * ({@code routeOf[i] < 0}: refused; {@link #ANSWERED_EMPTY}: answered empty without an error) and
     * another for partitions sent to an upstream whose response is
     * null (failed, or not waited for: {@code 0} answers them empty, with no error and unknown offsets,
     * so the client simply fetches them again).
     */
    public ByteBuf merge(FetchRequestSkim request, int[] routeOf, FetchResponseSkim[] responses,
                         UpstreamTopicKeys topicKeys, short refusedErrorCode, short failedErrorCode, int sessionId,
                         NodeEndpointRewriter rewriter, ByteBufAllocator alloc) {
        return merge(request, routeOf, responses, topicKeys, null, refusedErrorCode, failedErrorCode, sessionId,
                rewriter, alloc);
    }

    /**
     * As {@link #merge(FetchRequestSkim, int[], FetchResponseSkim[], UpstreamTopicKeys, short, short, int,
     * NodeEndpointRewriter, ByteBufAllocator)}, for parts built with renumbered partitions as well
     * ({@link FetchRequestBuilder#partitions}, partition weaving): each request partition is matched in its
     * upstream's response by the key sent for it (per partition when
     * {@link UpstreamTopicKeys#keysPerPartition()}) and the partition index sent; the merged response
     * carries the client's own key and index, and the rest of each partition's result as the upstream
     * wrote it (error, high watermark, last stable offset, log start offset, aborted transactions,
     * preferred read replica mapped, records as a retained slice, tagged fields — diverging epoch,
     * current leader mapped, snapshot id).
     *
     * @param partitions the partition indexes the parts were built with (same answers), or null when the
     *     client's indexes were sent; kept only for the call
     */
    public ByteBuf merge(FetchRequestSkim request, int[] routeOf, FetchResponseSkim[] responses,
                         UpstreamTopicKeys topicKeys, UpstreamPartitions partitions, short refusedErrorCode,
                         short failedErrorCode, int sessionId, NodeEndpointRewriter rewriter, ByteBufAllocator alloc) {
        merge.start(request, responses, topicKeys, partitions);
        short version = request.version();
        boolean flexible = request.flexible();
        TopicTable topics = request.topics();
        ByteBuf src = request.buffer();
        if (perTopic.length < topics.count()) {
            perTopic = new int[Math.max(topics.count(), perTopic.length * 2)];
        }

        // pass 1: find each partition's result, count what is written and size the metadata
        int errorEntry = errorEntryBytes(version);
        long metadata = 4 + 4 + 1 + 4 + 2 + 4 + 5 + 1;
        int topicsWritten = 0;
        for (int t = 0; t < topics.count(); t++) {
            int written = 0;
            int first = topics.firstPartition(t);
            for (int i = first; i < first + topics.partitionCount(t); i++) {
                int route = routeOf == null ? -1 : routeOf[i];
                FetchResponseSkim response = route >= 0 && route < responses.length ? responses[route] : null;
                int j = ERROR_ENTRY;
                if (response != null && response.errorCode() == 0) {
                    j = merge.find(request, i, response, route);
                    if (j < 0) {
                        j = response.sessionId() != 0 ? OMITTED : ERROR_ENTRY;
                    }
                }
                merge.match(i, j);
                if (j != OMITTED) {
                    written++;
                    metadata += j == ERROR_ENTRY ? errorEntry
                            : response.partitionEnd(j) - response.partitionOffset(j) - Math.max(0, response.recordsLength(j));
                }
            }
            perTopic[t] = written;
            if (written > 0) {
                topicsWritten++;
                metadata += topics.keyEnd(t) - topics.entryOffset(t) + 5 + 1;
            }
        }
        int endpointBytes = merge.collect(responses, version, FetchResponseSkim.FIRST_NODE_ENDPOINTS_VERSION, rewriter);

        out.begin(alloc, (int) Math.min(Integer.MAX_VALUE, metadata + endpointBytes));
        try {
            ByteBuf meta = out.meta(4 + 1 + 4 + 2 + 4);
            MergeBookkeeping.writeResponseHeader(meta, request.correlationId(), flexible);
            meta.writeInt(merge.throttleTimeMs());
            if (version >= FetchRequestSkim.FIRST_SESSION_VERSION) {
                meta.writeShort(0);
                meta.writeInt(sessionId);
            }
            WireWrite.writeArrayLength(out.meta(5), flexible, topicsWritten);
            for (int t = 0; t < topics.count(); t++) {
                if (perTopic[t] == 0) {
                    continue;
                }
                out.copy(src, topics.entryOffset(t), topics.keyEnd(t));
                WireWrite.writeArrayLength(out.meta(5), flexible, perTopic[t]);
                int first = topics.firstPartition(t);
                for (int i = first; i < first + topics.partitionCount(t); i++) {
                    int j = merge.match(i);
                    if (j == ERROR_ENTRY) {
                        writeErrorEntry(out.meta(errorEntry), version, request.partitionIndex(i), routeOf == null
                                ? refusedErrorCode : routeOf[i] == ANSWERED_EMPTY ? 0
                                : routeOf[i] == DeniedPartitions.DENIED ? DeniedPartitions.ERROR_CODE
                                : routeOf[i] < 0 ? refusedErrorCode : failedErrorCode);
                    } else if (j >= 0) {
                        copyEntry(request.partitionIndex(i), responses[routeOf[i]], j, routeOf[i], rewriter,
                                partitions != null && partitions.withholdsEndOffsets(i));
                    }
                }
                if (flexible) {
                    WireWrite.writeEmptyTaggedFields(out.meta(1));
                }
            }
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
     * The response for a Fetch none of whose upstreams answered: every partition gets
     * {@code errorCode}, throttle time 0, the given session id.
     *
     * @return the client's response, size prefix included; the caller takes ownership
     */
    public ByteBuf errorResponse(FetchRequestSkim request, short errorCode, int sessionId, ByteBufAllocator alloc) {
        return merge(request, null, NO_RESPONSES, errorCode, sessionId, NodeEndpointRewriter.IDENTITY, alloc);
    }

    /**
     * The client's partition index, the upstream's entry up to its records (preferred read replica
     * mapped; end offsets -1 when withheld), the records as a retained slice, then the entry's tagged
     * fields (leader id mapped).
     */
    private void copyEntry(int clientIndex, FetchResponseSkim response, int j, int route, NodeEndpointRewriter rewriter,
            boolean withholdEndOffsets) {
        ByteBuf upstream = response.buffer();
        int from = response.partitionOffset(j);
        int records = response.recordsOffset(j);
        int recordsEnd = records + Math.max(0, response.recordsLength(j));
        int end = response.partitionEnd(j);

        ByteBuf meta = out.meta(records - from);
        int at = meta.writerIndex();
        meta.writeInt(clientIndex);
        meta.writeBytes(upstream, from + 4, records - from - 4);
        if (withholdEndOffsets) {
            meta.setLong(at + 4 + 2, -1L); // high_watermark, after partition_index and error_code
            meta.setLong(at + 4 + 2 + 8, -1L); // last_stable_offset
        }
        int preferred = response.preferredReadReplicaOffset(j);
        if (preferred >= 0) {
            int patch = at + (preferred - from);
            meta.setInt(patch, rewriter.nodeId(route, meta.getInt(patch)));
        }

        out.appendSlice(upstream, records, recordsEnd - records);

        if (end > recordsEnd) {
            meta = out.meta(end - recordsEnd);
            at = meta.writerIndex();
            meta.writeBytes(upstream, recordsEnd, end - recordsEnd);
            int leader = response.currentLeaderOffset(j);
            if (leader >= 0) {
                int patch = at + (leader - recordsEnd);
                meta.setInt(patch, rewriter.nodeId(route, meta.getInt(patch)));
            }
        }
    }

    static int errorEntryBytes(short version) {
        boolean flexible = version >= FetchRequestSkim.FIRST_FLEXIBLE_VERSION;
        int bytes = version >= FetchRequestSkim.FIRST_LOG_START_OFFSET_VERSION
                ? FetchResponseSkim.FIXED_BYTES_V5 : FetchResponseSkim.FIXED_BYTES_V4;
        bytes += flexible ? 1 : 4; // aborted_transactions: empty
        if (version >= FetchResponseSkim.FIRST_PREFERRED_READ_REPLICA_VERSION) {
            bytes += 4;
        }
        bytes += flexible ? 1 : 4; // records: empty
        if (flexible) {
            bytes += 1;
        }
        return bytes;
    }

    private static void writeErrorEntry(ByteBuf meta, short version, int index, short errorCode) {
        boolean flexible = version >= FetchRequestSkim.FIRST_FLEXIBLE_VERSION;
        meta.writeInt(index);
        meta.writeShort(errorCode);
        meta.writeLong(-1L); // high_watermark
        meta.writeLong(-1L); // last_stable_offset
        if (version >= FetchRequestSkim.FIRST_LOG_START_OFFSET_VERSION) {
            meta.writeLong(-1L);
        }
        WireWrite.writeArrayLength(meta, flexible, 0); // aborted_transactions
        if (version >= FetchResponseSkim.FIRST_PREFERRED_READ_REPLICA_VERSION) {
            meta.writeInt(-1);
        }
        WireWrite.writeBytesLength(meta, flexible, 0); // records: empty
        if (flexible) {
            WireWrite.writeEmptyTaggedFields(meta);
        }
    }
}
