package dev.weft.proxy.rewrite;

import dev.weft.protocol.cold.ColdCodec;
import dev.weft.protocol.header.ResponseHeaderView;
import dev.weft.proxy.gateway.BrokerAddressBook;
import dev.weft.proxy.session.ResponseRewriter;
import dev.weft.routing.node.NodeIdMapping;
import dev.weft.routing.topology.BrokerEndpoint;
import dev.weft.routing.topology.TopologyHolder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Puts the proxy's addresses where a response names brokers: Metadata, FindCoordinator (single and
 * batched) and DescribeCluster. Node ids become virtual ids ({@link NodeIdBijection}), hosts and
 * ports become the gateway's. On the way it tells the cluster's topology what the real brokers are.
 *
 * <p>Cold path: the body is decoded and re-encoded through kafka-clients' generated classes
 * ({@link ColdCodec}). Shared by every event loop of a gateway; holds no per-request state.
 */
public final class BrokerAddressRewriter implements ResponseRewriter {

    private static final Logger LOG = LoggerFactory.getLogger(BrokerAddressRewriter.class);

    private final BrokerAddressBook addresses;
    private final NodeIdMapping bijection;
    private final int route;
    private final TopologyHolder topology;
    private final boolean learnPartitions;
    private final String context;
    /** Node ids already reported as unreachable through this gateway: logged once each. */
    private final Set<Integer> reportedMissingPorts = ConcurrentHashMap.newKeySet();

    /**
     * @param addresses the gateway's advertised host and ports
     * @param bijection the virtual cluster's node id mapping
     * @param route which route of the bijection the upstream cluster is
     * @param topology the upstream cluster's topology, told about brokers seen in responses
     * @param context for log lines, e.g. "virtual cluster 'main', gateway 'plain'"
     * @param learnPartitions whether the topology also learns the partitions' leaders, replicas and ISRs
     *     from Metadata answers (a router that reads them on the hot path: rack-aware fetch)
     */
    public BrokerAddressRewriter(BrokerAddressBook addresses, NodeIdMapping bijection, int route,
            TopologyHolder topology, String context, boolean learnPartitions) {
        this.addresses = addresses;
        this.bijection = bijection;
        this.route = route;
        this.topology = topology;
        this.context = context;
        this.learnPartitions = learnPartitions;
    }

    @Override
    public ByteBuf rewrite(ByteBuf frame, short apiKey, short apiVersion, int clientCorrelationId, ByteBufAllocator alloc) {
        try {
            int headerStart = frame.readerIndex() + 4;
            int bodyStart = headerStart + new ResponseHeaderView().wrap(frame, headerStart).headerLength(apiKey, apiVersion);
            ApiMessage body = ColdCodec.readResponseBody(apiKey, apiVersion, frame.slice(bodyStart, frame.writerIndex() - bodyStart));
            if (apiKey == ApiKeys.METADATA.id) {
                metadata((MetadataResponseData) body);
            } else if (apiKey == ApiKeys.FIND_COORDINATOR.id) {
                findCoordinator((FindCoordinatorResponseData) body, apiVersion);
            } else if (apiKey == ApiKeys.DESCRIBE_CLUSTER.id) {
                describeCluster((DescribeClusterResponseData) body);
            } else {
                throw new IllegalArgumentException("no broker address rewrite for API key " + apiKey);
            }
            return ColdCodec.writeResponse(alloc, clientCorrelationId, apiVersion, body);
        } finally {
            frame.release();
        }
    }

