package dev.weft.routing.partitionweave;

import static dev.weft.routing.partitionweave.WovenFixture.EAST;
import static dev.weft.routing.partitionweave.WovenFixture.EAST_ORDERS;
import static dev.weft.routing.partitionweave.WovenFixture.WEST;
import static dev.weft.routing.partitionweave.WovenFixture.WEST_ORDERS;
import static dev.weft.routing.partitionweave.WovenFixture.assertError;
import static dev.weft.routing.partitionweave.WovenFixture.body;
import static dev.weft.routing.partitionweave.WovenFixture.config;
import static dev.weft.routing.partitionweave.WovenFixture.driver;
import static dev.weft.routing.partitionweave.WovenFixture.seg;
import static dev.weft.routing.partitionweave.WovenFixture.writable;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.routing.RealTopic;
import dev.weft.routing.plan.PlanDriver;
import dev.weft.routing.plan.Answer;
import dev.weft.routing.plan.Part;
import dev.weft.routing.plan.Planners;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestPartition;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestTopic;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetCommitResponseData.OffsetCommitResponsePartition;
import org.apache.kafka.common.message.OffsetCommitResponseData.OffsetCommitResponseTopic;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData;
import org.apache.kafka.common.message.TxnOffsetCommitResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/** Group and transaction APIs on a partition-woven topic; groups and transactions are homed on east. */
class WovenGroupPlanningTest {

    private static final List<Integer> ALL = List.of(0, 1, 2, 3, 4);

    // ---- OffsetCommit

    private static OffsetCommitRequestData commit(List<Integer> partitions) {
        return new OffsetCommitRequestData().setGroupId("g").setGenerationIdOrMemberEpoch(5).setMemberId("m1")
                .setGroupInstanceId("i1").setTopics(List.of(new OffsetCommitRequestTopic().setName("orders").setPartitions(
                        partitions.stream().map(p -> new OffsetCommitRequestPartition().setPartitionIndex(p).setCommittedOffset(100 + p))
                                .toList())));
    }

    private static Function<Part, Answer> committing(int errorRoute, Errors error) {
        return part -> {
            OffsetCommitRequestData r = body(part);
            Errors e = part.route() == errorRoute ? error : Errors.NONE;
            return Answer.of(new OffsetCommitResponseData().setTopics(r.topics().stream().map(t -> new OffsetCommitResponseTopic()
                    .setName(t.name()).setTopicId(t.topicId()).setPartitions(t.partitions().stream().map(p -> new OffsetCommitResponsePartition()
                            .setPartitionIndex(p.partitionIndex()).setErrorCode(e.code())).toList())).toList()));
        };
    }

    private static Map<Integer, Errors> commitErrors(OffsetCommitResponseData resp) {
        assertEquals(1, resp.topics().size(), "one entry for the client's one topic");
        OffsetCommitResponseTopic t = resp.topics().getFirst();
        assertEquals("orders", t.name());
        Map<Integer, Errors> out = new TreeMap<>();
        t.partitions().forEach(p -> out.put(p.partitionIndex(), Errors.forCode(p.errorCode())));
        return out;
    }

    private static Map<Integer, Errors> every(Errors e, List<Integer> partitions) {
        Map<Integer, Errors> out = new TreeMap<>();
        partitions.forEach(p -> out.put(p, e));
        return out;
    }

    @Test
    void offsetCommitValidatesOnEastAndSendsWestsPartitionsAsASimpleCommitRenumbered() {
        short v = 9;
        PlanDriver.Outcome out = driver().ownRoute(EAST).run(Planners.forApi(ApiKeys.OFFSET_COMMIT.id), commit(ALL), v,
                committing(-1, Errors.NONE));
        assertEquals(List.of(EAST, WEST), out.sent().stream().map(Part::route).toList());
        OffsetCommitRequestData home = body(out.sent().get(0));
        assertEquals(5, home.generationIdOrMemberEpoch());
        assertEquals("m1", home.memberId());
        assertEquals("orders", home.topics().getFirst().name());
        assertEquals(List.of(0, 1, 2), home.topics().getFirst().partitions().stream().map(OffsetCommitRequestPartition::partitionIndex).toList());
        OffsetCommitRequestData simple = body(out.sent().get(1));
        assertEquals(-1, simple.generationIdOrMemberEpoch());
        assertEquals("", simple.memberId());
        assertEquals("orders-eu", simple.topics().getFirst().name());
        assertEquals(List.of(0, 1), simple.topics().getFirst().partitions().stream().map(OffsetCommitRequestPartition::partitionIndex).toList());
        assertEquals(List.of(103L, 104L), simple.topics().getFirst().partitions().stream()
                .map(OffsetCommitRequestPartition::committedOffset).toList(), "virtual 3 and 4's offsets");
        assertEquals(every(Errors.NONE, ALL), commitErrors(writable((OffsetCommitResponseData) out.response(), v)));
    }

