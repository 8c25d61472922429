package dev.weft.routing.plan;

import static dev.weft.routing.plan.WeaveFixture.AP;
import static dev.weft.routing.plan.WeaveFixture.EU;
import static dev.weft.routing.plan.WeaveFixture.US;
import static dev.weft.routing.plan.WeaveFixture.answering;
import static dev.weft.routing.plan.WeaveFixture.assertError;
import static dev.weft.routing.plan.WeaveFixture.body;
import static dev.weft.routing.plan.WeaveFixture.failing;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.apache.kafka.common.message.ApiMessageType;
import org.apache.kafka.common.message.DescribeAclsRequestData;
import org.apache.kafka.common.message.DescribeAclsResponseData;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.message.DescribeLogDirsRequestData;
import org.apache.kafka.common.message.DescribeLogDirsResponseData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.message.SaslHandshakeResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

class ClusterPlannersTest {

    // ---- DescribeCluster ----

    private static ApiMessage clusterBroker(Part part) {
        DescribeClusterResponseData resp = new DescribeClusterResponseData().setClusterId("real-" + part.route())
                .setControllerId(2).setClusterAuthorizedOperations(100 + part.route()).setThrottleTimeMs(5 * part.route());
        resp.brokers().add(new DescribeClusterResponseData.DescribeClusterBroker().setBrokerId(1).setHost("h" + part.route())
                .setPort(9092).setRack("rack-" + part.route()));
        resp.brokers().add(new DescribeClusterResponseData.DescribeClusterBroker().setBrokerId(2).setHost("h" + part.route())
                .setPort(9093).setRack(null));
        return resp;
    }

    @Test
    void describeClusterMergesEveryRoutesBrokersUnderVirtualIds() {
        PlanDriver driver = WeaveFixture.driver();
        PlanDriver.Outcome out = driver.run(new DescribeClusterPlanner(),
                new DescribeClusterRequestData().setIncludeClusterAuthorizedOperations(true), (short) 1,
                answering(ClusterPlannersTest::clusterBroker));
        assertEquals(List.of(US, EU, AP), out.sent().stream().map(Part::route).toList());
        assertTrue(out.sent().stream().allMatch(p -> p.to() == Destination.ANY
                && ((DescribeClusterRequestData) p.body()).includeClusterAuthorizedOperations()));
        DescribeClusterResponseData resp = (DescribeClusterResponseData) out.response();
        assertEquals("virtual-cluster-id", resp.clusterId());
        assertEquals(driver.toVirtualNodeId(US, 2), resp.controllerId());
        assertEquals(100, resp.clusterAuthorizedOperations(), "the first route's");
        assertEquals(10, resp.throttleTimeMs());
        assertEquals(6, resp.brokers().size());
        DescribeClusterResponseData.DescribeClusterBroker eu1 = resp.brokers().find(driver.toVirtualNodeId(EU, 1));
        assertEquals("weft", eu1.host());
        assertEquals(9000 + driver.toVirtualNodeId(EU, 1), eu1.port());
        assertEquals("rack-1", eu1.rack());
        assertNull(resp.brokers().find(driver.toVirtualNodeId(AP, 2)).rack());
        PartitionApiPlannersTest.roundTrips(resp, (short) 1);
    }

    @Test
    void describeClusterFailsRetriablyWhenARouteFails() {
        PlanDriver.Outcome out = WeaveFixture.driver().run(new DescribeClusterPlanner(), new DescribeClusterRequestData(),
                (short) 0, failing(EU, ClusterPlannersTest::clusterBroker));
        DescribeClusterResponseData resp = (DescribeClusterResponseData) out.response();
        assertError(Errors.NETWORK_EXCEPTION, resp.errorCode());
        assertTrue(resp.errorMessage().contains("route 'eu' failed"), resp.errorMessage());
        assertTrue(resp.brokers().isEmpty());
    }

