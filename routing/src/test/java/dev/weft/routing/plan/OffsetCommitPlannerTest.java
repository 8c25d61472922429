package dev.weft.routing.plan;

import static dev.weft.routing.plan.GroupsFixture.AP;
import static dev.weft.routing.plan.GroupsFixture.AP_LOGS;
import static dev.weft.routing.plan.GroupsFixture.EU;
import static dev.weft.routing.plan.GroupsFixture.US;
import static dev.weft.routing.plan.GroupsFixture.US_ORDERS;
import static dev.weft.routing.plan.GroupsFixture.assertError;
import static dev.weft.routing.plan.GroupsFixture.body;
import static dev.weft.routing.plan.GroupsFixture.driver;
import static dev.weft.routing.plan.GroupsFixture.writable;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.HeartbeatResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestPartition;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestTopic;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetCommitResponseData.OffsetCommitResponsePartition;
import org.apache.kafka.common.message.OffsetCommitResponseData.OffsetCommitResponseTopic;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

class OffsetCommitPlannerTest {

    private static final OffsetCommitPlanner PLANNER = new OffsetCommitPlanner();
    private static final short V9 = 9;

    private static OffsetCommitRequestTopic topic(String name, int... partitions) {
        List<OffsetCommitRequestPartition> ps = new ArrayList<>();
        for (int p : partitions) {
            ps.add(new OffsetCommitRequestPartition().setPartitionIndex(p).setCommittedOffset(100 + p));
        }
        return new OffsetCommitRequestTopic().setName(name).setPartitions(ps);
    }

    private static OffsetCommitRequestData commit(int generation, OffsetCommitRequestTopic... topics) {
        return new OffsetCommitRequestData().setGroupId("g").setGenerationIdOrMemberEpoch(generation)
                .setMemberId(generation < 0 ? "" : "m1").setGroupInstanceId(generation < 0 ? null : "i1")
                .setTopics(List.of(topics));
    }

    /** Every partition of a commit part answered with {@code error}, under the part's names and ids. */
    private static OffsetCommitResponseData answer(OffsetCommitRequestData part, Errors error) {
        List<OffsetCommitResponseTopic> topics = new ArrayList<>();
        for (OffsetCommitRequestTopic t : part.topics()) {
            topics.add(new OffsetCommitResponseTopic().setName(t.name()).setTopicId(t.topicId())
                    .setPartitions(t.partitions().stream().map(p -> new OffsetCommitResponsePartition()
                            .setPartitionIndex(p.partitionIndex()).setErrorCode(error.code())).toList()));
        }
        return new OffsetCommitResponseData().setThrottleTimeMs(part.topics().size()).setTopics(topics);
    }

    /** Commits answered with {@code commitError} on {@code errorRoute} (else NONE); heartbeats with {@code probe}. */
    private static Function<Part, Answer> brokers(int errorRoute, Errors commitError, Errors probe) {
        return part -> {
            ApiMessage body = part.body();
            if (body instanceof HeartbeatRequestData) {
                return Answer.of(new HeartbeatResponseData().setErrorCode(probe.code()));
            }
            return Answer.of(answer((OffsetCommitRequestData) body, part.route() == errorRoute ? commitError : Errors.NONE));
        };
    }

    private static void assertPartitions(OffsetCommitResponseTopic t, String name, Errors error, int count) {
        assertEquals(name, t.name());
        assertEquals(count, t.partitions().size());
        t.partitions().forEach(p -> assertError(error, p.errorCode()));
    }

