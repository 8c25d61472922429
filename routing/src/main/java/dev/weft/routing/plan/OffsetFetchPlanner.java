package dev.weft.routing.plan;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestGroup;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestTopics;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseGroup;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponsePartitions;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseTopics;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * OffsetFetch: each group's committed offsets live on the route owning each partition (commits are
 * split the same way), so each group's named topics are split by route and asked of the group's
 * coordinator there; a group asking for all its offsets (topics null) asks every route and sees only
 * the topics the catalog shows. One part per group and route (each group has its own coordinator).
 *
 * <p>Errors: the group-level error is the home route's; when the home route has none, the first
 * route that failed or answered with a group-level error sets it (a retriable
 * COORDINATOR_NOT_AVAILABLE for a failed route), and that route's partitions carry it too. The group
 * error matters even for named topics: kafka-clients' consumer fails for good on an unexpected
 * partition-level error in OffsetFetch and the admin client skips such partitions, while a group-level
 * coordinator error makes both retry — missing offsets would reset positions.
 */
final class OffsetFetchPlanner implements ColdPlanner {

    /** v10 names topics by id. */
    private static final short FIRST_BY_ID = 10;

    static final TopicKey<OffsetFetchRequestTopics> REQUEST_TOPIC = new TopicKey<>(OffsetFetchRequestTopics::name,
            OffsetFetchRequestTopics::setName, OffsetFetchRequestTopics::topicId, OffsetFetchRequestTopics::setTopicId);
    static final TopicKey<OffsetFetchResponseTopics> RESPONSE_TOPIC = new TopicKey<>(OffsetFetchResponseTopics::name,
            OffsetFetchResponseTopics::setName, OffsetFetchResponseTopics::topicId, OffsetFetchResponseTopics::setTopicId);

    static final PartitionLists<OffsetFetchRequestTopics, OffsetFetchResponseTopics> PARTITIONS = PartitionLists.ofIndexes(
            OffsetFetchRequestTopics::partitionIndexes, OffsetFetchRequestTopics::setPartitionIndexes,
            OffsetFetchResponseTopics::partitions, OffsetFetchResponseTopics::setPartitions,
            OffsetFetchResponsePartitions::partitionIndex, OffsetFetchResponsePartitions::setPartitionIndex);

    @Override
    public Step plan(ApiMessage request, short version, PlanContext ctx) {
        OffsetFetchRequestData req = (OffsetFetchRequestData) request;
        List<GroupFetch> fetches = new ArrayList<>();
        List<Part> parts = new ArrayList<>();
        List<int[]> partOwners = new ArrayList<>(); // {fetch index, route} of each part
        for (OffsetFetchRequestGroup g : OffsetFetchForms.groups(req, version)) {
            GroupFetch fetch = new GroupFetch(g, version, ctx);
            for (int route : fetch.routes) {
                parts.add(fetch.part(route, req.requireStable()));
                partOwners.add(new int[] {fetches.size(), route});
            }
            fetches.add(fetch);
        }
        if (parts.isEmpty()) {
            return Step.respond(respond(fetches, 0, version));
        }
        return new Step.Send(parts, answers -> {
            int throttle = 0;
            for (int i = 0; i < answers.size(); i++) {
                Answer a = answers.get(i);
                fetches.get(partOwners.get(i)[0]).answers.put(partOwners.get(i)[1], a);
                if (!a.failed()) {
                    throttle = Math.max(throttle, ((OffsetFetchResponseData) a.body()).throttleTimeMs());
                }
            }
            return Step.respond(respond(fetches, throttle, version));
        });
    }

    private static OffsetFetchResponseData respond(List<GroupFetch> fetches, int throttle, short version) {
        return OffsetFetchForms.response(fetches.stream().map(GroupFetch::merged).toList(), throttle, version);
    }

    /** One group of the request: its parts and their answers. */
    private static final class GroupFetch {
        private final OffsetFetchRequestGroup group;
        private final short version;
        private final PlanContext ctx;
        private final int home;
        private final TopicsByRoute<OffsetFetchRequestTopics> split; // null: all topics
        private final List<Integer> routes = new ArrayList<>();
        private final Map<Integer, Answer> answers = new HashMap<>();

