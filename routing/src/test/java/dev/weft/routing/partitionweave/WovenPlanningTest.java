package dev.weft.routing.partitionweave;

import static dev.weft.routing.partitionweave.WovenFixture.EAST;
import static dev.weft.routing.partitionweave.WovenFixture.WEST;
import static dev.weft.routing.partitionweave.WovenFixture.body;
import static dev.weft.routing.partitionweave.WovenFixture.driver;
import static dev.weft.routing.partitionweave.WovenFixture.failing;
import static dev.weft.routing.partitionweave.WovenFixture.writable;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.routing.node.CollapsedNodes;
import dev.weft.routing.node.NodeIdBijection;
import dev.weft.routing.node.ProxyNode;
import dev.weft.routing.plan.PlanDriver;
import dev.weft.routing.plan.Destination;
import dev.weft.routing.plan.Part;
import dev.weft.routing.plan.Planners;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.IntStream;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData.ReassignablePartition;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData.ReassignableTopic;
import org.apache.kafka.common.message.AlterPartitionReassignmentsResponseData;
import org.apache.kafka.common.message.AlterPartitionReassignmentsResponseData.ReassignablePartitionResponse;
import org.apache.kafka.common.message.AlterPartitionReassignmentsResponseData.ReassignableTopicResponse;
import org.apache.kafka.common.message.DeleteRecordsRequestData;
import org.apache.kafka.common.message.DeleteRecordsRequestData.DeleteRecordsPartition;
import org.apache.kafka.common.message.DeleteRecordsRequestData.DeleteRecordsTopic;
import org.apache.kafka.common.message.DeleteRecordsResponseData;
import org.apache.kafka.common.message.DeleteRecordsResponseData.DeleteRecordsPartitionResult;
import org.apache.kafka.common.message.DeleteRecordsResponseData.DeleteRecordsTopicResult;
import org.apache.kafka.common.message.DescribeProducersRequestData;
import org.apache.kafka.common.message.DescribeProducersResponseData;
import org.apache.kafka.common.message.ElectLeadersRequestData;
import org.apache.kafka.common.message.ElectLeadersResponseData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsPartition;
import org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsTopic;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.ListOffsetsResponseData.ListOffsetsPartitionResponse;
import org.apache.kafka.common.message.ListOffsetsResponseData.ListOffsetsTopicResponse;
import org.apache.kafka.common.message.ListPartitionReassignmentsRequestData;
import org.apache.kafka.common.message.ListPartitionReassignmentsResponseData;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/**
 * The partition-addressed admin APIs on a partition-woven topic: each request entry split per (route,
 * real topic), renumbered to real partitions there and back to virtual ones in the answer.
 */
class WovenPlanningTest {

    private static final NodeIdBijection NODES = new NodeIdBijection(2);

    /** A value telling where a partition's answer came from: 1000 * (route + 1) + real partition. */
    private static long value(int route, int realPartition) {
        return 1000L * (route + 1) + realPartition;
    }

    /** What the client should see for virtual partition v of orders: east 0-2, west 3-4 (real 0-1). */
    private static long expected(int v) {
        return v < 3 ? value(EAST, v) : value(WEST, v - 3);
    }

    private static final List<Integer> ALL = List.of(0, 1, 2, 3, 4);

    /** Partition → "ERROR:value" from every result entry named orders; fails on another name or a repeat. */
    private static <T, P> Map<Integer, String> byPartition(List<T> topics, java.util.function.Function<T, String> name,
            java.util.function.Function<T, List<P>> partitions, java.util.function.ToIntFunction<P> index,
            java.util.function.Function<P, Short> error, java.util.function.ToLongFunction<P> value) {
        Map<Integer, String> out = new TreeMap<>();
        assertEquals(1, topics.size(), "the client's one topic entry comes back as one entry, its pieces put together");
        for (T t : topics) {
            assertEquals("orders", name.apply(t), "only the client's topic name comes back");
            for (P p : partitions.apply(t)) {
                String prev = out.put(index.applyAsInt(p), Errors.forCode(error.apply(p)).name() + ":" + value.applyAsLong(p));
                assertNull(prev, "partition " + index.applyAsInt(p) + " answered twice");
            }
        }
        return out;
    }

