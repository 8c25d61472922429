package dev.weft.routing.merge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.weft.routing.RealTopic;
import dev.weft.routing.node.NodeIdBijection;
import dev.weft.routing.topicweave.CollisionPolicy;
import dev.weft.routing.topicweave.RouteRules;
import dev.weft.routing.topicweave.TopicCatalog;
import dev.weft.routing.topicweave.TopicFilter;
import dev.weft.routing.topicweave.TopicNaming;
import dev.weft.routing.topicweave.TopicWeaveSettings;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseBroker;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponsePartition;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/** Splitting a Metadata request over two routes and merging their answers into one virtual answer. */
class MetadataWeaveTest {

    private static final Uuid US_ORDERS = Uuid.randomUuid();
    private static final Uuid US_CLICKS = Uuid.randomUuid();
    private static final Uuid EU_ORDERS = Uuid.randomUuid();
    private static final NodeIdBijection IDS = new NodeIdBijection(2);

    /** us: prefix "us.", eu: orders renamed to orders-eu. */
    private static TopicCatalog catalog() {
        TopicWeaveSettings s = new TopicWeaveSettings(CollisionPolicy.REJECT, List.of(
                new RouteRules(TopicFilter.ALL, TopicNaming.prefix("us."), null),
                new RouteRules(TopicFilter.ALL, TopicNaming.renames(Map.of("orders", "orders-eu")), null)), null, null, null);
        return TopicCatalog.build(s, List.of("us", "eu"), List.of(
                List.of(new RealTopic("orders", US_ORDERS), new RealTopic("clicks", US_CLICKS)),
                List.of(new RealTopic("orders", EU_ORDERS))));
    }

    private static MetadataResponseData answer(String clusterId, int controller, Object[][] topics, int... brokers) {
        MetadataResponseData a = new MetadataResponseData().setClusterId(clusterId).setControllerId(controller);
        for (int b : brokers) {
            a.brokers().add(new MetadataResponseBroker().setNodeId(b).setHost("real-" + clusterId + "-" + b).setPort(9092).setRack("r" + b));
        }
        for (Object[] t : topics) {
            MetadataResponseTopic topic = new MetadataResponseTopic().setName((String) t[0]).setTopicId((Uuid) t[1]);
            List<MetadataResponsePartition> ps = new ArrayList<>();
            int partitions = (Integer) t[2];
            for (int p = 0; p < partitions; p++) {
                int leader = brokers[p % brokers.length];
                ps.add(new MetadataResponsePartition().setPartitionIndex(p).setLeaderId(leader).setLeaderEpoch(3)
                        .setReplicaNodes(Arrays.stream(brokers).boxed().toList()).setIsrNodes(List.of(leader)).setOfflineReplicas(List.of()));
            }
            a.topics().add(topic.setPartitions(ps));
        }
        return a;
    }

    private static MetadataResponseData usAnswer() {
        return answer("us-id", 1, new Object[][] {{"orders", US_ORDERS, 3}, {"clicks", US_CLICKS, 2}, {"not-yet-in-catalog", Uuid.randomUuid(), 1}}, 0, 1, 2);
    }

    private static MetadataResponseData euAnswer() {
        return answer("eu-id", 0, new Object[][] {{"orders", EU_ORDERS, 2}}, 0, 1);
    }

    @Test
    void namedTopicsAreAskedOfTheirOwnRouteUnderTheirRealNames() {
        MetadataRequestData request = new MetadataRequestData().setTopics(List.of(
                new MetadataRequestData.MetadataRequestTopic().setName("us.orders"),
                new MetadataRequestData.MetadataRequestTopic().setName("orders-eu"),
                new MetadataRequestData.MetadataRequestTopic().setName("nope"))).setAllowAutoTopicCreation(true);
        TopicCatalog c = catalog();
        assertEquals(List.of("orders"), MetadataWeave.requestFor(request, c, 0).topics().stream().map(t -> t.name()).toList());
        assertEquals(List.of("orders"), MetadataWeave.requestFor(request, c, 1).topics().stream().map(t -> t.name()).toList());
        assertFalse(MetadataWeave.requestFor(request, c, 0).allowAutoTopicCreation(), "never creates topics as a side effect");
        assertNull(MetadataWeave.requestFor(new MetadataRequestData().setTopics(null), c, 1).topics(), "all topics stays all topics");
    }

