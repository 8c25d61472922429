package dev.weft.routing.branch;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.protocol.produce.ProduceRequestSkim;
import dev.weft.routing.RealTopic;
import dev.weft.routing.Router;
import dev.weft.routing.RouterRegistry;
import dev.weft.routing.TopicRouting;
import dev.weft.routing.api.HotCatalog;
import dev.weft.routing.api.HotContext;
import dev.weft.routing.api.RoutePlan;
import dev.weft.routing.api.TopicNameCache;
import dev.weft.routing.dag.ClusterTarget;
import dev.weft.routing.dag.InvalidRoutingException;
import dev.weft.routing.dag.RouteSpec;
import dev.weft.routing.dag.RouteTarget;
import dev.weft.routing.dag.RouterSpec;
import dev.weft.routing.dag.RouterTarget;
import dev.weft.routing.dag.RoutingGraph;
import dev.weft.routing.dag.RoutingProblem;
import dev.weft.routing.topology.PartitionLeadership;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.compress.Compression;
import org.junit.jupiter.api.Test;

class BranchRouterTest {

    private static final List<RouteSpec> ROUTES = List.of(new RouteSpec("prod", new ClusterTarget("prod")),
            new RouteSpec("staging", new ClusterTarget("staging")));
    private static final Uuid ORDERS = Uuid.randomUuid();
    private static final Uuid PAYMENTS = Uuid.randomUuid();
    private static final Uuid SHADOW_ORDERS = Uuid.randomUuid();

    private static Map<String, Object> settings(Object... branchRoute) {
        return Map.of("type", "branch", "routes", List.of(Map.of("name", "prod"), Map.of(branchRoute[0].toString(), branchRoute[1],
                "naming", Map.of("prefix", "shadow."))));
    }

    private static Router router(List<RoutingProblem> problems) {
        return RouterRegistry.standard().create(new RouterSpec("shadow", "branch", ROUTES,
                settings("topics", Map.of("include", List.of("orders")))), problems);
    }

    private static TopicRouting catalog(Router router) {
        return router.catalog(List.of(List.of(new RealTopic("orders", ORDERS), new RealTopic("payments", PAYMENTS)),
                List.of(new RealTopic("shadow.orders", SHADOW_ORDERS), new RealTopic("staging-only", Uuid.randomUuid()))));
    }

    @Test
    void clientsSeeThePrimaryOnly() {
        List<RoutingProblem> problems = new ArrayList<>();
        Router router = router(problems);
        assertEquals(List.of(), problems);
        assertEquals("branch", router.type());
        TopicRouting topics = catalog(router);
        assertEquals(Set.of("orders", "payments"), Set.copyOf(topics.visibleTopics().stream().map(t -> t.virtualName()).toList()));
        assertNull(topics.resolve("shadow.orders"));
        assertNull(topics.resolve("staging-only"));
        assertEquals(0, router.groups().homeRoute("any-group"));
        assertEquals(0, router.transactions().homeRoute("any-txn"));
        assertEquals(false, router.nestable());
    }

    @Test
    void settingsProblemsNameTheirPath() {
        List<RoutingProblem> problems = new ArrayList<>();
        assertNull(RouterRegistry.standard().create(new RouterSpec("shadow", "branch", ROUTES.subList(0, 1),
                Map.of("type", "branch", "routes", List.of(Map.of("name", "prod", "topics", Map.of())), "collisions", "qualify")), problems));
        List<String> paths = problems.stream().map(RoutingProblem::path).toList();
        assertTrue(paths.contains("routers.shadow.routes"), problems.toString());
        assertTrue(paths.contains("routers.shadow.routes[0].topics"), problems.toString());
        assertTrue(paths.contains("routers.shadow.collisions"), problems.toString());
        problems.clear();
        assertNull(RouterRegistry.standard().create(new RouterSpec("shadow", "branch",
                List.of(ROUTES.get(0), new RouteSpec("inner", new RouterTarget("w"))), null), problems));
        assertEquals("routers.shadow.routes[1].target", problems.getFirst().path(), problems.toString());
        problems.clear();
        assertNull(RouterRegistry.standard().create(new RouterSpec("shadow", "branch", ROUTES,
                settings("qualify", "x.")), problems));
        assertEquals("routers.shadow.routes[1].qualify", problems.getFirst().path(), problems.toString());
    }

