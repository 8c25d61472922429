package dev.weft.routing.plan;

import static dev.weft.routing.plan.WeaveFixture.AP;
import static dev.weft.routing.plan.WeaveFixture.EU;
import static dev.weft.routing.plan.WeaveFixture.EU_AUDIT;
import static dev.weft.routing.plan.WeaveFixture.EU_SHARED;
import static dev.weft.routing.plan.WeaveFixture.US;
import static dev.weft.routing.plan.WeaveFixture.US_CLICKS;
import static dev.weft.routing.plan.WeaveFixture.answering;
import static dev.weft.routing.plan.WeaveFixture.assertError;
import static dev.weft.routing.plan.WeaveFixture.body;
import static dev.weft.routing.plan.WeaveFixture.failing;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.DeleteTopicsResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

class TopicLifecyclePlannersTest {

    private static final Uuid NEW_ID = new Uuid(9, 9);

    private static CreateTopicsRequestData.CreatableTopic creatable(String name) {
        return new CreateTopicsRequestData.CreatableTopic().setName(name).setNumPartitions(3).setReplicationFactor((short) 1);
    }

    private static ApiMessage createTopicsBroker(Part part) {
        CreateTopicsRequestData r = body(part);
        CreateTopicsResponseData resp = new CreateTopicsResponseData().setThrottleTimeMs(part.route());
        r.topics().forEach(t -> resp.topics().add(new CreateTopicsResponseData.CreatableTopicResult().setName(t.name())
                .setTopicId(NEW_ID).setNumPartitions(t.numPartitions()).setReplicationFactor(t.replicationFactor())));
        return resp;
    }

    @Test
    void createTopicsPlacesEachTopicAndRenamesResultsBack() {
        PlanDriver driver = WeaveFixture.driver();
        CreateTopicsRequestData req = new CreateTopicsRequestData().setValidateOnly(true).setTimeoutMs(999);
        for (String name : List.of("us.new", "eu-new", "fresh", "us.orders", "nodot", "secret", "shared")) {
            req.topics().add(creatable(name));
        }
        req.topics().find("us.new").assignments().add(new CreateTopicsRequestData.CreatableReplicaAssignment()
                .setPartitionIndex(0).setBrokerIds(List.of(driver.toVirtualNodeId(US, 3))));
        PlanDriver.Outcome out = driver.run(new CreateTopicsPlanner(), req, (short) 7, answering(TopicLifecyclePlannersTest::createTopicsBroker));

        assertEquals(List.of(US, EU, AP), out.sent().stream().map(Part::route).toList());
        assertTrue(out.sent().stream().allMatch(p -> p.to() == Destination.ANY));
        CreateTopicsRequestData toUs = body(out.sent().get(0));
        assertEquals(List.of("new"), toUs.topics().stream().map(CreateTopicsRequestData.CreatableTopic::name).toList());
        assertEquals(List.of(3), toUs.topics().find("new").assignments().find(0).brokerIds(), "assignments in real ids");
        assertTrue(toUs.validateOnly());
        assertEquals(999, toUs.timeoutMs());
        assertEquals("eu-new", ((CreateTopicsRequestData) body(out.sent().get(1))).topics().iterator().next().name());
        assertEquals("fresh", ((CreateTopicsRequestData) body(out.sent().get(2))).topics().iterator().next().name());

        CreateTopicsResponseData resp = (CreateTopicsResponseData) out.response();
        assertEquals(List.of("us.new", "eu-new", "fresh", "us.orders", "nodot", "secret", "shared"),
                resp.topics().stream().map(CreateTopicsResponseData.CreatableTopicResult::name).toList());
        assertEquals(NEW_ID, resp.topics().find("us.new").topicId(), "a new topic's virtual id is its real id");
        assertEquals(3, resp.topics().find("fresh").numPartitions());
        assertError(Errors.TOPIC_ALREADY_EXISTS, resp.topics().find("us.orders").errorCode());
        // "secret" places on ap, whose exclude hides it; "shared" is contested between eu and ap
        assertError(Errors.POLICY_VIOLATION, resp.topics().find("secret").errorCode());
        assertTrue(resp.topics().find("secret").errorMessage().contains("hidden"), resp.topics().find("secret").errorMessage());
        assertError(Errors.POLICY_VIOLATION, resp.topics().find("shared").errorCode());
        assertEquals(2, resp.throttleTimeMs());
        assertEquals(3, out.refusals().size(), "each placement refusal logged: " + out.refusals());
    }

    @Test
    void createTopicsRefusedForEveryTopicSendsNothing() {
        PlanDriver driver = WeaveFixture.driver();
        CreateTopicsRequestData req = new CreateTopicsRequestData();
        req.topics().add(creatable("orders-eu"));
        PlanDriver.Outcome out = driver.run(new CreateTopicsPlanner(), req, (short) 2, answering(TopicLifecyclePlannersTest::createTopicsBroker));
        assertTrue(out.sent().isEmpty(), "nothing to send");
        CreateTopicsResponseData resp = (CreateTopicsResponseData) out.response();
        assertError(Errors.TOPIC_ALREADY_EXISTS, resp.topics().find("orders-eu").errorCode());
        PartitionApiPlannersTest.roundTrips(resp, (short) 2);
    }

