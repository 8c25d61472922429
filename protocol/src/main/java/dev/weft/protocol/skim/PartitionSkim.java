package dev.weft.protocol.skim;

import dev.weft.protocol.wire.MalformedFrameException;
import dev.weft.protocol.wire.WireCursor;
import io.netty.buffer.ByteBuf;
import java.util.Arrays;
import org.apache.kafka.common.Uuid;

/**
 * What the Produce and Fetch skims have in common: the skimmed frame, its version, the topic table and,
 * per partition in wire order (0..{@link #partitionCount()}-1 across all topics), its topic and where
 * its entry starts and ends. The walk over the topics array ({@link #walkTopics}) is shared; each skim
 * reads its own partition entries in {@link #parsePartition(int)} and keeps its own per-partition
 * arrays, grown in {@link #growPartitions(int)} together with these.
 *
 * <pre>
 *  topics ARRAY (COMPACT_ when flexible) of
 *    key          name STRING  |  topic_id UUID       ◀─ TopicTable
 *    partitions   ARRAY of
 *      [entry]    partitionOffset(p) .. partitionEnd(p)  ◀─ parsePartition(p)
 *    tagged fields (flexible only)
 * </pre>
 *
 * <p>Everything is primitive arrays owned by the skim, reused frame after frame: no object per topic or
 * partition once the arrays have grown to the largest message seen. The subclasses are final, so the
 * {@code parsePartition} call in the walk is monomorphic per skim type.
 *
 * <p>Ownership: a skim <em>borrows</em> its frame (never retains or releases it) and is valid only while
 * the caller holds the frame. One instance per connection or core; not thread-safe.
 */
public abstract class PartitionSkim {

    private static final int MIN_TOPIC_BYTES = 3;

    /** The API this skim reads (e.g. "Produce"), for messages. */
    protected final String api;
    protected final short apiKey;
    protected final short oldestVersion;
    protected final short latestVersion;
    private final short firstFlexibleVersion;
    private final short firstTopicIdVersion;

    protected final WireCursor cursor = new WireCursor();
    protected final TopicTable topics = new TopicTable();

    /** The skimmed frame; null until a wrap succeeds. */
    protected ByteBuf buf;
    protected short version;
    protected boolean flexible;
    /** Offset of the first byte after the message. */
    protected int endOffset;

    private int partitionCount;
    private int[] partitionTopic = new int[16];
    private int[] partitionOffset = new int[16];
    private int[] partitionEnd = new int[16];

    protected PartitionSkim(String api, short apiKey, short oldestVersion, short latestVersion,
                            short firstFlexibleVersion, short firstTopicIdVersion) {
        this.api = api;
        this.apiKey = apiKey;
        this.oldestVersion = oldestVersion;
        this.latestVersion = latestVersion;
        this.firstFlexibleVersion = firstFlexibleVersion;
        this.firstTopicIdVersion = firstTopicIdVersion;
    }

    /** Sets the version being skimmed (and so whether it is flexible). */
    protected final void version(short version) {
        this.version = version;
        this.flexible = version >= firstFlexibleVersion;
    }

    /**
     * Positions the cursor on the body at {@code bodyOffset}, refusing a header that
     * runs past {@code limit}.
     *
     * @param what "request" or "response", for the message
     */
    protected final void startBody(ByteBuf frame, int bodyOffset, int limit, String what) {
        if (bodyOffset > limit) {
            throw new MalformedFrameException(api + " " + what + " header runs past the end of the frame");
        }
        cursor.wrap(frame, bodyOffset, limit);
    }

