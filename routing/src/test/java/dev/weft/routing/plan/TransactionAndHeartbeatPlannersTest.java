package dev.weft.routing.plan;

import static dev.weft.routing.plan.GroupsFixture.AP;
import static dev.weft.routing.plan.GroupsFixture.AP_LOGS;
import static dev.weft.routing.plan.GroupsFixture.EU;
import static dev.weft.routing.plan.GroupsFixture.US;
import static dev.weft.routing.plan.GroupsFixture.assertError;
import static dev.weft.routing.plan.GroupsFixture.body;
import static dev.weft.routing.plan.GroupsFixture.driver;
import static dev.weft.routing.plan.GroupsFixture.writable;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.AddOffsetsToTxnRequestData;
import org.apache.kafka.common.message.AddOffsetsToTxnResponseData;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData.AddPartitionsToTxnTopic;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData.AddPartitionsToTxnTopicCollection;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData.AddPartitionsToTxnPartitionResult;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData.AddPartitionsToTxnPartitionResultCollection;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData.AddPartitionsToTxnTopicResult;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData.AddPartitionsToTxnTopicResultCollection;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatResponseData;
import org.apache.kafka.common.message.EndTxnRequestData;
import org.apache.kafka.common.message.EndTxnResponseData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.message.OffsetDeleteRequestData;
import org.apache.kafka.common.message.OffsetDeleteResponseData;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData;
import org.apache.kafka.common.message.TxnOffsetCommitResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/** Transactions confined to their home; KIP-848 heartbeats; OffsetDelete. */
class TransactionAndHeartbeatPlannersTest {

    private static ColdPlanner planner(ApiKeys api) {
        return Planners.forApi(api.id);
    }

    // ---- AddPartitionsToTxn

    private static AddPartitionsToTxnRequestData addPartitions(String txnId, String... topics) {
        AddPartitionsToTxnTopicCollection c = new AddPartitionsToTxnTopicCollection();
        for (String t : topics) {
            c.add(new AddPartitionsToTxnTopic().setName(t).setPartitions(List.of(0, 1)));
        }
        return new AddPartitionsToTxnRequestData().setV3AndBelowTransactionalId(txnId).setV3AndBelowProducerId(5)
                .setV3AndBelowProducerEpoch((short) 0).setV3AndBelowTopics(c);
    }

    private static Answer addedAll(Part part) {
        AddPartitionsToTxnTopicResultCollection results = new AddPartitionsToTxnTopicResultCollection();
        for (AddPartitionsToTxnTopic t : ((AddPartitionsToTxnRequestData) part.body()).v3AndBelowTopics()) {
            AddPartitionsToTxnPartitionResultCollection ps = new AddPartitionsToTxnPartitionResultCollection();
            t.partitions().forEach(p -> ps.add(new AddPartitionsToTxnPartitionResult().setPartitionIndex(p)));
            results.add(new AddPartitionsToTxnTopicResult().setName(t.name()).setResultsByPartition(ps));
        }
        return Answer.of(new AddPartitionsToTxnResponseData().setResultsByTopicV3AndBelow(results));
    }

    private static Errors errorOf(AddPartitionsToTxnResponseData resp, String topic) {
        AddPartitionsToTxnTopicResult r = resp.resultsByTopicV3AndBelow().find(topic);
        List<Short> codes = new ArrayList<>();
        r.resultsByPartition().forEach(p -> codes.add(p.partitionErrorCode()));
        assertEquals(2, codes.size());
        assertEquals(codes.get(0), codes.get(1));
        return Errors.forCode(codes.getFirst());
    }

    @Test
    void addPartitionsOnTheHomeRouteIsRenamedAndSentToTheOwnBroker() {
        short v3 = 3;
        PlanDriver.Outcome out = driver(EU).run(planner(ApiKeys.ADD_PARTITIONS_TO_TXN),
                addPartitions("eu-tx", "orders-eu", "audit"), v3, TransactionAndHeartbeatPlannersTest::addedAll);
        assertEquals(1, out.sent().size());
        assertEquals(Destination.OWN, out.sent().getFirst().to());
        List<String> sentNames = new ArrayList<>();
        ((AddPartitionsToTxnRequestData) body(out.sent().getFirst())).v3AndBelowTopics().forEach(t -> sentNames.add(t.name()));
        assertEquals(List.of("orders", "audit"), sentNames);
        AddPartitionsToTxnResponseData resp = writable((AddPartitionsToTxnResponseData) out.response(), v3);
        assertEquals(Errors.NONE, errorOf(resp, "orders-eu"));
        assertEquals(Errors.NONE, errorOf(resp, "audit"));
    }

