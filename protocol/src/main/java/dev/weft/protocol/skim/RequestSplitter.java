package dev.weft.protocol.skim;

import dev.weft.protocol.header.RequestHeaderView;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.internal.PlatformDependent;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.BitSet;

/**
 * The scaffolding of both request splits (Produce, Fetch): which partitions a split holds (by
 * {@code routeOf[i] == route} or a {@link BitSet} over the skim's flat partition index), the client's
 * header with a new correlation id (or another client id), and the topics array — each topic with a
 * chosen partition, its key as the client sent it, the count of chosen partitions, their entries in
 * their original order and the topic's tagged fields. What comes before and after the topics and how
 * one partition entry is written are the subclass's.
 *
 * <p>Topic renames (topic weaving): with {@link #topicKeys} set, a topic whose
 * {@link UpstreamTopicKeys#upstreamKey(int)} is not null is written with that key instead of the
 * client's — a (compact) string length and the name bytes, or the 16 bytes of a topic id, as the
 * version asks — and everything else of the topic entry is still the client's bytes.
 *
 * <p>Partition weaving: with {@link #partitions} set, each sent partition entry's leading int32 is the
 * {@link UpstreamPartitions#upstreamPartition(int)} index (4 new bytes; the rest of the entry is the
 * client's, records as retained slices). With {@link #topicKeys} answering
 * {@link UpstreamTopicKeys#keysPerPartition()}, the key is asked per chosen partition and the topics
 * array holds one entry per distinct key (by content; the client's key counts as its bytes) instead of
 * one per client topic: the entries in the order their first partition comes in the client's request,
 * each with its partitions in the client's order and the topic tagged fields of the client topic of its
 * first partition. Grouping is allocation-free (a reused open-addressing table of primitive arrays).
 *
 * <p>The output is a whole frame, size prefix included, from a {@link FrameAssembler}; if writing
 * fails half-way everything taken is released. One instance per core, reused; not thread-safe.
 *
 * @param <S> the skim this splitter reads
 */
public abstract class RequestSplitter<S extends RequestSkim> {

    /** Bytes reserved for an array length: a 4-byte int32, or an unsigned varint of up to 5. */
    protected static final int MAX_ARRAY_LENGTH_BYTES = 5;

    protected final FrameAssembler out = new FrameAssembler();
    /** The client id to write, or null to copy the client's. Kept by reference. */
    protected CharSequence clientId;
    /** The upstream topic keys, or null to send every topic key as the client sent it. Kept by reference. */
    protected UpstreamTopicKeys topicKeys;
    /** The upstream partition indexes, or null to send every index as the client sent it. Kept by reference. */
    protected UpstreamPartitions partitions;
    private final RouteIndex index = new RouteIndex();

    // grouping by per-partition key: groups in creation order, partitions chained per group
    private int groupCount;
    private int[] groupTopic = new int[16];
    private int[] groupHash = new int[16];
    private int[] groupSize = new int[16];
    private int[] groupHead = new int[16];
    private int[] groupTail = new int[16];
    private byte[][] groupKey = new byte[16][];
    // blocks of the current split ({@link #keyBlocks}): topic, first member (blockStart[blockCount] = end), key, slot
    private int blockCount;
    private int[] blockTopic = new int[16];
    private int[] blockStart = new int[17];
    private byte[][] blockKey = new byte[16][];
    private int[] blockSlot = new int[16];
    /** Per group, its slot in {@link #slots}: cleared after each split, so the table is never filled whole. */
    private int[] groupSlot = new int[16];
    /** Per flat partition index: the next partition of its group, or -1. */
    private int[] nextInGroup = new int[16];
    /** Open addressing over the groups by key hash: group + 1, 0 for empty. */
    private int[] slots = new int[32];
    private int slotMask;

    /**
     * Whether a partition entry is metadata only, no records ({@link #writePartition} copies it whole, its
     * index maybe renumbered): then adjacent chosen entries are copied as one range ({@link #writeMembers}).
     */
    private final boolean entriesAreMetadata;

