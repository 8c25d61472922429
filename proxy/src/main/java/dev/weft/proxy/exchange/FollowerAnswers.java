package dev.weft.proxy.exchange;

import dev.weft.protocol.fetch.FetchRequestSkim;
import dev.weft.protocol.fetch.FetchResponseSkim;
import dev.weft.protocol.skim.MergeBookkeeping;
import dev.weft.routing.api.RoutePlan;
import dev.weft.routing.topology.TopologyHolder;
import org.apache.kafka.common.Uuid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reviews what the followers a plan chose for the proxy's zone ({@link RoutePlan#isReplicaRead}) answered,
 * before the merge. The client asked the leader, so it must never see a follower's own trouble: a
 * partition a follower answered with an error (OFFSET_NOT_AVAILABLE, NOT_LEADER_OR_FOLLOWER,
 * FENCED_LEADER_EPOCH, OFFSET_OUT_OF_RANGE — which would make a client reset its offset — or any
 * other), or empty with a high watermark below the offset the client asks for (it is behind what the
 * leader already gave the client), or not at all because the follower's connection failed, is answered
 * empty without an error: the client fetches it again from the same offset, and the topology cache
 * takes the follower out of that partition's in-sync replicas (all of them, when it cannot be reached)
 * until the leaders, read again now, list it in sync. The retry goes to the leader, whose answer — data
 * or error — is the client's. Nothing is lost or read twice: an answer set aside delivers nothing.
 */
final class FollowerAnswers {

    private static final Logger LOG = LoggerFactory.getLogger(FollowerAnswers.class);

    private final ExchangeHost host;
    private final MergeBookkeeping lookup = new MergeBookkeeping();

    FollowerAnswers(ExchangeHost host) {
        this.host = host;
    }

    /**
     * @param answers per target, the skimmed answer or null
     * @param failed per target, whether its part failed (its link closed or never connected)
     */
    void review(FetchRequestSkim request, RoutePlan plan, FetchResponseSkim[] answers, boolean[] failed) {
        lookup.start(request, answers, plan, plan);
        try {
            int[] targetOf = plan.targetOf();
            long unreachableReported = 0;
            for (int i = 0; i < request.partitionCount(); i++) {
                int t = targetOf[i];
                if (t < 0 || !plan.isReplicaRead(i)) {
                    continue;
                }
                FetchResponseSkim answer = answers[t];
                if (answer == null) {
                    if (failed[t]) {
                        plan.answerEmpty(i);
                        if (t >= Long.SIZE || (unreachableReported & 1L << t) == 0) {
                            unreachableReported |= t < Long.SIZE ? 1L << t : 0;
                            unreachable(plan.targetLeaf(t), plan.targetBroker(t));
                        }
                    }
                    continue; // not waited for: answered empty by the merge anyway
                }
                int j = answer.errorCode() == 0 ? lookup.find(request, i, answer, t) : -1;
                if (j < 0) {
                    plan.answerEmpty(i); // a top-level error, or left out of a full fetch
                    continue;
                }
                short error = answer.errorCode(j);
                boolean behind = answer.highWatermark(j) < request.fetchOffset(i) && answer.recordsLength(j) <= 0;
                if (error != 0 || behind) {
                    plan.answerEmpty(i);
                    outOfSync(plan.targetLeaf(t), plan.targetBroker(t), answer, j, error);
                }
            }
        } finally {
            lookup.clear();
        }
    }

    private void outOfSync(int leaf, int broker, FetchResponseSkim answer, int j, short error) {
        TopologyHolder topology = host.cluster(leaf).topology();
        int t = answer.partitionTopic(j);
        int partition = answer.partitionIndex(j);
        if (answer.usesTopicIds()) {
            Uuid id = answer.topicId(t);
            topology.outOfSync(id.getMostSignificantBits(), id.getLeastSignificantBits(), partition, broker);
        } else {
            topology.outOfSync(answer.topicName(t), partition, broker);
        }
        if (LOG.isDebugEnabled()) {
            LOG.debug("virtual cluster '{}': broker {} of cluster '{}' answered {}-{} as an in-zone follower {}; read from the"
                    + " leader until it is listed in sync again", host.virtualClusterName(), broker, host.cluster(leaf).name(),
                    answer.usesTopicIds() ? answer.topicId(t) : answer.topicName(t), partition,
                    error != 0 ? "with error " + org.apache.kafka.common.protocol.Errors.forCode(error) : "behind the offset asked for");
        }
        host.cluster(leaf).refreshLeadersSoon();
    }

    private void unreachable(int leaf, int broker) {
        host.cluster(leaf).topology().replicaUnreachable(broker);
        LOG.info("virtual cluster '{}': in-zone follower broker {} of cluster '{}' cannot be reached; its partitions are read"
                + " from their leaders until it is listed in sync again", host.virtualClusterName(), broker, host.cluster(leaf).name());
        host.cluster(leaf).refreshLeadersSoon();
    }
}
