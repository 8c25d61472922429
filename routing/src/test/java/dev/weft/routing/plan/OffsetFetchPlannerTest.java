package dev.weft.routing.plan;

import static dev.weft.routing.plan.GroupsFixture.AP;
import static dev.weft.routing.plan.GroupsFixture.AP_LOGS;
import static dev.weft.routing.plan.GroupsFixture.AP_SECRET;
import static dev.weft.routing.plan.GroupsFixture.EU;
import static dev.weft.routing.plan.GroupsFixture.EU_AUDIT;
import static dev.weft.routing.plan.GroupsFixture.EU_ORDERS;
import static dev.weft.routing.plan.GroupsFixture.US;
import static dev.weft.routing.plan.GroupsFixture.US_CLICKS;
import static dev.weft.routing.plan.GroupsFixture.US_ORDERS;
import static dev.weft.routing.plan.GroupsFixture.assertError;
import static dev.weft.routing.plan.GroupsFixture.body;
import static dev.weft.routing.plan.GroupsFixture.driver;
import static dev.weft.routing.plan.GroupsFixture.writable;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.routing.RealTopic;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestGroup;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestTopic;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestTopics;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseGroup;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponsePartition;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponsePartitions;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseTopic;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseTopics;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

class OffsetFetchPlannerTest {

    private static final OffsetFetchPlanner PLANNER = new OffsetFetchPlanner();

    /** The real topics each route's broker holds offsets for (partition 0 each) when asked for all. */
    private static final List<List<RealTopic>> COMMITTED = List.of(
            List.of(new RealTopic("orders", US_ORDERS), new RealTopic("clicks", US_CLICKS)),
            List.of(new RealTopic("orders", EU_ORDERS), new RealTopic("audit", EU_AUDIT)),
            List.of(new RealTopic("logs", AP_LOGS), new RealTopic("secret", AP_SECRET)));

    /** Offset of partition p on route r: 1000 * (r + 1) + p, so a value tells where it came from. */
    private static long offset(int route, int partition) {
        return 1000L * (route + 1) + partition;
    }

    /** Brokers answering in the part's version form; {@code groupError} on route {@code errorRoute}. */
    private static Function<Part, Answer> brokers(int errorRoute, Errors groupError) {
        return part -> {
            OffsetFetchRequestData req = body(part);
            short error = (part.route() == errorRoute ? groupError : Errors.NONE).code();
            if (part.version() >= 8) {
                List<OffsetFetchResponseGroup> groups = new ArrayList<>();
                for (OffsetFetchRequestGroup g : req.groups()) {
                    List<OffsetFetchResponseTopics> topics = new ArrayList<>();
                    if (g.topics() == null) {
                        for (RealTopic t : COMMITTED.get(part.route())) {
                            topics.add(new OffsetFetchResponseTopics().setName(t.name()).setTopicId(t.id())
                                    .setPartitions(List.of(partitions(part.route(), 0))));
                        }
                    } else {
                        for (OffsetFetchRequestTopics t : g.topics()) {
                            topics.add(new OffsetFetchResponseTopics().setName(t.name()).setTopicId(t.topicId())
                                    .setPartitions(t.partitionIndexes().stream().map(p -> partitions(part.route(), p))
                                            .toList()));
                        }
                    }
                    groups.add(new OffsetFetchResponseGroup().setGroupId(g.groupId()).setErrorCode(error)
                            .setTopics(error == 0 ? topics : List.of()));
                }
                return Answer.of(new OffsetFetchResponseData().setGroups(groups).setThrottleTimeMs(part.route()));
            }
            List<OffsetFetchResponseTopic> topics = new ArrayList<>();
            for (OffsetFetchRequestTopic t : req.topics()) {
                topics.add(new OffsetFetchResponseTopic().setName(t.name()).setPartitions(t.partitionIndexes().stream()
                        .map(p -> new OffsetFetchResponsePartition().setPartitionIndex(p)
                                .setCommittedOffset(offset(part.route(), p)).setMetadata(""))
                        .toList()));
            }
            OffsetFetchResponseData out = new OffsetFetchResponseData().setTopics(topics).setThrottleTimeMs(part.route());
            return Answer.of(part.version() >= 2 ? out.setErrorCode(error) : out);
        };
    }