    private static Map<Integer, String> expectedAll(Errors westError, long westValue) {
        Map<Integer, String> out = new TreeMap<>();
        for (int v : ALL) {
            out.put(v, v < 3 ? "NONE:" + expected(v) : westError == Errors.NONE ? "NONE:" + expected(v) : westError.name() + ":" + westValue);
        }
        return out;
    }

    private static void assertPartsRenumbered(List<Part> sent, java.util.function.Function<Part, Map<String, List<Integer>>> topics) {
        assertEquals(List.of(EAST, WEST), sent.stream().map(Part::route).toList());
        assertEquals(Map.of("orders", List.of(0, 1, 2)), topics.apply(sent.get(0)));
        assertEquals(Map.of("orders-eu", List.of(0, 1)), topics.apply(sent.get(1)));
    }

    // ---- ListOffsets

    private static ListOffsetsRequestData listOffsets(List<Integer> partitions) {
        return new ListOffsetsRequestData().setReplicaId(-1).setTopics(List.of(new ListOffsetsTopic().setName("orders")
                .setPartitions(partitions.stream().map(p -> new ListOffsetsPartition().setPartitionIndex(p).setTimestamp(-1))
                        .toList())));
    }

    private static ListOffsetsResponseData listOffsetsAnswer(Part part) {
        ListOffsetsRequestData req = body(part);
        return new ListOffsetsResponseData().setTopics(req.topics().stream().map(t -> new ListOffsetsTopicResponse()
                .setName(t.name()).setPartitions(t.partitions().stream().map(p -> new ListOffsetsPartitionResponse()
                        .setPartitionIndex(p.partitionIndex()).setOffset(value(part.route(), p.partitionIndex()))
                        .setTimestamp(-1)).toList())).toList());
    }

    private static Map<String, List<Integer>> listOffsetsSent(Part part) {
        ListOffsetsRequestData req = body(part);
        Map<String, List<Integer>> out = new TreeMap<>();
        req.topics().forEach(t -> out.put(t.name(), t.partitions().stream().map(ListOffsetsPartition::partitionIndex).toList()));
        return out;
    }

    private static Map<Integer, String> listOffsetsSeen(ListOffsetsResponseData resp) {
        return byPartition(resp.topics(), ListOffsetsTopicResponse::name, ListOffsetsTopicResponse::partitions,
                ListOffsetsPartitionResponse::partitionIndex, ListOffsetsPartitionResponse::errorCode, ListOffsetsPartitionResponse::offset);
    }

    @Test
    void listOffsetsIsSplitPerSegmentAndAnsweredUnderVirtualPartitions() {
        short v = 8;
        PlanDriver.Outcome out = driver().run(Planners.forApi(org.apache.kafka.common.protocol.ApiKeys.LIST_OFFSETS.id),
                listOffsets(ALL), v, failing(-1, WovenPlanningTest::listOffsetsAnswer));
        assertPartsRenumbered(out.sent(), WovenPlanningTest::listOffsetsSent);
        ListOffsetsResponseData resp = writable((ListOffsetsResponseData) out.response(), v);
        assertEquals(expectedAll(Errors.NONE, 0), listOffsetsSeen(resp));
    }

    @Test
    void listOffsetsWithAFailedRouteErrsOnlyThatRoutesPartitions() {
        short v = 8;
        PlanDriver.Outcome out = driver().run(Planners.forApi(org.apache.kafka.common.protocol.ApiKeys.LIST_OFFSETS.id),
                listOffsets(ALL), v, failing(WEST, WovenPlanningTest::listOffsetsAnswer));
        assertEquals(expectedAll(Errors.NETWORK_EXCEPTION, -1), listOffsetsSeen((ListOffsetsResponseData) out.response()));
    }

