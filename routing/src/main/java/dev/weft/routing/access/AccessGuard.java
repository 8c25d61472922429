package dev.weft.routing.access;

import dev.weft.routing.TopicRouting;
import dev.weft.routing.plan.ColdPlanner;
import dev.weft.routing.plan.PlanContext;
import dev.weft.routing.plan.Refusals;
import dev.weft.routing.plan.Step;
import java.util.List;
import java.util.function.UnaryOperator;
import org.apache.kafka.common.message.AddOffsetsToTxnRequestData;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData;
import org.apache.kafka.common.message.AlterConfigsRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.DeleteGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.DescribeTransactionsRequestData;
import org.apache.kafka.common.message.ConsumerGroupDescribeRequestData;
import org.apache.kafka.common.message.EndTxnRequestData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetDeleteRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * Authorizes a cold-path request before and after its router plans it, for every router alike:
 * <ul>
 *   <li>before: a request of one consumer group or transactional id the principal may not use, or a
 *       cluster-level request it is not granted, is answered whole with GROUP_, TRANSACTIONAL_ID_ or
 *       CLUSTER_AUTHORIZATION_FAILED and never reaches a broker (so is a DescribeGroups, DeleteGroups,
 *       ConsumerGroupDescribe or DescribeTransactions naming any id it may not use: their routers may
 *       forward them as the client sent them);</li>
 *   <li>during: the router plans through the principal's view of the topics it may act on this way
 *       ({@link PrincipalTopicView}: read for OffsetCommit, delete for DeleteTopics, ...), so nothing is
 *       done to any other topic — for the router, they do not exist;</li>
 *   <li>after: the answer's entries for those topics become TOPIC_AUTHORIZATION_FAILED where the principal
 *       may see the topic or hidden topics are answered so, and entries for groups and transactional ids
 *       it may not see are marked or dropped ({@link DeniedAnswers}).</li>
 * </ul>
 * An API this class does not know is refused CLUSTER_AUTHORIZATION_FAILED: a planner added later is not
 * authorized by accident.
 */
public final class AccessGuard {

    private AccessGuard() {
    }

    /** {@code planner} (the router's, for {@code apiKey}) behind the connection's authorization. */
    public static ColdPlanner guard(short apiKey, ColdPlanner planner, ConnectionAccess access, PrincipalViews views) {
        return (request, version, ctx) -> plan(ApiKeys.forId(apiKey), planner, request, version, ctx, access, views);
    }

    private static Step plan(ApiKeys api, ColdPlanner planner, ApiMessage request, short version, PlanContext ctx,
            ConnectionAccess access, PrincipalViews views) {
        AccessRules rules = access.rules();
        String refusal = refusal(api, request, version, rules);
        if (refusal != null) {
            Errors error = refusalError(api, request, version, rules);
            ctx.logRefusal("principal '" + rules.name() + "': " + refusal + "; answered " + error.name());
            return Step.respond(Refusals.errorResponse(request, version, error, refusal));
        }
        TopicOperation op = operationOf(api);
        TopicRouting topics = op == null ? views.describable() : views.allowing(op);
        DeniedAnswers fix = new DeniedAnswers(access, views, op == null ? TopicOperation.DESCRIBE : op,
                api == ApiKeys.FIND_COORDINATOR ? ((FindCoordinatorRequestData) request).keyType() : 0);
        Step step = planner.plan(request, version, new ViewPlanContext(ctx, topics, views.scope()));
        return after(step, body -> {
            fix.apply(api, body);
            return body;
        });
    }

    /** The topic operation the API performs on the topics it names (null: it names none, or only describes them). */
    static TopicOperation operationOf(ApiKeys api) {
        return switch (api) {
            case OFFSET_COMMIT, TXN_OFFSET_COMMIT, OFFSET_DELETE, DESCRIBE_PRODUCERS -> TopicOperation.READ;
            case ADD_PARTITIONS_TO_TXN -> TopicOperation.WRITE;
            case CREATE_TOPICS -> TopicOperation.CREATE;
            case DELETE_TOPICS, DELETE_RECORDS -> TopicOperation.DELETE;
            case CREATE_PARTITIONS, ALTER_CONFIGS, INCREMENTAL_ALTER_CONFIGS -> TopicOperation.ALTER;
            default -> null;
        };
    }