    @Test
    void aBranchUnderAnotherRouterIsRefused() {
        Map<String, RouterSpec> routers = Map.of(
                "shadow", new RouterSpec("shadow", "branch", ROUTES, null),
                "w", new RouterSpec("w", "topic-weave", List.of(new RouteSpec("b", new RouterTarget("shadow")),
                        new RouteSpec("other", new ClusterTarget("other"))), null));
        RoutingGraph graph = RoutingGraph.build(routers, Set.of("prod", "staging", "other"),
                Map.<String, RouteTarget>of("main", new RouterTarget("w")));
        InvalidRoutingException e = assertThrows(InvalidRoutingException.class, () -> RouterRegistry.standard().createAll(graph));
        assertEquals("routers.w.routes[0].target", e.problems().getFirst().path());
        assertTrue(e.problems().getFirst().message().contains("cannot sit under another router"), e.getMessage());
    }

    @Test
    void aProduceIsCopiedToTheBranchLeaderOfEachAcceptedPartition() {
        Router router = router(new ArrayList<>());
        HotCatalog hot = HotCatalog.of(catalog(router));
        for (short version : new short[] {9, 13}) {
            boolean ids = version >= 13;
            PartitionLeadership staging = PartitionLeadership.empty().merge(new MetadataResponseData().setTopics(
                    new MetadataResponseData.MetadataResponseTopicCollection(List.of(new MetadataResponseData.MetadataResponseTopic()
                            .setName("shadow.orders").setTopicId(SHADOW_ORDERS).setPartitions(List.of(
                                    new MetadataResponseData.MetadataResponsePartition().setPartitionIndex(0).setLeaderId(7)
                                            .setReplicaNodes(List.of(7)).setIsrNodes(List.of(7))))).iterator())));
            HotContext ctx = context(hot, staging);
            ByteBuf frame = produce(version, List.of("orders", "payments"), List.of(ORDERS, PAYMENTS), new int[][] {{0, 1}, {0}});
            try {
                ProduceRequestSkim skim = new ProduceRequestSkim().wrap(frame);
                RoutePlan plan = new RoutePlan(new TopicNameCache()).reset(skim);
                router.hotPlanner().plan(skim, ctx, plan);
                assertEquals(RoutePlan.Kind.BRANCH, plan.kind(skim.partitionCount()), "v" + version);
                assertEquals(3, plan.routed(), "the primary sends every partition");
                assertEquals(1, plan.targetCount());
                assertEquals(RoutePlan.OWN_BROKER, plan.targetBroker(0));
                assertEquals(1, plan.copyCount(), "orders p0 is copied; payments is not a branch topic");
                assertEquals(0, plan.copyPartition(0));
                assertEquals(0, plan.copyUpstreamPartition(0));
                int side = plan.copySide(0);
                assertEquals(1, plan.sideLeaf(side));
                assertEquals(7, plan.sideBroker(side));
                byte[] key = ids ? ByteBuffer.allocate(16).putLong(SHADOW_ORDERS.getMostSignificantBits())
                        .putLong(SHADOW_ORDERS.getLeastSignificantBits()).array() : "shadow.orders".getBytes(StandardCharsets.UTF_8);
                assertArrayEquals(key, plan.copyKey(0));
                assertEquals(1, plan.unplacedCopies(), "orders p1 has no known leader on the branch");
                assertEquals(1L << 1, plan.unplacedRoutes());
                assertEquals(1, plan.unplacedCopies(1));
                plan.reset(skim);
                assertEquals(0, plan.copyCount() + plan.unplacedCopies() + plan.unplacedCopies(1) + plan.sideTargetCount(), "reset empties the copies");
            } finally {
                frame.release();
            }
        }
    }

    private static Map<String, Object> transformedSettings(Map<String, Object> branch) {
        Map<String, Object> route = new java.util.HashMap<>(branch);
        route.put("name", "staging");
        route.put("topics", Map.of("include", List.of("orders")));
        route.put("naming", Map.of("prefix", "shadow."));
        return Map.of("type", "branch", "routes", List.of(Map.of("name", "prod"), route));
    }

