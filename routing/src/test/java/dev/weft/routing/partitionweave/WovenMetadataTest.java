package dev.weft.routing.partitionweave;

import static dev.weft.routing.partitionweave.WovenFixture.EAST;
import static dev.weft.routing.partitionweave.WovenFixture.EAST_ORDERS;
import static dev.weft.routing.partitionweave.WovenFixture.WEST;
import static dev.weft.routing.partitionweave.WovenFixture.WEST_ORDERS;
import static dev.weft.routing.partitionweave.WovenFixture.assertError;
import static dev.weft.routing.partitionweave.WovenFixture.ordersCatalog;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.weft.routing.TopicRouting;
import dev.weft.routing.merge.MetadataWeave;
import dev.weft.routing.node.NodeIdBijection;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataRequestData.MetadataRequestTopic;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponsePartition;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

class WovenMetadataTest {

    private static final NodeIdBijection NODES = new NodeIdBijection(2);
    private final TopicRouting catalog = ordersCatalog();
    private final Uuid ordersId = catalog.resolve("orders").virtualId();

    /** A route's answer: {@code name}/{@code id} with {@code count} partitions, partition p led by broker 1 + p % 2. */
    private static MetadataResponseData answer(String name, Uuid id, int count) {
        List<MetadataResponsePartition> partitions = new ArrayList<>();
        for (int p = 0; p < count; p++) {
            int leader = 1 + p % 2;
            partitions.add(new MetadataResponsePartition().setPartitionIndex(p).setLeaderId(leader).setLeaderEpoch(5 + p)
                    .setReplicaNodes(List.of(leader, 3)).setIsrNodes(List.of(leader)).setOfflineReplicas(List.of()));
        }
        MetadataResponseData.MetadataResponseBrokerCollection brokers = new MetadataResponseData.MetadataResponseBrokerCollection();
        for (int b = 1; b <= 3; b++) {
            brokers.add(new MetadataResponseData.MetadataResponseBroker().setNodeId(b).setHost("b" + b).setPort(9092));
        }
        MetadataResponseData.MetadataResponseTopicCollection topics = new MetadataResponseData.MetadataResponseTopicCollection();
        topics.add(new MetadataResponseTopic().setName(name).setTopicId(id).setPartitions(partitions)
                .setTopicAuthorizedOperations(7));
        return new MetadataResponseData().setBrokers(brokers).setTopics(topics).setControllerId(1);
    }

    private MetadataResponseData merge(MetadataRequestData request, MetadataResponseData east, MetadataResponseData west) {
        return MetadataWeave.merge(request, Arrays.asList(east, west), catalog, NODES::toVirtual, "vc");
    }

    private static void assertPartition(MetadataResponsePartition p, int index, int route, int realPartition) {
        int leader = 1 + realPartition % 2;
        assertEquals(index, p.partitionIndex());
        assertError(Errors.NONE, p.errorCode());
        assertEquals(NODES.toVirtual(route, leader), p.leaderId(), "leader of virtual " + index);
        assertEquals(5 + realPartition, p.leaderEpoch());
        assertEquals(List.of(NODES.toVirtual(route, leader), NODES.toVirtual(route, 3)), p.replicaNodes());
        assertEquals(List.of(NODES.toVirtual(route, leader)), p.isrNodes());
    }

    @Test
    void eachRouteIsAskedForItsSegmentsRealTopicByName() {
        MetadataRequestData request = new MetadataRequestData().setTopics(List.of(new MetadataRequestTopic().setName("orders")));
        assertEquals(List.of("orders"), MetadataWeave.requestFor(request, catalog, EAST).topics().stream()
                .map(MetadataRequestTopic::name).toList());
        assertEquals(List.of("orders-eu"), MetadataWeave.requestFor(request, catalog, WEST).topics().stream()
                .map(MetadataRequestTopic::name).toList());
        MetadataRequestData byId = new MetadataRequestData().setTopics(List.of(new MetadataRequestTopic().setName(null)
                .setTopicId(ordersId)));
        MetadataRequestData west = MetadataWeave.requestFor(byId, catalog, WEST);
        assertEquals(List.of("orders-eu"), west.topics().stream().map(MetadataRequestTopic::name).toList());
        assertEquals(Uuid.ZERO_UUID, west.topics().getFirst().topicId());
        assertNull(MetadataWeave.requestFor(new MetadataRequestData().setTopics(null), catalog, EAST).topics());
    }