    @Test
    void aFencedGenerationOnEastRefusesEveryPartitionIncludingWests() {
        PlanDriver.Outcome out = driver().ownRoute(EAST).run(Planners.forApi(ApiKeys.OFFSET_COMMIT.id), commit(ALL), (short) 9,
                committing(EAST, Errors.ILLEGAL_GENERATION));
        assertEquals(List.of(EAST), out.sent().stream().map(Part::route).toList(), "nothing committed on west");
        assertEquals(every(Errors.ILLEGAL_GENERATION, ALL), commitErrors((OffsetCommitResponseData) out.response()));
    }

    @Test
    void aFailedWestRouteErrsOnlyItsPartitionsAndByIdRealIdsGoOut() {
        short v10 = 10;
        Uuid ordersId = driver().topics().resolve("orders").virtualId();
        OffsetCommitRequestData req = commit(ALL);
        req.topics().getFirst().setName("").setTopicId(ordersId);
        PlanDriver.Outcome out = driver().ownRoute(EAST).run(Planners.forApi(ApiKeys.OFFSET_COMMIT.id), req, v10, part ->
                part.route() == WEST ? Answer.failed(Errors.NETWORK_EXCEPTION, "down") : committing(-1, Errors.NONE).apply(part));
        assertEquals(EAST_ORDERS, ((OffsetCommitRequestData) body(out.sent().get(0))).topics().getFirst().topicId());
        assertEquals(WEST_ORDERS, ((OffsetCommitRequestData) body(out.sent().get(1))).topics().getFirst().topicId());
        OffsetCommitResponseData resp = writable((OffsetCommitResponseData) out.response(), v10);
        assertEquals(ordersId, resp.topics().getFirst().topicId());
        Map<Integer, Errors> errors = new TreeMap<>();
        resp.topics().getFirst().partitions().forEach(p -> errors.put(p.partitionIndex(), Errors.forCode(p.errorCode())));
        assertEquals(List.of(0, 1, 2, 3, 4), List.copyOf(errors.keySet()));
        assertEquals(List.of(Errors.NONE, Errors.NONE, Errors.NONE), List.of(errors.get(0), errors.get(1), errors.get(2)));
        assertTrue(errors.get(3).exception() instanceof org.apache.kafka.common.errors.RetriableException, errors.toString());
        assertEquals(errors.get(3), errors.get(4));
    }

    // ---- OffsetFetch

    private static long offset(int route, int realPartition) {
        return 1000L * (route + 1) + realPartition;
    }

    /** Brokers answering the batched form; asked for all, east holds orders and other, west orders-eu (partition 0 each). */
    private static Answer fetched(Part part) {
        OffsetFetchRequestData r = body(part);
        List<OffsetFetchResponseData.OffsetFetchResponseGroup> groups = new ArrayList<>();
        for (OffsetFetchRequestData.OffsetFetchRequestGroup g : r.groups()) {
            List<OffsetFetchResponseData.OffsetFetchResponseTopics> topics = new ArrayList<>();
            if (g.topics() == null) {
                List<RealTopic> held = part.route() == EAST
                        ? List.of(new RealTopic("orders", EAST_ORDERS), new RealTopic("other", new Uuid(10, 2)))
                        : List.of(new RealTopic("orders-eu", WEST_ORDERS));
                for (RealTopic t : held) {
                    topics.add(new OffsetFetchResponseData.OffsetFetchResponseTopics().setName(part.version() >= 10 ? "" : t.name())
                            .setTopicId(part.version() >= 10 ? t.id() : Uuid.ZERO_UUID)
                            .setPartitions(List.of(partition(part.route(), 0))));
                }
            } else {
                for (OffsetFetchRequestData.OffsetFetchRequestTopics t : g.topics()) {
                    topics.add(new OffsetFetchResponseData.OffsetFetchResponseTopics().setName(t.name()).setTopicId(t.topicId())
                            .setPartitions(t.partitionIndexes().stream().map(p -> partition(part.route(), p)).toList()));
                }
            }
            groups.add(new OffsetFetchResponseData.OffsetFetchResponseGroup().setGroupId(g.groupId()).setTopics(topics));
        }
        return Answer.of(new OffsetFetchResponseData().setGroups(groups));
    }

