package dev.weft.routing.plan;

import static dev.weft.routing.plan.WeaveFixture.AP;
import static dev.weft.routing.plan.WeaveFixture.EU;
import static dev.weft.routing.plan.WeaveFixture.US;
import static dev.weft.routing.plan.WeaveFixture.answering;
import static dev.weft.routing.plan.WeaveFixture.assertError;
import static dev.weft.routing.plan.WeaveFixture.body;
import static dev.weft.routing.plan.WeaveFixture.failing;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData;
import org.apache.kafka.common.message.AlterPartitionReassignmentsResponseData;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreatePartitionsResponseData;
import org.apache.kafka.common.message.DeleteRecordsRequestData;
import org.apache.kafka.common.message.DeleteRecordsResponseData;
import org.apache.kafka.common.message.DescribeProducersRequestData;
import org.apache.kafka.common.message.DescribeProducersResponseData;
import org.apache.kafka.common.message.ElectLeadersRequestData;
import org.apache.kafka.common.message.ElectLeadersResponseData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.ListPartitionReassignmentsRequestData;
import org.apache.kafka.common.message.ListPartitionReassignmentsResponseData;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.MessageUtil;
import org.junit.jupiter.api.Test;

class PartitionApiPlannersTest {

    // ---- DeleteRecords (leader-addressed) ----

    private static DeleteRecordsRequestData.DeleteRecordsTopic deleteRecords(String topic, int... partitions) {
        return new DeleteRecordsRequestData.DeleteRecordsTopic().setName(topic).setPartitions(
                java.util.Arrays.stream(partitions).mapToObj(p -> new DeleteRecordsRequestData.DeleteRecordsPartition()
                        .setPartitionIndex(p).setOffset(100 + p)).toList());
    }

    /** A broker deleting everything asked: low watermark = the requested offset. */
    private static ApiMessage deleteRecordsBroker(Part part) {
        DeleteRecordsRequestData req = body(part);
        DeleteRecordsResponseData resp = new DeleteRecordsResponseData().setThrottleTimeMs(10 * (part.route() + 1));
        for (DeleteRecordsRequestData.DeleteRecordsTopic t : req.topics()) {
            DeleteRecordsResponseData.DeleteRecordsTopicResult r = new DeleteRecordsResponseData.DeleteRecordsTopicResult().setName(t.name());
            t.partitions().forEach(p -> r.partitions().add(new DeleteRecordsResponseData.DeleteRecordsPartitionResult()
                    .setPartitionIndex(p.partitionIndex()).setLowWatermark(p.offset())));
            resp.topics().add(r);
        }
        return resp;
    }

    private static List<String> names(DeleteRecordsResponseData resp) {
        return resp.topics().stream().map(DeleteRecordsResponseData.DeleteRecordsTopicResult::name).toList();
    }

    @Test
    void deleteRecordsOnABrokerConnectionGoesToItsOwnBrokerAndOtherRoutesAreNotLeader() {
        DeleteRecordsRequestData req = new DeleteRecordsRequestData().setTimeoutMs(1234).setTopics(List.of(
                deleteRecords("orders-eu", 0, 1), deleteRecords("us.orders", 0), deleteRecords("nope", 3),
                deleteRecords("eu.shared", 2), deleteRecords("secret", 0)));
        PlanDriver.Outcome out = WeaveFixture.driver().ownRoute(EU)
                .run(new DeleteRecordsPlanner(), req, (short) 2, answering(PartitionApiPlannersTest::deleteRecordsBroker));

        assertEquals(1, out.sent().size());
        Part part = out.sent().getFirst();
        assertEquals(EU, part.route());
        assertEquals(Destination.OWN, part.to());
        DeleteRecordsRequestData sent = body(part);
        assertEquals(List.of("orders", "shared"), sent.topics().stream().map(DeleteRecordsRequestData.DeleteRecordsTopic::name).toList());
        assertEquals(1234, sent.timeoutMs(), "top-level fields travel");

        DeleteRecordsResponseData resp = (DeleteRecordsResponseData) out.response();
        assertEquals(List.of("orders-eu", "us.orders", "nope", "eu.shared", "secret"), names(resp));
        assertEquals(101, resp.topics().find("orders-eu").partitions().find(1).lowWatermark());
        assertError(Errors.NONE, resp.topics().find("orders-eu").partitions().find(1).errorCode());
        assertError(Errors.NOT_LEADER_OR_FOLLOWER, resp.topics().find("us.orders").partitions().find(0).errorCode());
        assertError(Errors.UNKNOWN_TOPIC_OR_PARTITION, resp.topics().find("nope").partitions().find(3).errorCode());
        assertError(Errors.UNKNOWN_TOPIC_OR_PARTITION, resp.topics().find("secret").partitions().find(0).errorCode());
        assertEquals(102, resp.topics().find("eu.shared").partitions().find(2).lowWatermark());
        assertEquals(20, resp.throttleTimeMs());
        assertTrue(out.refusals().isEmpty(), "stale metadata and unknown topics are not refusals: " + out.refusals());
    }