    @Test
    void unfencedCommitGoesToEveryRouteRenamedAndComesBackInTheClientsOrder() {
        OffsetCommitRequestData req = commit(-1, topic("audit", 0), topic("us.orders", 1, 2), topic("logs", 3),
                topic("nope", 0), topic("secret", 0));
        PlanDriver.Outcome out = driver(US).run(PLANNER, req, V9, brokers(-1, Errors.NONE, Errors.NONE));
        assertEquals(List.of(US, EU, AP), out.sent().stream().map(Part::route).toList());
        for (Part p : out.sent()) {
            assertEquals(new Destination.GroupCoordinator("g"), p.to());
            assertEquals(V9, p.version());
            writable(p.body(), p.version());
        }
        assertEquals("orders", ((OffsetCommitRequestData) body(out.sent().get(0))).topics().getFirst().name());
        assertEquals("audit", ((OffsetCommitRequestData) body(out.sent().get(1))).topics().getFirst().name());
        assertEquals("logs", ((OffsetCommitRequestData) body(out.sent().get(2))).topics().getFirst().name());
        OffsetCommitResponseData resp = writable((OffsetCommitResponseData) out.response(), V9);
        assertEquals(5, resp.topics().size());
        assertPartitions(resp.topics().get(0), "audit", Errors.NONE, 1);
        assertPartitions(resp.topics().get(1), "us.orders", Errors.NONE, 2);
        assertEquals(List.of(1, 2), resp.topics().get(1).partitions().stream()
                .map(OffsetCommitResponsePartition::partitionIndex).toList());
        assertPartitions(resp.topics().get(2), "logs", Errors.NONE, 1);
        assertPartitions(resp.topics().get(3), "nope", Errors.UNKNOWN_TOPIC_OR_PARTITION, 1);
        assertPartitions(resp.topics().get(4), "secret", Errors.UNKNOWN_TOPIC_OR_PARTITION, 1);
        assertEquals(1, resp.throttleTimeMs());
    }

    @Test
    void homeValidatesTheGenerationFirstAndOtherRoutesGetASimpleCommit() {
        OffsetCommitRequestData req = commit(5, topic("orders-eu", 0), topic("us.orders", 0, 1));
        PlanDriver.Outcome out = driver(US).run(PLANNER, req, V9, brokers(-1, Errors.NONE, Errors.NONE));
        assertEquals(List.of(US, EU), out.sent().stream().map(Part::route).toList());
        OffsetCommitRequestData home = body(out.sent().get(0));
        assertEquals(5, home.generationIdOrMemberEpoch());
        assertEquals("m1", home.memberId());
        assertEquals("i1", home.groupInstanceId());
        assertEquals(List.of("orders"), home.topics().stream().map(OffsetCommitRequestTopic::name).toList());
        OffsetCommitRequestData simple = body(out.sent().get(1));
        assertEquals(-1, simple.generationIdOrMemberEpoch());
        assertEquals("", simple.memberId());
        assertNull(simple.groupInstanceId());
        assertEquals("g", simple.groupId());
        assertEquals(List.of("orders"), simple.topics().stream().map(OffsetCommitRequestTopic::name).toList());
        OffsetCommitResponseData resp = (OffsetCommitResponseData) out.response();
        assertPartitions(resp.topics().get(0), "orders-eu", Errors.NONE, 1);
        assertPartitions(resp.topics().get(1), "us.orders", Errors.NONE, 2);
    }

    @Test
    void aFencedGenerationOnTheHomeRouteRefusesEveryPartitionAndNothingIsSentElsewhere() {
        for (Errors fenced : List.of(Errors.ILLEGAL_GENERATION, Errors.UNKNOWN_MEMBER_ID, Errors.FENCED_INSTANCE_ID,
                Errors.REBALANCE_IN_PROGRESS, Errors.STALE_MEMBER_EPOCH, Errors.NOT_COORDINATOR)) {
            OffsetCommitRequestData req = commit(5, topic("orders-eu", 0), topic("us.orders", 0, 1), topic("logs", 4));
            PlanDriver.Outcome out = driver(US).run(PLANNER, req, V9, brokers(US, fenced, Errors.NONE));
            assertEquals(List.of(US), out.sent().stream().map(Part::route).toList(), fenced.name());
            OffsetCommitResponseData resp = writable((OffsetCommitResponseData) out.response(), V9);
            assertPartitions(resp.topics().get(0), "orders-eu", fenced, 1);
            assertPartitions(resp.topics().get(1), "us.orders", fenced, 2);
            assertPartitions(resp.topics().get(2), "logs", fenced, 1);
        }
    }

