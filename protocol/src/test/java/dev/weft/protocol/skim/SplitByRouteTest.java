package dev.weft.protocol.skim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.protocol.fetch.FetchCases;
import dev.weft.protocol.fetch.FetchRequestBuilder;
import dev.weft.protocol.fetch.FetchRequestSkim;
import dev.weft.protocol.produce.ProduceCases;
import dev.weft.protocol.produce.ProduceRequestBuilder;
import dev.weft.protocol.produce.ProduceRequestSkim;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.Random;
import java.util.function.BiFunction;
import java.util.function.Supplier;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The parts of a split built one route after another by one builder (every route's partitions found in
 * one walk, {@link RouteIndex}) are byte for byte the parts a fresh builder makes for each route alone
 * from a {@link java.util.BitSet} — in order, in reverse, with refused partitions (route -1), with routes
 * too sparse to count, after {@code routeOf} changed in place and after the skim moved on to another
 * request of as many partitions under the same routes — with the client's keys, renamed topics, and renumbered partitions with
 * per-partition keys. Produce v3–13 and Fetch v4–18.
 */
class SplitByRouteTest {

    enum Names { CLIENTS, RENAMED, RENUMBERED, WOVEN }

    /** What a split needs of one API. */
    record Api<S extends RequestSkim>(String name, ApiKeys key, BiFunction<Random, Short, ApiMessage> request,
                                      Supplier<S> skim, BiFunction<UpstreamTopicKeys, UpstreamPartitions, RequestSplitter<S>> builder) {
        @Override
        public String toString() {
            return name;
        }
    }

    static final Api<FetchRequestSkim> FETCH = new Api<>("Fetch", ApiKeys.FETCH, FetchCases::request,
            FetchRequestSkim::new, (keys, partitions) -> new FetchRequestBuilder().session(0, -1).maxBytes(1 << 20)
                    .topicKeys(keys).partitions(partitions));
    static final Api<ProduceRequestSkim> PRODUCE = new Api<>("Produce", ApiKeys.PRODUCE, ProduceCases::request,
            ProduceRequestSkim::new, (keys, partitions) -> new ProduceRequestBuilder().topicKeys(keys).partitions(partitions));

    static Stream<Arguments> cases() {
        return Stream.concat(
                IntStream.rangeClosed(FetchRequestSkim.OLDEST_VERSION, FetchRequestSkim.LATEST_VERSION)
                        .mapToObj(v -> Arguments.of(FETCH, (short) v)),
                IntStream.rangeClosed(ProduceRequestSkim.OLDEST_VERSION, ProduceRequestSkim.LATEST_VERSION)
                        .mapToObj(v -> Arguments.of(PRODUCE, (short) v)));
    }

    @ParameterizedTest(name = "{0} v{1}")
    @MethodSource("cases")
    <S extends RequestSkim> void everyRouteOfOneWalkEqualsEachRouteAlone(Api<S> api, short version) {
        long seed = Seeds.seed();
        Random random = new Random(seed ^ (version * 0x9E3779B97F4A7C15L) ^ api.key.id);
        Seeds.replayable(seed, api + " v" + version + " split by route", () -> {
            S skim = api.skim.get();
            S other = api.skim.get();
            for (int round = 0; round < 8; round++) { // 8 random requests per version and run: the seed differs every run (Seeds), so CI covers more over time
                ApiMessage data = api.request.apply(random, version);
                ByteBuf frame = SkimFrames.request(api.key, version, round, "client-" + round, data);
                try {
                    skimmed(skim, frame);
                    Names names = Names.values()[round % Names.values().length];
                    UpstreamTopicKeys keys = keys(random, skim, names);
                    UpstreamPartitions partitions = partitions(random, skim, names);
                    RequestSplitter<S> builder = api.builder.apply(keys, partitions);
                    int routes = 1 + random.nextInt(4);
                    int[] routeOf = new int[skim.partitionCount() + random.nextInt(3)]; // pooled arrays run longer
                    Arrays.fill(routeOf, 7);
                    for (int i = 0; i < skim.partitionCount(); i++) {
                        routeOf[i] = random.nextInt(6) == 0 ? -1 : random.nextInt(routes);   // -1: refused
                    }
                    String what = api + " v" + version + " round " + round + " " + names + ", routes " + Arrays.toString(routeOf);
                    assertSplit(api, skim, builder, keys, partitions, routeOf, routes, ascending(routes), what);
                    assertSplit(api, skim, builder, keys, partitions, routeOf, routes, descending(routes), what + " (reverse)");
                    for (int i = 0; i < skim.partitionCount(); i++) {
                        routeOf[i] = routeOf[i] < 0 ? 0 : routes - 1 - routeOf[i];          // changed in place
                    }
                    assertSplit(api, skim, builder, keys, partitions, routeOf, routes, ascending(routes), what + " (routes changed in place)");
                    int[] sparse = routeOf.clone();
                    for (int i = 0; i < skim.partitionCount(); i++) {
                        sparse[i] *= 1000;
                    }
                    int[] sparseRoutes = IntStream.range(0, routes).map(r -> r * 1000).toArray();
                    assertSplit(api, skim, builder, keys, partitions, sparse, routes, sparseRoutes, what + " (sparse)");
                    anotherRequestUnderTheSameRoutes(api, version, random, skim, other, builder, frame, round, routeOf, routes, what);
                } finally {
                    frame.release();
                }
            }
        });
    }