    @Test
    void deleteRecordsOnABootstrapConnectionSplitsByRouteAndAFailedRouteFailsOnlyItsTopics() {
        DeleteRecordsRequestData req = new DeleteRecordsRequestData().setTopics(List.of(
                deleteRecords("us.clicks", 0), deleteRecords("orders-eu", 0, 1), deleteRecords("us.orders", 4)));
        PlanDriver.Outcome out = WeaveFixture.driver()
                .run(new DeleteRecordsPlanner(), req, (short) 1, failing(EU, PartitionApiPlannersTest::deleteRecordsBroker));

        assertEquals(2, out.sent().size());
        assertEquals(US, out.sent().get(0).route());
        assertEquals(Destination.ANY, out.sent().get(0).to());
        assertEquals(List.of("clicks", "orders"), ((DeleteRecordsRequestData) body(out.sent().get(0))).topics().stream()
                .map(DeleteRecordsRequestData.DeleteRecordsTopic::name).toList());
        assertEquals(EU, out.sent().get(1).route());

        DeleteRecordsResponseData resp = (DeleteRecordsResponseData) out.response();
        assertEquals(List.of("us.clicks", "orders-eu", "us.orders"), names(resp));
        assertEquals(104, resp.topics().find("us.orders").partitions().find(4).lowWatermark());
        assertEquals(2, resp.topics().find("orders-eu").partitions().size(), "every partition of the failed route answered");
        resp.topics().find("orders-eu").partitions().forEach(p -> assertError(Errors.NETWORK_EXCEPTION, p.errorCode()));
        roundTrips(resp, (short) 1);
    }

    // ---- ListOffsets ----

    private static ApiMessage listOffsetsBroker(Part part) {
        ListOffsetsRequestData req = body(part);
        ListOffsetsResponseData resp = new ListOffsetsResponseData();
        for (ListOffsetsRequestData.ListOffsetsTopic t : req.topics()) {
            resp.topics().add(new ListOffsetsResponseData.ListOffsetsTopicResponse().setName(t.name()).setPartitions(
                    t.partitions().stream().map(p -> new ListOffsetsResponseData.ListOffsetsPartitionResponse()
                            .setPartitionIndex(p.partitionIndex()).setOffset(1000L * part.route() + p.partitionIndex())
                            .setTimestamp(p.timestamp())).toList()));
        }
        return resp;
    }

    private static ListOffsetsRequestData.ListOffsetsTopic listOffsets(String topic, int partition) {
        return new ListOffsetsRequestData.ListOffsetsTopic().setName(topic).setPartitions(List.of(
                new ListOffsetsRequestData.ListOffsetsPartition().setPartitionIndex(partition).setTimestamp(-1)));
    }