    @Test
    void listOffsetsBoundToEastRefusesWestsPartitionsAsLedElsewhereAndUnknownPartitionsUnknown() {
        PlanDriver.Outcome out = driver().ownRoute(EAST).run(
                Planners.forApi(org.apache.kafka.common.protocol.ApiKeys.LIST_OFFSETS.id), listOffsets(List.of(4, 0, 7)), (short) 8,
                failing(-1, WovenPlanningTest::listOffsetsAnswer));
        assertEquals(1, out.sent().size());
        assertEquals(Destination.OWN, out.sent().getFirst().to());
        assertEquals(Map.of("orders", List.of(0)), listOffsetsSent(out.sent().getFirst()));
        Map<Integer, String> seen = listOffsetsSeen((ListOffsetsResponseData) out.response());
        assertEquals("NONE:" + expected(0), seen.get(0));
        assertTrue(seen.get(4).startsWith("NOT_LEADER_OR_FOLLOWER:"), seen.toString());
        assertTrue(seen.get(7).startsWith("UNKNOWN_TOPIC_OR_PARTITION:"), seen.toString());
    }

    @Test
    void listOffsetsCollapsedGoesToEachRealLeader() {
        CollapsedNodes nodes = CollapsedNodes.of("virtualClusters.main.nodes", List.of(new ProxyNode(0, "proxy-0", 9092, "az1")));
        PlanDriver.Outcome out = driver().collapsed(nodes, (route, partition) -> 1 + partition % 2).run(
                Planners.forApi(org.apache.kafka.common.protocol.ApiKeys.LIST_OFFSETS.id), listOffsets(ALL), (short) 8,
                failing(-1, WovenPlanningTest::listOffsetsAnswer));
        Map<String, List<Integer>> byTarget = new TreeMap<>();
        for (Part p : out.sent()) {
            Destination.Broker b = (Destination.Broker) p.to();
            listOffsetsSent(p).forEach((name, ps) -> byTarget.put(p.route() + "/" + b.nodeId() + "/" + name, ps));
        }
        assertEquals(Map.of("0/1/orders", List.of(0, 2), "0/2/orders", List.of(1), "1/1/orders-eu", List.of(0),
                "1/2/orders-eu", List.of(1)), byTarget);
        assertEquals(expectedAll(Errors.NONE, 0), listOffsetsSeen((ListOffsetsResponseData) out.response()));
    }

    // ---- OffsetForLeaderEpoch

    @Test
    void offsetForLeaderEpochIsSplitAndRenumbered() {
        short v = 4;
        OffsetForLeaderEpochRequestData.OffsetForLeaderTopicCollection topics = new OffsetForLeaderEpochRequestData.OffsetForLeaderTopicCollection();
        topics.add(new OffsetForLeaderEpochRequestData.OffsetForLeaderTopic().setTopic("orders").setPartitions(ALL.stream()
                .map(p -> new OffsetForLeaderEpochRequestData.OffsetForLeaderPartition().setPartition(p).setLeaderEpoch(3)).toList()));
        OffsetForLeaderEpochRequestData req = new OffsetForLeaderEpochRequestData().setReplicaId(-1).setTopics(topics);
        PlanDriver.Outcome out = driver().run(Planners.forApi(req.apiKey()), req, v, failing(WEST, part -> {
            OffsetForLeaderEpochRequestData r = body(part);
            OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResultCollection results = new OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResultCollection();
            r.topics().forEach(t -> results.add(new OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResult().setTopic(t.topic())
                    .setPartitions(t.partitions().stream().map(p -> new OffsetForLeaderEpochResponseData.EpochEndOffset()
                            .setPartition(p.partition()).setLeaderEpoch(3).setEndOffset(value(part.route(), p.partition()))).toList())));
            return new OffsetForLeaderEpochResponseData().setTopics(results);
        }));
        assertPartsRenumbered(out.sent(), part -> {
            Map<String, List<Integer>> m = new TreeMap<>();
            ((OffsetForLeaderEpochRequestData) part.body()).topics().forEach(t -> m.put(t.topic(),
                    t.partitions().stream().map(OffsetForLeaderEpochRequestData.OffsetForLeaderPartition::partition).toList()));
            return m;
        });
        OffsetForLeaderEpochResponseData resp = writable((OffsetForLeaderEpochResponseData) out.response(), v);
        assertEquals(expectedAll(Errors.NETWORK_EXCEPTION, -1), byPartition(new ArrayList<>(resp.topics()),
                OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResult::topic,
                OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResult::partitions,
                OffsetForLeaderEpochResponseData.EpochEndOffset::partition, OffsetForLeaderEpochResponseData.EpochEndOffset::errorCode,
                OffsetForLeaderEpochResponseData.EpochEndOffset::endOffset));
    }