    /**
     * @param entriesAreMetadata whether a partition entry is metadata only (Fetch: copied whole, as one range
     *     with its neighbours) or holds records sent as a slice (Produce: written one by one)
     */
    protected RequestSplitter(boolean entriesAreMetadata) {
        this.entriesAreMetadata = entriesAreMetadata;
    }

    /**
     * Builds the request holding the partitions {@code i} with {@code bits.get(i)} (when {@code bits}
     * is not null) or {@code routeOf[i] == route}. The parts of one split, built one route after another,
     * share one sort of {@code routeOf} ({@link RouteIndex}): each part then reads only its own partitions.
     *
     * @param skim the client's request (borrowed)
     * @return the whole frame, size prefix included; the caller takes ownership
     */
    protected final ByteBuf split(S skim, BitSet bits, int[] routeOf, int route, int correlationId,
                                  ByteBufAllocator alloc) {
        int slot = bits != null ? index.select(skim, bits) : index.slot(skim, routeOf, route);
        index.describe(slot, skim, this);
        UpstreamTopicKeys keys = topicKeys;
        boolean perPartition = keys != null && keys.keysPerPartition();
        if (perPartition && !keyBlocks(keys, skim.partitionCount())) {
            return splitByPartitionKey(skim, keys, correlationId, alloc);
        }
        ByteBuf src = skim.buffer();
        TopicTable topics = skim.topics;
        boolean flexible = skim.flexible();
        boolean topicIds = skim.usesTopicIds();
        int runs = index.runCount();
        int entries = perPartition ? blockCount : runs;
        long keyGrowth = 0;
        if (keys != null) {
            for (int b = 0; b < entries; b++) {
                int t = perPartition ? blockTopic[b] : index.runTopic(b);
                byte[] key = perPartition ? blockKey[b] : keys.upstreamKey(t);
                int clientKeyBytes = topics.keyEnd(t) - topics.entryOffset(t);
                int keyBytes = key == null ? clientKeyBytes : encodedKeySize(skim, t, key, topicIds, flexible);
                // a run cut into blocks writes a topic entry per block: the extra ones in full
                keyGrowth += perPartition && (b > 0 && blockTopic[b - 1] == t)
                        ? keyBytes + MAX_ARRAY_LENGTH_BYTES + topics.endOffset(t) - topics.taggedOffset(t)
                        : Math.max(0, keyBytes - clientKeyBytes);
            }
        }
        RequestHeaderView header = skim.header();
        long hint = metadataBytesOutsideTopics(skim, RequestHeaderCopy.size(header, clientId))
                + index.partitionBytes() + index.runBytes() + keyGrowth;
        out.begin(alloc, (int) Math.min(Integer.MAX_VALUE, hint));
        try {
            RequestHeaderCopy.write(out, header, correlationId, clientId);
            writeBeforeTopics(skim);
            WireWrite.writeArrayLength(out.meta(MAX_ARRAY_LENGTH_BYTES), flexible, entries);
            for (int b = 0; b < entries; b++) {
                int t = perPartition ? blockTopic[b] : index.runTopic(b);
                int first = perPartition ? blockStart[b] : index.runStart(b);
                int end = perPartition ? blockStart[b + 1] : index.runStart(b + 1);
                writeTopicHead(skim, t, keys == null ? null : perPartition ? blockKey[b] : keys.upstreamKey(t), end - first);
                writeMembers(skim, first, end);
                out.copy(src, topics.taggedOffset(t), topics.endOffset(t));       // topic tagged fields
            }
            writeAfterTopics(skim);
            return out.finish();
        } catch (RuntimeException | Error e) {
            out.abort();
            throw e;
        } finally {
            if (perPartition) {
                Arrays.fill(blockKey, 0, blockCount, null); // keep no reference to the caller's keys
                blockCount = 0;
            }
        }
    }