    @Test
    void listOffsetsRenamesBothWaysInEveryVersion() {
        for (short version : new short[] {1, 4, 11}) {
            ListOffsetsRequestData req = new ListOffsetsRequestData().setReplicaId(-1).setTopics(List.of(
                    listOffsets("ap.shared", 3), listOffsets("payments", 0), listOffsets("eu.shared", 1)));
            if (version >= 2) {
                req.setIsolationLevel((byte) 1);
            }
            PlanDriver.Outcome out = WeaveFixture.driver().ownRoute(AP)
                    .run(new ListOffsetsPlanner(), req, version, answering(PartitionApiPlannersTest::listOffsetsBroker));
            assertEquals(1, out.sent().size());
            ListOffsetsRequestData sent = body(out.sent().getFirst());
            assertEquals(List.of("shared", "payments"), sent.topics().stream().map(ListOffsetsRequestData.ListOffsetsTopic::name).toList());
            assertEquals(version >= 2 ? 1 : 0, sent.isolationLevel());
            ListOffsetsResponseData resp = (ListOffsetsResponseData) out.response();
            assertEquals(List.of("ap.shared", "payments", "eu.shared"), resp.topics().stream()
                    .map(ListOffsetsResponseData.ListOffsetsTopicResponse::name).toList());
            assertEquals(2003, resp.topics().get(0).partitions().getFirst().offset());
            assertError(Errors.NOT_LEADER_OR_FOLLOWER, resp.topics().get(2).partitions().getFirst().errorCode());
            assertEquals(1, resp.topics().get(2).partitions().getFirst().partitionIndex());
            roundTrips(resp, version);
        }
    }

    // ---- OffsetForLeaderEpoch (collections on both sides) ----

    @Test
    void offsetForLeaderEpochSplitsCollectionsByRoute() {
        OffsetForLeaderEpochRequestData req = new OffsetForLeaderEpochRequestData();
        for (String t : List.of("us.orders", "orders-eu", "gone", "audit")) {
            req.topics().add(new OffsetForLeaderEpochRequestData.OffsetForLeaderTopic().setTopic(t).setPartitions(List.of(
                    new OffsetForLeaderEpochRequestData.OffsetForLeaderPartition().setPartition(0).setLeaderEpoch(5))));
        }
        PlanDriver.Outcome out = WeaveFixture.driver().run(new OffsetForLeaderEpochPlanner(), req, (short) 4, answering(part -> {
            OffsetForLeaderEpochRequestData r = body(part);
            OffsetForLeaderEpochResponseData resp = new OffsetForLeaderEpochResponseData();
            r.topics().forEach(t -> resp.topics().add(new OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResult()
                    .setTopic(t.topic()).setPartitions(List.of(new OffsetForLeaderEpochResponseData.EpochEndOffset()
                            .setPartition(0).setLeaderEpoch(5).setEndOffset(77 + part.route())))));
            return resp;
        }));
        assertEquals(List.of(US, EU), out.sent().stream().map(Part::route).toList());
        assertEquals(List.of("orders", "audit"), ((OffsetForLeaderEpochRequestData) body(out.sent().get(1))).topics()
                .stream().map(OffsetForLeaderEpochRequestData.OffsetForLeaderTopic::topic).toList());
        OffsetForLeaderEpochResponseData resp = (OffsetForLeaderEpochResponseData) out.response();
        assertEquals(List.of("us.orders", "orders-eu", "gone", "audit"), resp.topics().stream()
                .map(OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResult::topic).toList());
        assertEquals(77, resp.topics().find("us.orders").partitions().getFirst().endOffset());
        assertEquals(78, resp.topics().find("orders-eu").partitions().getFirst().endOffset());
        assertError(Errors.UNKNOWN_TOPIC_OR_PARTITION, resp.topics().find("gone").partitions().getFirst().errorCode());
        roundTrips(resp, (short) 4);
    }

    // ---- DescribeProducers ----

