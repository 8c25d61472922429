package dev.weft.routing.plan;

import java.util.Map;
import org.apache.kafka.common.protocol.ApiKeys;

/** Admin and per-topic APIs routed by the route owning each topic (DESIGN §5, issue #4). */
final class TopicAdminPlanners {

    private TopicAdminPlanners() {
    }

    static void register(Map<ApiKeys, ColdPlanner> into) {
        into.put(ApiKeys.METADATA, new MetadataPlanner());
        into.put(ApiKeys.CREATE_TOPICS, new CreateTopicsPlanner());
        into.put(ApiKeys.DELETE_TOPICS, new DeleteTopicsPlanner());
        into.put(ApiKeys.CREATE_PARTITIONS, new CreatePartitionsPlanner());
        into.put(ApiKeys.DELETE_RECORDS, new DeleteRecordsPlanner());
        into.put(ApiKeys.LIST_OFFSETS, new ListOffsetsPlanner());
        into.put(ApiKeys.OFFSET_FOR_LEADER_EPOCH, new OffsetForLeaderEpochPlanner());
        into.put(ApiKeys.DESCRIBE_PRODUCERS, new DescribeProducersPlanner());
        into.put(ApiKeys.ELECT_LEADERS, new ElectLeadersPlanner());
        into.put(ApiKeys.ALTER_PARTITION_REASSIGNMENTS, new AlterPartitionReassignmentsPlanner());
        into.put(ApiKeys.LIST_PARTITION_REASSIGNMENTS, new ListPartitionReassignmentsPlanner());
        into.put(ApiKeys.DESCRIBE_CONFIGS, new DescribeConfigsPlanner());
        into.put(ApiKeys.ALTER_CONFIGS, new AlterConfigsPlanner());
        into.put(ApiKeys.INCREMENTAL_ALTER_CONFIGS, new IncrementalAlterConfigsPlanner());
        into.put(ApiKeys.DESCRIBE_CLUSTER, new DescribeClusterPlanner());
        into.put(ApiKeys.DESCRIBE_LOG_DIRS, new DescribeLogDirsPlanner());
        RefusedApis.register(into);
    }
}
