package dev.weft.routing.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.apache.kafka.common.message.CreateAclsRequestData;
import org.apache.kafka.common.message.CreateAclsResponseData;
import org.apache.kafka.common.message.DeleteRecordsRequestData;
import org.apache.kafka.common.message.DeleteRecordsResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

class RefusalsTest {

    @Test
    void everyNamedPartitionGetsTheError() {
        DeleteRecordsRequestData req = new DeleteRecordsRequestData().setTopics(List.of(
                new DeleteRecordsRequestData.DeleteRecordsTopic().setName("a").setPartitions(List.of(
                        new DeleteRecordsRequestData.DeleteRecordsPartition().setPartitionIndex(0).setOffset(5),
                        new DeleteRecordsRequestData.DeleteRecordsPartition().setPartitionIndex(3).setOffset(5)))));
        DeleteRecordsResponseData resp = (DeleteRecordsResponseData) Refusals.errorResponse(req, (short) 2,
                Errors.POLICY_VIOLATION, "nope");
        assertEquals(2, resp.topics().find("a").partitions().size());
        resp.topics().find("a").partitions().forEach(p -> assertEquals(Errors.POLICY_VIOLATION.code(), p.errorCode()));
    }

    @Test
    void theMessageTravelsWhereTheApiHasOne() {
        CreateAclsRequestData req = new CreateAclsRequestData().setCreations(List.of(
                new CreateAclsRequestData.AclCreation().setResourceName("t").setResourceType((byte) 2)
                        .setPrincipal("User:x").setHost("*").setOperation((byte) 3).setPermissionType((byte) 3)
                        .setResourcePatternType((byte) 3)));
        CreateAclsResponseData resp = (CreateAclsResponseData) Refusals.errorResponse(req, (short) 3,
                Errors.CLUSTER_AUTHORIZATION_FAILED, "ACLs are per cluster");
        assertEquals(1, resp.results().size());
        assertEquals("ACLs are per cluster", resp.results().getFirst().errorMessage());
    }
}
