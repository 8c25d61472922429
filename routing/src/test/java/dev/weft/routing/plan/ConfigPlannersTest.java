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
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.AlterConfigsRequestData;
import org.apache.kafka.common.message.AlterConfigsResponseData;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeConfigsResponseData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

class ConfigPlannersTest {

    private static final byte TOPIC = ConfigResource.Type.TOPIC.id();
    private static final byte BROKER = ConfigResource.Type.BROKER.id();
    private static final byte BROKER_LOGGER = ConfigResource.Type.BROKER_LOGGER.id();
    private static final byte GROUP = ConfigResource.Type.GROUP.id();
    private static final byte CLIENT_METRICS = ConfigResource.Type.CLIENT_METRICS.id();

    private static DescribeConfigsRequestData.DescribeConfigsResource describe(byte type, String name) {
        return new DescribeConfigsRequestData.DescribeConfigsResource().setResourceType(type).setResourceName(name);
    }

    /** A broker describing one config per resource, its value naming the route and the real resource name. */
    private static ApiMessage describeBroker(Part part) {
        DescribeConfigsRequestData r = body(part);
        return new DescribeConfigsResponseData().setResults(r.resources().stream().map(res ->
                new DescribeConfigsResponseData.DescribeConfigsResult().setResourceType(res.resourceType())
                        .setResourceName(res.resourceName()).setConfigs(List.of(
                                new DescribeConfigsResponseData.DescribeConfigsResourceResult().setName("x")
                                        .setValue(part.route() + ":" + res.resourceName()).setSynonyms(List.of(
                                                new DescribeConfigsResponseData.DescribeConfigsSynonym().setName("y").setValue("z"))))))
                .toList());
    }

    private static String value(DescribeConfigsResponseData.DescribeConfigsResult result) {
        return result.configs().getFirst().value();
    }

    @Test
    void describeConfigsRoutesEachResourceByType() {
        PlanDriver driver = WeaveFixture.driver();
        int euBroker3 = driver.toVirtualNodeId(EU, 3);
        int apBroker1 = driver.toVirtualNodeId(AP, 1);
        DescribeConfigsRequestData req = new DescribeConfigsRequestData().setIncludeSynonyms(true).setResources(List.of(
                describe(TOPIC, "orders-eu"), describe(BROKER, Integer.toString(euBroker3)), describe(TOPIC, "us.orders"),
                describe(BROKER_LOGGER, Integer.toString(apBroker1)), describe(GROUP, "eu-payments"),
                describe(TOPIC, "hidden"), describe(BROKER, ""), describe(CLIENT_METRICS, "m"), describe((byte) 99, "?"),
                describe(BROKER, "not-a-number"),
                // a topic named like a broker id stays a topic
                describe(TOPIC, Integer.toString(euBroker3))));
        PlanDriver.Outcome out = driver.run(new DescribeConfigsPlanner(), req, (short) 4, answering(ConfigPlannersTest::describeBroker));

        List<String> sent = out.sent().stream().map(p -> p.route() + " " + p.to() + " " + ((DescribeConfigsRequestData) p.body())
                .resources().stream().map(r -> r.resourceType() + "/" + r.resourceName()).toList()).toList();
        assertEquals(List.of(
                EU + " " + Destination.ANY + " [2/orders, 32/eu-payments]",
                EU + " " + new Destination.Broker(3) + " [4/3]",
                US + " " + Destination.ANY + " [2/orders, 4/]",
                AP + " " + new Destination.Broker(1) + " [8/1]"), sent);
        assertTrue(out.sent().stream().allMatch(p -> ((DescribeConfigsRequestData) p.body()).includeSynonyms()));

        List<DescribeConfigsResponseData.DescribeConfigsResult> results = ((DescribeConfigsResponseData) out.response()).results();
        assertEquals(List.of("orders-eu", Integer.toString(euBroker3), "us.orders", Integer.toString(apBroker1), "eu-payments",
                "hidden", "", "m", "?", "not-a-number", Integer.toString(euBroker3)),
                results.stream().map(DescribeConfigsResponseData.DescribeConfigsResult::resourceName).toList());
        assertEquals("1:orders", value(results.get(0)));
        assertEquals("1:3", value(results.get(1)));
        assertEquals("0:orders", value(results.get(2)));
        assertEquals("2:1", value(results.get(3)));
        assertEquals("1:eu-payments", value(results.get(4)));
        assertEquals("z", results.get(0).configs().getFirst().synonyms().getFirst().value(), "synonyms pass through");
        assertError(Errors.UNKNOWN_TOPIC_OR_PARTITION, results.get(5).errorCode());
        assertEquals("0:", value(results.get(6)), "cluster-wide defaults are read from the first route");
        assertError(Errors.INVALID_REQUEST, results.get(7).errorCode());
        assertTrue(results.get(7).errorMessage().contains("client metrics"), results.get(7).errorMessage());
        assertError(Errors.INVALID_REQUEST, results.get(8).errorCode());
        assertError(Errors.INVALID_REQUEST, results.get(9).errorCode());
        assertError(Errors.UNKNOWN_TOPIC_OR_PARTITION, results.get(10).errorCode());
        assertEquals(TOPIC, results.get(10).resourceType());
        assertEquals(2, out.refusals().size(), "client metrics and the unknown type are logged: " + out.refusals());
        PartitionApiPlannersTest.roundTrips(out.response(), (short) 4);
    }