    @Test
    void placementReasonsMapToTheirErrors() {
        assertEquals(Errors.TOPIC_ALREADY_EXISTS, CreateTopicsPlanner.errorOf(dev.weft.routing.Placement.Reason.ALREADY_EXISTS));
        assertEquals(Errors.INVALID_TOPIC_EXCEPTION, CreateTopicsPlanner.errorOf(dev.weft.routing.Placement.Reason.CANNOT_MAP));
        assertEquals(Errors.POLICY_VIOLATION, CreateTopicsPlanner.errorOf(dev.weft.routing.Placement.Reason.WOULD_BE_HIDDEN));
    }

    @Test
    void createTopicsOnAFailedRouteGetsItsRetriableError() {
        CreateTopicsRequestData req = new CreateTopicsRequestData();
        req.topics().add(creatable("eu-a"));
        req.topics().add(creatable("fresh"));
        PlanDriver.Outcome out = WeaveFixture.driver().run(new CreateTopicsPlanner(), req, (short) 5,
                failing(EU, TopicLifecyclePlannersTest::createTopicsBroker));
        CreateTopicsResponseData resp = (CreateTopicsResponseData) out.response();
        assertError(Errors.NETWORK_EXCEPTION, resp.topics().find("eu-a").errorCode());
        assertTrue(resp.topics().find("eu-a").errorMessage().contains("route 'eu' failed: connection refused"));
        assertError(Errors.NONE, resp.topics().find("fresh").errorCode());
    }

    // ---- DeleteTopics ----

    private static ApiMessage deleteTopicsBroker(Part part) {
        DeleteTopicsRequestData r = body(part);
        DeleteTopicsResponseData resp = new DeleteTopicsResponseData();
        if (part.version() >= 6) {
            r.topics().forEach(t -> resp.responses().add(new DeleteTopicsResponseData.DeletableTopicResult()
                    .setName(t.name() != null ? t.name() : "real-of-" + t.topicId())
                    .setTopicId(t.topicId().equals(Uuid.ZERO_UUID) ? new Uuid(7, part.route()) : t.topicId())));
        } else {
            r.topicNames().forEach(n -> resp.responses().add(new DeleteTopicsResponseData.DeletableTopicResult().setName(n)));
        }
        return resp;
    }

    @Test
    void deleteTopicsByNameInOldVersions() {
        DeleteTopicsRequestData req = new DeleteTopicsRequestData().setTopicNames(List.of("orders-eu", "nope", "us.clicks"));
        PlanDriver.Outcome out = WeaveFixture.driver().run(new DeleteTopicsPlanner(), req, (short) 5,
                answering(TopicLifecyclePlannersTest::deleteTopicsBroker));
        assertEquals(List.of(EU, US), out.sent().stream().map(Part::route).toList());
        assertEquals(List.of("orders"), ((DeleteTopicsRequestData) body(out.sent().get(0))).topicNames());
        assertTrue(((DeleteTopicsRequestData) body(out.sent().get(0))).topics().isEmpty());
        DeleteTopicsResponseData resp = (DeleteTopicsResponseData) out.response();
        assertEquals(List.of("orders-eu", "nope", "us.clicks"), resp.responses().stream()
                .map(DeleteTopicsResponseData.DeletableTopicResult::name).toList());
        assertError(Errors.UNKNOWN_TOPIC_OR_PARTITION, resp.responses().find("nope").errorCode());
        assertError(Errors.NONE, resp.responses().find("us.clicks").errorCode());
        PartitionApiPlannersTest.roundTrips(resp, (short) 5);
    }

    @Test
    void deleteTopicsByIdAndNameInVersion6() {
        DeleteTopicsRequestData req = new DeleteTopicsRequestData().setTopics(List.of(
                new DeleteTopicsRequestData.DeleteTopicState().setTopicId(EU_AUDIT),
                new DeleteTopicsRequestData.DeleteTopicState().setName("us.clicks"),
                new DeleteTopicsRequestData.DeleteTopicState().setTopicId(new Uuid(42, 42)),
                new DeleteTopicsRequestData.DeleteTopicState().setTopicId(EU_SHARED)));
        PlanDriver.Outcome out = WeaveFixture.driver().run(new DeleteTopicsPlanner(), req, (short) 6,
                answering(TopicLifecyclePlannersTest::deleteTopicsBroker));
        assertEquals(List.of(EU, US), out.sent().stream().map(Part::route).toList());
        DeleteTopicsRequestData toEu = body(out.sent().get(0));
        assertEquals(List.of(EU_AUDIT, EU_SHARED), toEu.topics().stream().map(DeleteTopicsRequestData.DeleteTopicState::topicId).toList());
        assertNull(toEu.topics().getFirst().name());
        assertEquals("clicks", ((DeleteTopicsRequestData) body(out.sent().get(1))).topics().getFirst().name());

        List<DeleteTopicsResponseData.DeletableTopicResult> results = List.copyOf(((DeleteTopicsResponseData) out.response()).responses());
        assertEquals(4, results.size());
        assertEquals("audit", results.get(0).name(), "answered under the virtual name");
        assertEquals(EU_AUDIT, results.get(0).topicId());
        assertEquals("us.clicks", results.get(1).name());
        assertEquals(US_CLICKS, results.get(1).topicId(), "the real id the route answers maps to the virtual id");
        assertError(Errors.UNKNOWN_TOPIC_ID, results.get(2).errorCode());
        assertEquals(new Uuid(42, 42), results.get(2).topicId());
        assertEquals("eu.shared", results.get(3).name());
    }
}