    @Test
    void describeProducersGoesToTheOwnBroker() {
        DescribeProducersRequestData req = new DescribeProducersRequestData();
        req.topics().add(new DescribeProducersRequestData.TopicRequest().setName("us.clicks").setPartitionIndexes(List.of(0, 1)));
        req.topics().add(new DescribeProducersRequestData.TopicRequest().setName("payments").setPartitionIndexes(List.of(2)));
        PlanDriver.Outcome out = WeaveFixture.driver().ownRoute(US).run(new DescribeProducersPlanner(), req, (short) 0,
                answering(part -> {
                    DescribeProducersRequestData r = body(part);
                    return new DescribeProducersResponseData().setTopics(r.topics().stream().map(t ->
                            new DescribeProducersResponseData.TopicResponse().setName(t.name()).setPartitions(
                                    t.partitionIndexes().stream().map(p -> new DescribeProducersResponseData.PartitionResponse()
                                            .setPartitionIndex(p)).toList())).toList());
                }));
        assertEquals(1, out.sent().size());
        assertEquals(Destination.OWN, out.sent().getFirst().to());
        DescribeProducersResponseData resp = (DescribeProducersResponseData) out.response();
        assertEquals("us.clicks", resp.topics().get(0).name());
        assertEquals(2, resp.topics().get(0).partitions().size());
        assertEquals("payments", resp.topics().get(1).name());
        assertError(Errors.NOT_LEADER_OR_FOLLOWER, resp.topics().get(1).partitions().getFirst().errorCode());
    }

    // ---- CreatePartitions: any broker of the owning route, assignments in real ids ----

    @Test
    void createPartitionsMapsAssignmentsToRealBrokersAndRefusesBrokersOfAnotherRoute() {
        PlanDriver driver = WeaveFixture.driver().ownRoute(AP);
        int us1 = driver.toVirtualNodeId(US, 1);
        int us2 = driver.toVirtualNodeId(US, 2);
        CreatePartitionsRequestData req = new CreatePartitionsRequestData().setTimeoutMs(500).setValidateOnly(true);
        req.topics().add(new CreatePartitionsRequestData.CreatePartitionsTopic().setName("us.orders").setCount(3)
                .setAssignments(List.of(new CreatePartitionsRequestData.CreatePartitionsAssignment().setBrokerIds(List.of(us1, us2)))));
        req.topics().add(new CreatePartitionsRequestData.CreatePartitionsTopic().setName("orders-eu").setCount(4)
                .setAssignments(List.of(new CreatePartitionsRequestData.CreatePartitionsAssignment().setBrokerIds(List.of(us1)))));
        req.topics().add(new CreatePartitionsRequestData.CreatePartitionsTopic().setName("audit").setCount(6).setAssignments(null));
        PlanDriver.Outcome out = driver.run(new CreatePartitionsPlanner(), req, (short) 3, answering(part -> {
            CreatePartitionsRequestData r = body(part);
            return new CreatePartitionsResponseData().setResults(r.topics().stream().map(t ->
                    new CreatePartitionsResponseData.CreatePartitionsTopicResult().setName(t.name())).toList());
        }));
        assertEquals(List.of(US, EU), out.sent().stream().map(Part::route).toList());
        assertTrue(out.sent().stream().allMatch(p -> p.to() == Destination.ANY), "not leader-addressed");
        CreatePartitionsRequestData toUs = body(out.sent().get(0));
        assertTrue(toUs.validateOnly());
        assertEquals(List.of(1, 2), toUs.topics().find("orders").assignments().getFirst().brokerIds());
        CreatePartitionsRequestData toEu = body(out.sent().get(1));
        assertEquals(List.of("audit"), toEu.topics().stream().map(CreatePartitionsRequestData.CreatePartitionsTopic::name).toList());

        CreatePartitionsResponseData resp = (CreatePartitionsResponseData) out.response();
        assertEquals(List.of("us.orders", "orders-eu", "audit"), resp.results().stream()
                .map(CreatePartitionsResponseData.CreatePartitionsTopicResult::name).toList());
        assertError(Errors.INVALID_REPLICA_ASSIGNMENT, resp.results().get(1).errorCode());
        assertTrue(resp.results().get(1).errorMessage().contains("route 'us'"), resp.results().get(1).errorMessage());
        assertEquals(1, out.refusals().size());
    }

