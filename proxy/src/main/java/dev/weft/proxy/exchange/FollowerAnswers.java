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
 * other), or empty at or past its high watermark (the end of the partition, or a follower whose high
 * watermark lags the leader's: only the leader can tell, and a client told "end" would stop early), or
 * not at all because the follower's connection failed, is answered empty without an error: the client
 * fetches it again from the same offset, from the leader, whose answer — data, the true end, or an
 * error — is the client's. An empty answer sends only the connection's next fetch of that partition to
 * the leader, and once the leader agrees it is the end, the follower is believed at that offset
 * ({@link dev.weft.routing.api.FollowerEndChecks}, reviewed here too); an error or a failure makes the topology
 * cache take the follower out of that partition's in-sync replicas (all of them, when it cannot be
 * reached) until the leaders, read again now, list it in sync.
 * Nothing is lost or read twice: an answer set aside delivers nothing. A follower's answer with records
 * reaches the client with its end offsets withheld ({@link RoutePlan#withholdsEndOffsets}).
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
                boolean replica = plan.isReplicaRead(i);
                if (t < 0 || !replica && !plan.isLeaderCheck(i)) {
                    continue;
                }
                FetchResponseSkim answer = answers[t];
                if (answer == null) {
                    if (replica && failed[t]) {
                        plan.answerEmpty(i);
                        if (t >= Long.SIZE || (unreachableReported & 1L << t) == 0) {
                            unreachableReported |= t < Long.SIZE ? 1L << t : 0;
                            unreachable(plan.targetLeaf(t), plan.targetBroker(t));
                        }
                    }
                    continue; // not waited for: answered empty by the merge anyway (a leader check is made again)
                }
                int j = answer.errorCode() == 0 ? lookup.find(request, i, answer, t) : -1;
                if (j < 0) {
                    if (replica) {
                        plan.answerEmpty(i); // a top-level error, or left out of a full fetch
                    }
                    continue;
                }
                short error = answer.errorCode(j);
                // Nothing to give at or past its high watermark: the end, or (a follower) behind the leader's end.
                boolean atItsEnd = error == 0 && answer.recordsLength(j) <= 0 && answer.highWatermark(j) <= request.fetchOffset(i);
                if (!replica) {
                    String topic = topicOf(plan.targetLeaf(t), answer, j);
                    if (topic != null) { // the leader's answer is the client's; it says whether the follower was right
                        host.hotContext().endChecks().leaderAnswered(plan.targetLeaf(t), topic, answer.partitionIndex(j),
                                request.fetchOffset(i), atItsEnd);
                    }
                } else if (error != 0) {
                    plan.answerEmpty(i);
                    outOfSync(plan.targetLeaf(t), plan.targetBroker(t), answer, j, error);
                } else if (atItsEnd) {
                    plan.answerEmpty(i);
                    String topic = topicOf(plan.targetLeaf(t), answer, j);
                    if (topic != null) {
                        host.hotContext().endChecks().followerAtEnd(plan.targetLeaf(t), topic, answer.partitionIndex(j),
                                request.fetchOffset(i));
                    }
                }
            }
        } finally {
            lookup.clear();
        }
    }

    /** The upstream topic's name as the topology cache knows it (the key end checks are kept under), or null. */
    private String topicOf(int leaf, FetchResponseSkim answer, int j) {
        int t = answer.partitionTopic(j);
        if (answer.usesTopicIds()) {
            int at = answer.topicNameOffset(t);
            var known = host.cluster(leaf).topology().partitions().topic(answer.buffer().getLong(at), answer.buffer().getLong(at + 8));
            return known == null ? null : known.name();
        }
        return answer.topicName(t);
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
                    error != 0 ? "with error " + org.apache.kafka.common.protocol.Errors.forCode(error) : "empty at its high watermark");
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
