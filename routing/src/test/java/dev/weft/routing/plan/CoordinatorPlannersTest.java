package dev.weft.routing.plan;

import static dev.weft.routing.plan.GroupsFixture.AP;
import static dev.weft.routing.plan.GroupsFixture.EU;
import static dev.weft.routing.plan.GroupsFixture.US;
import static dev.weft.routing.plan.GroupsFixture.AP_LOGS;
import static dev.weft.routing.plan.GroupsFixture.assertError;
import static dev.weft.routing.plan.GroupsFixture.body;
import static dev.weft.routing.plan.GroupsFixture.driver;
import static dev.weft.routing.plan.GroupsFixture.writable;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ConsumerGroupDescribeRequestData;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData;
import org.apache.kafka.common.message.DeleteGroupsRequestData;
import org.apache.kafka.common.message.DeleteGroupsResponseData;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.DescribeTransactionsRequestData;
import org.apache.kafka.common.message.DescribeTransactionsResponseData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.message.ListTransactionsRequestData;
import org.apache.kafka.common.message.ListTransactionsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/** FindCoordinator, the classic group APIs, per-id describes/deletes and listings. */
class CoordinatorPlannersTest {

    private static ColdPlanner planner(ApiKeys api) {
        return Planners.forApi(api.id);
    }

    // ---- FindCoordinator

    /** Coordinator = real broker 10 + route on every route (so the answer tells where it came from). */
    private static Answer coordinatorOf(Part part) {
        FindCoordinatorRequestData req = body(part);
        int node = 10 + part.route();
        if (part.version() >= 4) {
            return Answer.of(new FindCoordinatorResponseData().setThrottleTimeMs(part.route()).setCoordinators(
                    req.coordinatorKeys().stream().map(k -> new FindCoordinatorResponseData.Coordinator().setKey(k)
                            .setNodeId(node).setHost("real-" + part.route()).setPort(9092)).toList()));
        }
        return Answer.of(new FindCoordinatorResponseData().setNodeId(node).setHost("real").setPort(9092));
    }

    @Test
    void findCoordinatorV3AsksTheGroupsHomeAndAnswersWithTheVirtualBroker() {
        short v3 = 3;
        PlanDriver d = driver(US);
        FindCoordinatorRequestData req = new FindCoordinatorRequestData().setKey("eu-g").setKeyType((byte) 0);
        PlanDriver.Outcome out = d.run(planner(ApiKeys.FIND_COORDINATOR), req, v3, CoordinatorPlannersTest::coordinatorOf);
        assertEquals(1, out.sent().size());
        assertEquals(EU, out.sent().getFirst().route());
        assertEquals(Destination.ANY, out.sent().getFirst().to());
        FindCoordinatorResponseData resp = writable((FindCoordinatorResponseData) out.response(), v3);
        int virtual = d.toVirtualNodeId(EU, 11);
        assertNotEquals(11, virtual);
        assertEquals(virtual, resp.nodeId());
        assertEquals("weft", resp.host());
        assertEquals(9000 + virtual, resp.port());
        assertError(Errors.NONE, resp.errorCode());
    }

    @Test
    void findCoordinatorForATransactionAsksTheTransactionsHome() {
        FindCoordinatorRequestData req = new FindCoordinatorRequestData().setKey("ap-tx").setKeyType((byte) 1);
        PlanDriver.Outcome out = driver(US).run(planner(ApiKeys.FIND_COORDINATOR), req, (short) 3,
                CoordinatorPlannersTest::coordinatorOf);
        assertEquals(AP, out.sent().getFirst().route());
    }

