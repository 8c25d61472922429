package dev.weft.routing.partitionweave;

import static dev.weft.routing.partitionweave.WovenFixture.EAST;
import static dev.weft.routing.partitionweave.WovenFixture.PATH;
import static dev.weft.routing.partitionweave.WovenFixture.WEST;
import static dev.weft.routing.partitionweave.WovenFixture.WEST_ORDERS;
import static dev.weft.routing.partitionweave.WovenFixture.assertError;
import static dev.weft.routing.partitionweave.WovenFixture.body;
import static dev.weft.routing.partitionweave.WovenFixture.config;
import static dev.weft.routing.partitionweave.WovenFixture.driver;
import static dev.weft.routing.partitionweave.WovenFixture.seg;
import static dev.weft.routing.partitionweave.WovenFixture.writable;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.routing.plan.PlanDriver;
import dev.weft.routing.plan.Answer;
import dev.weft.routing.plan.Part;
import dev.weft.routing.plan.Planners;
import java.util.List;
import java.util.function.Function;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreatePartitionsResponseData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.DeleteTopicsResponseData;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeConfigsResponseData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/** Topic lifecycle and config APIs on a partition-woven topic. */
class WovenTopicAdminTest {

    private static final String DEFINED_BY = PATH + ".topics.orders";

    private static final Function<Part, Answer> NEVER = part -> {
        throw new AssertionError("asked upstream: " + part);
    };

    @Test
    void createTopicsOfAWovenTopicIsAPolicyViolationNamingItsConfig() {
        short v = 7;
        CreateTopicsRequestData.CreatableTopicCollection topics = new CreateTopicsRequestData.CreatableTopicCollection();
        topics.add(new CreateTopicsRequestData.CreatableTopic().setName("orders").setNumPartitions(3).setReplicationFactor((short) 1));
        topics.add(new CreateTopicsRequestData.CreatableTopic().setName("payments").setNumPartitions(3).setReplicationFactor((short) 1));
        CreateTopicsRequestData req = new CreateTopicsRequestData().setTopics(topics).setTimeoutMs(1000);
        PlanDriver.Outcome out = driver().run(Planners.forApi(ApiKeys.CREATE_TOPICS.id), req, v, NEVER);
        CreateTopicsResponseData resp = writable((CreateTopicsResponseData) out.response(), v);
        CreateTopicsResponseData.CreatableTopicResult orders = resp.topics().find("orders");
        assertError(Errors.POLICY_VIOLATION, orders.errorCode());
        assertTrue(orders.errorMessage().contains(DEFINED_BY), orders.errorMessage());
        CreateTopicsResponseData.CreatableTopicResult payments = resp.topics().find("payments");
        assertError(Errors.POLICY_VIOLATION, payments.errorCode());
        assertTrue(payments.errorMessage().contains(PATH), payments.errorMessage());
        assertEquals(2, out.refusals().size());
    }

    @Test
    void deleteTopicsOfAWovenTopicIsAPolicyViolationNamingItsConfig() {
        Uuid ordersId = driver().topics().resolve("orders").virtualId();
        for (short v : new short[] {4, 5, 6}) {
            DeleteTopicsRequestData req = v >= 6
                    ? new DeleteTopicsRequestData().setTopics(List.of(new DeleteTopicsRequestData.DeleteTopicState().setName("orders"),
                            new DeleteTopicsRequestData.DeleteTopicState().setName(null).setTopicId(ordersId)))
                    : new DeleteTopicsRequestData().setTopicNames(List.of("orders"));
            PlanDriver.Outcome out = driver().run(Planners.forApi(ApiKeys.DELETE_TOPICS.id), req, v, NEVER);
            DeleteTopicsResponseData resp = writable((DeleteTopicsResponseData) out.response(), v);
            assertEquals(v >= 6 ? 2 : 1, resp.responses().size(), "v" + v);
            for (DeleteTopicsResponseData.DeletableTopicResult r : resp.responses()) {
                assertError(Errors.POLICY_VIOLATION, r.errorCode());
                assertTrue(r.errorMessage().contains(DEFINED_BY), "v" + v + ": " + r.errorMessage());
            }
            assertTrue(out.refusals().getFirst().contains(DEFINED_BY), out.refusals().toString());
        }
    }

    @Test
    void createPartitionsOfAWovenTopicIsAPolicyViolationNamingItsConfig() {
        short v = 3;
        CreatePartitionsRequestData.CreatePartitionsTopicCollection topics = new CreatePartitionsRequestData.CreatePartitionsTopicCollection();
        topics.add(new CreatePartitionsRequestData.CreatePartitionsTopic().setName("orders").setCount(8).setAssignments(null));
        CreatePartitionsRequestData req = new CreatePartitionsRequestData().setTopics(topics).setTimeoutMs(1000);
        PlanDriver.Outcome out = driver().run(Planners.forApi(ApiKeys.CREATE_PARTITIONS.id), req, v, NEVER);
        CreatePartitionsResponseData resp = writable((CreatePartitionsResponseData) out.response(), v);
        assertEquals(1, resp.results().size());
        assertEquals("orders", resp.results().getFirst().name());
        assertError(Errors.POLICY_VIOLATION, resp.results().getFirst().errorCode());
        assertTrue(resp.results().getFirst().errorMessage().contains(DEFINED_BY), resp.results().getFirst().errorMessage());
    }