    /** Why the whole request is refused, or null when it may be planned. */
    private static String refusal(ApiKeys api, ApiMessage request, short version, AccessRules rules) {
        return switch (api) {
            case METADATA, LIST_OFFSETS, OFFSET_FOR_LEADER_EPOCH, DESCRIBE_CLUSTER, CREATE_TOPICS, DELETE_TOPICS,
                    DELETE_RECORDS, CREATE_PARTITIONS, DESCRIBE_PRODUCERS, LIST_GROUPS, LIST_TRANSACTIONS, DESCRIBE_CONFIGS -> null;
            // several ids, answered by their coordinators, possibly forwarded as the client sent them: refused whole
            case DESCRIBE_GROUPS -> groups(rules, ((DescribeGroupsRequestData) request).groups());
            case DELETE_GROUPS -> groups(rules, ((DeleteGroupsRequestData) request).groupsNames());
            case CONSUMER_GROUP_DESCRIBE -> groups(rules, ((ConsumerGroupDescribeRequestData) request).groupIds());
            case DESCRIBE_TRANSACTIONS -> {
                String denied = null;
                for (String t : ((DescribeTransactionsRequestData) request).transactionalIds()) {
                    denied = denied != null ? denied : transactionalId(rules, t);
                }
                yield denied;
            }
            case JOIN_GROUP -> group(rules, ((JoinGroupRequestData) request).groupId());
            case SYNC_GROUP -> group(rules, ((SyncGroupRequestData) request).groupId());
            case HEARTBEAT -> group(rules, ((HeartbeatRequestData) request).groupId());
            case LEAVE_GROUP -> group(rules, ((LeaveGroupRequestData) request).groupId());
            case OFFSET_COMMIT -> group(rules, ((OffsetCommitRequestData) request).groupId());
            case OFFSET_DELETE -> group(rules, ((OffsetDeleteRequestData) request).groupId());
            case CONSUMER_GROUP_HEARTBEAT -> group(rules, ((ConsumerGroupHeartbeatRequestData) request).groupId());
            case OFFSET_FETCH -> version < 8 ? group(rules, ((OffsetFetchRequestData) request).groupId()) : null;
            case FIND_COORDINATOR -> {
                FindCoordinatorRequestData r = (FindCoordinatorRequestData) request;
                yield version < 4 ? coordinatorKey(rules, r.keyType(), r.key()) : null;
            }
            case TXN_OFFSET_COMMIT -> {
                TxnOffsetCommitRequestData r = (TxnOffsetCommitRequestData) request;
                String txn = transactionalId(rules, r.transactionalId());
                yield txn != null ? txn : group(rules, r.groupId());
            }
            case ADD_OFFSETS_TO_TXN -> {
                AddOffsetsToTxnRequestData r = (AddOffsetsToTxnRequestData) request;
                String txn = transactionalId(rules, r.transactionalId());
                yield txn != null ? txn : group(rules, r.groupId());
            }
            case END_TXN -> transactionalId(rules, ((EndTxnRequestData) request).transactionalId());
            case INIT_PRODUCER_ID -> {
                String txn = ((InitProducerIdRequestData) request).transactionalId();
                yield txn == null ? null : transactionalId(rules, txn); // idempotence alone needs no grant
            }
            case ADD_PARTITIONS_TO_TXN -> {
                AddPartitionsToTxnRequestData r = (AddPartitionsToTxnRequestData) request;
                if (version < 4) {
                    yield transactionalId(rules, r.v3AndBelowTransactionalId());
                }
                String denied = null;
                for (AddPartitionsToTxnRequestData.AddPartitionsToTxnTransaction t : r.transactions()) {
                    denied = denied != null ? denied : transactionalId(rules, t.transactionalId());
                }
                yield denied;
            }
            case ALTER_CONFIGS -> ((AlterConfigsRequestData) request).resources().stream().anyMatch(AccessGuard::clusterResource)
                    ? cluster(rules, ClusterOperation.ALTER, "alter broker configs") : null;
            case INCREMENTAL_ALTER_CONFIGS -> ((IncrementalAlterConfigsRequestData) request).resources().stream()
                    .anyMatch(r -> clusterResource(r.resourceType())) ? cluster(rules, ClusterOperation.ALTER, "alter broker configs") : null;
            case ALTER_PARTITION_REASSIGNMENTS, ELECT_LEADERS -> cluster(rules, ClusterOperation.ALTER, api.name);
            case LIST_PARTITION_REASSIGNMENTS, DESCRIBE_LOG_DIRS -> cluster(rules, ClusterOperation.DESCRIBE, api.name);
            default -> api.name + " is not authorized per principal by Weft";
        };
    }