    private static OffsetFetchResponseData.OffsetFetchResponsePartitions partition(int route, int p) {
        return new OffsetFetchResponseData.OffsetFetchResponsePartitions().setPartitionIndex(p).setCommittedOffset(offset(route, p))
                .setMetadata("");
    }

    private static Map<Integer, Long> offsets(OffsetFetchResponseData.OffsetFetchResponseTopics t) {
        Map<Integer, Long> out = new TreeMap<>();
        t.partitions().forEach(p -> out.put(p.partitionIndex(), p.committedOffset()));
        return out;
    }

    @Test
    void offsetFetchByNameIsSplitAndPutBackTogether() {
        short v = 9;
        OffsetFetchRequestData req = new OffsetFetchRequestData().setGroups(List.of(new OffsetFetchRequestData.OffsetFetchRequestGroup()
                .setGroupId("g").setTopics(List.of(new OffsetFetchRequestData.OffsetFetchRequestTopics().setName("orders")
                        .setPartitionIndexes(List.of(4, 0, 3, 2, 1))))));
        PlanDriver.Outcome out = driver().ownRoute(EAST).run(Planners.forApi(ApiKeys.OFFSET_FETCH.id), req, v,
                WovenGroupPlanningTest::fetched);
        assertEquals(List.of(EAST, WEST), out.sent().stream().map(Part::route).toList());
        OffsetFetchRequestData.OffsetFetchRequestTopics west = ((OffsetFetchRequestData) body(out.sent().get(1))).groups().getFirst()
                .topics().getFirst();
        assertEquals("orders-eu", west.name());
        assertEquals(List.of(1, 0), west.partitionIndexes());
        OffsetFetchResponseData resp = writable((OffsetFetchResponseData) out.response(), v);
        List<OffsetFetchResponseData.OffsetFetchResponseTopics> topics = resp.groups().getFirst().topics();
        assertEquals(1, topics.size());
        assertEquals("orders", topics.getFirst().name());
        assertEquals(Map.of(0, offset(EAST, 0), 1, offset(EAST, 1), 2, offset(EAST, 2), 3, offset(WEST, 0), 4, offset(WEST, 1)),
                offsets(topics.getFirst()));
    }

    @Test
    void offsetFetchOfAllTopicsShowsOnlyTheWovenTopicRenumbered() {
        for (short v : new short[] {9, 10}) {
            OffsetFetchRequestData req = new OffsetFetchRequestData().setGroups(List.of(
                    new OffsetFetchRequestData.OffsetFetchRequestGroup().setGroupId("g").setTopics(null)));
            PlanDriver.Outcome out = driver().ownRoute(EAST).run(Planners.forApi(ApiKeys.OFFSET_FETCH.id), req, v,
                    WovenGroupPlanningTest::fetched);
            assertEquals(2, out.sent().size(), "v" + v);
            OffsetFetchResponseData resp = writable((OffsetFetchResponseData) out.response(), v);
            List<OffsetFetchResponseData.OffsetFetchResponseTopics> topics = resp.groups().getFirst().topics();
            assertEquals(1, topics.size(), "v" + v + ": " + topics);
            if (v >= 10) {
                assertEquals(driver().topics().resolve("orders").virtualId(), topics.getFirst().topicId());
            } else {
                assertEquals("orders", topics.getFirst().name());
            }
            assertEquals(Map.of(0, offset(EAST, 0), 3, offset(WEST, 0)), offsets(topics.getFirst()), "v" + v);
        }
    }

    // ---- transactions: the home route is east; a second segment of east's orders makes renumbering visible

    /** orders = east orders 0-1 (virtual 0-1) + east orders 4-5 (virtual 2-3) + west orders-eu 0-1 (virtual 4-5). */
    private static PlanDriver splitDriver() {
        return WovenFixture.driver(WovenFixture.router(config("orders", List.of(seg("east", "orders", "0-1"),
                seg("east", "orders", "4-5"), seg("west", "orders-eu", "0-1")))), List.of(
                List.of(new RealTopic("orders", EAST_ORDERS, 6)), List.of(new RealTopic("orders-eu", WEST_ORDERS, 2)))).ownRoute(EAST);
    }

    private static TxnOffsetCommitRequestData txnCommit(int... partitions) {
        List<TxnOffsetCommitRequestData.TxnOffsetCommitRequestPartition> ps = new ArrayList<>();
        for (int p : partitions) {
            ps.add(new TxnOffsetCommitRequestData.TxnOffsetCommitRequestPartition().setPartitionIndex(p).setCommittedOffset(10 + p));
        }
        return new TxnOffsetCommitRequestData().setTransactionalId("tx").setGroupId("g").setProducerId(7).setProducerEpoch((short) 1)
                .setTopics(List.of(new TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic().setName("orders").setPartitions(ps)));
    }