    @Test
    void transformsAreCheckedAtStartWithTheirPath() {
        List<RoutingProblem> problems = new ArrayList<>();
        Object redact = List.of(Map.of("redact", Map.of("value-fields", List.of("$.customer.email"), "salt", "pepper")));
        Router router = RouterRegistry.standard().create(new RouterSpec("shadow", "branch", ROUTES,
                transformedSettings(Map.of("transforms", redact))), problems);
        assertEquals(List.of(), problems);
        assertNull(router.sideTransforms(0), "the primary is not transformed");
        assertEquals("routers.shadow.routes[1].transforms", router.sideTransforms(1).path());
        assertNull(router.sideTransforms(1).fixedTopic());

        assertNull(RouterRegistry.standard().create(new RouterSpec("shadow", "branch", ROUTES,
                transformedSettings(Map.of("transforms", List.of(Map.of("redact", Map.of("value-fields", List.of("$.a[x]"),
                        "salt", "p")))))), problems));
        assertEquals("routers.shadow.routes[1].transforms[0].redact.value-fields[0]", problems.getFirst().path(), problems.toString());
        problems.clear();

        assertNull(RouterRegistry.standard().create(new RouterSpec("shadow", "branch", ROUTES,
                transformedSettings(Map.of("transforms", List.of(Map.of("derive", "audit"))))), problems));
        assertEquals("routers.shadow.routes[1].topic", problems.getFirst().path(), problems.toString());
        assertTrue(problems.getFirst().message().contains("set 'topic'"), problems.toString());
        problems.clear();

        assertNull(RouterRegistry.standard().create(new RouterSpec("shadow", "branch", ROUTES,
                transformedSettings(Map.of("topic", "audit"))), problems));
        assertEquals("routers.shadow.routes[1].topic", problems.getFirst().path(), problems.toString());
        problems.clear();

        Router audit = RouterRegistry.standard().create(new RouterSpec("shadow", "branch", ROUTES,
                transformedSettings(Map.of("transforms", List.of(Map.of("derive", "audit")), "topic", "audit"))), problems);
        assertEquals(List.of(), problems);
        assertEquals("audit", audit.sideTransforms(1).fixedTopic());
        assertTrue(audit.sideTransforms(1).newChain("replica").derives());
    }

    @Test
    void holdingTransactionsGivesEvenAnExactBranchAWriterAndAnythingElseIsRefusedWithItsPath() {
        List<RoutingProblem> problems = new ArrayList<>();
        Router skip = RouterRegistry.standard().create(new RouterSpec("shadow", "branch", ROUTES,
                transformedSettings(Map.of("transactional", "skip"))), problems);
        assertEquals(List.of(), problems);
        assertNull(skip.sideTransforms(1), "an exact branch that skips transactions copies on the event loops");

        Router hold = RouterRegistry.standard().create(new RouterSpec("shadow", "branch", ROUTES,
                transformedSettings(Map.of("transactional", "hold"))), problems);
        assertEquals(List.of(), problems);
        assertTrue(hold.sideTransforms(1).holdsTransactions());
        assertTrue(hold.sideTransforms(1).newChain("replica").isIdentity(), "holding alone copies exactly");

        Object redact = List.of(Map.of("redact", Map.of("value-fields", List.of("$.email"), "with", "mask")));
        Router both = RouterRegistry.standard().create(new RouterSpec("shadow", "branch", ROUTES,
                transformedSettings(Map.of("transforms", redact, "transactional", "hold"))), problems);
        assertEquals(List.of(), problems);
        assertTrue(both.sideTransforms(1).holdsTransactions());
        assertTrue(!both.sideTransforms(1).newChain("replica").isIdentity());

        assertNull(RouterRegistry.standard().create(new RouterSpec("shadow", "branch", ROUTES,
                transformedSettings(Map.of("transactional", "wait"))), problems));
        assertEquals("routers.shadow.routes[1].transactional", problems.getFirst().path(), problems.toString());
        assertTrue(problems.getFirst().message().contains("'skip'") && problems.getFirst().message().contains("'hold'"),
                problems.toString());
    }