    @Test
    void describeClusterRefusesControllerEndpoints() {
        PlanDriver.Outcome out = WeaveFixture.driver().run(new DescribeClusterPlanner(),
                new DescribeClusterRequestData().setEndpointType((byte) 2), (short) 1, answering(ClusterPlannersTest::clusterBroker));
        assertTrue(out.sent().isEmpty());
        DescribeClusterResponseData resp = (DescribeClusterResponseData) out.response();
        assertError(Errors.INVALID_REQUEST, resp.errorCode());
        assertEquals("controller endpoints are not exposed through a proxy", resp.errorMessage());
        assertEquals(List.of("controller endpoints are not exposed through a proxy"), out.refusals());
    }

    // ---- DescribeLogDirs ----

    private static ApiMessage logDirsBroker(Part part) {
        DescribeLogDirsRequestData r = body(part);
        List<String> topics = r.topics() == null ? List.of("orders", "secret", "payments", "shared")
                : r.topics().stream().map(DescribeLogDirsRequestData.DescribableLogDirTopic::topic).toList();
        return new DescribeLogDirsResponseData().setResults(List.of(new DescribeLogDirsResponseData.DescribeLogDirsResult()
                .setLogDir("/data").setTopics(topics.stream().map(t -> new DescribeLogDirsResponseData.DescribeLogDirsTopic()
                        .setName(t).setPartitions(List.of(new DescribeLogDirsResponseData.DescribeLogDirsPartition()
                                .setPartitionIndex(0).setPartitionSize(42)))).toList())));
    }

    private static List<String> logDirTopics(PlanDriver.Outcome out) {
        return ((DescribeLogDirsResponseData) out.response()).results().getFirst().topics().stream()
                .map(DescribeLogDirsResponseData.DescribeLogDirsTopic::name).toList();
    }

    @Test
    void describeLogDirsOfAllTopicsDropsHiddenOnesAndRenames() {
        PlanDriver.Outcome out = WeaveFixture.driver().ownRoute(AP).run(new DescribeLogDirsPlanner(),
                new DescribeLogDirsRequestData().setTopics(null), (short) 4, answering(ClusterPlannersTest::logDirsBroker));
        assertEquals(Destination.OWN, out.sent().getFirst().to());
        assertEquals(List.of("payments", "ap.shared"), logDirTopics(out));
    }

    @Test
    void describeLogDirsOfNamedTopicsAsksForRealNamesOfItsOwnRoute() {
        DescribeLogDirsRequestData req = new DescribeLogDirsRequestData();
        for (String t : List.of("orders-eu", "us.orders", "eu.shared", "nope")) {
            req.topics().add(new DescribeLogDirsRequestData.DescribableLogDirTopic().setTopic(t).setPartitions(List.of(0)));
        }
        PlanDriver.Outcome out = WeaveFixture.driver().ownRoute(EU).run(new DescribeLogDirsPlanner(), req, (short) 1,
                answering(ClusterPlannersTest::logDirsBroker));
        DescribeLogDirsRequestData sent = body(out.sent().getFirst());
        assertEquals(List.of("orders", "shared"), sent.topics().stream()
                .map(DescribeLogDirsRequestData.DescribableLogDirTopic::topic).toList());
        assertEquals(List.of("orders-eu", "eu.shared"), logDirTopics(out));
        PartitionApiPlannersTest.roundTrips(out.response(), (short) 1);
    }

    @Test
    void describeLogDirsIsRefusedOnABootstrapConnection() {
        PlanDriver.Outcome out = WeaveFixture.driver().run(new DescribeLogDirsPlanner(),
                new DescribeLogDirsRequestData().setTopics(null), (short) 4, answering(ClusterPlannersTest::logDirsBroker));
        assertTrue(out.sent().isEmpty());
        assertError(Errors.INVALID_REQUEST, ((DescribeLogDirsResponseData) out.response()).errorCode());
        assertEquals(1, out.refusals().size());
    }

    // ---- refused outright ----

