package dev.weft.routing.plan;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.HeartbeatResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestTopic;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetCommitResponseData.OffsetCommitResponsePartition;
import org.apache.kafka.common.message.OffsetCommitResponseData.OffsetCommitResponseTopic;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * OffsetCommit split by the route owning each partition (DESIGN §5), with zombie fencing kept for
 * every route. The group lives only on its home route H, so only H can tell whether the committing
 * member and generation are current; the other routes hold offsets only (the same group id there is
 * a "simple" group). Hence two stages:
 * <ol>
 * <li>validate on H: the commit's own partitions on H if it has any, else a Heartbeat with the
 * commit's generation and member as a probe. A fenced answer refuses every partition of the request
 * and nothing is sent elsewhere — a zombie must not move offsets on any cluster;</li>
 * <li>the other routes' partitions go to the group's coordinator there as a simple commit
 * (generation -1, no member), which brokers accept for a group they do not coordinate.</li>
 * </ol>
 * A commit with generation -1 (admin tools, manually assigned consumers) has nothing to fence and goes
 * to every route at once.
 */
final class OffsetCommitPlanner implements ColdPlanner {

    /** v10 names topics by id only. */
    private static final short FIRST_BY_ID = 10;

    /** The newest Heartbeat the probe is written for. */
    private static final short PROBE_MAX_VERSION = 4;

    /**
     * Errors a coordinator puts on every partition when it refuses the commit as a whole (the member,
     * generation or group is not valid, or it is not the coordinator); per-partition errors (metadata
     * too large, unknown topic, topic authorization) do not fence the other routes.
     */
    private static final Set<Errors> GROUP_LEVEL = EnumSet.of(Errors.ILLEGAL_GENERATION, Errors.UNKNOWN_MEMBER_ID,
            Errors.FENCED_INSTANCE_ID, Errors.REBALANCE_IN_PROGRESS, Errors.STALE_MEMBER_EPOCH,
            Errors.FENCED_MEMBER_EPOCH, Errors.GROUP_ID_NOT_FOUND, Errors.NOT_COORDINATOR,
            Errors.COORDINATOR_NOT_AVAILABLE, Errors.COORDINATOR_LOAD_IN_PROGRESS, Errors.GROUP_AUTHORIZATION_FAILED,
            Errors.INVALID_GROUP_ID, Errors.UNKNOWN_SERVER_ERROR);

    static final TopicKey<OffsetCommitRequestTopic> REQUEST_TOPIC = new TopicKey<>(OffsetCommitRequestTopic::name,
            OffsetCommitRequestTopic::setName, OffsetCommitRequestTopic::topicId, OffsetCommitRequestTopic::setTopicId);
    static final TopicKey<OffsetCommitResponseTopic> RESPONSE_TOPIC = new TopicKey<>(OffsetCommitResponseTopic::name,
            OffsetCommitResponseTopic::setName, OffsetCommitResponseTopic::topicId, OffsetCommitResponseTopic::setTopicId);

    static final PartitionLists<OffsetCommitRequestTopic, OffsetCommitResponseTopic> PARTITIONS = PartitionLists.of(
            OffsetCommitRequestTopic::partitions, OffsetCommitRequestTopic::setPartitions,
            OffsetCommitRequestData.OffsetCommitRequestPartition::partitionIndex,
            OffsetCommitRequestData.OffsetCommitRequestPartition::setPartitionIndex,
            OffsetCommitResponseTopic::partitions, OffsetCommitResponseTopic::setPartitions,
            OffsetCommitResponsePartition::partitionIndex, OffsetCommitResponsePartition::setPartitionIndex);

    @Override
    public Step plan(ApiMessage request, short version, PlanContext ctx) {
        OffsetCommitRequestData req = (OffsetCommitRequestData) request;
        int home = ctx.groups().homeRoute(req.groupId());
        TopicsByRoute<OffsetCommitRequestTopic> split = new TopicsByRoute<>(req.topics(), REQUEST_TOPIC,
                version >= FIRST_BY_ID, ctx.topics(), PARTITIONS);
        Commit commit = new Commit(req, version, ctx, home, split);
        if (req.generationIdOrMemberEpoch() < 0) {
            return commit.toRoutes(split.routes().stream().toList());
        }
        if (split.onRoute(home)) {
            return Step.send(commit.part(home), answer -> {
                Errors fenced = answer.failed() ? CoordinatorFailures.retriable(answer) : fencingError((OffsetCommitResponseData) answer.body());
                if (fenced != null) {
                    return commit.refuseAll(fenced, answer.reason());
                }
                commit.answered(home, answer);
                return commit.toRoutes(otherRoutes(split, home));
            });
        }
        List<Integer> others = otherRoutes(split, home);
        if (others.isEmpty()) {
            return commit.toRoutes(others); // only unknown topics: nothing to send
        }
        return Step.send(probe(req, home, ctx), answer -> {
            Errors fenced = answer.failed() ? CoordinatorFailures.retriable(answer) : probeVerdict((HeartbeatResponseData) answer.body());
            if (fenced != null) {
                return commit.refuseAll(fenced, answer.reason());
            }
            return commit.toRoutes(others);
        });
    }