    @Test
    void findCoordinatorV4SplitsKeysByHomeAndKeepsTheClientsOrder() {
        short v4 = 4;
        PlanDriver d = driver(-1);
        FindCoordinatorRequestData req = new FindCoordinatorRequestData().setKeyType((byte) 0)
                .setCoordinatorKeys(List.of("ap-1", "g1", "eu-1", "g2"));
        PlanDriver.Outcome out = d.run(planner(ApiKeys.FIND_COORDINATOR), req, v4, part -> part.route() == EU
                ? Answer.failed(Errors.NETWORK_EXCEPTION, "down") : coordinatorOf(part));
        assertEquals(List.of(AP, US, EU), out.sent().stream().map(Part::route).toList());
        assertEquals(List.of("g1", "g2"), ((FindCoordinatorRequestData) body(out.sent().get(1))).coordinatorKeys());
        FindCoordinatorResponseData resp = writable((FindCoordinatorResponseData) out.response(), v4);
        assertEquals(List.of("ap-1", "g1", "eu-1", "g2"), resp.coordinators().stream()
                .map(FindCoordinatorResponseData.Coordinator::key).toList());
        assertEquals(d.toVirtualNodeId(AP, 12), resp.coordinators().get(0).nodeId());
        assertEquals(d.toVirtualNodeId(US, 10), resp.coordinators().get(3).nodeId());
        assertEquals("weft", resp.coordinators().get(1).host());
        assertError(Errors.COORDINATOR_NOT_AVAILABLE, resp.coordinators().get(2).errorCode());
        assertEquals(AP, resp.throttleTimeMs());
    }

    @Test
    void findCoordinatorForShareGroupsIsRefused() {
        FindCoordinatorRequestData req = new FindCoordinatorRequestData().setKeyType((byte) 2)
                .setCoordinatorKeys(List.of("s"));
        PlanDriver.Outcome out = driver(US).run(planner(ApiKeys.FIND_COORDINATOR), req, (short) 6,
                CoordinatorPlannersTest::coordinatorOf);
        assertEquals(0, out.sent().size());
        FindCoordinatorResponseData resp = (FindCoordinatorResponseData) out.response();
        assertError(Errors.INVALID_REQUEST, resp.coordinators().getFirst().errorCode());
        assertEquals(1, out.refusals().size());
        assertTrue(out.refusals().getFirst().contains("share"), out.refusals().getFirst());
        assertEquals(out.refusals().getFirst(), resp.coordinators().getFirst().errorMessage());
    }

    @Test
    void findCoordinatorV0IsAlwaysAGroup() {
        PlanDriver.Outcome out = driver(US).run(planner(ApiKeys.FIND_COORDINATOR),
                new FindCoordinatorRequestData().setKey("eu-x"), (short) 0, CoordinatorPlannersTest::coordinatorOf);
        assertEquals(EU, out.sent().getFirst().route());
        writable(out.response(), (short) 0);
    }

    // ---- classic group protocol and transaction control

    @Test
    void groupRequestsAreForwardedOnlyOnTheHomeRoute() {
        JoinGroupRequestData join = new JoinGroupRequestData().setGroupId("eu-g").setMemberId("")
                .setProtocolType("consumer");
        assertTrue(driver(EU).run(planner(ApiKeys.JOIN_GROUP), join, (short) 9, p -> null).forwarded());
        PlanDriver.Outcome elsewhere = driver(US).run(planner(ApiKeys.JOIN_GROUP), join, (short) 9, p -> null);
        assertFalse(elsewhere.forwarded());
        assertError(Errors.NOT_COORDINATOR, ((JoinGroupResponseData) elsewhere.response()).errorCode());
        assertTrue(elsewhere.refusals().isEmpty());
        HeartbeatRequestData hb = new HeartbeatRequestData().setGroupId("g").setMemberId("m");
        assertTrue(driver(US).run(planner(ApiKeys.HEARTBEAT), hb, (short) 4, p -> null).forwarded());
        assertFalse(driver(-1).run(planner(ApiKeys.HEARTBEAT), hb, (short) 4, p -> null).forwarded());
    }

    // ---- per-id requests

    @Test
    void describeGroupsSendsTheOwnRoutesGroupsAndAnswersNotCoordinatorForTheOthersInOrder() {
        short v5 = 5;
        DescribeGroupsRequestData req = new DescribeGroupsRequestData().setGroups(List.of("eu-a", "g", "eu-b", "ap-c"));
        PlanDriver.Outcome out = driver(EU).run(planner(ApiKeys.DESCRIBE_GROUPS), req, v5, part -> Answer.of(
                new DescribeGroupsResponseData().setThrottleTimeMs(7).setGroups(((DescribeGroupsRequestData) part.body())
                        .groups().stream().map(g -> new DescribeGroupsResponseData.DescribedGroup().setGroupId(g)
                                .setGroupState("Stable")).toList())));
        assertEquals(1, out.sent().size());
        assertEquals(Destination.OWN, out.sent().getFirst().to());
        assertEquals(List.of("eu-a", "eu-b"), ((DescribeGroupsRequestData) body(out.sent().getFirst())).groups());
        DescribeGroupsResponseData resp = writable((DescribeGroupsResponseData) out.response(), v5);
        assertEquals(List.of("eu-a", "g", "eu-b", "ap-c"), resp.groups().stream()
                .map(DescribeGroupsResponseData.DescribedGroup::groupId).toList());
        assertEquals("Stable", resp.groups().get(0).groupState());
        assertError(Errors.NOT_COORDINATOR, resp.groups().get(1).errorCode());
        assertError(Errors.NONE, resp.groups().get(2).errorCode());
        assertError(Errors.NOT_COORDINATOR, resp.groups().get(3).errorCode());
        assertEquals(7, resp.throttleTimeMs());
    }

