package dev.weft.protocol.skim;

import dev.weft.protocol.header.RequestHeaderView;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
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
 * <p>The output is a whole frame, size prefix included, from a {@link FrameAssembler}; if writing
 * fails half-way everything taken is released. One instance per core, reused; not thread-safe.
 *
 * @param <S> the skim this splitter reads
 */
public abstract class RequestSplitter<S extends RequestSkim> {

    protected final FrameAssembler out = new FrameAssembler();
    /** The client id to write, or null to copy the client's. Kept by reference. */
    protected CharSequence clientId;
    /** The upstream topic keys, or null to send every topic key as the client sent it. Kept by reference. */
    protected UpstreamTopicKeys topicKeys;
    private int[] selectedPerTopic = new int[16];

    protected RequestSplitter() {
    }

    /**
     * Builds the request holding the partitions {@code i} with {@code bits.get(i)} (when {@code bits}
     * is not null) or {@code routeOf[i] == route}.
     *
     * @param skim the client's request (borrowed)
     * @return the whole frame, size prefix included; the caller takes ownership
     */
    protected final ByteBuf split(S skim, BitSet bits, int[] routeOf, int route, int correlationId,
                                  ByteBufAllocator alloc) {
        ByteBuf src = skim.buffer();
        TopicTable topics = skim.topics;
        boolean flexible = skim.flexible();
        int topicCount = topics.count();
        if (selectedPerTopic.length < topicCount) {
            selectedPerTopic = Arrays.copyOf(selectedPerTopic, Math.max(topicCount, selectedPerTopic.length * 2));
        }
        UpstreamTopicKeys keys = topicKeys;
        boolean topicIds = skim.usesTopicIds();
        int chosenTopics = 0;
        long keyGrowth = 0;
        for (int t = 0; t < topicCount; t++) {
            int first = topics.firstPartition(t);
            int n = 0;
            for (int i = first; i < first + topics.partitionCount(t); i++) {
                if (bits != null ? bits.get(i) : routeOf[i] == route) {
                    n++;
                }
            }
            selectedPerTopic[t] = n;
            if (n > 0) {
                chosenTopics++;
                byte[] key = keys == null ? null : keys.upstreamKey(t);
                if (key != null) {
                    int growth = encodedKeySize(skim, t, key, topicIds, flexible) - (topics.keyEnd(t) - topics.entryOffset(t));
                    keyGrowth += Math.max(0, growth);
                }
            }
        }
        RequestHeaderView header = skim.header();
        long hint = metadataBytesHint(skim, RequestHeaderCopy.size(header, clientId)) + keyGrowth;
        out.begin(alloc, (int) Math.min(Integer.MAX_VALUE, hint));
        try {
            RequestHeaderCopy.write(out, header, correlationId, clientId);
            writeBeforeTopics(skim);
            WireWrite.writeArrayLength(out.meta(5), flexible, chosenTopics);
            for (int t = 0; t < topicCount; t++) {
                if (selectedPerTopic[t] == 0) {
                    continue;
                }
                byte[] key = keys == null ? null : keys.upstreamKey(t);
                if (key == null) {
                    out.copy(src, topics.entryOffset(t), topics.keyEnd(t));  // the client's key, as encoded
                } else {
                    writeKey(key, topicIds, flexible);
                }
                WireWrite.writeArrayLength(out.meta(5), flexible, selectedPerTopic[t]);
                int first = topics.firstPartition(t);
                for (int i = first; i < first + topics.partitionCount(t); i++) {
                    if (bits != null ? bits.get(i) : routeOf[i] == route) {
                        writePartition(skim, i);
                    }
                }
                out.copy(src, topics.taggedOffset(t), topics.endOffset(t));       // topic tagged fields
            }
            writeAfterTopics(skim);
            return out.finish();
        } catch (RuntimeException | Error e) {
            out.abort();
            throw e;
        }
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

    /** Writes a replacement topic key: 16 id bytes, or a (compact) string length and the name bytes. */
    private void writeKey(byte[] key, boolean topicIds, boolean flexible) {
        if (topicIds) {
            out.meta(TopicTable.TOPIC_ID_BYTES).writeBytes(key);
        } else {
            ByteBuf meta = out.meta(WireWrite.sizeOfStringLength(flexible, key.length) + key.length);
            WireWrite.writeStringLength(meta, flexible, key.length);
            meta.writeBytes(key);
        }
    }

    /** Estimate of the metadata bytes of the frame, size prefix included (see {@link FrameAssembler#begin}). */
    protected abstract int metadataBytesHint(S skim, int headerBytes);

    /** Writes the body fields before the topics array. */
    protected abstract void writeBeforeTopics(S skim);

    /** Writes the entry of chosen partition {@code i}. */
    protected abstract void writePartition(S skim, int i);

    /** Writes the body from the end of the topics array on. */
    protected abstract void writeAfterTopics(S skim);
}