    // ---- DeleteRecords (response partitions are an ImplicitLinkedHashCollection)

    private static DeleteRecordsRequestData deleteRecords(List<Integer> partitions) {
        return new DeleteRecordsRequestData().setTimeoutMs(1000).setTopics(List.of(new DeleteRecordsTopic().setName("orders")
                .setPartitions(partitions.stream().map(p -> new DeleteRecordsPartition().setPartitionIndex(p).setOffset(50 + p))
                        .toList())));
    }

    private static DeleteRecordsResponseData deleteRecordsAnswer(Part part) {
        DeleteRecordsRequestData r = body(part);
        DeleteRecordsResponseData.DeleteRecordsTopicResultCollection topics = new DeleteRecordsResponseData.DeleteRecordsTopicResultCollection();
        for (DeleteRecordsTopic t : r.topics()) {
            DeleteRecordsResponseData.DeleteRecordsPartitionResultCollection ps = new DeleteRecordsResponseData.DeleteRecordsPartitionResultCollection();
            t.partitions().forEach(p -> ps.add(new DeleteRecordsPartitionResult().setPartitionIndex(p.partitionIndex())
                    .setLowWatermark(value(part.route(), p.partitionIndex()))));
            topics.add(new DeleteRecordsTopicResult().setName(t.name()).setPartitions(ps));
        }
        return new DeleteRecordsResponseData().setTopics(topics);
    }

    private static Map<Integer, String> deleteRecordsSeen(DeleteRecordsResponseData resp) {
        return byPartition(new ArrayList<>(resp.topics()), DeleteRecordsTopicResult::name, t -> new ArrayList<>(t.partitions()),
                DeleteRecordsPartitionResult::partitionIndex, DeleteRecordsPartitionResult::errorCode,
                DeleteRecordsPartitionResult::lowWatermark);
    }

    @Test
    void deleteRecordsIsSplitAndRenumberedBothWays() {
        short v = 2;
        PlanDriver.Outcome out = driver().run(Planners.forApi(org.apache.kafka.common.protocol.ApiKeys.DELETE_RECORDS.id),
                deleteRecords(ALL), v, failing(-1, WovenPlanningTest::deleteRecordsAnswer));
        assertPartsRenumbered(out.sent(), part -> {
            Map<String, List<Integer>> m = new TreeMap<>();
            ((DeleteRecordsRequestData) part.body()).topics().forEach(t -> m.put(t.name(),
                    t.partitions().stream().map(DeleteRecordsPartition::partitionIndex).toList()));
            return m;
        });
        DeleteRecordsRequestData west = body(out.sent().get(1));
        assertEquals(List.of(53L, 54L), west.topics().getFirst().partitions().stream().map(DeleteRecordsPartition::offset).toList(),
                "each partition keeps its own offset");
        DeleteRecordsResponseData resp = writable((DeleteRecordsResponseData) out.response(), v);
        assertEquals(expectedAll(Errors.NONE, 0), deleteRecordsSeen(resp));
        for (DeleteRecordsTopicResult t : resp.topics()) {
            for (DeleteRecordsPartitionResult p : t.partitions()) {
                assertEquals(p, t.partitions().find(p.partitionIndex()), "the renumbered collection finds its elements by index");
            }
        }
    }