    // ---- ElectLeaders ----

    private static ApiMessage electBroker(Part part, List<String> allTopics) {
        ElectLeadersRequestData r = body(part);
        List<String> topics = r.topicPartitions() == null ? allTopics
                : r.topicPartitions().stream().map(ElectLeadersRequestData.TopicPartitions::topic).toList();
        return new ElectLeadersResponseData().setReplicaElectionResults(topics.stream().map(t ->
                new ElectLeadersResponseData.ReplicaElectionResult().setTopic(t).setPartitionResult(List.of(
                        new ElectLeadersResponseData.PartitionResult().setPartitionId(0)
                                .setErrorCode(Errors.ELECTION_NOT_NEEDED.code())))).toList());
    }

    @Test
    void electLeadersForNamedPartitionsInVersion0And2() {
        for (short version : new short[] {0, 2}) {
            ElectLeadersRequestData req = new ElectLeadersRequestData();
            for (String t : List.of("eu.shared", "ap.shared", "missing")) {
                req.topicPartitions().add(new ElectLeadersRequestData.TopicPartitions().setTopic(t).setPartitions(List.of(0)));
            }
            PlanDriver.Outcome out = WeaveFixture.driver().run(new ElectLeadersPlanner(), req, version,
                    failing(AP, p -> electBroker(p, List.of())));
            assertEquals(List.of(EU, AP), out.sent().stream().map(Part::route).toList());
            assertEquals("shared", ((ElectLeadersRequestData) body(out.sent().get(1))).topicPartitions().iterator().next().topic());
            ElectLeadersResponseData resp = (ElectLeadersResponseData) out.response();
            List<ElectLeadersResponseData.ReplicaElectionResult> results = resp.replicaElectionResults();
            assertEquals(List.of("eu.shared", "ap.shared", "missing"), results.stream()
                    .map(ElectLeadersResponseData.ReplicaElectionResult::topic).toList());
            assertError(Errors.ELECTION_NOT_NEEDED, results.get(0).partitionResult().getFirst().errorCode());
            assertError(Errors.NETWORK_EXCEPTION, results.get(1).partitionResult().getFirst().errorCode());
            assertError(Errors.UNKNOWN_TOPIC_OR_PARTITION, results.get(2).partitionResult().getFirst().errorCode());
            roundTrips(resp, version);
        }
    }

    @Test
    void electLeadersForAllPartitionsAsksEveryRouteAndKeepsVisibleTopicsRenamed() {
        ElectLeadersRequestData req = new ElectLeadersRequestData().setTopicPartitions(null);
        PlanDriver.Outcome out = WeaveFixture.driver().run(new ElectLeadersPlanner(), req, (short) 2, answering(p -> electBroker(p,
                switch (p.route()) {
                    case US -> List.of("orders", "__consumer_offsets");
                    case EU -> List.of("orders", "shared");
                    default -> List.of("secret", "payments");
                })));
        assertEquals(List.of(US, EU, AP), out.sent().stream().map(Part::route).toList());
        assertTrue(out.sent().stream().allMatch(p -> ((ElectLeadersRequestData) p.body()).topicPartitions() == null));
        ElectLeadersResponseData resp = (ElectLeadersResponseData) out.response();
        assertEquals(List.of("us.orders", "orders-eu", "eu.shared", "payments"), resp.replicaElectionResults().stream()
                .map(ElectLeadersResponseData.ReplicaElectionResult::topic).toList());
    }