        GroupFetch(OffsetFetchRequestGroup group, short version, PlanContext ctx) {
            this.group = group;
            this.version = version;
            this.ctx = ctx;
            this.home = ctx.groups().homeRoute(group.groupId());
            if (group.topics() == null) {
                split = null;
                for (int r = 0; r < ctx.routeCount(); r++) {
                    if (ctx.topics().routeServes(r)) {
                        routes.add(r);
                    }
                }
            } else {
                split = new TopicsByRoute<>(group.topics(), REQUEST_TOPIC, version >= FIRST_BY_ID, ctx.topics(), PARTITIONS);
                routes.addAll(split.routes());
            }
        }

        /**
         * The group's question to {@code route}. The member id and epoch (v9+, KIP-848) are checked by
         * the group's coordinator, which exists on the home route only; elsewhere they are left out.
         */
        Part part(int route, boolean requireStable) {
            OffsetFetchRequestGroup g = new OffsetFetchRequestGroup().setGroupId(group.groupId())
                    .setTopics(split == null ? null : split.toReal(route));
            if (route == home) {
                g.setMemberId(group.memberId()).setMemberEpoch(group.memberEpoch());
            }
            return new Part(route, new Destination.GroupCoordinator(group.groupId()), version,
                    OffsetFetchForms.request(g, requireStable, version));
        }

        /** The group's answer for a route, or null when it failed or left the group out. */
        private OffsetFetchResponseGroup answerOf(int route) {
            Answer a = answers.get(route);
            return a == null || a.failed() ? null
                    : OffsetFetchForms.group((OffsetFetchResponseData) a.body(), group.groupId(), version);
        }

        /** Why the route's partitions have no offsets: its failure or its group-level error; else null. */
        private Errors routeError(int route) {
            Answer a = answers.get(route);
            if (a == null) {
                return null;
            }
            if (a.failed()) {
                // another cluster down: the home coordinator is fine, the client only has to retry
                return route == home ? CoordinatorFailures.retriable(a) : CoordinatorFailures.awayFromHome();
            }
            OffsetFetchResponseGroup g = answerOf(route);
            if (g == null) {
                return Errors.COORDINATOR_NOT_AVAILABLE;
            }
            return g.errorCode() == Errors.NONE.code() ? null : Errors.forCode(g.errorCode());
        }

        OffsetFetchResponseGroup merged() {
            Errors groupError = routes.contains(home) ? routeError(home) : null;
            for (int route : routes) {
                if (groupError == null) {
                    groupError = routeError(route);
                }
            }
            List<OffsetFetchResponseTopics> topics;
            if (split == null) {
                topics = new ArrayList<>();
                Map<Integer, List<OffsetFetchResponseTopics>> byRoute = new java.util.TreeMap<>();
                for (int route : routes) {
                    OffsetFetchResponseGroup g = routeError(route) == null ? answerOf(route) : null;
                    if (g != null) {
                        byRoute.put(route, g.topics());
                        topics.addAll(TopicsByRoute.visibleOnly(route, g.topics(), RESPONSE_TOPIC,
                                version >= FIRST_BY_ID, ctx.topics()));
                    }
                }
                TopicsByRoute.wovenOnly(byRoute, RESPONSE_TOPIC, version >= FIRST_BY_ID, ctx.topics(), PARTITIONS, topics);
            } else {
                topics = split.merge(RESPONSE_TOPIC, route -> {
                    OffsetFetchResponseGroup g = answerOf(route);
                    return g == null ? null : g.topics();
                }, this::routeError, (clientTopic, error) -> new OffsetFetchResponseTopics().setPartitions(
                        clientTopic.partitionIndexes().stream().map(p -> noOffset(p, error)).toList()));
            }
            return new OffsetFetchResponseGroup().setGroupId(group.groupId())
                    .setErrorCode((groupError == null ? Errors.NONE : groupError).code()).setTopics(topics);
        }

        private static OffsetFetchResponsePartitions noOffset(int partition, Errors error) {
            return new OffsetFetchResponsePartitions().setPartitionIndex(partition).setCommittedOffset(-1)
                    .setCommittedLeaderEpoch(-1).setMetadata("").setErrorCode(error.code());
        }
    }
}