    private static List<Integer> otherRoutes(TopicsByRoute<OffsetCommitRequestTopic> split, int home) {
        return split.routes().stream().filter(r -> r != home).toList();
    }

    /** The group-level error the home coordinator refused the commit with, or null when it took it. */
    private static Errors fencingError(OffsetCommitResponseData response) {
        for (OffsetCommitResponseTopic t : response.topics()) {
            for (OffsetCommitResponsePartition p : t.partitions()) {
                Errors e = Errors.forCode(p.errorCode());
                if (GROUP_LEVEL.contains(e)) {
                    return e;
                }
            }
        }
        return null;
    }

    /**
     * A Heartbeat with the commit's generation and member: the coordinator answers it with the same
     * checks it makes on a commit.
     */
    private static Part probe(OffsetCommitRequestData req, int home, PlanContext ctx) {
        short version = (short) Math.max(0, Math.min(ctx.maxVersion(ApiKeys.HEARTBEAT.id), PROBE_MAX_VERSION));
        HeartbeatRequestData hb = new HeartbeatRequestData().setGroupId(req.groupId())
                .setGenerationId(req.generationIdOrMemberEpoch()).setMemberId(req.memberId());
        if (version >= 3) {
            hb.setGroupInstanceId(req.groupInstanceId());
        }
        return new Part(home, new Destination.GroupCoordinator(req.groupId()), version, hb);
    }

    /**
     * REBALANCE_IN_PROGRESS answers a heartbeat of a current member while the group prepares a
     * rebalance, when commits of the current generation are still accepted; any other error fences.
     */
    private static Errors probeVerdict(HeartbeatResponseData response) {
        Errors e = Errors.forCode(response.errorCode());
        return e == Errors.NONE || e == Errors.REBALANCE_IN_PROGRESS ? null : e;
    }

    /** One client commit being planned: the parts answered so far, and the merged response. */
    private static final class Commit {
        private final OffsetCommitRequestData req;
        private final short version;
        private final PlanContext ctx;
        private final int home;
        private final TopicsByRoute<OffsetCommitRequestTopic> split;
        private final Map<Integer, Answer> answers = new HashMap<>();

        Commit(OffsetCommitRequestData req, short version, PlanContext ctx, int home,
                TopicsByRoute<OffsetCommitRequestTopic> split) {
            this.req = req;
            this.version = version;
            this.ctx = ctx;
            this.home = home;
            this.split = split;
        }

        /**
         * The route's part of the commit. Only the home route sees the member and generation; elsewhere
         * the commit is a simple one (the group exists only on its home).
         */
        Part part(int route) {
            OffsetCommitRequestData body = req.duplicate().setTopics(split.toReal(route));
            if (route != home) {
                body.setGenerationIdOrMemberEpoch(-1).setMemberId("");
                if (version >= 7) {
                    body.setGroupInstanceId(null);
                }
            }
            return new Part(route, new Destination.GroupCoordinator(req.groupId()), version, body);
        }

        void answered(int route, Answer answer) {
            answers.put(route, answer);
        }

        Step toRoutes(List<Integer> routes) {
            if (routes.isEmpty()) {
                return Step.respond(merged());
            }
            List<Part> parts = new ArrayList<>();
            for (int r : routes) {
                parts.add(part(r));
            }
            return new Step.Send(parts, list -> {
                for (int i = 0; i < routes.size(); i++) {
                    answered(routes.get(i), list.get(i));
                }
                return Step.respond(merged());
            });
        }

        Step refuseAll(Errors error, String reason) {
            return Step.respond(Refusals.errorResponse(req, version, error, reason));
        }

        private OffsetCommitResponseData merged() {
            int throttle = 0;
            for (Answer a : answers.values()) {
                if (!a.failed()) {
                    throttle = Math.max(throttle, ((OffsetCommitResponseData) a.body()).throttleTimeMs());
                }
            }
            List<OffsetCommitResponseTopic> topics = split.merge(RESPONSE_TOPIC, route -> {
                Answer a = answers.get(route);
                return a == null || a.failed() ? null : ((OffsetCommitResponseData) a.body()).topics();
            }, route -> {
                Answer a = answers.get(route);
                if (a == null || !a.failed()) {
                    return null;
                }
                return route == home ? CoordinatorFailures.retriable(a) : CoordinatorFailures.awayFromHome();
            }, (clientTopic, error) -> new OffsetCommitResponseTopic().setPartitions(clientTopic.partitions().stream()
                    .map(p -> new OffsetCommitResponsePartition().setPartitionIndex(p.partitionIndex())
                            .setErrorCode(error.code()))
                    .toList()));
            return new OffsetCommitResponseData().setThrottleTimeMs(throttle).setTopics(topics);
        }
    }
}
