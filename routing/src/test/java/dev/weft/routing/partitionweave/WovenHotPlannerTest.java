package dev.weft.routing.partitionweave;

import static dev.weft.routing.partitionweave.WovenFixture.EAST;
import static dev.weft.routing.partitionweave.WovenFixture.EAST_ORDERS;
import static dev.weft.routing.partitionweave.WovenFixture.WEST;
import static dev.weft.routing.partitionweave.WovenFixture.WEST_ORDERS;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.protocol.produce.ProduceRequestSkim;
import dev.weft.routing.Router;
import dev.weft.routing.TopicRouting;
import dev.weft.routing.api.HotCatalog;
import dev.weft.routing.api.HotContext;
import dev.weft.routing.api.RoutePlan;
import dev.weft.routing.api.TopicNameCache;
import dev.weft.routing.topology.PartitionLeadership;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;

/** {@link dev.weft.routing.topicweave.CatalogHotPlanner} on a partition-woven topic: partition by partition, renumbered. */
class WovenHotPlannerTest {

    private static final short BY_NAME = 9;
    private static final short BY_ID = 13;

    private final Router router = WovenFixture.ordersRouter();
    private final TopicRouting catalog = router.catalog(WovenFixture.realTopics());
    private final HotCatalog hot = HotCatalog.of(catalog);
    private final Uuid ordersId = catalog.resolve("orders").virtualId();

    private static byte[] name(String n) {
        return n.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] id(Uuid u) {
        return ByteBuffer.allocate(16).putLong(u.getMostSignificantBits()).putLong(u.getLeastSignificantBits()).array();
    }