    @Test
    void electLeadersForAllPartitionsFailsWholeWhenARouteFails() {
        ElectLeadersRequestData req = new ElectLeadersRequestData().setTopicPartitions(null);
        PlanDriver.Outcome out = WeaveFixture.driver().run(new ElectLeadersPlanner(), req, (short) 2,
                failing(EU, p -> electBroker(p, List.of("orders"))));
        ElectLeadersResponseData resp = (ElectLeadersResponseData) out.response();
        assertError(Errors.NETWORK_EXCEPTION, resp.errorCode());
        assertTrue(resp.replicaElectionResults().isEmpty());
    }

    // ---- reassignments ----

    @Test
    void alterPartitionReassignmentsMapsReplicasToRealIds() {
        PlanDriver driver = WeaveFixture.driver();
        AlterPartitionReassignmentsRequestData req = new AlterPartitionReassignmentsRequestData().setTopics(List.of(
                new AlterPartitionReassignmentsRequestData.ReassignableTopic().setName("payments").setPartitions(List.of(
                        new AlterPartitionReassignmentsRequestData.ReassignablePartition().setPartitionIndex(0)
                                .setReplicas(List.of(driver.toVirtualNodeId(AP, 4), driver.toVirtualNodeId(AP, 5))),
                        new AlterPartitionReassignmentsRequestData.ReassignablePartition().setPartitionIndex(1).setReplicas(null))),
                new AlterPartitionReassignmentsRequestData.ReassignableTopic().setName("nope").setPartitions(List.of(
                        new AlterPartitionReassignmentsRequestData.ReassignablePartition().setPartitionIndex(0)))));
        PlanDriver.Outcome out = driver.run(new AlterPartitionReassignmentsPlanner(), req, (short) 0, answering(p -> {
            AlterPartitionReassignmentsRequestData r = body(p);
            return new AlterPartitionReassignmentsResponseData().setResponses(r.topics().stream().map(t ->
                    new AlterPartitionReassignmentsResponseData.ReassignableTopicResponse().setName(t.name()).setPartitions(
                            t.partitions().stream().map(x -> new AlterPartitionReassignmentsResponseData.ReassignablePartitionResponse()
                                    .setPartitionIndex(x.partitionIndex())).toList())).toList());
        }));
        assertEquals(1, out.sent().size());
        AlterPartitionReassignmentsRequestData sent = body(out.sent().getFirst());
        assertEquals(AP, out.sent().getFirst().route());
        assertEquals(List.of(4, 5), sent.topics().getFirst().partitions().get(0).replicas());
        assertEquals(null, sent.topics().getFirst().partitions().get(1).replicas(), "null = cancel, kept");
        AlterPartitionReassignmentsResponseData resp = (AlterPartitionReassignmentsResponseData) out.response();
        assertEquals(List.of("payments", "nope"), resp.responses().stream()
                .map(AlterPartitionReassignmentsResponseData.ReassignableTopicResponse::name).toList());
        assertError(Errors.UNKNOWN_TOPIC_OR_PARTITION, resp.responses().get(1).partitions().getFirst().errorCode());
    }

    private static ApiMessage reassignmentsBroker(Part p, PlanDriver driver) {
        ListPartitionReassignmentsRequestData r = body(p);
        List<String> ongoing = r.topics() == null ? List.of("orders", "secret", "payments")
                : r.topics().stream().map(ListPartitionReassignmentsRequestData.ListPartitionReassignmentsTopics::name)
                        .filter(n -> !n.equals("audit")).toList();
        return new ListPartitionReassignmentsResponseData().setTopics(ongoing.stream().filter(n -> p.route() != US || n.equals("orders"))
                .filter(n -> p.route() != AP || !n.equals("orders")).map(n ->
                new ListPartitionReassignmentsResponseData.OngoingTopicReassignment().setName(n).setPartitions(List.of(
                        new ListPartitionReassignmentsResponseData.OngoingPartitionReassignment().setPartitionIndex(0)
                                .setReplicas(List.of(1, 2)).setAddingReplicas(List.of(2)).setRemovingReplicas(List.of(1))))).toList());
    }

