package dev.weft.routing.access;

import dev.weft.routing.VisibleTopic;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData;
import org.apache.kafka.common.message.AlterConfigsResponseData;
import org.apache.kafka.common.message.CreatePartitionsResponseData;
import org.apache.kafka.common.message.DeleteRecordsResponseData;
import org.apache.kafka.common.message.DeleteTopicsResponseData;
import org.apache.kafka.common.message.DescribeConfigsResponseData;
import org.apache.kafka.common.message.DescribeProducersResponseData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.ListTransactionsResponseData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetDeleteResponseData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData;
import org.apache.kafka.common.message.TxnOffsetCommitResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * Turns the answer a router gave through the principal's view into the answer Kafka's authorizer would
 * give: an entry the router answered UNKNOWN_TOPIC_OR_PARTITION because the topic is not in the view
 * becomes TOPIC_AUTHORIZATION_FAILED when the principal may see the topic but not do this to it, or may
 * not see it and hidden topics are answered so; listings lose the groups and transactional ids the
 * principal may not use; FindCoordinator keys it may not use get their authorization error. Cold path.
 */
final class DeniedAnswers {

    private static final short UNKNOWN = Errors.UNKNOWN_TOPIC_OR_PARTITION.code();
    private static final short TOPIC_DENIED = Errors.TOPIC_AUTHORIZATION_FAILED.code();

    private final ConnectionAccess access;
    private final PrincipalViews views;
    private final TopicOperation op;
    /** A FindCoordinator's key type (0: groups, 1: transactional ids), which its answer does not repeat. */
    private final byte coordinatorKeyType;

    DeniedAnswers(ConnectionAccess access, PrincipalViews views, TopicOperation op, byte coordinatorKeyType) {
        this.access = access;
        this.views = views;
        this.op = op;
        this.coordinatorKeyType = coordinatorKeyType;
    }

    /** Whether the principal is refused {@link #op} on the topic it names {@code name} as an authorization failure. */
    boolean denied(String name) {
        if (name == null) {
            return false;
        }
        VisibleTopic v = views.describable().resolve(name);
        return v != null ? !access.rules().allows(op, name) : access.deniesHidden(name);
    }

    /** The error code an entry for topic {@code name} answered {@code code} should carry. */
    short code(String name, short code) {
        return code == UNKNOWN && denied(name) ? TOPIC_DENIED : code;
    }