    /** orders = west orders-eu 0-1 (virtual 0-1) + east orders 0-2 (virtual 2-4): its first segment is west's. */
    private static PlanDriver westFirst() {
        return WovenFixture.driver(WovenFixture.router(config("orders", List.of(seg("west", "orders-eu", "0-1"),
                seg("east", "orders", "0-2")))), WovenFixture.realTopics());
    }

    @Test
    void describeConfigsAsksEverySegmentsTopicAndAnswersOneResourceShowingWhereTheyDiffer() {
        short v = 4;
        DescribeConfigsRequestData req = new DescribeConfigsRequestData().setResources(List.of(new DescribeConfigsRequestData
                .DescribeConfigsResource().setResourceType((byte) 2).setResourceName("orders").setConfigurationKeys(null)));
        PlanDriver.Outcome out = westFirst().run(Planners.forApi(ApiKeys.DESCRIBE_CONFIGS.id), req, v, part -> {
            DescribeConfigsRequestData r = body(part);
            return Answer.of(new DescribeConfigsResponseData().setResults(r.resources().stream().map(res ->
                    new DescribeConfigsResponseData.DescribeConfigsResult().setResourceType(res.resourceType())
                            .setResourceName(res.resourceName()).setConfigs(new java.util.ArrayList<>(List.of(
                                    new DescribeConfigsResponseData.DescribeConfigsResourceResult().setName("retention.ms")
                                            .setValue(part.route() + ":" + res.resourceName()),
                                    new DescribeConfigsResponseData.DescribeConfigsResourceResult().setName("cleanup.policy")
                                            .setValue("delete")))))
                    .toList()));
        });
        assertEquals(java.util.Set.of(WEST + ":orders-eu", EAST + ":orders"), out.sent().stream().map(p -> p.route() + ":"
                + ((DescribeConfigsRequestData) body(p)).resources().getFirst().resourceName()).collect(java.util.stream.Collectors.toSet()),
                "each segment's physical topic asked of its cluster");
        DescribeConfigsResponseData resp = writable((DescribeConfigsResponseData) out.response(), v);
        assertEquals(1, resp.results().size(), "one resource for the logical topic");
        DescribeConfigsResponseData.DescribeConfigsResult orders = resp.results().getFirst();
        assertEquals("orders", orders.resourceName());
        assertError(Errors.NONE, orders.errorCode());
        var byName = orders.configs().stream().collect(java.util.stream.Collectors.toMap(
                DescribeConfigsResponseData.DescribeConfigsResourceResult::name, c -> c));
        assertEquals("delete", byName.get("cleanup.policy").value(), "a value every physical topic shares is shown");
        assertNull(byName.get("retention.ms").value(), "a value the physical topics disagree on is not shown as one of them");
        String doc = byName.get("retention.ms").documentation();
        assertTrue(doc.contains(WEST + ":orders-eu") && doc.contains(EAST + ":orders"), doc);
    }

    @Test
    void incrementalAlterConfigsOfAWovenTopicIsAPolicyViolation() {
        short v = 1;
        IncrementalAlterConfigsRequestData.AlterConfigsResourceCollection resources = new IncrementalAlterConfigsRequestData.AlterConfigsResourceCollection();
        IncrementalAlterConfigsRequestData.AlterableConfigCollection configs = new IncrementalAlterConfigsRequestData.AlterableConfigCollection();
        configs.add(new IncrementalAlterConfigsRequestData.AlterableConfig().setName("retention.ms").setConfigOperation((byte) 0).setValue("1"));
        resources.add(new IncrementalAlterConfigsRequestData.AlterConfigsResource().setResourceType((byte) 2).setResourceName("orders")
                .setConfigs(configs));
        IncrementalAlterConfigsRequestData req = new IncrementalAlterConfigsRequestData().setResources(resources);
        PlanDriver.Outcome out = driver().run(Planners.forApi(ApiKeys.INCREMENTAL_ALTER_CONFIGS.id), req, v, NEVER);
        IncrementalAlterConfigsResponseData resp = writable((IncrementalAlterConfigsResponseData) out.response(), v);
        assertEquals(1, resp.responses().size());
        assertEquals("orders", resp.responses().getFirst().resourceName());
        assertError(Errors.POLICY_VIOLATION, resp.responses().getFirst().errorCode());
        assertTrue(resp.responses().getFirst().errorMessage() != null && !resp.responses().getFirst().errorMessage().isEmpty());
    }

    @Test
    void theRealTopicsOfAWovenTopicAreNotAdministrableUnderTheirOwnNames() {
        DeleteTopicsRequestData req = new DeleteTopicsRequestData().setTopics(List.of(
                new DeleteTopicsRequestData.DeleteTopicState().setName("orders-eu"),
                new DeleteTopicsRequestData.DeleteTopicState().setName(null).setTopicId(WEST_ORDERS)));
        PlanDriver.Outcome out = driver().run(Planners.forApi(ApiKeys.DELETE_TOPICS.id), req, (short) 6, NEVER);
        DeleteTopicsResponseData resp = (DeleteTopicsResponseData) out.response();
        assertError(Errors.UNKNOWN_TOPIC_OR_PARTITION, resp.responses().find("orders-eu").errorCode());
        List<DeleteTopicsResponseData.DeletableTopicResult> byId = resp.responses().stream()
                .filter(r -> WEST_ORDERS.equals(r.topicId())).toList();
        assertEquals(1, byId.size());
        assertError(Errors.UNKNOWN_TOPIC_ID, byId.getFirst().errorCode());
        assertNull(driver().topics().resolve("orders-eu"));
    }
}