    @Test
    void aPerPartitionErrorOnTheHomeRouteDoesNotFenceTheOthers() {
        OffsetCommitRequestData req = commit(5, topic("orders-eu", 0), topic("us.orders", 0));
        PlanDriver.Outcome out = driver(US).run(PLANNER, req, V9,
                brokers(US, Errors.OFFSET_METADATA_TOO_LARGE, Errors.NONE));
        assertEquals(List.of(US, EU), out.sent().stream().map(Part::route).toList());
        OffsetCommitResponseData resp = (OffsetCommitResponseData) out.response();
        assertPartitions(resp.topics().get(0), "orders-eu", Errors.NONE, 1);
        assertPartitions(resp.topics().get(1), "us.orders", Errors.OFFSET_METADATA_TOO_LARGE, 1);
    }

    @Test
    void withoutHomePartitionsAHeartbeatProbesTheGenerationFirst() {
        OffsetCommitRequestData req = commit(7, topic("orders-eu", 0), topic("logs", 1));
        PlanDriver.Outcome out = driver(EU).run(PLANNER, req, V9, brokers(-1, Errors.NONE, Errors.NONE));
        assertEquals(List.of(US, EU, AP), out.sent().stream().map(Part::route).toList());
        Part probe = out.sent().getFirst();
        assertEquals(new Destination.GroupCoordinator("g"), probe.to());
        assertEquals(4, probe.version());
        HeartbeatRequestData hb = assertInstanceOf(HeartbeatRequestData.class, probe.body());
        assertEquals("g", hb.groupId());
        assertEquals(7, hb.generationId());
        assertEquals("m1", hb.memberId());
        assertEquals("i1", hb.groupInstanceId());
        writable(hb, probe.version());
        OffsetCommitRequestData eu = body(out.sent().get(1));
        assertEquals(-1, eu.generationIdOrMemberEpoch());
        OffsetCommitResponseData resp = (OffsetCommitResponseData) out.response();
        assertPartitions(resp.topics().get(0), "orders-eu", Errors.NONE, 1);
        assertPartitions(resp.topics().get(1), "logs", Errors.NONE, 1);
    }

    @Test
    void aProbeAnsweredRebalanceInProgressLetsTheCommitThrough() {
        OffsetCommitRequestData req = commit(7, topic("orders-eu", 0));
        PlanDriver.Outcome out = driver(EU).run(PLANNER, req, V9,
                brokers(-1, Errors.NONE, Errors.REBALANCE_IN_PROGRESS));
        assertEquals(List.of(US, EU), out.sent().stream().map(Part::route).toList());
        assertPartitions(((OffsetCommitResponseData) out.response()).topics().getFirst(), "orders-eu", Errors.NONE, 1);
    }

    @Test
    void aProbeAnsweredIllegalGenerationRefusesEveryPartition() {
        OffsetCommitRequestData req = commit(7, topic("orders-eu", 0, 1), topic("logs", 2));
        PlanDriver.Outcome out = driver(EU).run(PLANNER, req, V9,
                brokers(-1, Errors.NONE, Errors.ILLEGAL_GENERATION));
        assertEquals(List.of(US), out.sent().stream().map(Part::route).toList());
        OffsetCommitResponseData resp = (OffsetCommitResponseData) out.response();
        assertPartitions(resp.topics().get(0), "orders-eu", Errors.ILLEGAL_GENERATION, 2);
        assertPartitions(resp.topics().get(1), "logs", Errors.ILLEGAL_GENERATION, 1);
    }

    @Test
    void aFailedHomeRouteInTheFirstStageRefusesEverythingRetriably() {
        OffsetCommitRequestData req = commit(5, topic("orders-eu", 0), topic("us.orders", 0));
        PlanDriver.Outcome out = driver(US).run(PLANNER, req, V9, part -> part.route() == US
                ? Answer.failed(Errors.NETWORK_EXCEPTION, "down") : brokers(-1, Errors.NONE, Errors.NONE).apply(part));
        assertEquals(1, out.sent().size());
        OffsetCommitResponseData resp = (OffsetCommitResponseData) out.response();
        assertPartitions(resp.topics().get(0), "orders-eu", Errors.COORDINATOR_NOT_AVAILABLE, 1);
        assertPartitions(resp.topics().get(1), "us.orders", Errors.COORDINATOR_NOT_AVAILABLE, 1);
    }

