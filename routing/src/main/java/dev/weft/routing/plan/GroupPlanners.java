package dev.weft.routing.plan;

import java.util.Map;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.protocol.ApiKeys;

/** Consumer groups, offsets and transactions across routes (DESIGN §5). */
final class GroupPlanners {

    private GroupPlanners() {
    }

    static void register(Map<ApiKeys, ColdPlanner> into) {
        into.put(ApiKeys.FIND_COORDINATOR, new FindCoordinatorPlanner());
        into.put(ApiKeys.JOIN_GROUP, HomeForwarding.group(r -> ((JoinGroupRequestData) r).groupId()));
        into.put(ApiKeys.SYNC_GROUP, HomeForwarding.group(r -> ((SyncGroupRequestData) r).groupId()));
        into.put(ApiKeys.HEARTBEAT, HomeForwarding.group(r -> ((HeartbeatRequestData) r).groupId()));
        into.put(ApiKeys.LEAVE_GROUP, HomeForwarding.group(r -> ((LeaveGroupRequestData) r).groupId()));
        into.put(ApiKeys.DESCRIBE_GROUPS, HomeIdsShapes.describeGroups());
        into.put(ApiKeys.DELETE_GROUPS, HomeIdsShapes.deleteGroups());
        into.put(ApiKeys.LIST_GROUPS, HomeListingPlanner.listGroups());
        into.put(ApiKeys.OFFSET_COMMIT, new OffsetCommitPlanner());
        into.put(ApiKeys.OFFSET_FETCH, new OffsetFetchPlanner());
        into.put(ApiKeys.OFFSET_DELETE, new OffsetDeletePlanner());
        into.put(ApiKeys.CONSUMER_GROUP_HEARTBEAT, new ConsumerGroupHeartbeatPlanner());
        into.put(ApiKeys.CONSUMER_GROUP_DESCRIBE, HomeIdsShapes.consumerGroupDescribe());
        into.put(ApiKeys.INIT_PRODUCER_ID, IdempotentProducerIds.PLANNER);
        into.put(ApiKeys.ADD_PARTITIONS_TO_TXN, new AddPartitionsToTxnPlanner());
        into.put(ApiKeys.ADD_OFFSETS_TO_TXN, HomeForwarding::addOffsetsToTxn);
        into.put(ApiKeys.TXN_OFFSET_COMMIT, new TxnOffsetCommitPlanner());
        into.put(ApiKeys.END_TXN, HomeForwarding::endTxn);
        into.put(ApiKeys.DESCRIBE_TRANSACTIONS, HomeIdsShapes.describeTransactions());
        into.put(ApiKeys.LIST_TRANSACTIONS, HomeListingPlanner.listTransactions());
    }
}