    /**
     * Writes the entries of member positions {@code first .. end - 1} (one topic entry's partitions). Metadata
     * entries of partitions adjacent in the client's request are adjacent on the wire: each such stretch is
     * one copy, with the indexes patched after it — a Fetch to one broker is a handful of copies, not one
     * per partition.
     */
    private void writeMembers(S skim, int first, int end) {
        if (!entriesAreMetadata) {
            for (int m = first; m < end; m++) {
                writePartition(skim, index.member(m));
            }
            return;
        }
        int m = first;
        while (m < end) {
            int from = index.member(m);
            int next = m + 1;
            if (index.member(end - 1) - from == end - 1 - m) {
                next = end;                             // members ascend: the rest is one stretch
            } else {
                while (next < end && index.member(next) == index.member(next - 1) + 1) {
                    next++;
                }
            }
            copyEntries(skim, from, from + next - m);
            m = next;
        }
    }

    /** Copies the adjacent metadata entries of partitions {@code from .. to - 1} as one range, their indexes patched. */
    private void copyEntries(S skim, int from, int to) {
        int start = skim.partitionOffset(from);
        int length = skim.partitionEnd(to - 1) - start;
        ByteBuf meta = out.meta(length);
        int at = meta.writerIndex();
        meta.writeBytes(skim.buffer(), start, length);
        UpstreamPartitions upstream = partitions;
        if (upstream == null) {
            return;
        }
        int[] numbers = upstream.upstreamPartitions();
        if (numbers != null && meta.hasMemoryAddress()) {
            patchIndexes(meta.memoryAddress() + at - start, skim.partitionOffsets(), numbers, from, to);
            return;
        }
        // one bounds check for the stretch, then plain stores: ByteBuf.setInt's checks cost more than the store
        ByteBuffer written = meta.internalNioBuffer(at, length);
        int base = written.position() - start;
        for (int i = from; i < to; i++) {
            int number = upstream.upstreamPartition(i);
            if (number >= 0) {
                written.putInt(base + skim.partitionOffset(i), number);
            }
        }
    }

    /**
     * Stores each renumbered partition's index (big-endian) at {@code base + offsets[i]}: the copied entries
     * of partitions {@code from .. to - 1}, whose client offsets all lie in the copied range (the skim read
     * every entry's leading int32 there), so no store leaves it. Locals only: the loop is two loads and a
     * store per partition, where {@link ByteBuffer#putInt(int, int)} re-reads its bounds and order each time.
     */
    private static void patchIndexes(long base, int[] offsets, int[] numbers, int from, int to) {
        boolean swap = !PlatformDependent.BIG_ENDIAN_NATIVE_ORDER;
        for (int i = from; i < to; i++) {
            int number = numbers[i];
            if (number >= 0) {
                PlatformDependent.putInt(base + offsets[i], swap ? Integer.reverseBytes(number) : number);
            }
        }
    }

    /**
     * Cuts the slot's runs (a client topic's chosen partitions) into <em>blocks</em>, consecutive partitions
     * sent under the same key array, and answers whether the blocks can be written as they come: every key
     * set (not the client's own, which groups by its bytes with other topics) and no two blocks under keys
     * of the same bytes. That is what a partition weave's plan gives — a client topic's partitions lie in
     * runs of segments, each segment one key array — and it writes the same topics array as grouping by
     * key would, in wire order, without the grouping: one hash per block, and per partition one reference
     * compare, or none where the keys tell a segment's stretch ({@link UpstreamTopicKeys#keyStretchEnd})
     * and this run holds all of it. When false the blocks are dropped and the caller groups.
     */
    private boolean keyBlocks(UpstreamTopicKeys keys, int partitionCount) {
        blockCount = 0;
        sizeSlots(partitionCount);
        boolean ok = true;
        int runs = index.runCount();
        for (int r = 0; r < runs && ok; r++) {
            int t = index.runTopic(r);
            int end = index.runStart(r + 1);
            int m = index.runStart(r);
            while (m < end) {
                int i = index.member(m);
                byte[] key = keys.upstreamKey(t, i);
                int stretchEnd = keys.keyStretchEnd(i);
                if (key == null || !addBlock(t, m, key,
                        stretchEnd > i ? keys.keyStretchHash(t, i) : UpstreamKeyHash.of(key))) {
                    ok = false;
                    break;
                }
                int next = m + 1;
                int stretch = Math.min(stretchEnd - i, end - m);
                if (stretch > 1 && index.member(m + stretch - 1) - i == stretch - 1) {
                    next = m + stretch;                 // members ascend: the whole stretch is in this run
                }
                while (next < end && keys.upstreamKey(t, index.member(next)) == key) {
                    next++;
                }
                m = next;
            }
        }
        for (int b = 0; b < blockCount; b++) {
            if (blockSlot[b] >= 0) {
                slots[blockSlot[b]] = 0;
            }
        }
        if (!ok) {
            Arrays.fill(blockKey, 0, blockCount, null);
            blockCount = 0;
            return false;
        }
        blockStart[blockCount] = index.runStart(runs);
        return true;
    }