    @Test
    void describeGroupsAllAtHomeIsForwardedAndNoneAtHomeIsAnsweredHere() {
        DescribeGroupsRequestData req = new DescribeGroupsRequestData().setGroups(List.of("eu-a", "eu-b"));
        assertTrue(driver(EU).run(planner(ApiKeys.DESCRIBE_GROUPS), req, (short) 5, p -> null).forwarded());
        PlanDriver.Outcome out = driver(-1).run(planner(ApiKeys.DESCRIBE_GROUPS), req, (short) 5, p -> null);
        ((DescribeGroupsResponseData) out.response()).groups().forEach(g -> assertError(Errors.NOT_COORDINATOR,
                g.errorCode()));
    }

    @Test
    void deleteGroupsAFailedOwnBrokerIsRetriable() {
        short v2 = 2;
        DeleteGroupsRequestData req = new DeleteGroupsRequestData().setGroupsNames(List.of("g", "eu-a"));
        PlanDriver.Outcome out = driver(US).run(planner(ApiKeys.DELETE_GROUPS), req, v2,
                p -> Answer.failed(Errors.NETWORK_EXCEPTION, "down"));
        DeleteGroupsResponseData resp = writable((DeleteGroupsResponseData) out.response(), v2);
        assertEquals(List.of("g", "eu-a"), resp.results().stream().map(DeleteGroupsResponseData.DeletableGroupResult::groupId)
                .toList());
        assertError(Errors.COORDINATOR_NOT_AVAILABLE, resp.results().find("g").errorCode());
        assertError(Errors.NOT_COORDINATOR, resp.results().find("eu-a").errorCode());
    }

    @Test
    void describeTransactionsRenamesTheTransactionsTopics() {
        DescribeTransactionsRequestData req = new DescribeTransactionsRequestData().setTransactionalIds(
                List.of("eu-tx", "tx"));
        PlanDriver.Outcome out = driver(EU).run(planner(ApiKeys.DESCRIBE_TRANSACTIONS), req, (short) 0, part -> {
            DescribeTransactionsResponseData.TopicDataCollection topics = new DescribeTransactionsResponseData.TopicDataCollection();
            topics.add(new DescribeTransactionsResponseData.TopicData().setTopic("orders").setPartitions(List.of(0)));
            topics.add(new DescribeTransactionsResponseData.TopicData().setTopic("hidden-x").setPartitions(List.of(0)));
            return Answer.of(new DescribeTransactionsResponseData().setTransactionStates(List.of(
                    new DescribeTransactionsResponseData.TransactionState().setTransactionalId("eu-tx")
                            .setTransactionState("Ongoing").setTopics(topics))));
        });
        assertEquals(1, out.sent().size());
        DescribeTransactionsResponseData resp = writable((DescribeTransactionsResponseData) out.response(), (short) 0);
        assertEquals(List.of("orders-eu"), resp.transactionStates().getFirst().topics().stream()
                .map(DescribeTransactionsResponseData.TopicData::topic).toList(), "renamed; hidden topics left out");
        assertError(Errors.NOT_COORDINATOR, resp.transactionStates().get(1).errorCode());
    }

