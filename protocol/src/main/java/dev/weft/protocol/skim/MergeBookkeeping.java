package dev.weft.protocol.skim;

import io.netty.buffer.ByteBuf;
import java.util.Arrays;

/**
 * The bookkeeping both response mergers share (DESIGN §5 "Merging responses"): which upstream entry
 * answers each partition of the client's request, the largest throttle time, the union of the
 * upstreams' node endpoints, and the response header and top-level tagged fields of the merged frame.
 *
 * <p>Partitions are matched by the topic key bytes and the partition index that were <em>sent</em>
 * upstream: the {@link UpstreamTopicKeys} replacement when the request was built with one for that topic
 * (or that partition, {@link UpstreamTopicKeys#keysPerPartition()}), else the client's own key; the
 * {@link UpstreamPartitions} index when the request was built with one for that partition, else the
 * client's. (Upstream responses carry names before Produce/Fetch v13 and topic ids from v13, as the
 * requests do.) The merged response is still written under the client's key and index by the mergers.
 * Each route keeps a hint (where its next partition is expected), so responses in request order match in
 * one probe and reordered ones (also parts whose partitions were grouped by per-partition key) still
 * match by a scan. Primitive arrays, grown on demand and reused: nothing is allocated per partition. Holds the upstream buffers (borrowed) until {@link #clear()}. One per
 * merger; not thread-safe.
 */
public final class MergeBookkeeping {

    private final NodeEndpointUnion union = new NodeEndpointUnion();
    /** Per request partition: the matching partition of its route's response, or a negative marker. */
    private int[] match = new int[16];
    /** Per route: where the next partition is expected in its response. */
    private int[] hint = new int[8];
    private int throttle;
    private int endpointBytes;
    /** The keys the request was built with, or null: the client's keys were sent. Until {@link #clear()}. */
    private UpstreamTopicKeys sentKeys;
    /** True when {@link #sentKeys} are per partition. */
    private boolean keysPerPartition;
    /** The partition indexes the request was built with, or null: the client's were sent. Until {@link #clear()}. */
    private UpstreamPartitions sentPartitions;

    /**
     * Checks that every response has the request's version and readies the tables for {@code request}.
     *
     * @throws IllegalArgumentException when an upstream response has another version
     */
    public void start(RequestSkim request, ResponseSkim[] responses) {
        start(request, responses, null);
    }

    /**
     * As {@link #start(RequestSkim, ResponseSkim[])}, for a request whose parts were built with
     * {@code sentKeys} (null: the client's keys were sent): {@link #find} then matches by the sent keys.
     * Kept by reference until {@link #clear()}.
     */
    public void start(RequestSkim request, ResponseSkim[] responses, UpstreamTopicKeys sentKeys) {
        start(request, responses, sentKeys, null);
    }

    /**
     * As {@link #start(RequestSkim, ResponseSkim[], UpstreamTopicKeys)}, for a request whose parts were
     * also built with {@code sentPartitions} (null: the client's indexes were sent): {@link #find} then
     * matches by the sent key and the sent index. Both kept by reference until {@link #clear()}.
     */
    public void start(RequestSkim request, ResponseSkim[] responses, UpstreamTopicKeys sentKeys,
                      UpstreamPartitions sentPartitions) {
        for (ResponseSkim response : responses) {
            if (response != null && response.version() != request.version()) {
                throw new IllegalArgumentException(request.api + " response v" + response.version()
                        + " cannot be merged into a response to a v" + request.version() + " request");
            }
        }
        int partitions = request.partitionCount();
        if (match.length < partitions) {
            match = new int[Math.max(partitions, match.length * 2)];
        }
        if (hint.length < responses.length) {
            hint = new int[Math.max(responses.length, hint.length * 2)];
        }
        Arrays.fill(hint, 0, responses.length, 0);
        this.sentKeys = sentKeys;
        this.keysPerPartition = sentKeys != null && sentKeys.keysPerPartition();
        this.sentPartitions = sentPartitions;
    }