    /**
     * Adds a block starting at member {@code m} under {@code key}, whose hash is
     * {@code hash} ({@link UpstreamKeyHash#of}); false when an earlier block has a key of the same bytes.
     */
    private boolean addBlock(int t, int m, byte[] key, int hash) {
        if (blockCount + 1 >= blockStart.length) {
            int n = (blockCount + 1) * 2;
            blockTopic = Arrays.copyOf(blockTopic, n);
            blockStart = Arrays.copyOf(blockStart, n);
            blockKey = Arrays.copyOf(blockKey, n);
            blockSlot = Arrays.copyOf(blockSlot, n);
        }
        int b = blockCount++;
        blockTopic[b] = t;
        blockStart[b] = m;
        blockKey[b] = key;
        blockSlot[b] = -1;
        int slot = hash & slotMask;
        for (int s; (s = slots[slot]) != 0; slot = (slot + 1) & slotMask) {
            byte[] other = blockKey[s - 1];
            if (other == key || Arrays.equals(other, key)) {
                return false;
            }
        }
        slots[slot] = b + 1;
        blockSlot[b] = slot;
        return true;
    }

    /**
     * {@link #split} when keys are per partition: the slot's partitions grouped by the key sent for each,
     * one topic entry per group.
     */
    private ByteBuf splitByPartitionKey(S skim, UpstreamTopicKeys keys, int correlationId, ByteBufAllocator alloc) {
        ByteBuf src = skim.buffer();
        TopicTable topics = skim.topics;
        boolean flexible = skim.flexible();
        boolean topicIds = skim.usesTopicIds();
        startGroups(skim.partitionCount());
        long topicEntryBytes = 0;
        try {
            for (int r = 0; r < index.runCount(); r++) {
                int t = index.runTopic(r);
                int last = -1;
                for (int m = index.runStart(r); m < index.runStart(r + 1); m++) {
                    int i = index.member(m);
                    byte[] key = keys.upstreamKey(t, i);
                    int g;
                    if (last >= 0 && groupKey[last] == key && (key != null || groupTopic[last] == t)) {
                        g = last;                                   // the usual case: same key as the previous one
                    } else {
                        int before = groupCount;
                        g = group(src, topics, t, key);
                        if (g == before) {
                            int keyBytes = key == null ? topics.keyEnd(t) - topics.entryOffset(t)
                                    : encodedKeySize(skim, t, key, topicIds, flexible);
                            topicEntryBytes += keyBytes + MAX_ARRAY_LENGTH_BYTES + topics.endOffset(t) - topics.taggedOffset(t);
                        }
                    }
                    nextInGroup[i] = -1;
                    if (groupSize[g]++ == 0) {
                        groupHead[g] = i;
                    } else {
                        nextInGroup[groupTail[g]] = i;
                    }
                    groupTail[g] = i;
                    last = g;
                }
            }
            RequestHeaderView header = skim.header();
            long hint = metadataBytesOutsideTopics(skim, RequestHeaderCopy.size(header, clientId))
                    + index.partitionBytes() + topicEntryBytes;
            out.begin(alloc, (int) Math.min(Integer.MAX_VALUE, hint));
            try {
                RequestHeaderCopy.write(out, header, correlationId, clientId);
                writeBeforeTopics(skim);
                WireWrite.writeArrayLength(out.meta(MAX_ARRAY_LENGTH_BYTES), flexible, groupCount);
                for (int g = 0; g < groupCount; g++) {
                    int t = groupTopic[g];
                    writeTopicHead(skim, t, groupKey[g], groupSize[g]);
                    for (int i = groupHead[g]; i >= 0; i = nextInGroup[i]) {
                        writePartition(skim, i);
                    }
                    out.copy(src, topics.taggedOffset(t), topics.endOffset(t));       // topic tagged fields
                }
                writeAfterTopics(skim);
                return out.finish();
            } catch (RuntimeException | Error e) {
                out.abort();
                throw e;
            }
        } finally {
            Arrays.fill(groupKey, 0, groupCount, null); // keep no reference to the caller's keys
            for (int g = 0; g < groupCount; g++) {
                slots[groupSlot[g]] = 0;                // the table is empty again without a fill
            }
            groupCount = 0;
        }
    }