    private static OffsetFetchResponsePartitions partitions(int route, int p) {
        return new OffsetFetchResponsePartitions().setPartitionIndex(p).setCommittedOffset(offset(route, p))
                .setMetadata("");
    }

    private static OffsetFetchRequestTopics named(String name, Integer... partitions) {
        return new OffsetFetchRequestTopics().setName(name).setPartitionIndexes(List.of(partitions));
    }

    private static OffsetFetchRequestData batched(OffsetFetchRequestGroup... groups) {
        return new OffsetFetchRequestData().setGroups(List.of(groups)).setRequireStable(true);
    }

    private static List<String> names(OffsetFetchResponseGroup g) {
        return g.topics().stream().map(OffsetFetchResponseTopics::name).toList();
    }

    @Test
    void v7SplitsOneGroupsTopicsByRouteAndMergesInTheClientsOrder() {
        short v7 = 7;
        OffsetFetchRequestData req = new OffsetFetchRequestData().setGroupId("g").setRequireStable(true).setTopics(List.of(
                new OffsetFetchRequestTopic().setName("orders-eu").setPartitionIndexes(List.of(0)),
                new OffsetFetchRequestTopic().setName("us.orders").setPartitionIndexes(List.of(1, 2)),
                new OffsetFetchRequestTopic().setName("nope").setPartitionIndexes(List.of(0))));
        PlanDriver.Outcome out = driver(US).run(PLANNER, req, v7, brokers(-1, Errors.NONE));
        assertEquals(List.of(US, EU), out.sent().stream().map(Part::route).toList());
        for (Part p : out.sent()) {
            OffsetFetchRequestData b = writable((OffsetFetchRequestData) p.body(), v7);
            assertEquals("g", b.groupId());
            assertTrue(b.requireStable());
            assertEquals(List.of("orders"), b.topics().stream().map(OffsetFetchRequestTopic::name).toList());
            assertEquals(new Destination.GroupCoordinator("g"), p.to());
        }
        OffsetFetchResponseData resp = writable((OffsetFetchResponseData) out.response(), v7);
        assertEquals(List.of("orders-eu", "us.orders", "nope"), resp.topics().stream().map(OffsetFetchResponseTopic::name)
                .toList());
        assertEquals(offset(EU, 0), resp.topics().get(0).partitions().getFirst().committedOffset());
        assertEquals(List.of(offset(US, 1), offset(US, 2)), resp.topics().get(1).partitions().stream()
                .map(OffsetFetchResponsePartition::committedOffset).toList());
        assertError(Errors.UNKNOWN_TOPIC_OR_PARTITION, resp.topics().get(2).partitions().getFirst().errorCode());
        assertEquals(-1, resp.topics().get(2).partitions().getFirst().committedOffset());
        assertError(Errors.NONE, resp.errorCode());
        assertEquals(EU, resp.throttleTimeMs());
    }