    /** Real leaders: partition p of a route's topic led by broker 10 * (route + 1) + p % 2. */
    private static PartitionLeadership leaders(int route, String topic, Uuid id, int partitions) {
        List<MetadataResponseData.MetadataResponsePartition> ps = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            int leader = 10 * (route + 1) + p % 2;
            ps.add(new MetadataResponseData.MetadataResponsePartition().setPartitionIndex(p).setLeaderId(leader)
                    .setReplicaNodes(List.of(leader)).setIsrNodes(List.of(leader)));
        }
        return PartitionLeadership.empty().merge(new MetadataResponseData().setTopics(
                new MetadataResponseData.MetadataResponseTopicCollection(List.of(new MetadataResponseData.MetadataResponseTopic()
                        .setName(topic).setTopicId(id).setPartitions(ps)).iterator())));
    }

    private HotContext context(int ownRoute, boolean bound) {
        PartitionLeadership east = leaders(EAST, "orders", EAST_ORDERS, 3);
        PartitionLeadership west = leaders(WEST, "orders-eu", WEST_ORDERS, 2);
        return new HotContext() {
            @Override
            public int ownRoute() {
                return ownRoute;
            }

            @Override
            public HotCatalog catalog() {
                return hot;
            }

            @Override
            public boolean boundToBroker() {
                return bound;
            }

            @Override
            public PartitionLeadership leaders(int route) {
                return route == EAST ? east : west;
            }

            @Override
            public int ownBroker() {
                return bound ? 1 : -1;
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

    /** Plans a Produce of {@code orders} partitions {@code partitions} and hands the plan to {@code check}. */
    private void plan(short version, HotContext ctx, int[] partitions, Consumer<RoutePlan> check) {
        ByteBuf frame = produce(version, "orders", ordersId, partitions);
        try {
            ProduceRequestSkim skim = new ProduceRequestSkim().wrap(frame);
            assertEquals(partitions.length, skim.partitionCount());
            RoutePlan plan = new RoutePlan(new TopicNameCache()).reset(skim);
            router.hotPlanner().plan(skim, ctx, plan);
            check.accept(plan);
        } finally {
            frame.release();
        }
    }

    private static void assertSent(RoutePlan plan, int i, int route, int broker, int realPartition, byte[] key) {
        int target = plan.targetOf()[i];
        assertTrue(target >= 0, "partition " + i + " refused");
        assertEquals(route, plan.targetLeaf(target), "route of partition " + i);
        assertEquals(broker, plan.targetBroker(target), "broker of partition " + i);
        assertEquals(realPartition, plan.upstreamPartition(i), "real partition of " + i);
        assertArrayEquals(key, plan.upstreamKey(0, i), "upstream key of " + i);
    }

    @Test
    void boundToEastTheEastSegmentIsSentRenumberedAndTheWestOneRefused() {
        plan(BY_NAME, context(EAST, true), new int[] {0, 1, 2, 3, 4}, plan -> {
            assertTrue(plan.renumbers());
            for (int v = 0; v < 3; v++) {
                assertSent(plan, v, EAST, RoutePlan.OWN_BROKER, v, name("orders"));
            }
            assertEquals(RoutePlan.REFUSED, plan.targetOf()[3]);
            assertEquals(RoutePlan.REFUSED, plan.targetOf()[4]);
            assertTrue(plan.foreignTopics(), "led elsewhere: the client's metadata is stale");
            assertFalse(plan.unknownTopics());
            assertEquals(1, plan.targetCount());
            assertEquals(3, plan.routed());
        });
    }

    @Test
    void boundToWestVirtual3And4AreWestsPartitions0And1() {
        plan(BY_NAME, context(WEST, true), new int[] {3, 4, 0}, plan -> {
            assertSent(plan, 0, WEST, RoutePlan.OWN_BROKER, 0, name("orders-eu"));
            assertSent(plan, 1, WEST, RoutePlan.OWN_BROKER, 1, name("orders-eu"));
            assertEquals(RoutePlan.REFUSED, plan.targetOf()[2]);
            assertEquals(2, plan.routed());
        });
    }

    @Test
    void collapsedEachPartitionGoesToItsRealLeader() {
        plan(BY_NAME, context(-1, false), new int[] {0, 1, 2, 3, 4}, plan -> {
            assertSent(plan, 0, EAST, 10, 0, name("orders"));
            assertSent(plan, 1, EAST, 11, 1, name("orders"));
            assertSent(plan, 2, EAST, 10, 2, name("orders"));
            assertSent(plan, 3, WEST, 20, 0, name("orders-eu"));
            assertSent(plan, 4, WEST, 21, 1, name("orders-eu"));
            assertEquals(4, plan.targetCount(), "one target per (route, leader)");
            assertEquals(plan.targetOf()[0], plan.targetOf()[2]);
            assertEquals(5, plan.routed());
        });
    }

    @Test
    void aPartitionTheTopicDoesNotHaveIsRefusedUnknown() {
        plan(BY_NAME, context(EAST, true), new int[] {7, 1}, plan -> {
            assertEquals(RoutePlan.REFUSED, plan.targetOf()[0]);
            assertTrue(plan.unknownTopics());
            assertSent(plan, 1, EAST, RoutePlan.OWN_BROKER, 1, name("orders"));
        });
    }

    @Test
    void byTopicIdTheSegmentsRealIdGoesUpstream() {
        plan(BY_ID, context(WEST, true), new int[] {4, 3}, plan -> {
            assertSent(plan, 0, WEST, RoutePlan.OWN_BROKER, 1, id(WEST_ORDERS));
            assertSent(plan, 1, WEST, RoutePlan.OWN_BROKER, 0, id(WEST_ORDERS));
        });
        plan(BY_ID, context(-1, false), new int[] {2, 3}, plan -> {
            assertSent(plan, 0, EAST, 10, 2, id(EAST_ORDERS));
            assertSent(plan, 1, WEST, 20, 0, id(WEST_ORDERS));
        });
    }

    @Test
    void byTopicIdASegmentWhoseIdIsUnknownIsRefused() {
        Router r = WovenFixture.ordersRouter();
        TopicRouting noIds = r.catalog(List.of(List.of(new dev.weft.routing.RealTopic("orders", Uuid.ZERO_UUID, 3)),
                List.of(new dev.weft.routing.RealTopic("orders-eu", WEST_ORDERS, 2))));
        HotCatalog hotNoIds = HotCatalog.of(noIds);
        HotContext base = context(EAST, true);
        HotContext ctx = new HotContext() {
            @Override
            public int ownRoute() {
                return EAST;
            }

            @Override
            public HotCatalog catalog() {
                return hotNoIds;
            }

            @Override
            public boolean boundToBroker() {
                return true;
            }

            @Override
            public PartitionLeadership leaders(int route) {
                return base.leaders(route);
            }

            @Override
            public int ownBroker() {
                return 1;
            }

            @Override
            public dev.weft.routing.topology.ClusterTopology brokers(int route) {
                return base.brokers(route);
            }

            @Override
            public dev.weft.routing.api.FollowerEndChecks endChecks() {
                return base.endChecks();
            }
        };
        plan(BY_ID, ctx, new int[] {0}, plan -> {
            assertEquals(RoutePlan.REFUSED, plan.targetOf()[0]);
            assertEquals(0, plan.routed());
        });
    }

    /** A Produce frame (header + body) for one topic, one small batch per partition. */
    private static ByteBuf produce(short version, String topic, Uuid id, int[] partitions) {
        ProduceRequestData.TopicProduceDataCollection data = new ProduceRequestData.TopicProduceDataCollection();
        List<ProduceRequestData.PartitionProduceData> parts = new ArrayList<>();
        for (int p : partitions) {
            parts.add(new ProduceRequestData.PartitionProduceData().setIndex(p).setRecords(
                    MemoryRecords.withRecords(Compression.NONE, new SimpleRecord(("v" + p).getBytes(StandardCharsets.UTF_8)))));
        }
        ProduceRequestData.TopicProduceData t = new ProduceRequestData.TopicProduceData().setPartitionData(parts);
        if (version >= 13) {
            t.setTopicId(id);
        } else {
            t.setName(topic);
        }
        data.add(t);
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
