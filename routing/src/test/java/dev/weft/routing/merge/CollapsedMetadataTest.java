package dev.weft.routing.merge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.routing.node.CollapsedNodes;
import dev.weft.routing.node.ProxyNode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.message.DescribeClusterResponseData.DescribeClusterBroker;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseBroker;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponsePartition;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.requests.FindCoordinatorRequest.CoordinatorType;
import org.junit.jupiter.api.Test;

/** Metadata, DescribeCluster and FindCoordinator as a collapsed virtual cluster's clients see them. */
class CollapsedMetadataTest {

    private static final Uuid ORDERS = Uuid.fromString("AAAAAAAAAAEAAAAAAAAAAg");
    private static final List<ProxyNode> NODES = List.of(
            new ProxyNode(12, "proxy-c.example.com", 9194, "az-c"),
            new ProxyNode(10, "proxy-a.example.com", 9192, "az-a"),
            new ProxyNode(11, "proxy-b.example.com", 9193, "az-b"),
            new ProxyNode(13, "proxy-a2.example.com", 9195, "az-a"));
    private static final CollapsedNodes COLLAPSED = CollapsedNodes.of("virtualClusters.main.nodes", NODES);

    /**
     * A merged answer over real brokers 1..5: orders (6 partitions, replication factor 3, ISR 2, epoch
     * 40 + p, partition 4 without a leader), an error topic, throttle 7.
     */
    private static MetadataResponseData merged() {
        MetadataResponseData m = new MetadataResponseData().setClusterId("real-cluster").setControllerId(3).setThrottleTimeMs(7);
        for (int b = 1; b <= 5; b++) {
            m.brokers().add(new MetadataResponseBroker().setNodeId(b).setHost("real-" + b).setPort(9092).setRack("r" + b));
        }
        List<MetadataResponsePartition> ps = new ArrayList<>();
        for (int p = 0; p < 6; p++) {
            int leader = 1 + p % 5;
            ps.add(new MetadataResponsePartition().setPartitionIndex(p).setLeaderId(leader).setLeaderEpoch(40 + p)
                    .setReplicaNodes(List.of(leader, 1 + (p + 1) % 5, 1 + (p + 2) % 5))
                    .setIsrNodes(List.of(leader, 1 + (p + 1) % 5))
                    .setOfflineReplicas(List.of(1 + (p + 2) % 5)));
        }
        ps.get(4).setLeaderId(-1).setErrorCode(Errors.LEADER_NOT_AVAILABLE.code()).setIsrNodes(List.of());
        m.topics().add(new MetadataResponseTopic().setName("orders").setTopicId(ORDERS).setIsInternal(false).setPartitions(ps));
        m.topics().add(new MetadataResponseTopic().setName("nope").setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code())
                .setPartitions(List.of()));
        return m;
    }

    @SuppressWarnings("unchecked")
    private static <T extends ApiMessage> T roundTrip(T message, short version) {
        ByteBufferAccessor bytes = MessageUtil.toByteBufferAccessor(message, version);
        ApiMessage back = switch (message) {
            case MetadataResponseData m -> new MetadataResponseData(bytes, version);
            case DescribeClusterResponseData d -> new DescribeClusterResponseData(bytes, version);
            case FindCoordinatorResponseData f -> new FindCoordinatorResponseData(bytes, version);
            default -> throw new IllegalArgumentException(message.getClass().getName());
        };
        return (T) back;
    }

    private static List<Integer> ids(int... ids) {
        return Arrays.stream(ids).boxed().toList();
    }

    @Test
    void everyMetadataVersionCarriesTheProxyNodesVirtualLeadersAndRealEpochs() {
        for (short v = ApiKeys.METADATA.oldestVersion(); v <= ApiKeys.METADATA.latestVersion(); v++) {
            MetadataResponseData out = roundTrip(CollapsedMetadata.rewrite(merged(), COLLAPSED, null, "virtual-id"), v);
            String at = "v" + v;
            assertEquals(List.of(10, 11, 12, 13), out.brokers().stream().map(MetadataResponseBroker::nodeId).toList(), at);
            MetadataResponseBroker b = out.brokers().find(11);
            assertEquals("proxy-b.example.com", b.host(), at);
            assertEquals(9193, b.port(), at);
            assertEquals(v >= 1 ? "az-b" : null, b.rack(), at + ": racks from v1");
            assertEquals(v >= 1 ? 10 : -1, out.controllerId(), at + ": the lowest node id, from v1");
            assertEquals(v >= 2 ? "virtual-id" : null, out.clusterId(), at + ": cluster id from v2");
            assertEquals(v >= 3 ? 7 : 0, out.throttleTimeMs(), at);
            MetadataResponseTopic orders = out.topics().find("orders");
            assertEquals(v >= 10 ? ORDERS : Uuid.ZERO_UUID, orders.topicId(), at + ": topic ids from v10");
            for (MetadataResponsePartition p : orders.partitions()) {
                String pat = at + " partition " + p.partitionIndex();
                assertEquals(v >= 7 ? 40 + p.partitionIndex() : -1, p.leaderEpoch(), pat + ": the real epoch, from v7");
                int[] replicas = COLLAPSED.replicas("orders", p.partitionIndex(), null, 3);
                assertEquals(ids(replicas), p.replicaNodes(), pat);
                assertEquals(List.of(), p.offlineReplicas(), pat);
                if (p.partitionIndex() == 4) {
                    assertEquals(-1, p.leaderId(), pat + ": no real leader, no virtual one");
                    assertEquals(Errors.LEADER_NOT_AVAILABLE.code(), p.errorCode(), pat);
                    assertEquals(List.of(), p.isrNodes(), pat);
                } else {
                    assertEquals(COLLAPSED.virtualLeader("orders", p.partitionIndex(), null), p.leaderId(), pat);
                    assertEquals(replicas[0], p.leaderId(), pat);
                    assertEquals(ids(replicas[0], replicas[1]), p.isrNodes(), pat + ": as many in sync as really are");
                    assertEquals(Errors.NONE.code(), p.errorCode(), pat);
                }
            }
            assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(), out.topics().find("nope").errorCode(), at);
        }
    }

    @Test
    void theAnswerIsTheSameOnEveryReplicaWhateverTheConfiguredOrder() {
        List<ProxyNode> reversed = new ArrayList<>(NODES);
        java.util.Collections.reverse(reversed);
        CollapsedNodes other = CollapsedNodes.of("virtualClusters.main.nodes", reversed);
        for (String rack : Arrays.asList(null, "az-a", "az-b")) {
            assertEquals(CollapsedMetadata.rewrite(merged(), COLLAPSED, rack, "v"), CollapsedMetadata.rewrite(merged(), other, rack, "v"));
        }
    }

    @Test
    void theClientsRackPicksLeadersInItsRack() {
        MetadataResponseData out = CollapsedMetadata.rewrite(merged(), COLLAPSED, "az-a", "v");
        for (MetadataResponsePartition p : out.topics().find("orders").partitions()) {
            if (p.leaderId() >= 0) {
                assertTrue(p.leaderId() == 10 || p.leaderId() == 13, "az-a has nodes 10 and 13: " + p);
                assertEquals(p.leaderId(), p.replicaNodes().getFirst());
            }
        }
        MetadataResponseData elsewhere = CollapsedMetadata.rewrite(merged(), COLLAPSED, "az-z", "v");
        assertEquals(CollapsedMetadata.rewrite(merged(), COLLAPSED, null, "v"), elsewhere, "a rack with no node: every node");
    }

    @Test
    void replicaCountsFollowTheRealPartitionCappedAtTheFleet() {
        MetadataResponseData m = merged();
        List<MetadataResponsePartition> ps = m.topics().find("orders").partitions();
        ps.get(0).setReplicaNodes(ids(1, 2, 3, 4, 5)).setIsrNodes(ids(1, 2, 3, 4, 5));
        ps.get(1).setReplicaNodes(ids(2)).setIsrNodes(ids(2));
        ps.get(2).setReplicaNodes(ids(3, 4, 5)).setIsrNodes(ids()); // odd, but the leader is in sync
        ps.get(3).setReplicaNodes(ids()).setIsrNodes(ids());
        List<MetadataResponsePartition> out = CollapsedMetadata.rewrite(m, COLLAPSED, null, "v").topics().find("orders").partitions();
        assertEquals(4, out.get(0).replicaNodes().size(), "5 real replicas, 4 proxy nodes");
        assertEquals(4, out.get(0).isrNodes().size());
        assertEquals(1, out.get(1).replicaNodes().size());
        assertEquals(List.of(out.get(1).leaderId()), out.get(1).isrNodes());
        assertEquals(List.of(out.get(2).leaderId()), out.get(2).isrNodes());
        assertEquals(List.of(out.get(3).leaderId()), out.get(3).replicaNodes(), "at least the leader");
        assertEquals(4, new java.util.HashSet<>(out.get(0).replicaNodes()).size(), "no node twice");
    }

    @Test
    void topLevelErrorsAuthorizedOperationsAndTopicsAskedByIdAreKept() {
        MetadataResponseData m = merged().setErrorCode(Errors.NONE.code());
        m.topics().find("orders").setTopicAuthorizedOperations(0x7F);
        m.setClusterAuthorizedOperations(0x3F);
        MetadataResponseData v10 = roundTrip(CollapsedMetadata.rewrite(m, COLLAPSED, null, "v"), (short) 10);
        assertEquals(0x7F, v10.topics().find("orders").topicAuthorizedOperations());
        assertEquals(0x3F, v10.clusterAuthorizedOperations());
        MetadataResponseData v13 = merged().setErrorCode(Errors.CLUSTER_AUTHORIZATION_FAILED.code());
        assertEquals(Errors.CLUSTER_AUTHORIZATION_FAILED.code(),
                roundTrip(CollapsedMetadata.rewrite(v13, COLLAPSED, null, "v"), (short) 13).errorCode());
        MetadataResponseData byId = merged();
        byId.topics().add(new MetadataResponseTopic().setName(null).setTopicId(Uuid.randomUuid())
                .setErrorCode(Errors.UNKNOWN_TOPIC_ID.code()).setPartitions(List.of()));
        assertEquals(3, roundTrip(CollapsedMetadata.rewrite(byId, COLLAPSED, null, "v"), (short) 12).topics().size());
    }

    @Test
    void describeClusterListsTheProxyNodesInEveryVersion() {
        for (short v = ApiKeys.DESCRIBE_CLUSTER.oldestVersion(); v <= ApiKeys.DESCRIBE_CLUSTER.latestVersion(); v++) {
            DescribeClusterResponseData real = new DescribeClusterResponseData().setClusterId("real").setControllerId(2)
                    .setThrottleTimeMs(5).setClusterAuthorizedOperations(0x1F);
            real.brokers().add(new DescribeClusterBroker().setBrokerId(2).setHost("real-2").setPort(9092).setRack("r2"));
            DescribeClusterResponseData out = roundTrip(CollapsedMetadata.rewrite(real, COLLAPSED, "virtual-id"), v);
            assertEquals("virtual-id", out.clusterId());
            assertEquals(10, out.controllerId());
            assertEquals(5, out.throttleTimeMs());
            assertEquals(0x1F, out.clusterAuthorizedOperations());
            assertEquals(List.of(10, 11, 12, 13), out.brokers().stream().map(DescribeClusterBroker::brokerId).toList());
            DescribeClusterBroker b = out.brokers().find(13);
            assertEquals("proxy-a2.example.com", b.host());
            assertEquals(9195, b.port());
            assertEquals("az-a", b.rack());
            assertEquals(false, b.isFenced());
        }
        DescribeClusterResponseData failed = new DescribeClusterResponseData().setErrorCode(Errors.CLUSTER_AUTHORIZATION_FAILED.code())
                .setErrorMessage("no").setClusterId("real").setControllerId(2);
        DescribeClusterResponseData out = CollapsedMetadata.rewrite(failed, COLLAPSED, "virtual-id");
        assertEquals(Errors.CLUSTER_AUTHORIZATION_FAILED.code(), out.errorCode());
        assertEquals("no", out.errorMessage());
        assertEquals("virtual-id", out.clusterId());
        assertEquals(-1, out.controllerId());
        assertTrue(out.brokers().isEmpty());
    }

    @Test
    void findCoordinatorIsAnsweredWithAProxyNodeInEveryVersion() {
        for (short v = ApiKeys.FIND_COORDINATOR.oldestVersion(); v <= ApiKeys.FIND_COORDINATOR.latestVersion(); v++) {
            String at = "v" + v;
            if (v < 4) {
                FindCoordinatorRequestData req = new FindCoordinatorRequestData().setKey("group-a")
                        .setKeyType(v == 0 ? CoordinatorType.GROUP.id() : CoordinatorType.TRANSACTION.id());
                FindCoordinatorResponseData out = roundTrip(CollapsedMetadata.findCoordinator(req, v, COLLAPSED, null), v);
                ProxyNode expected = COLLAPSED.node(COLLAPSED.coordinatorFor("group-a"));
                assertEquals(Errors.NONE.code(), out.errorCode(), at);
                assertEquals(expected.id(), out.nodeId(), at);
                assertEquals(expected.host(), out.host(), at);
                assertEquals(expected.port(), out.port(), at);
                if (v >= 1) {
                    assertNull(out.errorMessage(), at);
                }
            } else {
                List<String> keys = List.of("g3", "g1", "txn-7", "g2");
                FindCoordinatorRequestData req = new FindCoordinatorRequestData().setKeyType(CoordinatorType.GROUP.id())
                        .setCoordinatorKeys(keys);
                FindCoordinatorResponseData out = roundTrip(CollapsedMetadata.findCoordinator(req, v, COLLAPSED, "az-a"), v);
                assertEquals(keys, out.coordinators().stream().map(FindCoordinatorResponseData.Coordinator::key).toList(),
                        at + ": in the client's order");
                for (FindCoordinatorResponseData.Coordinator c : out.coordinators()) {
                    assertEquals(COLLAPSED.coordinatorFor(c.key(), "az-a"), c.nodeId(), at);
                    assertTrue(c.nodeId() == 10 || c.nodeId() == 13, at + ": a node in the client's rack");
                    assertEquals(COLLAPSED.node(c.nodeId()).host(), c.host(), at);
                    assertEquals(COLLAPSED.node(c.nodeId()).port(), c.port(), at);
                    assertEquals(Errors.NONE.code(), c.errorCode(), at);
                }
            }
        }
    }
}
