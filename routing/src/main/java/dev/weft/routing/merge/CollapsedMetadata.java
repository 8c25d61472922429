package dev.weft.routing.merge;

import dev.weft.routing.node.CollapsedNodes;
import dev.weft.routing.node.ProxyNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.message.DescribeClusterResponseData.DescribeClusterBroker;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.FindCoordinatorResponseData.Coordinator;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseBroker;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponsePartition;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic;
import org.apache.kafka.common.protocol.Errors;

/**
 * What a client of a collapsed virtual cluster (DESIGN §4 "collapsed") is told about brokers: the
 * proxy nodes are the brokers, each partition is led by its {@linkplain CollapsedNodes#virtualLeader
 * virtual leader}, and coordinators are proxy nodes. Applied to a Metadata answer already merged for
 * the virtual cluster (virtual topic names and ids, as {@link MetadataWeave#merge} builds it, or one
 * cluster's answer), to DescribeCluster, and used to answer FindCoordinator without asking upstream.
 *
 * <p>Cold path; works on kafka-clients' message classes and is version-independent: it only sets
 * fields every version has, or ignorable ones (racks v1+, controller v1+, cluster id v2+, offline
 * replicas v5+), which the client's version drops when it cannot carry them. Hosts and ports are the
 * configured node addresses, final: no gateway rewrite follows.
 */
public final class CollapsedMetadata {

    private static final short FIRST_BATCHED_FIND_COORDINATOR = 4;

    private CollapsedMetadata() {
    }

    /**
     * Rewrites a merged Metadata answer in place (the caller builds one per request) and returns it:
     * <ul>
     *   <li>brokers := the proxy nodes (id, host, port, rack); controller := {@link CollapsedNodes#controllerId()};
     *       cluster id := {@code virtualClusterId};</li>
     *   <li>a partition with a real leader: leader := its virtual leader for {@code clientRack};
     *       replicas := {@link CollapsedNodes#replicas} for the real replica count; ISR := the first
     *       of those, as many as the real ISR (at least the leader); offline replicas := none;</li>
     *   <li>a partition without one (negative leader, e.g. LEADER_NOT_AVAILABLE): leader stays -1 with
     *       its error; replicas as above; ISR and offline replicas empty;</li>
     *   <li>kept: leader epochs (clients fence with them, so they stay the real ones), errors, topic
     *       names and ids, authorized operations, throttle time, the top-level error (v13).</li>
     * </ul>
     *
     * @param clientRack the client's rack when known (null: spread over every node)
     */
    public static MetadataResponseData rewrite(MetadataResponseData merged, CollapsedNodes nodes, String clientRack,
            String virtualClusterId) {
        MetadataResponseData.MetadataResponseBrokerCollection brokers =
                new MetadataResponseData.MetadataResponseBrokerCollection(nodes.size());
        for (ProxyNode n : nodes.nodes()) {
            brokers.add(new MetadataResponseBroker().setNodeId(n.id()).setHost(n.host()).setPort(n.port()).setRack(n.rack()));
        }
        merged.setBrokers(brokers).setControllerId(nodes.controllerId()).setClusterId(virtualClusterId);
        for (MetadataResponseTopic t : merged.topics()) {
            if (t.partitions().isEmpty()) {
                continue;
            }
            int topicHash = CollapsedNodes.stableHash(t.name());
            for (MetadataResponsePartition p : t.partitions()) {
                int[] replicas = nodes.replicas(topicHash, p.partitionIndex(), clientRack, size(p.replicaNodes()));
                boolean led = p.leaderId() >= 0;
                p.setLeaderId(led ? replicas[0] : p.leaderId())
                        .setReplicaNodes(boxed(replicas))
                        .setIsrNodes(led ? boxed(CollapsedNodes.inSyncReplicas(replicas, Math.max(1, size(p.isrNodes()))))
                                : new ArrayList<>())
                        .setOfflineReplicas(new ArrayList<>());
            }
        }
        return merged;
    }

    /**
     * Rewrites a DescribeCluster answer in place and returns it: brokers := the proxy nodes (never
     * fenced), controller := {@link CollapsedNodes#controllerId()}, cluster id := {@code virtualClusterId};
     * throttle time and cluster authorized operations are kept. An answer with an error keeps it, with
     * no brokers and controller -1. Controller endpoints (endpoint type 2) are not the proxy's to
     * describe: the caller refuses them before asking, as the cold planner does.
     */
    public static DescribeClusterResponseData rewrite(DescribeClusterResponseData merged, CollapsedNodes nodes,
            String virtualClusterId) {
        Objects.requireNonNull(virtualClusterId, "virtualClusterId");
        DescribeClusterResponseData.DescribeClusterBrokerCollection brokers =
                new DescribeClusterResponseData.DescribeClusterBrokerCollection(nodes.size());
        merged.setClusterId(virtualClusterId);
        if (merged.errorCode() != Errors.NONE.code()) {
            return merged.setBrokers(brokers).setControllerId(-1);
        }
        for (ProxyNode n : nodes.nodes()) {
            brokers.add(new DescribeClusterBroker().setBrokerId(n.id()).setHost(n.host()).setPort(n.port())
                    .setRack(n.rack()).setIsFenced(false));
        }
        return merged.setBrokers(brokers).setControllerId(nodes.controllerId());
    }

    /**
     * The answer to FindCoordinator in any version (one key up to v3, batched keys from v4): each key's
     * coordinator is the proxy node {@link CollapsedNodes#coordinatorFor(String, String)} picks; any
     * proxy node reaches the real coordinator, so this only spreads load. Every key type is answered
     * alike (groups, transactional ids, share groups).
     */
    public static FindCoordinatorResponseData findCoordinator(FindCoordinatorRequestData request, short version,
            CollapsedNodes nodes, String clientRack) {
        FindCoordinatorResponseData out = new FindCoordinatorResponseData();
        if (version >= FIRST_BATCHED_FIND_COORDINATOR) {
            List<Coordinator> coordinators = new ArrayList<>(request.coordinatorKeys().size());
            for (String key : request.coordinatorKeys()) {
                ProxyNode n = nodes.node(nodes.coordinatorFor(key, clientRack));
                coordinators.add(new Coordinator().setKey(key).setNodeId(n.id()).setHost(n.host()).setPort(n.port())
                        .setErrorCode(Errors.NONE.code()).setErrorMessage(null));
            }
            return out.setCoordinators(coordinators);
        }
        ProxyNode n = nodes.node(nodes.coordinatorFor(request.key(), clientRack));
        return out.setErrorCode(Errors.NONE.code()).setErrorMessage(null).setNodeId(n.id()).setHost(n.host())
                .setPort(n.port());
    }

    private static int size(List<Integer> ids) {
        return ids == null ? 0 : ids.size();
    }

    private static List<Integer> boxed(int[] ids) {
        List<Integer> out = new ArrayList<>(ids.length);
        for (int id : ids) {
            out.add(id);
        }
        return out;
    }
}