    @Test
    void addPartitionsOfAnotherClusterRefusesTheTransactionAndSendsNothing() {
        PlanDriver.Outcome out = driver(EU).run(planner(ApiKeys.ADD_PARTITIONS_TO_TXN),
                addPartitions("eu-tx", "orders-eu", "us.orders", "nope"), (short) 3,
                TransactionAndHeartbeatPlannersTest::addedAll);
        assertEquals(0, out.sent().size());
        AddPartitionsToTxnResponseData resp = (AddPartitionsToTxnResponseData) out.response();
        assertEquals(Errors.OPERATION_NOT_ATTEMPTED, errorOf(resp, "orders-eu"));
        assertEquals(Errors.TRANSACTION_ABORTABLE, errorOf(resp, "us.orders"));
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION, errorOf(resp, "nope"));
        assertEquals(List.of("transaction 'eu-tx' is confined to cluster 'eu' (its home); topic 'us.orders' lives on"
                + " cluster 'us'; the transaction is refused and must be aborted"), out.refusals());
    }

    @Test
    void addPartitionsOnAnotherConnectionIsNotCoordinatorAndTheBrokersFormIsRefused() {
        PlanDriver.Outcome out = driver(US).run(planner(ApiKeys.ADD_PARTITIONS_TO_TXN),
                addPartitions("eu-tx", "orders-eu"), (short) 3, TransactionAndHeartbeatPlannersTest::addedAll);
        assertEquals(Errors.NOT_COORDINATOR, errorOf((AddPartitionsToTxnResponseData) out.response(), "orders-eu"));
        PlanDriver.Outcome v4 = driver(US).run(planner(ApiKeys.ADD_PARTITIONS_TO_TXN),
                new AddPartitionsToTxnRequestData(), (short) 4, p -> null);
        assertError(Errors.INVALID_REQUEST, ((AddPartitionsToTxnResponseData) v4.response()).errorCode());
        assertEquals(1, v4.refusals().size());
    }

    // ---- TxnOffsetCommit, AddOffsetsToTxn, InitProducerId, EndTxn

    private static TxnOffsetCommitRequestData txnCommit(String txnId, String groupId, String... topics) {
        List<TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic> ts = new ArrayList<>();
        for (String t : topics) {
            ts.add(new TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic().setName(t).setPartitions(List.of(
                    new TxnOffsetCommitRequestData.TxnOffsetCommitRequestPartition().setPartitionIndex(3)
                            .setCommittedOffset(9))));
        }
        return new TxnOffsetCommitRequestData().setTransactionalId(txnId).setGroupId(groupId).setProducerId(1)
                .setTopics(ts);
    }

    private static Answer committedAll(Part part) {
        TxnOffsetCommitRequestData req = body(part);
        return Answer.of(new TxnOffsetCommitResponseData().setTopics(req.topics().stream().map(t ->
                new TxnOffsetCommitResponseData.TxnOffsetCommitResponseTopic().setName(t.name()).setPartitions(List.of(
                        new TxnOffsetCommitResponseData.TxnOffsetCommitResponsePartition().setPartitionIndex(3))))
                .toList()));
    }

    @Test
    void txnOffsetCommitWithinTheHomeIsRenamedAndSent() {
        short v3 = 3;
        PlanDriver.Outcome out = driver(EU).run(planner(ApiKeys.TXN_OFFSET_COMMIT),
                txnCommit("eu-tx", "eu-g", "orders-eu"), v3, TransactionAndHeartbeatPlannersTest::committedAll);
        assertEquals("orders", ((TxnOffsetCommitRequestData) body(out.sent().getFirst())).topics().getFirst().name());
        TxnOffsetCommitResponseData resp = writable((TxnOffsetCommitResponseData) out.response(), v3);
        assertEquals("orders-eu", resp.topics().getFirst().name());
        assertError(Errors.NONE, resp.topics().getFirst().partitions().getFirst().errorCode());
    }

    @Test
    void txnOffsetCommitForATopicOrGroupElsewhereIsAbortable() {
        PlanDriver.Outcome topic = driver(EU).run(planner(ApiKeys.TXN_OFFSET_COMMIT),
                txnCommit("eu-tx", "eu-g", "orders-eu", "logs"), (short) 3, TransactionAndHeartbeatPlannersTest::committedAll);
        assertEquals(0, topic.sent().size());
        ((TxnOffsetCommitResponseData) topic.response()).topics().forEach(t -> assertError(Errors.TRANSACTION_ABORTABLE,
                t.partitions().getFirst().errorCode()));
        assertTrue(topic.refusals().getFirst().contains("topic 'logs' lives on cluster 'ap'"), topic.refusals().getFirst());
        PlanDriver.Outcome group = driver(EU).run(planner(ApiKeys.TXN_OFFSET_COMMIT),
                txnCommit("eu-tx", "g", "orders-eu"), (short) 3, TransactionAndHeartbeatPlannersTest::committedAll);
        assertEquals(0, group.sent().size());
        assertTrue(group.refusals().getFirst().contains("consumer group 'g' lives on cluster 'us'"));
    }

    @Test
    void txnOffsetCommitV6SendsRealTopicIds() {
        short v6 = 6;
        PlanDriver d = driver(AP);
        Uuid logsVirtual = d.topics().resolve("logs").virtualId();
        TxnOffsetCommitRequestData req = txnCommit("ap-tx", "ap-g");
        req.setTopics(List.of(new TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic().setTopicId(logsVirtual)
                .setPartitions(List.of(new TxnOffsetCommitRequestData.TxnOffsetCommitRequestPartition()))));
        PlanDriver.Outcome out = d.run(planner(ApiKeys.TXN_OFFSET_COMMIT), req, v6, part -> Answer.of(
                new TxnOffsetCommitResponseData().setTopics(List.of(new TxnOffsetCommitResponseData
                        .TxnOffsetCommitResponseTopic().setTopicId(AP_LOGS).setPartitions(List.of(
                                new TxnOffsetCommitResponseData.TxnOffsetCommitResponsePartition()))))));
        assertEquals(AP_LOGS, ((TxnOffsetCommitRequestData) body(out.sent().getFirst())).topics().getFirst().topicId());
        assertEquals(logsVirtual, ((TxnOffsetCommitResponseData) out.response()).topics().getFirst().topicId());
    }

    @Test
    void addOffsetsToTxnNeedsTheGroupAtTheTransactionsHome() {
        AddOffsetsToTxnRequestData ok = new AddOffsetsToTxnRequestData().setTransactionalId("eu-tx").setGroupId("eu-g");
        assertTrue(driver(EU).run(planner(ApiKeys.ADD_OFFSETS_TO_TXN), ok, (short) 3, p -> null).forwarded());
        PlanDriver.Outcome other = driver(US).run(planner(ApiKeys.ADD_OFFSETS_TO_TXN), ok, (short) 3, p -> null);
        assertError(Errors.NOT_COORDINATOR, ((AddOffsetsToTxnResponseData) other.response()).errorCode());
        AddOffsetsToTxnRequestData bad = new AddOffsetsToTxnRequestData().setTransactionalId("eu-tx").setGroupId("g");
        PlanDriver.Outcome refused = driver(EU).run(planner(ApiKeys.ADD_OFFSETS_TO_TXN), bad, (short) 3, p -> null);
        assertError(Errors.TRANSACTION_ABORTABLE, ((AddOffsetsToTxnResponseData) refused.response()).errorCode());
        assertEquals(1, refused.refusals().size());
    }

    @Test
    void initProducerIdAndEndTxnGoToTheTransactionsHome() {
        InitProducerIdRequestData init = new InitProducerIdRequestData().setTransactionalId("ap-tx");
        assertTrue(driver(AP).run(planner(ApiKeys.INIT_PRODUCER_ID), init, (short) 5, p -> null).forwarded());
        PlanDriver.Outcome other = driver(US).run(planner(ApiKeys.INIT_PRODUCER_ID), init, (short) 5, p -> null);
        assertError(Errors.NOT_COORDINATOR, ((InitProducerIdResponseData) other.response()).errorCode());
        // an idempotent producer's id comes from the producer-id home route (the first), on any connection
        PlanDriver.Outcome none = driver(EU).run(planner(ApiKeys.INIT_PRODUCER_ID),
                new InitProducerIdRequestData().setTransactionalId(null), (short) 5,
                p -> Answer.of(new InitProducerIdResponseData().setProducerId(4242).setProducerEpoch((short) 0)));
        assertEquals(1, none.sent().size());
        assertEquals(IdempotentProducerIds.HOME_ROUTE, none.sent().getFirst().route());
        assertEquals(Destination.ANY, none.sent().getFirst().to());
        assertEquals(4242, ((InitProducerIdResponseData) none.response()).producerId());
        // the home route down: retriable as a broker answers it, never a coordinator error (kafka-clients would
        // look up the coordinator of a null transactional id)
        PlanDriver.Outcome down = driver(EU).run(planner(ApiKeys.INIT_PRODUCER_ID),
                new InitProducerIdRequestData().setTransactionalId(null), (short) 5, p -> Answer.failed(Errors.NETWORK_EXCEPTION, "down"));
        assertError(Errors.COORDINATOR_LOAD_IN_PROGRESS, ((InitProducerIdResponseData) down.response()).errorCode());
        EndTxnRequestData end = new EndTxnRequestData().setTransactionalId("tx").setCommitted(true);
        assertTrue(driver(US).run(planner(ApiKeys.END_TXN), end, (short) 4, p -> null).forwarded());
        assertError(Errors.NOT_COORDINATOR, ((EndTxnResponseData) driver(EU).run(planner(ApiKeys.END_TXN), end,
                (short) 4, p -> null).response()).errorCode());
    }

    // ---- ConsumerGroupHeartbeat (KIP-848)

    @Test
    void consumerGroupHeartbeatRenamesSubscriptionsAndMapsTheAssignment() {
        PlanDriver d = driver(AP);
        Uuid logsVirtual = d.topics().resolve("logs").virtualId();
        ConsumerGroupHeartbeatRequestData req = new ConsumerGroupHeartbeatRequestData().setGroupId("ap-g")
                .setMemberId("m").setMemberEpoch(0).setSubscribedTopicNames(List.of("logs", "later"))
                .setSubscribedTopicRegex(null).setTopicPartitions(List.of(new ConsumerGroupHeartbeatRequestData
                        .TopicPartitions().setTopicId(logsVirtual).setPartitions(List.of(0))));
        PlanDriver.Outcome out = d.run(planner(ApiKeys.CONSUMER_GROUP_HEARTBEAT), req, (short) 1, part -> Answer.of(
                new ConsumerGroupHeartbeatResponseData().setMemberId("m").setMemberEpoch(1).setAssignment(
                        new ConsumerGroupHeartbeatResponseData.Assignment().setTopicPartitions(List.of(
                                new ConsumerGroupHeartbeatResponseData.TopicPartitions().setTopicId(AP_LOGS)
                                        .setPartitions(List.of(0, 1)),
                                new ConsumerGroupHeartbeatResponseData.TopicPartitions().setTopicId(new Uuid(33, 2))
                                        .setPartitions(List.of(0)))))));
        ConsumerGroupHeartbeatRequestData sent = body(out.sent().getFirst());
        assertEquals(Destination.OWN, out.sent().getFirst().to());
        assertEquals(List.of("logs", "later"), sent.subscribedTopicNames());
        assertEquals(AP_LOGS, sent.topicPartitions().getFirst().topicId());
        ConsumerGroupHeartbeatResponseData resp = writable((ConsumerGroupHeartbeatResponseData) out.response(), (short) 1);
        assertEquals(List.of(logsVirtual), resp.assignment().topicPartitions().stream()
                .map(ConsumerGroupHeartbeatResponseData.TopicPartitions::topicId).toList(), "hidden 'secret' dropped");
    }

    @Test
    void consumerGroupHeartbeatRenamesPrefixedNamesToRealOnes() {
        ConsumerGroupHeartbeatRequestData req = new ConsumerGroupHeartbeatRequestData().setGroupId("g")
                .setSubscribedTopicNames(List.of("us.orders", "us.clicks"));
        PlanDriver.Outcome out = driver(US).run(planner(ApiKeys.CONSUMER_GROUP_HEARTBEAT), req, (short) 0,
                part -> Answer.of(new ConsumerGroupHeartbeatResponseData()));
        assertEquals(List.of("orders", "clicks"), ((ConsumerGroupHeartbeatRequestData) body(out.sent().getFirst()))
                .subscribedTopicNames());
    }

    @Test
    void consumerGroupHeartbeatSubscribingToAnotherClusterIsRefusedWithTheReason() {
        ConsumerGroupHeartbeatRequestData req = new ConsumerGroupHeartbeatRequestData().setGroupId("g")
                .setSubscribedTopicNames(List.of("us.orders", "orders-eu"));
        PlanDriver.Outcome out = driver(US).run(planner(ApiKeys.CONSUMER_GROUP_HEARTBEAT), req, (short) 0, p -> null);
        assertEquals(0, out.sent().size());
        ConsumerGroupHeartbeatResponseData resp = (ConsumerGroupHeartbeatResponseData) out.response();
        assertError(Errors.INVALID_REQUEST, resp.errorCode());
        String expected = "consumer group 'g' (KIP-848 protocol) subscribes to topic 'orders-eu' on cluster 'eu' but is"
                + " coordinated by cluster 'us'; a KIP-848 group can only subscribe to topics of its home cluster: use"
                + " group.protocol=classic for groups spanning clusters";
        assertEquals(expected, resp.errorMessage());
        assertEquals(List.of(expected), out.refusals());
    }

    @Test
    void consumerGroupHeartbeatOffHomeIsNotCoordinator() {
        ConsumerGroupHeartbeatRequestData req = new ConsumerGroupHeartbeatRequestData().setGroupId("eu-g");
        PlanDriver.Outcome out = driver(US).run(planner(ApiKeys.CONSUMER_GROUP_HEARTBEAT), req, (short) 0, p -> null);
        assertFalse(out.forwarded());
        assertError(Errors.NOT_COORDINATOR, ((ConsumerGroupHeartbeatResponseData) out.response()).errorCode());
    }

    // ---- OffsetDelete

    @Test
    void offsetDeleteSplitsByRouteAndTakesTheGroupErrorFromHome() {
        OffsetDeleteRequestData.OffsetDeleteRequestTopicCollection topics = new OffsetDeleteRequestData
                .OffsetDeleteRequestTopicCollection();
        for (String t : List.of("orders-eu", "us.orders", "nope")) {
            topics.add(new OffsetDeleteRequestData.OffsetDeleteRequestTopic().setName(t).setPartitions(
                    List.of(new OffsetDeleteRequestData.OffsetDeleteRequestPartition().setPartitionIndex(0))));
        }
        OffsetDeleteRequestData req = new OffsetDeleteRequestData().setGroupId("g").setTopics(topics);
        PlanDriver.Outcome out = driver(US).run(planner(ApiKeys.OFFSET_DELETE), req, (short) 0, part -> {
            if (part.route() == EU) {
                return Answer.failed(Errors.NETWORK_EXCEPTION, "down");
            }
            OffsetDeleteResponseData.OffsetDeleteResponseTopicCollection rt = new OffsetDeleteResponseData
                    .OffsetDeleteResponseTopicCollection();
            for (OffsetDeleteRequestData.OffsetDeleteRequestTopic t : ((OffsetDeleteRequestData) part.body()).topics()) {
                OffsetDeleteResponseData.OffsetDeleteResponsePartitionCollection ps = new OffsetDeleteResponseData
                        .OffsetDeleteResponsePartitionCollection();
                ps.add(new OffsetDeleteResponseData.OffsetDeleteResponsePartition().setPartitionIndex(0)
                        .setErrorCode(Errors.GROUP_SUBSCRIBED_TO_TOPIC.code()));
                rt.add(new OffsetDeleteResponseData.OffsetDeleteResponseTopic().setName(t.name()).setPartitions(ps));
            }
            return Answer.of(new OffsetDeleteResponseData().setErrorCode(Errors.NONE.code()).setTopics(rt));
        });
        assertEquals(List.of(US, EU), out.sent().stream().map(Part::route).toList());
        assertEquals("orders", ((OffsetDeleteRequestData) body(out.sent().getFirst())).topics().iterator().next().name());
        OffsetDeleteResponseData resp = writable((OffsetDeleteResponseData) out.response(), (short) 0);
        assertError(Errors.NONE, resp.errorCode());
        assertError(Errors.COORDINATOR_NOT_AVAILABLE, resp.topics().find("orders-eu").partitions().find(0).errorCode());
        assertError(Errors.GROUP_SUBSCRIBED_TO_TOPIC, resp.topics().find("us.orders").partitions().find(0).errorCode());
        assertError(Errors.UNKNOWN_TOPIC_OR_PARTITION, resp.topics().find("nope").partitions().find(0).errorCode());
    }
}