    @Test
    void v8BatchesGroupsOnePartPerGroupAndRouteAndAllTopicsSeeOnlyVisibleOnes() {
        short v8 = 8;
        OffsetFetchRequestData req = batched(
                new OffsetFetchRequestGroup().setGroupId("g").setTopics(List.of(named("orders-eu", 0))),
                new OffsetFetchRequestGroup().setGroupId("eu-g").setTopics(null));
        PlanDriver.Outcome out = driver(EU).run(PLANNER, req, v8, brokers(-1, Errors.NONE));
        assertEquals(List.of(EU, US, EU, AP), out.sent().stream().map(Part::route).toList());
        assertEquals(new Destination.GroupCoordinator("g"), out.sent().get(0).to());
        assertEquals(new Destination.GroupCoordinator("eu-g"), out.sent().get(1).to());
        for (Part p : out.sent()) {
            OffsetFetchRequestData b = writable((OffsetFetchRequestData) p.body(), v8);
            assertEquals(1, b.groups().size());
            assertTrue(b.requireStable());
        }
        assertNull(((OffsetFetchRequestData) body(out.sent().get(1))).groups().getFirst().topics());
        OffsetFetchResponseData resp = writable((OffsetFetchResponseData) out.response(), v8);
        assertEquals(List.of("g", "eu-g"), resp.groups().stream().map(OffsetFetchResponseGroup::groupId).toList());
        assertEquals(List.of("orders-eu"), names(resp.groups().get(0)));
        OffsetFetchResponseGroup all = resp.groups().get(1);
        assertEquals(List.of("us.orders", "us.clicks", "orders-eu", "audit", "logs"), names(all),
                "hidden 'secret' left out, names virtual");
        assertEquals(offset(US, 0), all.topics().get(0).partitions().getFirst().committedOffset());
        assertEquals(offset(AP, 0), all.topics().get(4).partitions().getFirst().committedOffset());
        assertError(Errors.NONE, all.errorCode());
    }

    @Test
    void v9MemberIdAndEpochGoOnlyToTheHomeRoute() {
        short v9 = 9;
        OffsetFetchRequestData req = batched(new OffsetFetchRequestGroup().setGroupId("g").setMemberId("m")
                .setMemberEpoch(3).setTopics(List.of(named("orders-eu", 0), named("us.orders", 0))));
        PlanDriver.Outcome out = driver(US).run(PLANNER, req, v9, brokers(-1, Errors.NONE));
        OffsetFetchRequestGroup home = ((OffsetFetchRequestData) body(out.sent().get(0))).groups().getFirst();
        OffsetFetchRequestGroup other = ((OffsetFetchRequestData) body(out.sent().get(1))).groups().getFirst();
        assertEquals(US, out.sent().get(0).route());
        assertEquals("m", home.memberId());
        assertEquals(3, home.memberEpoch());
        assertNull(other.memberId());
        assertEquals(-1, other.memberEpoch());
        writable(out.response(), v9);
    }

    @Test
    void v10TopicIdsAreMappedBothWays() {
        short v10 = 10;
        PlanDriver d = driver(US);
        Uuid logsVirtual = d.topics().resolve("logs").virtualId();
        OffsetFetchRequestData req = batched(
                new OffsetFetchRequestGroup().setGroupId("g").setTopics(List.of(
                        new OffsetFetchRequestTopics().setTopicId(logsVirtual).setPartitionIndexes(List.of(2)),
                        new OffsetFetchRequestTopics().setTopicId(US_ORDERS).setPartitionIndexes(List.of(0)))),
                new OffsetFetchRequestGroup().setGroupId("ap-g").setTopics(null));
        PlanDriver.Outcome out = d.run(PLANNER, req, v10, brokers(-1, Errors.NONE));
        Part ap = out.sent().stream().filter(p -> p.route() == AP).findFirst().orElseThrow();
        assertEquals(AP_LOGS, ((OffsetFetchRequestData) ap.body()).groups().getFirst().topics().getFirst().topicId());
        OffsetFetchResponseData resp = writable((OffsetFetchResponseData) out.response(), v10);
        assertEquals(List.of(logsVirtual, US_ORDERS), resp.groups().get(0).topics().stream()
                .map(OffsetFetchResponseTopics::topicId).toList());
        assertEquals(offset(AP, 2), resp.groups().get(0).topics().get(0).partitions().getFirst().committedOffset());
        List<Uuid> all = resp.groups().get(1).topics().stream().map(OffsetFetchResponseTopics::topicId).toList();
        assertEquals(List.of(US_ORDERS, US_CLICKS, EU_ORDERS, EU_AUDIT, logsVirtual), all);
    }