    private void metadata(MetadataResponseData data) {
        List<BrokerEndpoint> real = new ArrayList<>();
        MetadataResponseData.MetadataResponseBrokerCollection rewritten =
                new MetadataResponseData.MetadataResponseBrokerCollection(data.brokers().size());
        for (MetadataResponseData.MetadataResponseBroker b : data.brokers()) {
            real.add(new BrokerEndpoint(b.nodeId(), b.host(), b.port(), b.rack()));
            int virtualId = bijection.toVirtual(route, b.nodeId());
            rewritten.add(new MetadataResponseData.MetadataResponseBroker()
                    .setNodeId(virtualId)
                    .setHost(hostFor(virtualId))
                    .setPort(portFor(virtualId))
                    .setRack(b.rack()));
        }
        data.setBrokers(rewritten);
        topology.offer(data.clusterId(), real);
        if (learnPartitions) {
            topology.offerPartitions(data); // real node ids still: they are mapped below
        }
        if (bijection.routes() == 1) {
            return; // node ids are unchanged: leaders and replicas stay as they are
        }
        data.setControllerId(bijection.toVirtual(route, data.controllerId()));
        for (MetadataResponseData.MetadataResponseTopic t : data.topics()) {
            for (MetadataResponseData.MetadataResponsePartition p : t.partitions()) {
                p.setLeaderId(bijection.toVirtual(route, p.leaderId()));
                p.setReplicaNodes(toVirtual(p.replicaNodes()));
                p.setIsrNodes(toVirtual(p.isrNodes()));
                p.setOfflineReplicas(toVirtual(p.offlineReplicas()));
            }
        }
    }

    private void findCoordinator(FindCoordinatorResponseData data, short version) {
        if (version < 4) {
            if (data.errorCode() == 0 && data.nodeId() >= 0) {
                int virtualId = bijection.toVirtual(route, data.nodeId());
                data.setNodeId(virtualId).setHost(hostFor(virtualId)).setPort(portFor(virtualId));
            }
            return;
        }
        for (FindCoordinatorResponseData.Coordinator c : data.coordinators()) {
            if (c.errorCode() == 0 && c.nodeId() >= 0) {
                int virtualId = bijection.toVirtual(route, c.nodeId());
                c.setNodeId(virtualId).setHost(hostFor(virtualId)).setPort(portFor(virtualId));
            }
        }
    }

    private void describeCluster(DescribeClusterResponseData data) {
        if (data.errorCode() != 0 || data.endpointType() != 1) {
            return; // an error, or controller endpoints (never reached through a broker gateway)
        }
        List<BrokerEndpoint> real = new ArrayList<>();
        DescribeClusterResponseData.DescribeClusterBrokerCollection rewritten =
                new DescribeClusterResponseData.DescribeClusterBrokerCollection(data.brokers().size());
        for (DescribeClusterResponseData.DescribeClusterBroker b : data.brokers()) {
            real.add(new BrokerEndpoint(b.brokerId(), b.host(), b.port(), b.rack()));
            int virtualId = bijection.toVirtual(route, b.brokerId());
            rewritten.add(new DescribeClusterResponseData.DescribeClusterBroker()
                    .setBrokerId(virtualId)
                    .setHost(hostFor(virtualId))
                    .setPort(portFor(virtualId))
                    .setRack(b.rack())
                    .setIsFenced(b.isFenced()));
        }
        data.setBrokers(rewritten);
        data.setControllerId(bijection.toVirtual(route, data.controllerId()));
        topology.offer(data.clusterId(), real);
    }

    private List<Integer> toVirtual(List<Integer> nodeIds) {
        List<Integer> out = new ArrayList<>(nodeIds.size());
        for (Integer id : nodeIds) {
            out.add(bijection.toVirtual(route, id));
        }
        return out;
    }

    private String hostFor(int virtualId) {
        return addresses.brokerPort(virtualId) > 0 ? addresses.brokerHost(virtualId) : addresses.bootstrapHost();
    }

    private int portFor(int virtualId) {
        int port = addresses.brokerPort(virtualId);
        if (port > 0) {
            return port;
        }
        if (reportedMissingPorts.add(virtualId)) {
            LOG.error("{}: broker node id {} has no port ({}): clients are sent to the bootstrap port for it; "
                    + "widen the node id range", context, virtualId, addresses.describeRange());
        }
        return addresses.bootstrapPort();
    }
}