    @Test
    void aFailedOtherRouteGetsARetriableErrorOnItsPartitionsOnly() {
        OffsetCommitRequestData req = commit(5, topic("orders-eu", 0), topic("us.orders", 0), topic("logs", 0));
        PlanDriver.Outcome out = driver(US).run(PLANNER, req, V9, part -> part.route() == EU
                ? Answer.failed(Errors.NETWORK_EXCEPTION, "down") : brokers(-1, Errors.NONE, Errors.NONE).apply(part));
        OffsetCommitResponseData resp = (OffsetCommitResponseData) out.response();
        // retriable without sending the client away from its (healthy) home coordinator
        assertPartitions(resp.topics().get(0), "orders-eu", Errors.COORDINATOR_LOAD_IN_PROGRESS, 1);
        assertPartitions(resp.topics().get(1), "us.orders", Errors.NONE, 1);
        assertPartitions(resp.topics().get(2), "logs", Errors.NONE, 1);
    }

    @Test
    void v10NamesTopicsByIdRealIdsGoOutAndVirtualIdsComeBack() {
        short v10 = 10;
        PlanDriver d = driver(US);
        Uuid logsVirtual = d.topics().resolve("logs").virtualId();
        assertNotEquals(AP_LOGS, logsVirtual, "fixture: logs has a synthetic virtual id");
        Uuid unknown = new Uuid(99, 99);
        OffsetCommitRequestData req = commit(-1, byId(logsVirtual, 0), byId(US_ORDERS, 1), byId(unknown, 2));
        PlanDriver.Outcome out = d.run(PLANNER, req, v10, brokers(-1, Errors.NONE, Errors.NONE));
        Part ap = out.sent().stream().filter(p -> p.route() == AP).findFirst().orElseThrow();
        assertEquals(AP_LOGS, ((OffsetCommitRequestData) ap.body()).topics().getFirst().topicId());
        writable(ap.body(), v10);
        OffsetCommitResponseData resp = writable((OffsetCommitResponseData) out.response(), v10);
        assertEquals(List.of(logsVirtual, US_ORDERS, unknown),
                resp.topics().stream().map(OffsetCommitResponseTopic::topicId).toList());
        assertError(Errors.NONE, resp.topics().get(0).partitions().getFirst().errorCode());
        assertError(Errors.UNKNOWN_TOPIC_OR_PARTITION, resp.topics().get(2).partitions().getFirst().errorCode());
    }

    @Test
    void oldestVersionWorksToo() {
        short v2 = 2;
        OffsetCommitRequestData req = new OffsetCommitRequestData().setGroupId("g").setGenerationIdOrMemberEpoch(3)
                .setMemberId("m").setRetentionTimeMs(-1).setTopics(List.of(topic("orders-eu", 0), topic("us.orders", 0)));
        PlanDriver.Outcome out = driver(US).run(PLANNER, req, v2, brokers(-1, Errors.NONE, Errors.NONE));
        out.sent().forEach(p -> writable(p.body(), v2));
        OffsetCommitResponseData resp = writable((OffsetCommitResponseData) out.response(), v2);
        assertPartitions(resp.topics().get(0), "orders-eu", Errors.NONE, 1);
    }

    @Test
    void onlyUnknownTopicsSendNothing() {
        PlanDriver.Outcome out = driver(US).run(PLANNER, commit(5, topic("nope", 0, 1)), V9,
                brokers(-1, Errors.NONE, Errors.NONE));
        assertEquals(0, out.sent().size());
        assertPartitions(((OffsetCommitResponseData) out.response()).topics().getFirst(), "nope",
                Errors.UNKNOWN_TOPIC_OR_PARTITION, 2);
    }

    private static OffsetCommitRequestTopic byId(Uuid id, int partition) {
        return new OffsetCommitRequestTopic().setTopicId(id).setPartitions(List.of(
                new OffsetCommitRequestPartition().setPartitionIndex(partition).setCommittedOffset(1)));
    }
}