    /**
     * A cluster other than the group's home is down: COORDINATOR_LOAD_IN_PROGRESS, which clients retry
     * as it is (NOT_AVAILABLE would make them drop the healthy home coordinator and look it up again).
     */
    @Test
    void aFailedRouteMarksItsPartitionsAndTheGroupRetriable() {
        short v8 = 8;
        OffsetFetchRequestData req = batched(new OffsetFetchRequestGroup().setGroupId("g")
                .setTopics(List.of(named("orders-eu", 0), named("us.orders", 0))));
        PlanDriver.Outcome out = driver(US).run(PLANNER, req, v8, part -> part.route() == EU
                ? Answer.failed(Errors.NETWORK_EXCEPTION, "down") : brokers(-1, Errors.NONE).apply(part));
        OffsetFetchResponseGroup g = ((OffsetFetchResponseData) out.response()).groups().getFirst();
        assertError(Errors.COORDINATOR_LOAD_IN_PROGRESS, g.errorCode());
        assertEquals(List.of("orders-eu", "us.orders"), names(g));
        assertError(Errors.COORDINATOR_LOAD_IN_PROGRESS, g.topics().get(0).partitions().getFirst().errorCode());
        assertError(Errors.NONE, g.topics().get(1).partitions().getFirst().errorCode());
        assertEquals(offset(US, 0), g.topics().get(1).partitions().getFirst().committedOffset());
    }

    @Test
    void allTopicsWithAFailedRouteFailTheGroupSoTheClientRetries() {
        short v8 = 8;
        OffsetFetchRequestData req = batched(new OffsetFetchRequestGroup().setGroupId("g").setTopics(null));
        PlanDriver.Outcome out = driver(US).run(PLANNER, req, v8, part -> part.route() == AP
                ? Answer.failed(Errors.NETWORK_EXCEPTION, "down") : brokers(-1, Errors.NONE).apply(part));
        OffsetFetchResponseGroup g = ((OffsetFetchResponseData) out.response()).groups().getFirst();
        assertError(Errors.COORDINATOR_LOAD_IN_PROGRESS, g.errorCode());
        assertEquals(List.of("us.orders", "us.clicks", "orders-eu", "audit"), names(g));
    }

    @Test
    void theHomeRoutesGroupErrorWins() {
        short v8 = 8;
        OffsetFetchRequestData req = batched(new OffsetFetchRequestGroup().setGroupId("eu-g")
                .setTopics(List.of(named("us.orders", 0), named("audit", 0))));
        PlanDriver.Outcome out = driver(EU).run(PLANNER, req, v8, part -> part.route() == US
                ? Answer.failed(Errors.NETWORK_EXCEPTION, "down")
                : brokers(EU, Errors.GROUP_AUTHORIZATION_FAILED).apply(part));
        OffsetFetchResponseGroup g = ((OffsetFetchResponseData) out.response()).groups().getFirst();
        assertError(Errors.GROUP_AUTHORIZATION_FAILED, g.errorCode());
        assertError(Errors.COORDINATOR_LOAD_IN_PROGRESS, g.topics().get(0).partitions().getFirst().errorCode());
        assertError(Errors.GROUP_AUTHORIZATION_FAILED, g.topics().get(1).partitions().getFirst().errorCode());
    }

    @Test
    void v1HasNoGroupErrorAndNamedTopicsOnly() {
        short v1 = 1;
        OffsetFetchRequestData req = new OffsetFetchRequestData().setGroupId("g").setTopics(List.of(
                new OffsetFetchRequestTopic().setName("logs").setPartitionIndexes(List.of(0))));
        PlanDriver.Outcome out = driver(US).run(PLANNER, req, v1, brokers(-1, Errors.NONE));
        assertEquals(List.of(AP), out.sent().stream().map(Part::route).toList());
        writable(out.sent().getFirst().body(), v1);
        OffsetFetchResponseData resp = writable((OffsetFetchResponseData) out.response(), v1);
        assertEquals(offset(AP, 0), resp.topics().getFirst().partitions().getFirst().committedOffset());
    }
}