    @Test
    void deleteRecordsWithAFailedRouteAndCollapsedLeaders() {
        PlanDriver.Outcome failed = driver().run(Planners.forApi(org.apache.kafka.common.protocol.ApiKeys.DELETE_RECORDS.id),
                deleteRecords(ALL), (short) 2, failing(WEST, WovenPlanningTest::deleteRecordsAnswer));
        assertEquals(expectedAll(Errors.NETWORK_EXCEPTION, -1), deleteRecordsSeen((DeleteRecordsResponseData) failed.response()));

        CollapsedNodes nodes = CollapsedNodes.of("virtualClusters.main.nodes", List.of(new ProxyNode(0, "proxy-0", 9092, "az1")));
        PlanDriver.Outcome collapsed = driver().collapsed(nodes, (route, partition) -> route == EAST ? 1 + partition % 2 : 5)
                .run(Planners.forApi(org.apache.kafka.common.protocol.ApiKeys.DELETE_RECORDS.id), deleteRecords(ALL), (short) 2,
                        failing(-1, WovenPlanningTest::deleteRecordsAnswer));
        assertEquals(3, collapsed.sent().size(), "east leaders 1 and 2, west leader 5");
        assertEquals(expectedAll(Errors.NONE, 0), deleteRecordsSeen((DeleteRecordsResponseData) collapsed.response()));
    }

    // ---- DescribeProducers

    @Test
    void describeProducersIsSplitAndRenumbered() {
        short v = 0;
        DescribeProducersRequestData.TopicRequestCollection topics = new DescribeProducersRequestData.TopicRequestCollection();
        topics.add(new DescribeProducersRequestData.TopicRequest().setName("orders").setPartitionIndexes(ALL));
        DescribeProducersRequestData req = new DescribeProducersRequestData().setTopics(topics);
        PlanDriver.Outcome out = driver().run(Planners.forApi(req.apiKey()), req, v, failing(WEST, part -> {
            DescribeProducersRequestData r = body(part);
            return new DescribeProducersResponseData().setTopics(r.topics().stream().map(t -> new DescribeProducersResponseData.TopicResponse()
                    .setName(t.name()).setPartitions(t.partitionIndexes().stream().map(p -> new DescribeProducersResponseData.PartitionResponse()
                            .setPartitionIndex(p).setActiveProducers(List.of(new DescribeProducersResponseData.ProducerState()
                                    .setProducerId(value(part.route(), p))))).toList())).toList());
        }));
        assertPartsRenumbered(out.sent(), part -> {
            Map<String, List<Integer>> m = new TreeMap<>();
            ((DescribeProducersRequestData) part.body()).topics().forEach(t -> m.put(t.name(), t.partitionIndexes()));
            return m;
        });
        DescribeProducersResponseData resp = writable((DescribeProducersResponseData) out.response(), v);
        assertEquals(expectedAll(Errors.NETWORK_EXCEPTION, -1), byPartition(resp.topics(), DescribeProducersResponseData.TopicResponse::name,
                DescribeProducersResponseData.TopicResponse::partitions, DescribeProducersResponseData.PartitionResponse::partitionIndex,
                DescribeProducersResponseData.PartitionResponse::errorCode,
                p -> p.activeProducers().isEmpty() ? -1 : p.activeProducers().getFirst().producerId()));
    }

    // ---- ElectLeaders