    /** Readies the group tables for a request of {@code partitionCount} partitions. */
    private void startGroups(int partitionCount) {
        groupCount = 0;
        if (nextInGroup.length < partitionCount) {
            nextInGroup = new int[Math.max(partitionCount, nextInGroup.length * 2)];
        }
        sizeSlots(partitionCount);
    }

    /** Makes {@link #slots} at least twice as large as {@code partitionCount} (it is empty between splits). */
    private void sizeSlots(int partitionCount) {
        int table = Math.max(16, Integer.highestOneBit(Math.max(1, partitionCount) * 2 - 1) << 1);
        if (slots.length < table) {
            slots = new int[table];                     // zeroed; each split clears the slots it used
        }
        slotMask = slots.length - 1;
    }

    /**
     * The group of partitions sent under {@code key} (null: the client's key of topic {@code t}), added
     * when new. Keys are equal when their bytes are.
     */
    private int group(ByteBuf src, TopicTable topics, int t, byte[] key) {
        if (key != null) {
            // planners hand out one array per upstream key: a few groups are found by identity, unhashed
            for (int g = Math.max(0, groupCount - 8); g < groupCount; g++) {
                if (groupKey[g] == key) {
                    return g;
                }
            }
        }
        int hash = key != null ? TopicTable.keyHash(key) : TopicTable.keyHash(src, topics, t);
        int slot = hash & slotMask;
        for (int s; (s = slots[slot]) != 0; slot = (slot + 1) & slotMask) {
            int g = s - 1;
            if (groupHash[g] == hash && sameKey(src, topics, g, t, key)) {
                return g;
            }
        }
        if (groupCount == groupTopic.length) {
            int n = groupCount * 2;
            groupTopic = Arrays.copyOf(groupTopic, n);
            groupHash = Arrays.copyOf(groupHash, n);
            groupSize = Arrays.copyOf(groupSize, n);
            groupHead = Arrays.copyOf(groupHead, n);
            groupTail = Arrays.copyOf(groupTail, n);
            groupKey = Arrays.copyOf(groupKey, n);
            groupSlot = Arrays.copyOf(groupSlot, n);
        }
        int g = groupCount++;
        groupTopic[g] = t;
        groupHash[g] = hash;
        groupSize[g] = 0;
        groupKey[g] = key;
        groupSlot[g] = slot;
        slots[slot] = g + 1;
        return g;
    }

    /** True when group {@code g} is sent under the same key bytes as {@code key} (null: topic {@code t}'s own). */
    private boolean sameKey(ByteBuf src, TopicTable topics, int g, int t, byte[] key) {
        byte[] own = groupKey[g];
        int ownTopic = groupTopic[g];
        if (own != null && key != null) {
            return own == key || Arrays.equals(own, key);
        }
        if (own == null && key == null) {
            return ownTopic == t || TopicTable.sameKey(src, topics, ownTopic, src, topics, t);
        }
        return own == null ? TopicTable.sameKey(src, topics, ownTopic, key) : TopicTable.sameKey(src, topics, t, own);
    }