    private static final List<ApiKeys> REFUSED = List.of(ApiKeys.CREATE_ACLS, ApiKeys.DELETE_ACLS, ApiKeys.DESCRIBE_ACLS,
            ApiKeys.DESCRIBE_CLIENT_QUOTAS, ApiKeys.ALTER_CLIENT_QUOTAS, ApiKeys.DESCRIBE_USER_SCRAM_CREDENTIALS,
            ApiKeys.ALTER_USER_SCRAM_CREDENTIALS, ApiKeys.CREATE_DELEGATION_TOKEN, ApiKeys.RENEW_DELEGATION_TOKEN,
            ApiKeys.EXPIRE_DELEGATION_TOKEN, ApiKeys.DESCRIBE_DELEGATION_TOKEN, ApiKeys.ALTER_REPLICA_LOG_DIRS,
            ApiKeys.UPDATE_FEATURES, ApiKeys.DESCRIBE_QUORUM, ApiKeys.UNREGISTER_BROKER, ApiKeys.SASL_HANDSHAKE,
            ApiKeys.SASL_AUTHENTICATE);

    @Test
    void everyRefusedApiAnswersInItsOwnShapeWithoutSendingAndLogs() {
        for (ApiKeys api : REFUSED) {
            ColdPlanner planner = Planners.forApi(api.id);
            assertNotNull(planner, api.name);
            ApiMessage request = api == ApiKeys.DESCRIBE_ACLS ? validDescribeAcls() // its defaults do not parse
                    : ApiMessageType.fromApiKey(api.id).newRequest();
            PlanDriver.Outcome out = WeaveFixture.driver().ownRoute(US).run(planner, request, api.latestVersion(),
                    answering(p -> {
                        throw new AssertionError(api + " must not reach a cluster");
                    }));
            assertEquals(api.id, out.response().apiKey(), api.name);
            assertEquals(1, out.refusals().size(), api.name);
            PartitionApiPlannersTest.roundTrips(out.response(), api.latestVersion());
        }
    }

    private static DescribeAclsRequestData validDescribeAcls() {
        return new DescribeAclsRequestData().setPatternTypeFilter((byte) 1).setResourceTypeFilter((byte) 1)
                .setOperation((byte) 1).setPermissionType((byte) 1);
    }

    @Test
    void describeAclsSurfacesTheReason() {
        PlanDriver.Outcome out = WeaveFixture.driver().run(Planners.forApi(ApiKeys.DESCRIBE_ACLS.id),
                validDescribeAcls(), (short) 3, answering(p -> null));
        DescribeAclsResponseData resp = (DescribeAclsResponseData) out.response();
        assertError(Errors.CLUSTER_AUTHORIZATION_FAILED, resp.errorCode());
        assertTrue(resp.errorMessage().startsWith("ACLs are per physical cluster"), resp.errorMessage());
    }

    @Test
    void saslHandshakeOffersNoMechanism() {
        PlanDriver.Outcome out = WeaveFixture.driver().run(Planners.forApi(ApiKeys.SASL_HANDSHAKE.id),
                new SaslHandshakeRequestData().setMechanism("PLAIN"), (short) 1, answering(p -> null));
        SaslHandshakeResponseData resp = (SaslHandshakeResponseData) out.response();
        assertError(Errors.UNSUPPORTED_SASL_MECHANISM, resp.errorCode());
        assertTrue(resp.mechanisms().isEmpty());
        assertTrue(out.refusals().getFirst().startsWith("SASL is not passed through"), out.refusals().getFirst());
    }

    @Test
    void everyTopicAdminApiHasAPlanner() {
        for (ApiKeys api : List.of(ApiKeys.CREATE_TOPICS, ApiKeys.DELETE_TOPICS, ApiKeys.CREATE_PARTITIONS,
                ApiKeys.DELETE_RECORDS, ApiKeys.LIST_OFFSETS, ApiKeys.OFFSET_FOR_LEADER_EPOCH, ApiKeys.DESCRIBE_PRODUCERS,
                ApiKeys.ELECT_LEADERS, ApiKeys.ALTER_PARTITION_REASSIGNMENTS, ApiKeys.LIST_PARTITION_REASSIGNMENTS,
                ApiKeys.DESCRIBE_CONFIGS, ApiKeys.ALTER_CONFIGS, ApiKeys.INCREMENTAL_ALTER_CONFIGS,
                ApiKeys.DESCRIBE_CLUSTER, ApiKeys.DESCRIBE_LOG_DIRS)) {
            assertNotNull(Planners.forApi(api.id), api.name);
        }
    }
}