    private static Answer txnCommitted(Part part) {
        TxnOffsetCommitRequestData r = body(part);
        return Answer.of(new TxnOffsetCommitResponseData().setTopics(r.topics().stream().map(t ->
                new TxnOffsetCommitResponseData.TxnOffsetCommitResponseTopic().setName(t.name()).setPartitions(t.partitions().stream()
                        .map(p -> new TxnOffsetCommitResponseData.TxnOffsetCommitResponsePartition().setPartitionIndex(p.partitionIndex())
                                .setErrorCode(p.partitionIndex() == 5 ? Errors.UNKNOWN_TOPIC_OR_PARTITION.code() : 0)).toList())).toList()));
    }

    @Test
    void txnOffsetCommitNamingAPartitionOfAnotherRouteIsAbortable() {
        short v = 3;
        PlanDriver.Outcome out = splitDriver().run(Planners.forApi(ApiKeys.TXN_OFFSET_COMMIT.id), txnCommit(0, 4), v,
                WovenGroupPlanningTest::txnCommitted);
        assertEquals(List.of(), out.sent());
        TxnOffsetCommitResponseData resp = (TxnOffsetCommitResponseData) out.response();
        resp.topics().forEach(t -> t.partitions().forEach(p -> assertError(Errors.TRANSACTION_ABORTABLE, p.errorCode())));
        assertEquals(2, resp.topics().stream().mapToInt(t -> t.partitions().size()).sum());
        assertFalse(out.refusals().isEmpty(), "logged for operators");
    }

    @Test
    void txnOffsetCommitOfHomePartitionsGoesHomeRenumbered() {
        short v = 3;
        PlanDriver.Outcome out = splitDriver().run(Planners.forApi(ApiKeys.TXN_OFFSET_COMMIT.id), txnCommit(0, 3, 2), v,
                WovenGroupPlanningTest::txnCommitted);
        assertEquals(1, out.sent().size());
        assertEquals(EAST, out.sent().getFirst().route());
        TxnOffsetCommitRequestData sent = body(out.sent().getFirst());
        assertEquals(1, sent.topics().size(), "both segments of east's orders in one entry");
        assertEquals("orders", sent.topics().getFirst().name());
        assertEquals(List.of(0, 5, 4), sent.topics().getFirst().partitions().stream()
                .map(TxnOffsetCommitRequestData.TxnOffsetCommitRequestPartition::partitionIndex).toList());
        assertEquals(List.of(10L, 13L, 12L), sent.topics().getFirst().partitions().stream()
                .map(TxnOffsetCommitRequestData.TxnOffsetCommitRequestPartition::committedOffset).toList());
        TxnOffsetCommitResponseData resp = writable((TxnOffsetCommitResponseData) out.response(), v);
        assertEquals(1, resp.topics().size());
        Map<Integer, Errors> seen = new TreeMap<>();
        resp.topics().getFirst().partitions().forEach(p -> seen.put(p.partitionIndex(), Errors.forCode(p.errorCode())));
        assertEquals(Map.of(0, Errors.NONE, 2, Errors.NONE, 3, Errors.UNKNOWN_TOPIC_OR_PARTITION), seen,
                "real 5's error comes back on virtual 3");
    }

    private static AddPartitionsToTxnRequestData addPartitions(Integer... partitions) {
        AddPartitionsToTxnRequestData.AddPartitionsToTxnTopicCollection topics = new AddPartitionsToTxnRequestData.AddPartitionsToTxnTopicCollection();
        topics.add(new AddPartitionsToTxnRequestData.AddPartitionsToTxnTopic().setName("orders").setPartitions(List.of(partitions)));
        return new AddPartitionsToTxnRequestData().setV3AndBelowTransactionalId("tx").setV3AndBelowProducerId(7)
                .setV3AndBelowProducerEpoch((short) 1).setV3AndBelowTopics(topics);
    }