    private static ElectLeadersResponseData electAnswer(Part part) {
        ElectLeadersRequestData r = body(part);
        List<ElectLeadersResponseData.ReplicaElectionResult> results = new ArrayList<>();
        if (r.topicPartitions() == null) {
            String name = part.route() == EAST ? "orders" : "orders-eu";
            results.add(new ElectLeadersResponseData.ReplicaElectionResult().setTopic(name).setPartitionResult(IntStream.range(0, 3)
                    .mapToObj(p -> new ElectLeadersResponseData.PartitionResult().setPartitionId(p)).toList()));
        } else {
            r.topicPartitions().forEach(t -> results.add(new ElectLeadersResponseData.ReplicaElectionResult().setTopic(t.topic())
                    .setPartitionResult(t.partitions().stream().map(p -> new ElectLeadersResponseData.PartitionResult()
                            .setPartitionId(p).setErrorCode(p == 1 ? Errors.ELECTION_NOT_NEEDED.code() : 0)).toList())));
        }
        return new ElectLeadersResponseData().setReplicaElectionResults(results);
    }

    @Test
    void electLeadersIsSplitAndRenumbered() {
        short v = 2;
        ElectLeadersRequestData.TopicPartitionsCollection tps = new ElectLeadersRequestData.TopicPartitionsCollection();
        tps.add(new ElectLeadersRequestData.TopicPartitions().setTopic("orders").setPartitions(List.of(1, 4, 3, 9)));
        ElectLeadersRequestData req = new ElectLeadersRequestData().setElectionType((byte) 0).setTimeoutMs(1000).setTopicPartitions(tps);
        PlanDriver.Outcome out = driver().ownRoute(WEST).run(Planners.forApi(req.apiKey()), req, v,
                failing(-1, WovenPlanningTest::electAnswer));
        assertEquals(List.of(EAST, WEST), out.sent().stream().map(Part::route).toList(), "any broker of each route");
        assertEquals(List.of(1), ((ElectLeadersRequestData) body(out.sent().get(0))).topicPartitions().iterator().next().partitions());
        ElectLeadersRequestData.TopicPartitions west = ((ElectLeadersRequestData) body(out.sent().get(1))).topicPartitions().iterator().next();
        assertEquals("orders-eu", west.topic());
        assertEquals(List.of(1, 0), west.partitions());
        ElectLeadersResponseData resp = writable((ElectLeadersResponseData) out.response(), v);
        assertEquals(Map.of(1, "ELECTION_NOT_NEEDED:0", 3, "NONE:0", 4, "ELECTION_NOT_NEEDED:0", 9, "UNKNOWN_TOPIC_OR_PARTITION:0"),
                byPartition(resp.replicaElectionResults(), ElectLeadersResponseData.ReplicaElectionResult::topic,
                        ElectLeadersResponseData.ReplicaElectionResult::partitionResult,
                        ElectLeadersResponseData.PartitionResult::partitionId, ElectLeadersResponseData.PartitionResult::errorCode,
                        p -> 0));
    }

    @Test
    void electLeadersForAllPartitionsLeavesWovenTopicsOutRatherThanMisnamingThem() {
        ElectLeadersRequestData req = new ElectLeadersRequestData().setElectionType((byte) 0).setTimeoutMs(1000).setTopicPartitions(null);
        PlanDriver.Outcome out = driver().run(Planners.forApi(req.apiKey()), req, (short) 2,
                failing(-1, WovenPlanningTest::electAnswer));
        assertEquals(2, out.sent().size(), "every route elects its partitions");
        ElectLeadersResponseData resp = (ElectLeadersResponseData) out.response();
        assertEquals(List.of(), resp.replicaElectionResults(), "real topics are never shown under the woven name unrenumbered");
    }

    // ---- AlterPartitionReassignments / ListPartitionReassignments

