package dev.weft.protocol.fetch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.weft.protocol.skim.Seeds;
import dev.weft.protocol.skim.SkimFrames;
import dev.weft.protocol.wire.MalformedFrameException;
import io.netty.buffer.ByteBuf;
import java.util.Random;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchRequestData.FetchPartition;
import org.apache.kafka.common.message.FetchRequestData.FetchTopic;
import org.apache.kafka.common.message.FetchRequestData.ForgottenTopic;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class FetchRequestSkimTest {

    static short[] versions() {
        return FetchCases.versions();
    }

    @ParameterizedTest(name = "Fetch v{0}")
    @MethodSource("versions")
    void skimMatchesKafkaClients(short version) {
        long seed = Seeds.seed();
        Random random = new Random(seed + 31L * version);
        FetchRequestSkim skim = new FetchRequestSkim();
        Seeds.replayable(seed, "Fetch v" + version + " request skim", () -> {
            for (int round = 0; round < 60; round++) {
                FetchRequestData data = FetchCases.request(random, version);
                int correlationId = random.nextInt();
                ByteBuf frame = SkimFrames.request(ApiKeys.FETCH, version, correlationId, "consumer-" + round, data);
                try {
                    skim.wrap(frame);
                    assertEquals(correlationId, skim.correlationId());
                    assertEquals(frame.writerIndex(), skim.endOffset());
                    assertSkim(data, skim, version);
                } finally {
                    frame.release();
                }
            }
        });
    }

    @ParameterizedTest(name = "Fetch v{0}")
    @MethodSource("versions")
    void bytesAfterTheMessageAreIgnoredAsTheBrokerIgnoresThem(short version) {
        long seed = Seeds.seed();
        Random random = new Random(seed - 17L * version);
        FetchRequestSkim skim = new FetchRequestSkim();
        FetchRequestBuilder builder = new FetchRequestBuilder().keepForgottenTopics(true);
        Seeds.replayable(seed, "Fetch v" + version + " trailing bytes", () -> {
            for (int round = 0; round < 20; round++) {
                FetchRequestData data = FetchCases.request(random, version);
                ByteBuf exact = SkimFrames.request(ApiKeys.FETCH, version, round, "client", data);
                int extra = 1 + random.nextInt(8);
                ByteBuf frame = SkimFrames.ALLOC.directBuffer().writeBytes(exact, exact.readerIndex(), exact.readableBytes());
                for (int i = 0; i < extra; i++) {
                    frame.writeByte(random.nextBoolean() ? 0 : random.nextInt(256));
                }
                ByteBuf part = null;
                try {
                    skim.wrap(frame);
                    assertEquals(exact.writerIndex(), skim.endOffset());
                    assertEquals(extra, skim.trailingBytes());
                    assertSkim(data, skim, version);
                    int[] all = new int[skim.partitionCount()];
                    part = builder.build(skim, all, 0, 99, SkimFrames.ALLOC);
                    FetchRequestBuilderTest.assertParsesTo(part, version, 99, "client", FetchRequestBuilderTest.subset(data, i -> true));
                    assertEquals(0, skim.wrap(exact).trailingBytes());
                } finally {
                    exact.release();
                    frame.release();
                    if (part != null) {
                        part.release();
                    }
                }
            }
        });
    }

    static void assertSkim(FetchRequestData data, FetchRequestSkim skim, short version) {
        assertEquals(version, skim.version());
        int replicaId = version >= FetchRequestSkim.FIRST_REPLICA_STATE_VERSION ? data.replicaState().replicaId() : data.replicaId();
        assertEquals(replicaId, skim.replicaId());
        assertEquals(data.replicaState().replicaEpoch(), skim.replicaEpoch());
        assertEquals(data.maxWaitMs(), skim.maxWaitMs());
        assertEquals(data.minBytes(), skim.minBytes());
        assertEquals(data.maxBytes(), skim.maxBytes());
        assertEquals(data.isolationLevel(), skim.isolationLevel());
        assertEquals(data.sessionId(), skim.sessionId());
        assertEquals(data.sessionEpoch(), skim.sessionEpoch());
        assertEquals(version >= FetchRequestSkim.FIRST_RACK_ID_VERSION ? data.rackId() : null, skim.rackId());
        assertEquals(data.clusterId(), skim.clusterId());
        assertEquals(data.topics().size(), skim.topicCount());
        int i = 0;
        int t = 0;
        for (FetchTopic topic : data.topics()) {
            if (skim.usesTopicIds()) {
                assertEquals(topic.topicId(), skim.topicId(t));
            } else {
                assertEquals(topic.topic(), skim.topicName(t));
            }
            assertEquals(topic.partitions().size(), skim.topicPartitionCount(t));
            assertEquals(i, skim.topicFirstPartition(t));
            for (FetchPartition p : topic.partitions()) {
                assertEquals(t, skim.partitionTopic(i));
                assertEquals(p.partition(), skim.partitionIndex(i));
                assertEquals(p.currentLeaderEpoch(), skim.currentLeaderEpoch(i));
                assertEquals(p.fetchOffset(), skim.fetchOffset(i));
                assertEquals(p.lastFetchedEpoch(), skim.lastFetchedEpoch(i));
                assertEquals(p.logStartOffset(), skim.logStartOffset(i));
                assertEquals(p.partitionMaxBytes(), skim.partitionMaxBytes(i));
                // the entry ends where kafka-clients says, with or without tagged fields (parsePartition's fast path)
                assertEquals(p.size(new ObjectSerializationCache(), version), skim.partitionEnd(i) - skim.partitionOffset(i));
                i++;
            }
            t++;
        }
        assertEquals(i, skim.partitionCount());
        assertEquals(data.forgottenTopicsData().size(), skim.forgottenTopicCount());
        int f = 0;
        for (ForgottenTopic forgotten : data.forgottenTopicsData()) {
            if (skim.usesTopicIds()) {
                assertEquals(forgotten.topicId(), skim.forgottenTopicId(f));
            } else {
                assertEquals(forgotten.topic(), skim.forgottenTopicName(f));
            }
            assertEquals(forgotten.partitions().size(), skim.forgottenPartitionCount(f));
            for (int j = 0; j < forgotten.partitions().size(); j++) {
                assertEquals(forgotten.partitions().get(j), skim.forgottenPartition(f, j));
            }
            f++;
        }
    }

    /**
     * Partitions without tagged fields (a consumer's) and with them (a follower's replica_directory_id)
     * side by side, and the frame cut just before the last entry's tagged-field count: the no-tags fast
     * path and the full skip must agree on every entry's end and refuse the cut alike.
     */
    @Test
    void partitionsWithAndWithoutTaggedFieldsAndACutCountByte() {
        short version = 17;
        FetchTopic topic = new FetchTopic().setTopicId(Uuid.randomUuid());
        for (int p = 0; p < 4; p++) {
            FetchPartition partition = new FetchPartition().setPartition(p).setFetchOffset(1000L + p).setPartitionMaxBytes(1 << 20);
            if (p % 2 == 1) {
                partition.setReplicaDirectoryId(Uuid.randomUuid());
            }
            topic.partitions().add(partition);
        }
        FetchRequestData data = new FetchRequestData().setSessionEpoch(-1);
        data.topics().add(topic);
        ByteBuf frame = SkimFrames.request(ApiKeys.FETCH, version, 3, "consumer", data);
        try {
            FetchRequestSkim skim = new FetchRequestSkim().wrap(frame);
            assertSkim(data, skim, version);
            assertEquals(0, frame.getByte(skim.partitionEnd(2) - 1), "partition 2 has no tagged fields");
            int lastCount = skim.partitionEnd(3) - 16 - 1 - 1 - 1; // before the directory id, its size, its tag: the count
            assertEquals(1, frame.getByte(lastCount));
            ByteBuf cut = frame.slice(0, lastCount);
            MalformedFrameException e = assertThrows(MalformedFrameException.class, () -> new FetchRequestSkim().wrap(cut));
            assertEquals(true, e.getMessage().contains("unsigned varint"), e.getMessage());
            ByteBuf cutAtNoTags = frame.slice(0, skim.partitionEnd(2) - 1);
            assertThrows(MalformedFrameException.class, () -> new FetchRequestSkim().wrap(cutAtNoTags));
        } finally {
            frame.release();
        }
    }

    @Test
    void refusesOtherApisAndVersions() {
        ByteBuf frame = SkimFrames.request(ApiKeys.FETCH, (short) 12, 1, "c", new FetchRequestData());
        try {
            frame.setShort(2, 3);
            assertThrows(MalformedFrameException.class, () -> new FetchRequestSkim().wrap(frame));
            frame.setShort(0, 0);
            assertThrows(IllegalArgumentException.class, () -> new FetchRequestSkim().wrap(frame));
        } finally {
            frame.release();
        }
    }
}