    private static Answer added(Part part) {
        AddPartitionsToTxnRequestData r = body(part);
        AddPartitionsToTxnResponseData.AddPartitionsToTxnTopicResultCollection results = new AddPartitionsToTxnResponseData.AddPartitionsToTxnTopicResultCollection();
        for (AddPartitionsToTxnRequestData.AddPartitionsToTxnTopic t : r.v3AndBelowTopics()) {
            AddPartitionsToTxnResponseData.AddPartitionsToTxnPartitionResultCollection ps = new AddPartitionsToTxnResponseData.AddPartitionsToTxnPartitionResultCollection();
            t.partitions().forEach(p -> ps.add(new AddPartitionsToTxnResponseData.AddPartitionsToTxnPartitionResult().setPartitionIndex(p)
                    .setPartitionErrorCode(p == 4 ? Errors.CONCURRENT_TRANSACTIONS.code() : 0)));
            results.add(new AddPartitionsToTxnResponseData.AddPartitionsToTxnTopicResult().setName(t.name()).setResultsByPartition(ps));
        }
        return Answer.of(new AddPartitionsToTxnResponseData().setResultsByTopicV3AndBelow(results));
    }

    private static Map<Integer, Errors> addErrors(AddPartitionsToTxnResponseData resp) {
        Map<Integer, Errors> out = new TreeMap<>();
        for (AddPartitionsToTxnResponseData.AddPartitionsToTxnTopicResult t : resp.resultsByTopicV3AndBelow()) {
            assertEquals("orders", t.name());
            t.resultsByPartition().forEach(p -> out.put(p.partitionIndex(), Errors.forCode(p.partitionErrorCode())));
        }
        return out;
    }

    @Test
    void addPartitionsToTxnNamingAPartitionOfAnotherRouteIsAbortable() {
        PlanDriver.Outcome out = splitDriver().run(Planners.forApi(ApiKeys.ADD_PARTITIONS_TO_TXN.id), addPartitions(1, 5),
                (short) 3, WovenGroupPlanningTest::added);
        assertEquals(List.of(), out.sent());
        Map<Integer, Errors> errors = addErrors((AddPartitionsToTxnResponseData) out.response());
        assertEquals(List.of(1, 5), List.copyOf(errors.keySet()));
        errors.values().forEach(e -> assertEquals(Errors.TRANSACTION_ABORTABLE, e));
    }

    @Test
    void addPartitionsToTxnOfHomePartitionsGoesHomeRenumbered() {
        short v = 3;
        PlanDriver.Outcome out = splitDriver().run(Planners.forApi(ApiKeys.ADD_PARTITIONS_TO_TXN.id), addPartitions(3, 1, 2),
                v, WovenGroupPlanningTest::added);
        assertEquals(1, out.sent().size());
        assertEquals(EAST, out.sent().getFirst().route());
        AddPartitionsToTxnRequestData sent = body(out.sent().getFirst());
        assertEquals(1, sent.v3AndBelowTopics().size());
        assertEquals("orders", sent.v3AndBelowTopics().iterator().next().name());
        assertEquals(List.of(5, 1, 4), sent.v3AndBelowTopics().iterator().next().partitions());
        AddPartitionsToTxnResponseData resp = writable((AddPartitionsToTxnResponseData) out.response(), v);
        assertEquals(Map.of(1, Errors.NONE, 2, Errors.CONCURRENT_TRANSACTIONS, 3, Errors.NONE), addErrors(resp));
        for (AddPartitionsToTxnResponseData.AddPartitionsToTxnTopicResult t : resp.resultsByTopicV3AndBelow()) {
            t.resultsByPartition().forEach(p -> assertEquals(p, t.resultsByPartition().find(p.partitionIndex()),
                    "the renumbered collection finds its elements by index"));
        }
    }

    // ---- ConsumerGroupHeartbeat

    @Test
    void aKip848GroupSubscribingToAWovenTopicIsRefused() {
        short v = 0;
        ConsumerGroupHeartbeatRequestData req = new ConsumerGroupHeartbeatRequestData().setGroupId("g").setMemberId("m")
                .setMemberEpoch(0).setRebalanceTimeoutMs(1000).setSubscribedTopicNames(List.of("orders")).setTopicPartitions(List.of());
        PlanDriver.Outcome out = driver().ownRoute(EAST).run(Planners.forApi(req.apiKey()), req, v,
                part -> Answer.of(new ConsumerGroupHeartbeatResponseData()));
        assertEquals(List.of(), out.sent());
        ConsumerGroupHeartbeatResponseData resp = writable((ConsumerGroupHeartbeatResponseData) out.response(), v);
        assertError(Errors.INVALID_REQUEST, resp.errorCode());
        assertTrue(resp.errorMessage().contains("'orders', which is partition-woven"), resp.errorMessage());
        assertTrue(resp.errorMessage().contains("group.protocol=classic"), resp.errorMessage());
        assertEquals(List.of(resp.errorMessage()), out.refusals());
    }
}