    /**
     * Copies partition {@code i}'s entry from its start up to {@code to} (not past its records field) into
     * the frame, its leading int32 the {@linkplain #partitions upstream index} when one is set: 4 new
     * bytes and the client's bytes after them. Borrows the skim's frame.
     */
    protected final void copyPartitionHead(S skim, int i, int to) {
        ByteBuf src = skim.buffer();
        int from = skim.partitionOffset(i);
        int upstream = partitions == null ? UpstreamPartitions.CLIENT_INDEX : partitions.upstreamPartition(i);
        if (upstream < 0) {
            out.copy(src, from, to);
            return;
        }
        ByteBuf meta = out.meta(to - from);
        meta.writeInt(upstream);
        meta.writeBytes(src, from + Integer.BYTES, to - from - Integer.BYTES);
    }

    /**
     * Bytes topic {@code t}'s replacement key takes on the wire, length prefix included.
     *
     * @throws IllegalArgumentException when the key cannot be written at the skim's version: not
     *     {@value TopicTable#TOPIC_ID_BYTES} bytes where topics are identified by id, or a name longer
     *     than {@value Short#MAX_VALUE} bytes
     */
    private static int encodedKeySize(RequestSkim skim, int t, byte[] key, boolean topicIds, boolean flexible) {
        if (topicIds) {
            if (key.length != TopicTable.TOPIC_ID_BYTES) {
                throw new IllegalArgumentException("upstream key of topic " + t + " has " + key.length
                        + " bytes; a topic id (" + skim.api + " v" + skim.version() + ") takes "
                        + TopicTable.TOPIC_ID_BYTES);
            }
            return TopicTable.TOPIC_ID_BYTES;
        }
        if (key.length > Short.MAX_VALUE) {
            throw new IllegalArgumentException("upstream name of topic " + t + " has " + key.length
                    + " bytes; a topic name takes at most " + Short.MAX_VALUE);
        }
        return WireWrite.sizeOfStringLength(flexible, key.length) + key.length;
    }

    /**
     * Writes a topic entry's key — the client's as encoded (null {@code key}), else 16 id bytes or a
     * (compact) string length and the name bytes — and its partition count, into one reserved range: a
     * split writes a topic entry per part that holds the topic, so an N-way split writes up to N times
     * as many, and each reservation costs.
     */
    private void writeTopicHead(S skim, int t, byte[] key, int partitionCount) {
        TopicTable topics = skim.topics;
        boolean flexible = skim.flexible();
        int keyBytes = key == null ? topics.keyEnd(t) - topics.entryOffset(t)
                : encodedKeySize(skim, t, key, skim.usesTopicIds(), flexible);
        ByteBuf meta = out.meta(keyBytes + MAX_ARRAY_LENGTH_BYTES);
        if (key == null) {
            meta.writeBytes(skim.buffer(), topics.entryOffset(t), keyBytes);
        } else {
            if (!skim.usesTopicIds()) {
                WireWrite.writeStringLength(meta, flexible, key.length);
            }
            meta.writeBytes(key);
        }
        WireWrite.writeArrayLength(meta, flexible, partitionCount);
    }

    /**
     * An upper bound of the frame's metadata bytes outside the topics array's entries (size prefix, header
     * of {@code headerBytes}, the fields around the topics, the topics count): with the chosen entries'
     * bytes, the part's metadata chunk size (see {@link FrameAssembler#begin}).
     */
    protected abstract int metadataBytesOutsideTopics(S skim, int headerBytes);

    /** Bytes partition {@code i}'s entry adds to the frame's metadata: all of it but its records. */
    protected abstract int partitionMetadataBytes(S skim, int i);

    /** Writes the body fields before the topics array. */
    protected abstract void writeBeforeTopics(S skim);

    /** Writes the entry of chosen partition {@code i}. */
    protected abstract void writePartition(S skim, int i);

    /** Writes the body from the end of the topics array on. */
    protected abstract void writeAfterTopics(S skim);
}
