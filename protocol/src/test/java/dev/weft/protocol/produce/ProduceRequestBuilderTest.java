package dev.weft.protocol.produce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.protocol.skim.Seeds;
import dev.weft.protocol.skim.SkimAsserts;
import dev.weft.protocol.skim.SkimFrames;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Random;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceRequestData.TopicProduceData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Split a skimmed Produce request by route, parse every part back with kafka-clients. */
class ProduceRequestBuilderTest {

    static short[] versions() {
        return ProduceCases.versions();
    }

    @ParameterizedTest(name = "Produce v{0}")
    @MethodSource("versions")
    void splitByRouteParsesBackToTheChosenPartitions(short version) {
        long seed = Seeds.seed();
        Random random = new Random(seed ^ (version * 0x9E3779B97F4A7C15L));
        ProduceRequestSkim skim = new ProduceRequestSkim();
        ProduceRequestBuilder builder = new ProduceRequestBuilder();
        Seeds.replayable(seed, "Produce v" + version + " split", () -> {
            for (int round = 0; round < 40; round++) {
                ProduceRequestData data = ProduceCases.request(random, version);
                String clientId = random.nextBoolean() ? "producer-" + round : null;
                ByteBuf frame = SkimFrames.request(ApiKeys.PRODUCE, version, 1000 + round, clientId, data);
                List<ByteBuf> built = new ArrayList<>();
                try {
                    skim.wrap(frame);
                    int routes = 1 + random.nextInt(4);
                    int[] routeOf = new int[skim.partitionCount()];
                    for (int i = 0; i < routeOf.length; i++) {
                        routeOf[i] = random.nextInt(routes);
                    }
                    for (int route = 0; route < routes; route++) {
                        int correlationId = random.nextInt();
                        ByteBuf part = builder.build(skim, routeOf, route, correlationId, SkimFrames.ALLOC);
                        built.add(part);
                        int r = route;
                        ProduceRequestData expected = ProduceCases.subset(data, i -> routeOf[i] == r);
                        assertParsesTo(part, version, correlationId, clientId, expected);
                    }
                    assertSharesRecordsWithFrame(skim, frame, built.get(0), routeOf, 0);
                } finally {
                    built.forEach(ByteBuf::release);
                    frame.release();
                }
            }
        });
    }

    @ParameterizedTest(name = "Produce v{0}")
    @MethodSource("versions")
    void splitByBitSetWithAnotherClientId(short version) {
        long seed = Seeds.seed();
        Random random = new Random(seed + version);
        ProduceRequestSkim skim = new ProduceRequestSkim();
        ProduceRequestBuilder builder = new ProduceRequestBuilder().clientId("weft-proxy/ü");
        Seeds.replayable(seed, "Produce v" + version + " bitset split", () -> {
            for (int round = 0; round < 20; round++) {
                ProduceRequestData data = ProduceCases.request(random, version);
                ByteBuf frame = SkimFrames.request(ApiKeys.PRODUCE, version, 7, "original", data);
                ByteBuf part = null;
                try {
                    skim.wrap(frame);
                    BitSet chosen = new BitSet();
                    for (int i = 0; i < skim.partitionCount(); i++) {
                        if (random.nextInt(3) == 0) {
                            chosen.set(i);
                        }
                    }
                    part = builder.build(skim, chosen, 99, SkimFrames.ALLOC);
                    assertParsesTo(part, version, 99, "weft-proxy/ü", ProduceCases.subset(data, chosen::get));
                } finally {
                    if (part != null) {
                        part.release();
                    }
                    frame.release();
                }
            }
        });
    }

    static void assertParsesTo(ByteBuf part, short version, int correlationId, String clientId, ProduceRequestData expected) {
        ByteBufferAccessor body = SkimAsserts.assertRequestHeader(part, ApiKeys.PRODUCE, version, correlationId, clientId);
        ProduceRequestData actual = new ProduceRequestData(body, version);
        SkimFrames.assertConsumed(body);
        assertEquals(topics(expected), topics(actual), "topics and partitions, in order");
        assertEquals(expected, actual);
    }

    private static List<TopicProduceData> topics(ProduceRequestData data) {
        return new ArrayList<>(data.topicData());
    }

    /** A chosen partition's records in the built frame are the frame's own memory: flip a byte, see it. */
    static void assertSharesRecordsWithFrame(ProduceRequestSkim skim, ByteBuf frame, ByteBuf part, int[] routeOf, int route) {
        for (int i = 0; i < skim.partitionCount(); i++) {
            if (routeOf[i] == route && skim.recordsLength(i) >= 16) {
                int at = skim.recordsOffset(i);
                byte before = frame.getByte(at);
                frame.setByte(at, before ^ 0x77);
                byte[] flipped = ByteBufUtil.getBytes(frame, at, 16);
                // search a heap snapshot of the split: byte-by-byte reads of PARANOID-tracked buffers are slow
                int where = ByteBufUtil.indexOf(Unpooled.wrappedBuffer(flipped), Unpooled.wrappedBuffer(ByteBufUtil.getBytes(part)));
                frame.setByte(at, before);
                assertTrue(where >= 0, "split reads the client's bytes of partition " + i + ": no copy");
                return;
            }
        }
    }
}
