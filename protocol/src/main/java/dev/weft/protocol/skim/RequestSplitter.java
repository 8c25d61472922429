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
 * <p>The output is a whole frame, size prefix included, from a {@link FrameAssembler}; if writing
 * fails half-way everything taken is released. One instance per core, reused; not thread-safe.
 *
 * @param <S> the skim this splitter reads
 */
public abstract class RequestSplitter<S extends RequestSkim> {

    protected final FrameAssembler out = new FrameAssembler();
    /** The client id to write, or null to copy the client's. Kept by reference. */
    protected CharSequence clientId;
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
        int chosenTopics = 0;
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
            }
        }
        RequestHeaderView header = skim.header();
        out.begin(alloc, metadataBytesHint(skim, RequestHeaderCopy.size(header, clientId)));
        try {
            RequestHeaderCopy.write(out, header, correlationId, clientId);
            writeBeforeTopics(skim);
            WireWrite.writeArrayLength(out.meta(5), flexible, chosenTopics);
            for (int t = 0; t < topicCount; t++) {
                if (selectedPerTopic[t] == 0) {
                    continue;
                }
                out.copy(src, topics.entryOffset(t), topics.keyEnd(t));
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

    /** Estimate of the metadata bytes of the frame, size prefix included (see {@link FrameAssembler#begin}). */
    protected abstract int metadataBytesHint(S skim, int headerBytes);

    /** Writes the body fields before the topics array. */
    protected abstract void writeBeforeTopics(S skim);

    /** Writes the entry of chosen partition {@code i}. */
    protected abstract void writePartition(S skim, int i);

    /** Writes the body from the end of the topics array on. */
    protected abstract void writeAfterTopics(S skim);
}