    @Test
    void aTransformingBranchCopiesEveryAcceptedPartitionByNameToNoBrokerInParticular() {
        Object redact = List.of(Map.of("redact", Map.of("headers", Map.of("authorization", "remove"))));
        Router router = RouterRegistry.standard().create(new RouterSpec("shadow", "branch", ROUTES,
                transformedSettings(Map.of("transforms", redact))), new ArrayList<>());
        HotCatalog hot = HotCatalog.of(catalog(router));
        for (short version : new short[] {9, 13}) {
            // no leader known on the branch: its writer's producer finds its own, so nothing is unplaced
            HotContext ctx = context(hot, PartitionLeadership.empty());
            ByteBuf frame = produce(version, List.of("orders", "payments"), List.of(ORDERS, PAYMENTS), new int[][] {{0, 1}, {0}});
            try {
                ProduceRequestSkim skim = new ProduceRequestSkim().wrap(frame);
                RoutePlan plan = new RoutePlan(new TopicNameCache()).reset(skim);
                router.hotPlanner().plan(skim, ctx, plan);
                assertEquals(2, plan.copyCount(), "v" + version + ": orders p0 and p1");
                assertEquals(0, plan.unplacedCopies());
                for (int c = 0; c < 2; c++) {
                    assertEquals(c, plan.copyUpstreamPartition(c));
                    assertArrayEquals("shadow.orders".getBytes(StandardCharsets.UTF_8), plan.copyKey(c), "keyed by name, also at v13");
                    assertEquals(1, plan.sideLeaf(plan.copySide(c)));
                    assertEquals(BranchHotPlanner.ANY_BROKER, plan.sideBroker(plan.copySide(c)));
                }
            } finally {
                frame.release();
            }
        }
    }

    @Test
    void fetchPlansHaveNoCopies() {
        Router router = router(new ArrayList<>());
        assertNotNull(router.hotPlanner());
        assertEquals(router.apiRoute(ApiKeys.FETCH.id), RouterRegistry.standard().create(new RouterSpec("w", "topic-weave", ROUTES, null),
                new ArrayList<>()).apiRoute(ApiKeys.FETCH.id));
    }

    private static HotContext context(HotCatalog catalog, PartitionLeadership stagingLeaders) {
        return new HotContext() {
            @Override
            public int ownRoute() {
                return 0;
            }

            @Override
            public HotCatalog catalog() {
                return catalog;
            }

            @Override
            public boolean boundToBroker() {
                return true;
            }

            @Override
            public PartitionLeadership leaders(int route) {
                return route == 1 ? stagingLeaders : PartitionLeadership.empty();
            }

            @Override
            public int ownBroker() {
                return 0;
            }

            @Override
            public dev.weft.routing.topology.ClusterTopology brokers(int route) {
                return dev.weft.routing.topology.ClusterTopology.empty();
            }

            @Override
            public dev.weft.routing.api.FollowerEndChecks endChecks() {
                return new dev.weft.routing.api.FollowerEndChecks();
            }
        };
    }

    /** A Produce frame body (header + message), one small batch per partition. */
    private static ByteBuf produce(short version, List<String> topics, List<Uuid> ids, int[][] partitions) {
        ProduceRequestData.TopicProduceDataCollection data = new ProduceRequestData.TopicProduceDataCollection();
        for (int t = 0; t < topics.size(); t++) {
            List<ProduceRequestData.PartitionProduceData> parts = new ArrayList<>();
            for (int p : partitions[t]) {
                parts.add(new ProduceRequestData.PartitionProduceData().setIndex(p).setRecords(
                        MemoryRecords.withRecords(Compression.NONE, new SimpleRecord(("v" + p).getBytes(StandardCharsets.UTF_8)))));
            }
            ProduceRequestData.TopicProduceData topic = new ProduceRequestData.TopicProduceData().setPartitionData(parts);
            if (version >= 13) {
                topic.setTopicId(ids.get(t));
            } else {
                topic.setName(topics.get(t));
            }
            data.add(topic);
        }
        ProduceRequestData body = new ProduceRequestData().setAcks((short) -1).setTimeoutMs(30_000).setTopicData(data);
        RequestHeaderData header = new RequestHeaderData().setRequestApiKey(ApiKeys.PRODUCE.id).setRequestApiVersion(version)
                .setCorrelationId(1).setClientId("test");
        short headerVersion = ApiKeys.PRODUCE.requestHeaderVersion(version);
        ObjectSerializationCache cache = new ObjectSerializationCache();
        ByteBuffer bytes = ByteBuffer.allocate(header.size(cache, headerVersion) + body.size(cache, version));
        ByteBufferAccessor out = new ByteBufferAccessor(bytes);
        header.write(out, cache, headerVersion);
        body.write(out, cache, version);
        bytes.flip();
        return Unpooled.copiedBuffer(bytes);
    }
}