    @Test
    void topicsAskedByIdAreAskedByRealIdAndAnsweredWithTheirVirtualNamesAndIds() {
        // kafka-clients (Admin.describeTopics by id) leaves the name at its default, "", next to the id
        TopicCatalog c = catalog();
        Uuid unknown = Uuid.randomUuid();
        MetadataRequestData request = new MetadataRequestData().setTopics(List.of(
                new MetadataRequestData.MetadataRequestTopic().setName("").setTopicId(c.resolve("orders-eu").virtualId()),
                new MetadataRequestData.MetadataRequestTopic().setName(null).setTopicId(unknown)));
        MetadataRequestData eu = MetadataWeave.requestFor(request, c, 1);
        assertEquals(1, eu.topics().size());
        assertNull(eu.topics().get(0).name());
        assertEquals(EU_ORDERS, eu.topics().get(0).topicId(), "asked by the real id");
        assertEquals(List.of(), MetadataWeave.requestFor(request, c, 0).topics());
        MetadataResponseData merged = MetadataWeave.merge(request,
                Arrays.asList(answer("us-id", 1, new Object[0][], 0), euAnswer()), c, IDS::toVirtual, "v");
        assertEquals(2, merged.topics().size(), merged.toString());
        MetadataResponseTopic found = merged.topics().find("orders-eu");
        assertEquals(Errors.NONE.code(), found.errorCode());
        assertEquals(c.resolve("orders-eu").virtualId(), found.topicId());
        MetadataResponseTopic missing = merged.topics().stream().filter(t -> unknown.equals(t.topicId())).findFirst().orElseThrow();
        assertEquals(Errors.UNKNOWN_TOPIC_ID.code(), missing.errorCode());
        assertFalse(merged.topics().stream().anyMatch(t -> Uuid.ZERO_UUID.equals(t.topicId())),
                "no entry without an id: kafka-clients fails a by-id describe on one");
    }

    @Test
    void topicsAskedByNameAreNeverAskedByIdUpstream() {
        MetadataRequestData request = new MetadataRequestData().setTopics(List.of(
                new MetadataRequestData.MetadataRequestTopic().setName("us.orders")));
        // a real id in a by-name entry is an invalid request below v12 and switches a broker to ids above
        assertEquals(Uuid.ZERO_UUID, MetadataWeave.requestFor(request, catalog(), 0).topics().get(0).topicId());
    }

    @Test
    void answersMergeWithVirtualIdsNamesAndClusterId() {
        MetadataResponseData merged = MetadataWeave.merge(new MetadataRequestData().setTopics(null),
                Arrays.asList(usAnswer(), euAnswer()), catalog(), IDS::toVirtual, "virtual-id");
        assertEquals("virtual-id", merged.clusterId());
        assertEquals(IDS.toVirtual(0, 1), merged.controllerId(), "the first route's controller, as a virtual id");
        assertEquals(List.of(0, 2, 4, 1, 3), merged.brokers().stream().map(MetadataResponseBroker::nodeId).toList(),
                "us brokers 0,1,2 are 0,2,4; eu brokers 0,1 are 1,3");
        Map<String, MetadataResponseTopic> byName = merged.topics().stream()
                .collect(Collectors.toMap(MetadataResponseTopic::name, t -> t));
        // A topic the catalog does not know yet stays hidden until the catalog is rebuilt from discovery:
        // naming and collision rules must have seen it before clients do.
        assertEquals(java.util.Set.of("us.orders", "us.clicks", "orders-eu"), byName.keySet());
        MetadataResponseTopic eu = byName.get("orders-eu");
        assertEquals(catalog().resolve("orders-eu").virtualId(), eu.topicId());
        assertEquals(List.of(1, 3), eu.partitions().stream().map(MetadataResponsePartition::leaderId).toList());
        assertEquals(List.of(1, 3), eu.partitions().get(0).replicaNodes());
        MetadataResponseTopic us = byName.get("us.orders");
        assertEquals(List.of(0, 2, 4), us.partitions().stream().map(MetadataResponsePartition::leaderId).toList());
        assertEquals(3, us.partitions().get(0).leaderEpoch());
    }

    @Test
    void everyRequestedTopicIsAccountedForEvenWhenARouteFails() {
        MetadataRequestData request = new MetadataRequestData().setTopics(List.of(
                new MetadataRequestData.MetadataRequestTopic().setName("us.orders"),
                new MetadataRequestData.MetadataRequestTopic().setName("orders-eu"),
                new MetadataRequestData.MetadataRequestTopic().setName("nope")));
        MetadataResponseData merged = MetadataWeave.merge(request, Arrays.asList(usAnswer(), null), catalog(), IDS::toVirtual, "v");
        Map<String, Short> errors = merged.topics().stream()
                .collect(Collectors.toMap(MetadataResponseTopic::name, MetadataResponseTopic::errorCode));
        assertEquals(Errors.NONE.code(), errors.get("us.orders"));
        assertEquals(Errors.LEADER_NOT_AVAILABLE.code(), errors.get("orders-eu"), "a failed route's topic is retriable, not gone");
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(), errors.get("nope"));
        assertEquals(List.of(0, 2, 4), merged.brokers().stream().map(MetadataResponseBroker::nodeId).toList());
    }

    @Test
    void anAllTopicsRequestListsAFailedRoutesKnownTopicsAsUnavailable() {
        MetadataResponseData merged = MetadataWeave.merge(new MetadataRequestData().setTopics(null),
                Arrays.asList(null, euAnswer()), catalog(), IDS::toVirtual, "v");
        Map<String, Short> errors = merged.topics().stream()
                .collect(Collectors.toMap(MetadataResponseTopic::name, MetadataResponseTopic::errorCode));
        assertEquals(Errors.LEADER_NOT_AVAILABLE.code(), errors.get("us.orders"));
        assertEquals(Errors.LEADER_NOT_AVAILABLE.code(), errors.get("us.clicks"));
        assertEquals(Errors.NONE.code(), errors.get("orders-eu"));
        assertEquals(IDS.toVirtual(1, 0), merged.controllerId(), "controller from the first route that answered");
    }
}