    private static Errors refusalError(ApiKeys api, ApiMessage request, short version, AccessRules rules) {
        return switch (api) {
            case JOIN_GROUP, SYNC_GROUP, HEARTBEAT, LEAVE_GROUP, OFFSET_COMMIT, OFFSET_DELETE, CONSUMER_GROUP_HEARTBEAT,
                    OFFSET_FETCH, DESCRIBE_GROUPS, DELETE_GROUPS, CONSUMER_GROUP_DESCRIBE -> Errors.GROUP_AUTHORIZATION_FAILED;
            case FIND_COORDINATOR -> ((FindCoordinatorRequestData) request).keyType() == 1
                    ? Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED : Errors.GROUP_AUTHORIZATION_FAILED;
            case TXN_OFFSET_COMMIT -> rules.allowsTransactionalId(((TxnOffsetCommitRequestData) request).transactionalId())
                    ? Errors.GROUP_AUTHORIZATION_FAILED : Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
            case ADD_OFFSETS_TO_TXN -> rules.allowsTransactionalId(((AddOffsetsToTxnRequestData) request).transactionalId())
                    ? Errors.GROUP_AUTHORIZATION_FAILED : Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
            case END_TXN, INIT_PRODUCER_ID, ADD_PARTITIONS_TO_TXN, DESCRIBE_TRANSACTIONS -> Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
            default -> Errors.CLUSTER_AUTHORIZATION_FAILED;
        };
    }

    private static String group(AccessRules rules, String groupId) {
        return rules.allowsGroup(groupId) ? null : "may not use consumer group '" + groupId + "'";
    }

    private static String groups(AccessRules rules, List<String> groupIds) {
        for (String g : groupIds) {
            if (!rules.allowsGroup(g)) {
                return group(rules, g);
            }
        }
        return null;
    }

    private static String transactionalId(AccessRules rules, String transactionalId) {
        return rules.allowsTransactionalId(transactionalId) ? null : "may not use transactional id '" + transactionalId + "'";
    }

    private static String coordinatorKey(AccessRules rules, byte keyType, String key) {
        return keyType == 1 ? transactionalId(rules, key) : group(rules, key);
    }

    private static String cluster(AccessRules rules, ClusterOperation op, String what) {
        return rules.allowsCluster(op) ? null : "may not " + what + " (needs cluster " + op.name().toLowerCase(java.util.Locale.ROOT) + ")";
    }

    /** Config resource types that are the cluster's, not a topic's: BROKER (4) and BROKER_LOGGER (8). */
    static boolean clusterResource(byte resourceType) {
        return resourceType == 4 || resourceType == 8;
    }

    private static boolean clusterResource(AlterConfigsRequestData.AlterConfigsResource r) {
        return clusterResource(r.resourceType());
    }

    /** {@code step}, its final answer passed through {@code fix}. */
    static Step after(Step step, UnaryOperator<ApiMessage> fix) {
        return switch (step) {
            case Step.Respond r -> Step.respond(fix.apply(r.body()));
            case Step.Send s -> new Step.Send(s.parts(), answers -> after(s.then().apply(answers), fix));
            // unchanged to the connection's broker: the router translated nothing, so every topic it names
            // resolved in the principal's view, and the guard's whole-request checks passed
            case Step.Forward f -> f;
        };
    }
}