    @Test
    void consumerGroupDescribeMapsAssignmentsToVirtualTopics() {
        PlanDriver d = driver(AP);
        Uuid logsVirtual = d.topics().resolve("logs").virtualId();
        ConsumerGroupDescribeRequestData req = new ConsumerGroupDescribeRequestData().setGroupIds(List.of("ap-g"));
        PlanDriver.Outcome out = d.run(planner(ApiKeys.CONSUMER_GROUP_DESCRIBE), req, (short) 1, part -> Answer.of(
                new ConsumerGroupDescribeResponseData().setGroups(List.of(
                        new ConsumerGroupDescribeResponseData.DescribedGroup().setGroupId("ap-g").setMembers(List.of(
                                new ConsumerGroupDescribeResponseData.Member().setMemberId("m")
                                        .setSubscribedTopicNames(List.of("logs", "not-yet"))
                                        .setAssignment(new ConsumerGroupDescribeResponseData.Assignment()
                                                .setTopicPartitions(List.of(
                                                        new ConsumerGroupDescribeResponseData.TopicPartitions()
                                                                .setTopicId(AP_LOGS).setTopicName("logs")
                                                                .setPartitions(List.of(0, 1)),
                                                        new ConsumerGroupDescribeResponseData.TopicPartitions()
                                                                .setTopicId(new Uuid(33, 2)).setTopicName("secret")
                                                                .setPartitions(List.of(0)))))))))));
        assertFalse(out.forwarded(), "assignments must be translated, so never forwarded");
        ConsumerGroupDescribeResponseData resp = writable((ConsumerGroupDescribeResponseData) out.response(), (short) 1);
        ConsumerGroupDescribeResponseData.Member m = resp.groups().getFirst().members().getFirst();
        assertEquals(1, m.assignment().topicPartitions().size());
        assertEquals(logsVirtual, m.assignment().topicPartitions().getFirst().topicId());
        assertEquals("logs", m.assignment().topicPartitions().getFirst().topicName());
        assertEquals(List.of("logs", "not-yet"), m.subscribedTopicNames());
    }

    // ---- listings

    private static Answer listed(Part part, String... groups) {
        return Answer.of(new ListGroupsResponseData().setThrottleTimeMs(part.route()).setGroups(
                List.of(groups).stream().map(g -> new ListGroupsResponseData.ListedGroup().setGroupId(g)
                        .setProtocolType("consumer")).toList()));
    }

    @Test
    void listGroupsKeepsOnlyTheOwnRoutesHomeGroups() {
        PlanDriver.Outcome out = driver(EU).run(planner(ApiKeys.LIST_GROUPS), new ListGroupsRequestData(), (short) 4,
                part -> listed(part, "eu-a", "g", "eu-b", "ap-c"));
        assertEquals(1, out.sent().size());
        assertEquals(Destination.OWN, out.sent().getFirst().to());
        assertFalse(out.forwarded());
        ListGroupsResponseData resp = writable((ListGroupsResponseData) out.response(), (short) 4);
        assertEquals(List.of("eu-a", "eu-b"), resp.groups().stream().map(ListGroupsResponseData.ListedGroup::groupId)
                .toList());
    }

    @Test
    void listGroupsOnABootstrapConnectionMergesEveryRoutesHomeGroups() {
        PlanDriver.Outcome out = driver(-1).run(planner(ApiKeys.LIST_GROUPS), new ListGroupsRequestData(), (short) 4,
                part -> part.route() == AP ? Answer.failed(Errors.NETWORK_EXCEPTION, "down")
                        : listed(part, "eu-a", "g", "ap-c"));
        assertEquals(List.of(US, EU, AP), out.sent().stream().map(Part::route).toList());
        out.sent().forEach(p -> assertEquals(Destination.ANY, p.to()));
        ListGroupsResponseData resp = (ListGroupsResponseData) out.response();
        assertEquals(List.of("g", "eu-a"), resp.groups().stream().map(ListGroupsResponseData.ListedGroup::groupId)
                .toList());
        assertError(Errors.COORDINATOR_NOT_AVAILABLE, resp.errorCode());
        assertEquals(EU, resp.throttleTimeMs());
    }

    @Test
    void listTransactionsKeepsOnlyTheOwnRoutesTransactions() {
        PlanDriver.Outcome out = driver(US).run(planner(ApiKeys.LIST_TRANSACTIONS), new ListTransactionsRequestData(),
                (short) 1, part -> Answer.of(new ListTransactionsResponseData().setTransactionStates(List.of(
                        new ListTransactionsResponseData.TransactionState().setTransactionalId("tx"),
                        new ListTransactionsResponseData.TransactionState().setTransactionalId("eu-tx")))));
        ListTransactionsResponseData resp = writable((ListTransactionsResponseData) out.response(), (short) 1);
        assertEquals(List.of("tx"), resp.transactionStates().stream()
                .map(ListTransactionsResponseData.TransactionState::transactionalId).toList());
    }
}