    @Test
    void alterPartitionReassignmentsMapsEachSegmentsReplicasOnItsRoute() {
        short v = 0;
        List<ReassignablePartition> partitions = new ArrayList<>();
        for (int p : ALL) {
            int route = p < 3 ? EAST : WEST;
            partitions.add(new ReassignablePartition().setPartitionIndex(p)
                    .setReplicas(List.of(NODES.toVirtual(route, 1), NODES.toVirtual(route, 2))));
        }
        AlterPartitionReassignmentsRequestData req = new AlterPartitionReassignmentsRequestData().setTimeoutMs(1000)
                .setTopics(List.of(new ReassignableTopic().setName("orders").setPartitions(partitions)));
        PlanDriver.Outcome out = driver().run(Planners.forApi(req.apiKey()), req, v, failing(-1, part -> {
            AlterPartitionReassignmentsRequestData r = body(part);
            return new AlterPartitionReassignmentsResponseData().setResponses(r.topics().stream().map(t -> new ReassignableTopicResponse()
                    .setName(t.name()).setPartitions(t.partitions().stream().map(p -> new ReassignablePartitionResponse()
                            .setPartitionIndex(p.partitionIndex()).setErrorMessage(part.route() + ":" + p.replicas())).toList())).toList());
        }));
        assertEquals(List.of(EAST, WEST), out.sent().stream().map(Part::route).toList());
        for (Part part : out.sent()) {
            ReassignableTopic t = ((AlterPartitionReassignmentsRequestData) body(part)).topics().getFirst();
            assertEquals(part.route() == EAST ? "orders" : "orders-eu", t.name());
            assertEquals(part.route() == EAST ? List.of(0, 1, 2) : List.of(0, 1), t.partitions().stream()
                    .map(ReassignablePartition::partitionIndex).toList());
            t.partitions().forEach(p -> assertEquals(List.of(1, 2), p.replicas(), "real broker ids of the segment's route"));
        }
        AlterPartitionReassignmentsResponseData resp = writable((AlterPartitionReassignmentsResponseData) out.response(), v);
        Map<Integer, String> seen = new TreeMap<>();
        resp.responses().forEach(t -> {
            assertEquals("orders", t.name());
            t.partitions().forEach(p -> seen.put(p.partitionIndex(), p.errorMessage()));
        });
        assertEquals(Map.of(0, "0:[1, 2]", 1, "0:[1, 2]", 2, "0:[1, 2]", 3, "1:[1, 2]", 4, "1:[1, 2]"), seen);
    }

    @Test
    void listPartitionReassignmentsAnswersOngoingOnesUnderVirtualPartitionsAndBrokers() {
        short v = 0;
        ListPartitionReassignmentsRequestData req = new ListPartitionReassignmentsRequestData().setTimeoutMs(1000).setTopics(List.of(
                new ListPartitionReassignmentsRequestData.ListPartitionReassignmentsTopics().setName("orders").setPartitionIndexes(ALL)));
        PlanDriver.Outcome out = driver().run(Planners.forApi(req.apiKey()), req, v, failing(-1, part -> {
            ListPartitionReassignmentsRequestData r = body(part);
            // only real partition 1 of each route is being reassigned
            return new ListPartitionReassignmentsResponseData().setTopics(r.topics().stream().map(t ->
                    new ListPartitionReassignmentsResponseData.OngoingTopicReassignment().setName(t.name()).setPartitions(List.of(
                            new ListPartitionReassignmentsResponseData.OngoingPartitionReassignment().setPartitionIndex(1)
                                    .setReplicas(List.of(1, 2)).setAddingReplicas(List.of(2)).setRemovingReplicas(List.of())))).toList());
        }));
        assertEquals(List.of(List.of(0, 1, 2), List.of(0, 1)), out.sent().stream()
                .map(p -> ((ListPartitionReassignmentsRequestData) p.body()).topics().getFirst().partitionIndexes()).toList());
        ListPartitionReassignmentsResponseData resp = writable((ListPartitionReassignmentsResponseData) out.response(), v);
        Map<Integer, List<Integer>> seen = new TreeMap<>();
        resp.topics().forEach(t -> {
            assertEquals("orders", t.name());
            t.partitions().forEach(p -> seen.put(p.partitionIndex(), p.replicas()));
        });
        assertEquals(Map.of(1, List.of(NODES.toVirtual(EAST, 1), NODES.toVirtual(EAST, 2)),
                4, List.of(NODES.toVirtual(WEST, 1), NODES.toVirtual(WEST, 2))), seen);
        assertFalse(seen.containsKey(0));
    }
}
