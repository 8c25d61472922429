package dev.weft.routing.plan;

import static dev.weft.routing.plan.WeaveFixture.EU;
import static dev.weft.routing.plan.WeaveFixture.US;
import static dev.weft.routing.plan.WeaveFixture.answering;
import static dev.weft.routing.plan.WeaveFixture.body;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.routing.node.CollapsedNodes;
import dev.weft.routing.node.ProxyNode;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.kafka.common.message.EndTxnRequestData;
import org.apache.kafka.common.message.EndTxnResponseData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/**
 * Cold-path planning in the collapsed topology (no connection is bound to a broker): coordinator
 * requests go to the coordinator the proxy finds, leader-addressed requests are split per real
 * leader, FindCoordinator is answered with proxy nodes without asking upstream.
 */
class CollapsedPlanningTest {

    private static final CollapsedNodes NODES = CollapsedNodes.of("virtualClusters.main.nodes", List.of(
            new ProxyNode(0, "proxy-0", 9092, "az1"), new ProxyNode(1, "proxy-1", 9092, "az2")));

    /** Real leaders: partition p of every topic is led by broker p % 3 of its route. */
    private static PlanDriver collapsed() {
        return WeaveFixture.driver().collapsed(NODES, (route, partition) -> partition % 3);
    }

    @Test
    void joinGroupGoesToTheGroupsCoordinatorOnItsHomeNotToAnOwnBroker() {
        JoinGroupRequestData req = new JoinGroupRequestData().setGroupId("g1").setProtocolType("consumer");
        PlanDriver.Outcome out = collapsed().run(Planners.forApi(req.apiKey()), req, (short) 9,
                answering(part -> new JoinGroupResponseData().setMemberId("m-1")));
        assertFalse(out.forwarded(), "nothing can be forwarded: no connection is a broker's");
        assertEquals(1, out.sent().size());
        assertEquals(new Destination.GroupCoordinator("g1"), out.sent().getFirst().to());
        assertEquals("m-1", ((JoinGroupResponseData) out.response()).memberId());
    }

    @Test
    void endTxnGoesToTheTransactionsCoordinator() {
        EndTxnRequestData req = new EndTxnRequestData().setTransactionalId("t1").setProducerId(7).setCommitted(true);
        PlanDriver.Outcome out = collapsed().run(Planners.forApi(req.apiKey()), req, (short) 3,
                answering(part -> new EndTxnResponseData()));
        assertEquals(new Destination.TransactionCoordinator("t1"), out.sent().getFirst().to());
        assertEquals(Errors.NONE.code(), ((EndTxnResponseData) out.response()).errorCode());
    }

    @Test
    void findCoordinatorIsAnsweredWithAProxyNodeWithoutAskingUpstream() {
        FindCoordinatorRequestData req = new FindCoordinatorRequestData().setKeyType((byte) 0)
                .setCoordinatorKeys(List.of("g1", "g2"));
        PlanDriver.Outcome out = collapsed().run(Planners.forApi(req.apiKey()), req, (short) 4,
                answering(part -> { throw new AssertionError("asked upstream: " + part); }));
        FindCoordinatorResponseData resp = (FindCoordinatorResponseData) out.response();
        assertEquals(List.of("g1", "g2"), resp.coordinators().stream().map(FindCoordinatorResponseData.Coordinator::key).toList());
        for (FindCoordinatorResponseData.Coordinator c : resp.coordinators()) {
            assertTrue(NODES.contains(c.nodeId()), "a proxy node: " + c);
            assertEquals(NODES.node(c.nodeId()).host(), c.host());
        }
    }

    @Test
    void listOffsetsIsSplitByTheRealLeaderOfEachPartition() {
        ListOffsetsRequestData req = new ListOffsetsRequestData().setReplicaId(-1).setTopics(List.of(
                new ListOffsetsRequestData.ListOffsetsTopic().setName("orders-eu").setPartitions(List.of(
                        partition(0), partition(1), partition(2), partition(3))),
                new ListOffsetsRequestData.ListOffsetsTopic().setName("us.orders").setPartitions(List.of(partition(4)))));
        PlanDriver.Outcome out = collapsed().run(Planners.forApi(req.apiKey()), req, (short) 7,
                answering(CollapsedPlanningTest::offsetsBroker));
        // orders-eu (route EU): partitions 0,3 → broker 0; 1 → broker 1; 2 → broker 2; us.orders 4 → US broker 1
        Set<String> parts = new HashSet<>();
        for (Part p : out.sent()) {
            ListOffsetsRequestData sent = body(p);
            for (ListOffsetsRequestData.ListOffsetsTopic t : sent.topics()) {
                parts.add(p.route() + "/" + ((Destination.Broker) p.to()).nodeId() + ":" + t.name() + t.partitions().stream()
                        .map(ListOffsetsRequestData.ListOffsetsPartition::partitionIndex).toList());
            }
        }
        assertEquals(Set.of(EU + "/0:orders[0, 3]", EU + "/1:orders[1]", EU + "/2:orders[2]", US + "/1:orders[4]"), parts);
        ListOffsetsResponseData resp = (ListOffsetsResponseData) out.response();
        Set<String> answered = new HashSet<>();
        resp.topics().forEach(t -> t.partitions().forEach(p -> {
            assertEquals(Errors.NONE.code(), p.errorCode(), t.name() + " " + p.partitionIndex());
            assertEquals(1000 + p.partitionIndex(), p.offset());
            answered.add(t.name() + "-" + p.partitionIndex());
        }));
        assertEquals(Set.of("orders-eu-0", "orders-eu-1", "orders-eu-2", "orders-eu-3", "us.orders-4"), answered,
                "every partition answered once, under the client's names");
    }

    @Test
    void aPartitionWhoseLeaderIsUnknownIsNotLeaderSoTheClientRefreshes() {
        ListOffsetsRequestData req = new ListOffsetsRequestData().setReplicaId(-1).setTopics(List.of(
                new ListOffsetsRequestData.ListOffsetsTopic().setName("orders-eu").setPartitions(List.of(partition(0), partition(1)))));
        PlanDriver.Outcome out = WeaveFixture.driver().collapsed(NODES, (route, partition) -> partition == 1 ? -1 : 0)
                .run(Planners.forApi(req.apiKey()), req, (short) 7, answering(CollapsedPlanningTest::offsetsBroker));
        assertEquals(1, out.sent().size());
        ListOffsetsResponseData resp = (ListOffsetsResponseData) out.response();
        resp.topics().forEach(t -> t.partitions().forEach(p -> assertEquals(
                p.partitionIndex() == 1 ? Errors.NOT_LEADER_OR_FOLLOWER.code() : Errors.NONE.code(), p.errorCode())));
    }

    private static ListOffsetsRequestData.ListOffsetsPartition partition(int p) {
        return new ListOffsetsRequestData.ListOffsetsPartition().setPartitionIndex(p).setTimestamp(-1);
    }

    private static ApiMessage offsetsBroker(Part part) {
        ListOffsetsRequestData req = body(part);
        ListOffsetsResponseData resp = new ListOffsetsResponseData();
        for (ListOffsetsRequestData.ListOffsetsTopic t : req.topics()) {
            ListOffsetsResponseData.ListOffsetsTopicResponse r = new ListOffsetsResponseData.ListOffsetsTopicResponse().setName(t.name());
            t.partitions().forEach(p -> r.partitions().add(new ListOffsetsResponseData.ListOffsetsPartitionResponse()
                    .setPartitionIndex(p.partitionIndex()).setOffset(1000 + p.partitionIndex())));
            resp.topics().add(r);
        }
        return resp;
    }
}