    @Test
    void describeConfigsOfAFailedRoute() {
        DescribeConfigsRequestData req = new DescribeConfigsRequestData().setResources(List.of(
                describe(TOPIC, "payments"), describe(TOPIC, "audit")));
        PlanDriver.Outcome out = WeaveFixture.driver().run(new DescribeConfigsPlanner(), req, (short) 1,
                failing(AP, ConfigPlannersTest::describeBroker));
        List<DescribeConfigsResponseData.DescribeConfigsResult> results = ((DescribeConfigsResponseData) out.response()).results();
        assertError(Errors.NETWORK_EXCEPTION, results.get(0).errorCode());
        assertEquals("payments", results.get(0).resourceName());
        assertEquals("1:audit", value(results.get(1)));
    }

    private static AlterConfigsRequestData.AlterConfigsResource alter(byte type, String name) {
        AlterConfigsRequestData.AlterConfigsResource r = new AlterConfigsRequestData.AlterConfigsResource()
                .setResourceType(type).setResourceName(name);
        r.configs().add(new AlterConfigsRequestData.AlterableConfig().setName("retention.ms").setValue("1"));
        return r;
    }

    @Test
    void alterConfigsRefusesClusterWideBrokerDefaults() {
        PlanDriver driver = WeaveFixture.driver();
        int usBroker2 = driver.toVirtualNodeId(US, 2);
        AlterConfigsRequestData req = new AlterConfigsRequestData().setValidateOnly(true);
        req.resources().add(alter(BROKER, ""));
        req.resources().add(alter(TOPIC, "eu.shared"));
        req.resources().add(alter(BROKER, Integer.toString(usBroker2)));
        PlanDriver.Outcome out = driver.run(new AlterConfigsPlanner(), req, (short) 2, answering(p -> {
            AlterConfigsRequestData r = body(p);
            return new AlterConfigsResponseData().setResponses(r.resources().stream().map(res ->
                    new AlterConfigsResponseData.AlterConfigsResourceResponse().setResourceType(res.resourceType())
                            .setResourceName(res.resourceName())).toList());
        }));
        assertEquals(List.of(EU, US), out.sent().stream().map(Part::route).toList());
        AlterConfigsRequestData toEu = body(out.sent().get(0));
        assertEquals("shared", toEu.resources().iterator().next().resourceName());
        assertEquals("1", toEu.resources().iterator().next().configs().find("retention.ms").value());
        assertTrue(toEu.validateOnly());
        assertEquals(new Destination.Broker(2), out.sent().get(1).to());

        List<AlterConfigsResponseData.AlterConfigsResourceResponse> results = ((AlterConfigsResponseData) out.response()).responses();
        assertEquals(List.of("", "eu.shared", Integer.toString(usBroker2)), results.stream()
                .map(AlterConfigsResponseData.AlterConfigsResourceResponse::resourceName).toList());
        assertError(Errors.INVALID_REQUEST, results.get(0).errorCode());
        assertTrue(results.get(0).errorMessage().startsWith("cluster-wide broker defaults differ per cluster; set them on each cluster"),
                results.get(0).errorMessage());
        assertError(Errors.NONE, results.get(1).errorCode());
        assertEquals(1, out.refusals().size());
    }

    @Test
    void incrementalAlterConfigsSplitsTopicsAndBrokerLoggers() {
        PlanDriver driver = WeaveFixture.driver();
        int euBroker0 = driver.toVirtualNodeId(EU, 0);
        IncrementalAlterConfigsRequestData req = new IncrementalAlterConfigsRequestData();
        for (String[] r : new String[][] {{"8", Integer.toString(euBroker0)}, {"2", "us.clicks"}, {"2", "nope"}, {"4", ""}}) {
            IncrementalAlterConfigsRequestData.AlterConfigsResource res = new IncrementalAlterConfigsRequestData.AlterConfigsResource()
                    .setResourceType(Byte.parseByte(r[0])).setResourceName(r[1]);
            res.configs().add(new IncrementalAlterConfigsRequestData.AlterableConfig().setName("k").setConfigOperation((byte) 0).setValue("v"));
            req.resources().add(res);
        }
        PlanDriver.Outcome out = driver.run(new IncrementalAlterConfigsPlanner(), req, (short) 1, failing(US, p -> {
            IncrementalAlterConfigsRequestData r = body(p);
            return new IncrementalAlterConfigsResponseData().setThrottleTimeMs(7).setResponses(r.resources().stream().map(res ->
                    new IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse().setResourceType(res.resourceType())
                            .setResourceName(res.resourceName())).toList());
        }));
        assertEquals(List.of(EU, US), out.sent().stream().map(Part::route).toList());
        assertEquals(new Destination.Broker(0), out.sent().get(0).to());
        assertEquals("0", ((IncrementalAlterConfigsRequestData) body(out.sent().get(0))).resources().iterator().next().resourceName());
        IncrementalAlterConfigsResponseData resp = (IncrementalAlterConfigsResponseData) out.response();
        assertEquals(List.of(Integer.toString(euBroker0), "us.clicks", "nope", ""), resp.responses().stream()
                .map(IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse::resourceName).toList());
        assertError(Errors.NONE, resp.responses().get(0).errorCode());
        assertError(Errors.NETWORK_EXCEPTION, resp.responses().get(1).errorCode());
        assertError(Errors.UNKNOWN_TOPIC_OR_PARTITION, resp.responses().get(2).errorCode());
        assertError(Errors.INVALID_REQUEST, resp.responses().get(3).errorCode());
        assertTrue(resp.responses().get(3).errorMessage().contains("cluster-wide broker defaults"));
        assertEquals(7, resp.throttleTimeMs());
    }
}
