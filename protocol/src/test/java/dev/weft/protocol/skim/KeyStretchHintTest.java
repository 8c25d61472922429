package dev.weft.protocol.skim;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.protocol.fetch.FetchCases;
import dev.weft.protocol.fetch.FetchRequestBuilder;
import dev.weft.protocol.fetch.FetchRequestSkim;
import dev.weft.protocol.produce.ProduceCases;
import dev.weft.protocol.produce.ProduceRequestBuilder;
import dev.weft.protocol.produce.ProduceRequestSkim;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The planning aids a route plan hands the splitters — {@link UpstreamTopicKeys#keyStretchEnd} (a
 * segment's partitions taken as one block) and {@link UpstreamPartitions#upstreamPartitions()} (a
 * stretch's indexes patched in one loop over raw memory) — change nothing on the wire: random
 * segment-shaped weaves (each topic cut into one to three segments, segment keys from a small pool, so
 * a key recurs in a later segment of the same topic and in other topics, sometimes as an equal copy;
 * partitions spread over up to three routes, by segment or one by one) are split once with the aids
 * and once without, and every part is byte-for-byte the same. The unaided path is checked against
 * kafka-clients by the renumbering tests.
 */
class KeyStretchHintTest {

    static short[] fetchVersions() {
        return FetchCases.versions();
    }

    static short[] produceVersions() {
        return ProduceCases.versions();
    }

    @ParameterizedTest(name = "Fetch v{0}")
    @MethodSource("fetchVersions")
    void fetchSplitsAreTheSameWithAndWithoutTheAids(short version) {
        FetchRequestSkim skim = new FetchRequestSkim();
        FetchRequestBuilder builder = new FetchRequestBuilder();
        splitsAreTheSame("Fetch v" + version, version >= FetchRequestSkim.FIRST_TOPIC_ID_VERSION,
                random -> skim.wrap(SkimFrames.request(ApiKeys.FETCH, version, random.nextInt(), "consumer",
                        FetchCases.request(random, version))),
                (keys, partitions, routeOf, route, correlationId) -> builder.reset().session(0, -1).topicKeys(keys)
                        .partitions(partitions).build(skim, routeOf, route, correlationId, SkimFrames.ALLOC));
    }

    @ParameterizedTest(name = "Produce v{0}")
    @MethodSource("produceVersions")
    void produceSplitsAreTheSameWithAndWithoutTheAids(short version) {
        ProduceRequestSkim skim = new ProduceRequestSkim();
        ProduceRequestBuilder builder = new ProduceRequestBuilder();
        splitsAreTheSame("Produce v" + version, version >= ProduceRequestSkim.FIRST_TOPIC_ID_VERSION,
                random -> skim.wrap(SkimFrames.request(ApiKeys.PRODUCE, version, random.nextInt(), "producer",
                        ProduceCases.request(random, version))),
                (keys, partitions, routeOf, route, correlationId) -> builder.reset().topicKeys(keys)
                        .partitions(partitions).build(skim, routeOf, route, correlationId, SkimFrames.ALLOC));
    }

    /** Skims a random request of one API and version (the skim owns the frame until it is released). */
    private interface RandomRequest {
        PartitionSkim next(Random random);
    }

    /** Builds one sub-request of the current request with the given keys and indexes. */
    private interface Split {
        ByteBuf build(UpstreamTopicKeys keys, UpstreamPartitions partitions, int[] routeOf, int route, int correlationId);
    }

    private static void splitsAreTheSame(String what, boolean ids, RandomRequest requests, Split split) {
        long seed = Seeds.seed();
        Random random = new Random(seed * 31 + what.hashCode());
        int[] parts = {0};
        Seeds.replayable(seed, what + " with and without planning aids", () -> {
            for (int round = 0; round < 25; round++) {
                PartitionSkim skim = requests.next(random);
                try {
                    Weave weave = Weave.random(random, skim, ids);
                    for (int route = 0; route < weave.routes; route++) {
                        int correlationId = random.nextInt();
                        parts[0] += weave.sends(route) ? 1 : 0;
                        assertSameBytes(split.build(weave.map.asKeys(), weave.map.asPartitions(), weave.routeOf, route,
                                        correlationId),
                                split.build(weave.map.asHintedKeys(weave.topicOf), weave.map.asArrayPartitions(),
                                        weave.routeOf, route, correlationId), weave, route);
                    }
                } finally {
                    skim.buffer().release();
                }
            }
        });
        assertTrue(parts[0] > 0, "some parts held partitions");
    }

    private static void assertSameBytes(ByteBuf plain, ByteBuf aided, Weave weave, int route) {
        try {
            assertTrue(ByteBufUtil.equals(plain, aided), () -> "part for route " + route + " differs with the aids ("
                    + weave.map + ", routes " + Arrays.toString(weave.routeOf) + ")");
        } finally {
            plain.release();
            aided.release();
        }
    }

    /** A segment-shaped weave of a skimmed request: keys, indexes and routes per flat partition. */
    private record Weave(TestPartitionMap map, int[] topicOf, int[] routeOf, int routes) {

        static Weave random(Random random, PartitionSkim skim, boolean ids) {
            int n = skim.partitionCount();
            byte[][] pool = new byte[4][];
            for (int k = 0; k < pool.length; k++) {
                pool[k] = ids ? UpstreamTopicKeys.topicIdKey(Uuid.randomUuid()) : UpstreamTopicKeys.nameKey("physical-" + k);
            }
            byte[][] keys = new byte[n][];
            int[] indexes = new int[n];
            int[] topicOf = new int[n];
            int routes = 1 + random.nextInt(3);
            int[] routeOf = new int[n];
            boolean routeBySegment = random.nextBoolean();
            Map<String, Integer> nextIndex = new HashMap<>();  // (key bytes, index) pairs stay unique
            for (int t = 0; t < skim.topicCount(); t++) {
                int first = skim.topicFirstPartition(t);
                int end = first + skim.topicPartitionCount(t);
                int segments = 1 + random.nextInt(3);
                byte[] key = null;
                int route = 0;
                for (int i = first; i < end; i++) {
                    topicOf[i] = t;
                    if (i == first || random.nextInt(Math.max(1, (end - first) / segments)) == 0) {
                        byte[] k = pool[random.nextInt(pool.length)];
                        key = random.nextInt(5) == 0 ? k.clone() : k;     // an equal copy groups with the original
                        route = random.nextInt(routes);
                    }
                    keys[i] = key;
                    indexes[i] = nextIndex.merge(Arrays.toString(key), 1, Integer::sum) * 3;
                    routeOf[i] = routeBySegment ? route : random.nextInt(routes);
                }
            }
            TestPartitionMap map = TestPartitionMap.of(keys, indexes, new String[n], new Uuid[n], indexes.clone());
            return new Weave(map, topicOf, routeOf, routes);
        }

        boolean sends(int route) {
            return Arrays.stream(routeOf).anyMatch(r -> r == route);
        }
    }
}