    /**
     * Rewraps the skim around another request with as many partitions in other topics, routed by the
     * same (unchanged) array, so the builder keeps its sort of the routes: the parts must be the new
     * request's, not the old one's.
     */
    private <S extends RequestSkim> void anotherRequestUnderTheSameRoutes(Api<S> api, short version, Random random, S skim,
            S scratch, RequestSplitter<S> builder, ByteBuf first, int round, int[] routeOf, int routes, String what) {
        int partitions = skim.partitionCount();
        int[] shape = shape(skim);
        for (int attempt = 0; attempt < 60; attempt++) {
            ByteBuf next = SkimFrames.request(api.key, version, round, "client-" + round, api.request.apply(random, version));
            try {
                skimmed(scratch, next);
                if (scratch.partitionCount() != partitions || Arrays.equals(shape(scratch), shape)) {
                    continue;
                }
                builder.split(skim, null, routeOf, 0, 5, SkimFrames.ALLOC).release(); // index the first request
                skimmed(skim, next);
                builder.topicKeys = null;                                               // they fit only the first
                builder.partitions = null;
                assertSplit(api, skim, builder, null, null, routeOf, routes, ascending(routes), what + " (another request)");
                return;
            } finally {
                skimmed(skim, first);
                next.release();
            }
        }
    }

    /** Builds the routes in {@code order} with {@code builder} and each alone with a fresh builder, and compares. */
    private static <S extends RequestSkim> void assertSplit(Api<S> api, S skim, RequestSplitter<S> builder, UpstreamTopicKeys keys,
            UpstreamPartitions partitions, int[] routeOf, int routes, int[] order, String what) {
        List<ByteBuf> parts = new ArrayList<>();
        try {
            for (int route : order) {
                parts.add(builder.split(skim, null, routeOf, route, route + 11, SkimFrames.ALLOC));
            }
            int sent = 0;
            for (int k = 0; k < order.length; k++) {
                BitSet chosen = new BitSet();
                for (int i = 0; i < skim.partitionCount(); i++) {
                    chosen.set(i, routeOf[i] == order[k]);
                }
                sent += chosen.cardinality();
                ByteBuf alone = api.builder.apply(keys, partitions).split(skim, chosen, null, 0, order[k] + 11, SkimFrames.ALLOC);
                try {
                    ByteBuf part = parts.get(k);
                    int route = order[k];
                    assertTrue(ByteBufUtil.equals(alone, part), () -> what + ", route " + route + ": "
                            + ByteBufUtil.hexDump(part) + " but alone " + ByteBufUtil.hexDump(alone));
                    assertEquals(part.readableBytes() - 4, part.getInt(part.readerIndex()), what + ": size prefix");
                } finally {
                    alone.release();
                }
            }
            int refused = (int) Arrays.stream(routeOf, 0, skim.partitionCount()).filter(r -> r < 0).count();
            assertEquals(skim.partitionCount(), sent + refused, what + ": every routed partition in one part");
            assertEquals(routes, order.length);
        } finally {
            parts.forEach(ByteBuf::release);
        }
    }

    private static void skimmed(RequestSkim skim, ByteBuf frame) {
        if (skim instanceof FetchRequestSkim fetch) {
            fetch.wrap(frame);
        } else {
            ((ProduceRequestSkim) skim).wrap(frame);
        }
    }

    private static int[] shape(RequestSkim skim) {
        return IntStream.range(0, skim.topicCount()).map(skim::topicPartitionCount).toArray();
    }

    private static int[] ascending(int routes) {
        return IntStream.range(0, routes).toArray();
    }

    private static int[] descending(int routes) {
        return IntStream.range(0, routes).map(r -> routes - 1 - r).toArray();
    }

    private static UpstreamTopicKeys keys(Random random, RequestSkim skim, Names names) {
        return switch (names) {
            case CLIENTS, RENUMBERED -> null;
            case RENAMED -> TestTopicKeys.random(random, topicNames(skim), topicIds(skim), skim.usesTopicIds()).asKeys();
            case WOVEN -> weave(random, skim).asKeys();
        };
    }

    private static UpstreamPartitions partitions(Random random, RequestSkim skim, Names names) {
        return names == Names.RENUMBERED || names == Names.WOVEN ? weave(random, skim).asPartitions() : null;
    }

    private static TestPartitionMap weave(Random random, RequestSkim skim) {
        int[] topicOf = IntStream.range(0, skim.partitionCount()).map(skim::partitionTopic).toArray();
        int[] indexOf = IntStream.range(0, skim.partitionCount()).map(skim::partitionIndex).toArray();
        return TestPartitionMap.random(random, topicNames(skim), topicIds(skim), topicOf, indexOf, skim.usesTopicIds());
    }

    private static List<String> topicNames(RequestSkim skim) {
        return IntStream.range(0, skim.topicCount()).mapToObj(t -> skim.usesTopicIds() ? "" : skim.topicName(t)).toList();
    }

    private static List<Uuid> topicIds(RequestSkim skim) {
        return IntStream.range(0, skim.topicCount()).mapToObj(t -> skim.usesTopicIds() ? skim.topicId(t) : Uuid.ZERO_UUID).toList();
    }
}