    @Test
    void listPartitionReassignmentsLeavesOutTopicsWithoutOngoingReassignmentsAndMapsReplicasBack() {
        PlanDriver driver = WeaveFixture.driver();
        ListPartitionReassignmentsRequestData req = new ListPartitionReassignmentsRequestData().setTopics(List.of(
                new ListPartitionReassignmentsRequestData.ListPartitionReassignmentsTopics().setName("orders-eu").setPartitionIndexes(List.of(0)),
                new ListPartitionReassignmentsRequestData.ListPartitionReassignmentsTopics().setName("audit").setPartitionIndexes(List.of(0)),
                new ListPartitionReassignmentsRequestData.ListPartitionReassignmentsTopics().setName("unknown").setPartitionIndexes(List.of(0))));
        PlanDriver.Outcome out = driver.run(new ListPartitionReassignmentsPlanner(), req, (short) 0, answering(p -> reassignmentsBroker(p, driver)));
        ListPartitionReassignmentsResponseData resp = (ListPartitionReassignmentsResponseData) out.response();
        assertError(Errors.NONE, resp.errorCode());
        assertEquals(List.of("orders-eu"), resp.topics().stream()
                .map(ListPartitionReassignmentsResponseData.OngoingTopicReassignment::name).toList());
        ListPartitionReassignmentsResponseData.OngoingPartitionReassignment p = resp.topics().getFirst().partitions().getFirst();
        assertEquals(List.of(driver.toVirtualNodeId(EU, 1), driver.toVirtualNodeId(EU, 2)), p.replicas());
        assertEquals(List.of(driver.toVirtualNodeId(EU, 2)), p.addingReplicas());
        assertEquals(List.of(driver.toVirtualNodeId(EU, 1)), p.removingReplicas());
    }

    @Test
    void listPartitionReassignmentsFailsWholeWhenARouteOfANamedTopicFails() {
        ListPartitionReassignmentsRequestData req = new ListPartitionReassignmentsRequestData().setTopics(List.of(
                new ListPartitionReassignmentsRequestData.ListPartitionReassignmentsTopics().setName("us.orders").setPartitionIndexes(List.of(0)),
                new ListPartitionReassignmentsRequestData.ListPartitionReassignmentsTopics().setName("orders-eu").setPartitionIndexes(List.of(0))));
        PlanDriver driver = WeaveFixture.driver();
        PlanDriver.Outcome out = driver.run(new ListPartitionReassignmentsPlanner(), req, (short) 0, failing(EU, p -> reassignmentsBroker(p, driver)));
        ListPartitionReassignmentsResponseData resp = (ListPartitionReassignmentsResponseData) out.response();
        assertError(Errors.NETWORK_EXCEPTION, resp.errorCode());
        assertTrue(resp.errorMessage().contains("route 'eu' failed"), resp.errorMessage());
    }

    @Test
    void listAllPartitionReassignmentsKeepsVisibleTopics() {
        PlanDriver driver = WeaveFixture.driver();
        ListPartitionReassignmentsRequestData req = new ListPartitionReassignmentsRequestData().setTopics(null);
        PlanDriver.Outcome out = driver.run(new ListPartitionReassignmentsPlanner(), req, (short) 0, answering(p -> reassignmentsBroker(p, driver)));
        ListPartitionReassignmentsResponseData resp = (ListPartitionReassignmentsResponseData) out.response();
        assertEquals(List.of("us.orders", "orders-eu", "payments"), resp.topics().stream()
                .map(ListPartitionReassignmentsResponseData.OngoingTopicReassignment::name).toList());
        assertEquals(List.of(driver.toVirtualNodeId(AP, 1), driver.toVirtualNodeId(AP, 2)),
                resp.topics().get(2).partitions().getFirst().replicas());
    }

    /** The merged response encodes in the client's version (no field the version cannot carry). */
    static void roundTrips(ApiMessage response, short version) {
        MessageUtil.toByteBufferAccessor(response, version);
    }
}