    /**
     * The partition of {@code response} (from route {@code route}) that answers request partition
     * {@code i}, or -1: the partition index and the topic key sent upstream (see {@link #start}).
     */
    public int find(RequestSkim request, int i, ResponseSkim response, int route) {
        int index = UpstreamPartitions.sent(sentPartitions, request, i);
        int topic = request.partitionTopic(i);
        byte[] sent = sentKeys == null ? null
                : keysPerPartition ? sentKeys.upstreamKey(topic, i) : sentKeys.upstreamKey(topic);
        int expected = hint[route];
        if (expected < response.partitionCount() && matches(request, topic, sent, index, response, expected)) {
            hint[route] = expected + 1;
            return expected;
        }
        for (int j = 0; j < response.partitionCount(); j++) {
            if (matches(request, topic, sent, index, response, j)) {
                hint[route] = j + 1;
                return j;
            }
        }
        return -1;
    }

    /** Partition {@code j} of the response has {@code index} and the key sent for {@code topic}: {@code sent}, or the client's when null. */
    private static boolean matches(RequestSkim request, int topic, byte[] sent, int index, ResponseSkim response, int j) {
        if (response.partitionIndex(j) != index) {
            return false;
        }
        int upstreamTopic = response.partitionTopic(j);
        return sent == null
                ? TopicTable.sameKey(request.buffer(), request.topics, topic, response.buffer(), response.topics, upstreamTopic)
                : TopicTable.sameKey(response.buffer(), response.topics, upstreamTopic, sent);
    }

    public void match(int i, int j) {
        match[i] = j;
    }

    public int match(int i) {
        return match[i];
    }

    /**
     * Takes the largest throttle time of the responses that arrived and, from {@code firstNodeEndpointsVersion},
     * the union of their node endpoints through the rewriter (the route index is the source).
     *
     * @return the bytes {@link #writeTrailer} will take beyond its count byte
     */
    public int collect(ResponseSkim[] responses, short version, short firstNodeEndpointsVersion,
                       NodeEndpointRewriter rewriter) {
        throttle = 0;
        union.clear();
        for (int r = 0; r < responses.length; r++) {
            ResponseSkim response = responses[r];
            if (response != null) {
                throttle = Math.max(throttle, response.throttleTimeMs());
                if (version >= firstNodeEndpointsVersion) {
                    union.addAll(r, response.nodeEndpoints(), rewriter);
                }
            }
        }
        endpointBytes = union.count() > 0 ? union.taggedFieldSize(NodeEndpointRewrite.NODE_ENDPOINTS_TAG) : 0;
        return endpointBytes;
    }

    /** The largest throttle time of the responses, after {@link #collect}. */
    public int throttleTimeMs() {
        return throttle;
    }

    /** Writes the response header: the client's correlation id, and an empty tagged-field section (header v1) when flexible. */
    public static void writeResponseHeader(ByteBuf meta, int correlationId, boolean flexible) {
        meta.writeInt(correlationId);
        if (flexible) {
            WireWrite.writeEmptyTaggedFields(meta); // response header v1
        }
    }

    /** Writes the top-level tagged fields (flexible versions): node_endpoints when any were collected. */
    public void writeTrailer(FrameAssembler out, boolean flexible) {
        if (flexible) {
            boolean withEndpoints = union.count() > 0;
            ByteBuf meta = out.meta(1 + endpointBytes);
            WireWrite.writeUnsignedVarint(meta, withEndpoints ? 1 : 0);
            if (withEndpoints) {
                union.writeTaggedField(meta, NodeEndpointRewrite.NODE_ENDPOINTS_TAG);
            }
        }
    }

    /** Drops the references to upstream buffers, rewriter strings and the sent keys and indexes. */
    public void clear() {
        union.clear();
        sentKeys = null;
        keysPerPartition = false;
        sentPartitions = null;
    }
}