    void apply(ApiKeys api, ApiMessage body) {
        switch (api) {
            case METADATA -> ((MetadataResponseData) body).topics().forEach(t -> t.setErrorCode(code(t.name(), t.errorCode())));
            case LIST_OFFSETS -> ((ListOffsetsResponseData) body).topics().forEach(t ->
                    t.partitions().forEach(p -> p.setErrorCode(code(t.name(), p.errorCode()))));
            case OFFSET_FOR_LEADER_EPOCH -> ((OffsetForLeaderEpochResponseData) body).topics().forEach(t ->
                    t.partitions().forEach(p -> p.setErrorCode(code(t.topic(), p.errorCode()))));
            case OFFSET_COMMIT -> ((OffsetCommitResponseData) body).topics().forEach(t ->
                    t.partitions().forEach(p -> p.setErrorCode(code(t.name(), p.errorCode()))));
            case TXN_OFFSET_COMMIT -> ((TxnOffsetCommitResponseData) body).topics().forEach(t ->
                    t.partitions().forEach(p -> p.setErrorCode(code(t.name(), p.errorCode()))));
            case OFFSET_DELETE -> ((OffsetDeleteResponseData) body).topics().forEach(t ->
                    t.partitions().forEach(p -> p.setErrorCode(code(t.name(), p.errorCode()))));
            case OFFSET_FETCH -> offsetFetch((OffsetFetchResponseData) body);
            case DELETE_TOPICS -> ((DeleteTopicsResponseData) body).responses().forEach(t -> t.setErrorCode(code(t.name(), t.errorCode())));
            case DELETE_RECORDS -> ((DeleteRecordsResponseData) body).topics().forEach(t ->
                    t.partitions().forEach(p -> p.setErrorCode(code(t.name(), p.errorCode()))));
            case CREATE_PARTITIONS -> ((CreatePartitionsResponseData) body).results().forEach(t -> t.setErrorCode(code(t.name(), t.errorCode())));
            case ADD_PARTITIONS_TO_TXN -> addPartitionsToTxn((AddPartitionsToTxnResponseData) body);
            case DESCRIBE_PRODUCERS -> ((DescribeProducersResponseData) body).topics().forEach(t ->
                    t.partitions().forEach(p -> p.setErrorCode(code(t.name(), p.errorCode()))));
            case DESCRIBE_CONFIGS -> ((DescribeConfigsResponseData) body).results().forEach(r -> {
                if (r.resourceType() == TOPIC_RESOURCE) {
                    r.setErrorCode(code(r.resourceName(), r.errorCode()));
                } else if (AccessGuard.clusterResource(r.resourceType()) && !access.rules().allowsCluster(ClusterOperation.DESCRIBE)) {
                    r.setErrorCode(Errors.CLUSTER_AUTHORIZATION_FAILED.code()).setErrorMessage(null).configs().clear();
                }
            });
            case ALTER_CONFIGS -> ((AlterConfigsResponseData) body).responses().forEach(r -> {
                if (r.resourceType() == TOPIC_RESOURCE) {
                    r.setErrorCode(code(r.resourceName(), r.errorCode()));
                }
            });
            case INCREMENTAL_ALTER_CONFIGS -> ((IncrementalAlterConfigsResponseData) body).responses().forEach(r -> {
                if (r.resourceType() == TOPIC_RESOURCE) {
                    r.setErrorCode(code(r.resourceName(), r.errorCode()));
                }
            });
            case LIST_GROUPS -> ((ListGroupsResponseData) body).groups().removeIf(g -> !access.rules().allowsGroup(g.groupId()));
            case LIST_TRANSACTIONS -> ((ListTransactionsResponseData) body).transactionStates()
                    .removeIf(t -> !access.rules().allowsTransactionalId(t.transactionalId()));
            case FIND_COORDINATOR -> ((FindCoordinatorResponseData) body).coordinators().forEach(c -> {
                // v4+ (v0-3 name one key: refused whole before planning)
                boolean transactional = coordinatorKeyType == 1;
                if (transactional ? !access.rules().allowsTransactionalId(c.key()) : !access.rules().allowsGroup(c.key())) {
                    c.setErrorCode((transactional ? Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED : Errors.GROUP_AUTHORIZATION_FAILED).code())
                            .setNodeId(-1).setHost("").setPort(-1).setErrorMessage(null);
                }
            });
            default -> {
            }
        }
    }

    /** DescribeConfigs' and AlterConfigs' resource type of a topic. */
    private static final byte TOPIC_RESOURCE = 2;

    private void offsetFetch(OffsetFetchResponseData body) {
        body.topics().forEach(t -> t.partitions().forEach(p -> p.setErrorCode(code(t.name(), p.errorCode()))));
        body.groups().forEach(g -> {
            if (!access.rules().allowsGroup(g.groupId())) {
                g.setErrorCode(Errors.GROUP_AUTHORIZATION_FAILED.code()).topics().clear();
            } else {
                g.topics().forEach(t -> t.partitions().forEach(p -> p.setErrorCode(code(t.name(), p.errorCode()))));
            }
        });
    }

    private void addPartitionsToTxn(AddPartitionsToTxnResponseData body) {
        body.resultsByTopicV3AndBelow().forEach(t ->
                t.resultsByPartition().forEach(p -> p.setPartitionErrorCode(code(t.name(), p.partitionErrorCode()))));
        body.resultsByTransaction().forEach(r -> r.topicResults().forEach(t ->
                t.resultsByPartition().forEach(p -> p.setPartitionErrorCode(code(t.name(), p.partitionErrorCode())))));
    }
}