    @Test
    void fivePartitionsWithEachRoutesVirtualLeaders() {
        MetadataRequestData request = new MetadataRequestData().setTopics(List.of(new MetadataRequestTopic().setName("orders")));
        MetadataResponseData out = merge(request, answer("orders", EAST_ORDERS, 3), answer("orders-eu", WEST_ORDERS, 2));
        assertEquals(1, out.topics().size());
        MetadataResponseTopic orders = out.topics().iterator().next();
        assertEquals("orders", orders.name());
        assertEquals(ordersId, orders.topicId());
        assertError(Errors.NONE, orders.errorCode());
        assertEquals(5, orders.partitions().size());
        assertPartition(orders.partitions().get(0), 0, EAST, 0);
        assertPartition(orders.partitions().get(1), 1, EAST, 1);
        assertPartition(orders.partitions().get(2), 2, EAST, 2);
        assertPartition(orders.partitions().get(3), 3, WEST, 0);
        assertPartition(orders.partitions().get(4), 4, WEST, 1);
        assertEquals(6, out.brokers().size(), "both routes' brokers, virtual ids");
        assertEquals("vc", out.clusterId());
    }

    @Test
    void aFailedRoutesPartitionsAreListedLeaderless() {
        MetadataRequestData request = new MetadataRequestData().setTopics(List.of(new MetadataRequestTopic().setName("orders")));
        MetadataResponseData out = merge(request, answer("orders", EAST_ORDERS, 3), null);
        MetadataResponseTopic orders = out.topics().iterator().next();
        assertError(Errors.NONE, orders.errorCode());
        assertEquals(5, orders.partitions().size(), "a woven topic never shrinks under its clients");
        assertPartition(orders.partitions().get(2), 2, EAST, 2);
        for (int v = 3; v < 5; v++) {
            MetadataResponsePartition p = orders.partitions().get(v);
            assertEquals(v, p.partitionIndex());
            assertError(Errors.LEADER_NOT_AVAILABLE, p.errorCode());
            assertEquals(-1, p.leaderId());
            assertEquals(List.of(), p.replicaNodes());
        }
    }

    @Test
    void aRealPartitionTheAnswerLacksIsLeaderless() {
        MetadataRequestData request = new MetadataRequestData().setTopics(List.of(new MetadataRequestTopic().setName("orders")));
        MetadataResponseData out = merge(request, answer("orders", EAST_ORDERS, 2), answer("orders-eu", WEST_ORDERS, 2));
        MetadataResponseTopic orders = out.topics().iterator().next();
        assertEquals(5, orders.partitions().size());
        assertError(Errors.LEADER_NOT_AVAILABLE, orders.partitions().get(2).errorCode());
        assertPartition(orders.partitions().get(3), 3, WEST, 0);
    }

    @Test
    void anAllTopicsRequestListsTheWovenTopicAndNoPhysicalTopic() {
        MetadataRequestData request = new MetadataRequestData().setTopics(null);
        MetadataResponseData east = answer("orders", EAST_ORDERS, 3);
        east.topics().add(new MetadataResponseTopic().setName("other").setTopicId(new Uuid(10, 2)).setPartitions(List.of()));
        MetadataResponseData out = merge(request, east, answer("orders-eu", WEST_ORDERS, 2));
        assertEquals(List.of("orders"), out.topics().stream().map(MetadataResponseTopic::name).toList());
        MetadataResponseTopic orders = out.topics().iterator().next();
        assertEquals(5, orders.partitions().size());
        assertPartition(orders.partitions().get(4), 4, WEST, 1);
    }

    @Test
    void aRequestByTopicIdIsAnsweredUnderTheSyntheticId() {
        MetadataRequestData request = new MetadataRequestData().setTopics(List.of(new MetadataRequestTopic().setName(null)
                .setTopicId(ordersId), new MetadataRequestTopic().setName(null).setTopicId(EAST_ORDERS)));
        MetadataResponseData out = merge(request, answer("orders", EAST_ORDERS, 3), answer("orders-eu", WEST_ORDERS, 2));
        assertEquals(2, out.topics().size());
        MetadataResponseTopic orders = out.topics().stream().filter(t -> ordersId.equals(t.topicId())).findFirst().orElseThrow();
        assertEquals("orders", orders.name());
        assertEquals(5, orders.partitions().size());
        assertPartition(orders.partitions().get(0), 0, EAST, 0);
        assertPartition(orders.partitions().get(3), 3, WEST, 0);
        MetadataResponseTopic real = out.topics().stream().filter(t -> EAST_ORDERS.equals(t.topicId())).findFirst().orElseThrow();
        assertError(Errors.UNKNOWN_TOPIC_ID, real.errorCode());
    }
}