    /**
     * Walks the topics array at the cursor: its count, then per topic the key (name or topic id), the
     * partitions array ({@link #parsePartition(int)} for each entry) and the topic's tagged fields.
     *
     * @param minPartitionBytes the least a partition entry can take, to refuse lying counts
     */
    protected final void walkTopics(int minPartitionBytes, String topicsWhat, String keyWhat, String partitionsWhat) {
        boolean topicIds = usesTopicIds();
        int topicCount = SkimReads.nonNullArrayLength(cursor, flexible, MIN_TOPIC_BYTES, topicsWhat);
        topics.clear();
        partitionCount = 0;
        for (int i = 0; i < topicCount; i++) {
            int t = topics.readKey(cursor, flexible, topicIds, keyWhat);
            int n = SkimReads.nonNullArrayLength(cursor, flexible, minPartitionBytes, partitionsWhat);
            topics.partitions(t, partitionCount, n);
            for (int j = 0; j < n; j++) {
                if (partitionCount == partitionTopic.length) {
                    grow();
                }
                int p = partitionCount;
                partitionTopic[p] = t;
                partitionOffset[p] = cursor.position();
                parsePartition(p);
                partitionEnd[p] = cursor.position();
                partitionCount = p + 1;
            }
            endTopic(topics, t);
        }
    }

    /** Skips the tagged fields of an entry of {@code table} (flexible versions) and records where it ends. */
    protected final void endTopic(TopicTable table, int t) {
        int tagged = cursor.position();
        if (flexible) {
            cursor.skipTaggedFields();
        }
        table.end(t, tagged, cursor.position());
    }

    /**
     * Reads partition entry {@code p}: the cursor is at its first byte and must be left just past it
     * (tagged fields included). Topic, entry offset and end are recorded by the walk.
     */
    protected abstract void parsePartition(int p);

    /** Grows the subclass's per-partition arrays to {@code length}; the walk has grown its own. */
    protected void growPartitions(int length) {
    }

    /** The skimmed frame (borrowed), or null when the last wrap failed. */
    public final ByteBuf buffer() {
        return buf;
    }

    /** The API key of what is skimmed (Produce 0, Fetch 1). */
    public final short apiKey() {
        return apiKey;
    }

    public final short version() {
        return version;
    }

    public final boolean flexible() {
        return flexible;
    }

    /** True when topics are identified by topic id, not name. */
    public boolean usesTopicIds() {
        return version >= firstTopicIdVersion;
    }

    public final int topicCount() {
        return topics.count();
    }

    /** Offset of topic {@code t}'s name bytes or of its 16-byte topic id. */
    public int topicNameOffset(int t) {
        return topics.keyOffset(t);
    }

    /** Length of topic {@code t}'s name in bytes; 16 for a topic id. */
    public int topicNameLength(int t) {
        return topics.keyLength(t);
    }

    /** Topic name (versions before topic ids; allocates). */
    public String topicName(int t) {
        return topics.name(buf, t);
    }

    /** Topic id (versions with topic ids; allocates). */
    public Uuid topicId(int t) {
        return topics.topicId(buf, t);
    }

    /** Index (in 0..partitionCount()-1) of topic {@code t}'s first partition. */
    public int topicFirstPartition(int t) {
        return topics.firstPartition(t);
    }

    public int topicPartitionCount(int t) {
        return topics.partitionCount(t);
    }

    /** Partitions across all topics. */
    public final int partitionCount() {
        return partitionCount;
    }

    /** The topic (0..topicCount()-1) partition {@code i} belongs to. */
    public final int partitionTopic(int i) {
        return partitionTopic[i];
    }

    /** Absolute offset of partition {@code i}'s entry (its partition index field). */
    public final int partitionOffset(int i) {
        return partitionOffset[i];
    }

    /** Every partition's {@link #partitionOffset}, by flat index (the skim's own array: read, never written). */
    final int[] partitionOffsets() {
        return partitionOffset;
    }

    /** The partition index on the wire of partition {@code i} (the entry's first field). */
    public final int partitionIndex(int i) {
        return buf.getInt(partitionOffset[i]);
    }

    /** Offset of the first byte after the message (trailing bytes of the frame, if any, are ignored). */
    public final int endOffset() {
        return endOffset;
    }

    /** Absolute offset just past partition {@code i}'s entry, tagged fields included. */
    public final int partitionEnd(int i) {
        return partitionEnd[i];
    }

    private void grow() {
        int n = partitionTopic.length * 2;
        partitionTopic = Arrays.copyOf(partitionTopic, n);
        partitionOffset = Arrays.copyOf(partitionOffset, n);
        partitionEnd = Arrays.copyOf(partitionEnd, n);
        growPartitions(n);
    }
}
