package dev.weft.routing.plan;

import dev.weft.routing.VisibleTopic;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToIntFunction;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.Message;

/**
 * The common shape of the per-topic admin APIs: a request lists entries (topics by name or id, sometimes
 * config resources), each owned by one route. The planner splits the entries by owning route (and
 * destination broker), rewrites them to the route's real names and ids, sends one request per route,
 * and merges the answers back under the client's names, in the client's order. Entries it cannot send
 * (unknown or hidden topics, topics another route leads, refused placements) and entries of a route that
 * failed are answered with an error in exactly the shape kafka-clients' own {@code getErrorResponse}
 * gives them, so every partition the client named gets it.
 *
 * <p>A subclass describes one API's message classes: where the entries are, how an entry and a result
 * are named, and how a response is assembled. A request whose entry list is null means "all topics" and
 * goes to every route; the answers keep only visible topics, renamed.
 *
 * @param <Q> request body
 * @param <E> request entry
 * @param <R> response body
 * @param <T> response entry
 */
abstract class TopicListPlanner<Q extends ApiMessage, E extends Message, R extends ApiMessage, T extends Message>
        implements ColdPlanner {

    /** Which broker of the owning route an entry goes to. */
    enum Addressing {
        /** Any broker of the owning route (brokers forward to their controller). */
        OWNING_ROUTE,
        /**
         * The partition leader, which the client addressed by connecting to it: the connection's own broker
         * when it is of the owning route; a topic of another route answers NOT_LEADER_OR_FOLLOWER so the
         * client refreshes its metadata; a bootstrap connection sends to any broker of the owning route
         * (which answers NOT_LEADER_OR_FOLLOWER itself where it does not lead).
         */
        LEADER
    }

    private final Addressing addressing;

    TopicListPlanner(Addressing addressing) {
        this.addressing = addressing;
    }

    // ---- the API's shape ----

    /**
     * The partition indexes an entry names, for APIs addressed to partition leaders: in the collapsed
     * topology one entry becomes one per leader ({@link #keepPartitions}). Null: the API has none.
     */
    List<Integer> partitionsOf(E entry) {
        return null;
    }

    /** Leaves in {@code entry} (a copy) only the partitions in {@code keep}. */
    void keepPartitions(E entry, java.util.Set<Integer> keep) {
        throw new UnsupportedOperationException("entries of this API are not split by partition");
    }

    /**
     * How this API's entries carry partitions, so an entry naming a partition-woven topic is split into
     * one per route and real topic, renumbered there and back; null: the API names no partitions, and a
     * woven topic goes to {@link #locateWoven}.
     */
    PartitionLists<E, T> partitionLists() {
        return null;
    }

    /**
     * Where an entry naming partition-woven {@code topic} goes when the API names no partitions: by
     * default refused (the topic has no one cluster to answer for it); an API that can ask every
     * segment's cluster overrides this.
     */
    Located locateWoven(E entry, VisibleTopic topic, PlanContext ctx) {
        return new Located.Refused(Errors.INVALID_REQUEST, "topic '" + topic.virtualName()
                + "' is partition-woven over several clusters; this request has no single cluster to go to", true);
    }

    /**
     * The pieces an entry naming partition-woven {@code topic} is sent as, or null to {@link #locateWoven}
     * it whole: by default, for an API with {@link #partitionLists()}, one piece per (route, real topic)
     * of the partitions it names.
     */
    WovenPieces wovenPieces(E entry, VisibleTopic topic) {
        PartitionLists<E, T> lists = partitionLists();
        return lists == null ? null : WovenPieces.of(topic, lists.requested().apply(entry));
    }

    /** Puts the result of a later piece of a client entry into the earlier one's: by default, its partitions appended. */
    void putTogether(T earlier, T later) {
        partitionLists().appendResult().accept(earlier, later);
    }

    /** The request's entries, or null for "all topics". */
    abstract List<E> entries(Q request, short version);

    abstract void setEntries(Q request, List<E> entries, short version);

    /** The topic name an entry names, or null when it names a topic id. */
    abstract String name(E entry);

    /** The topic id an entry names (when {@link #name} is null). */
    Uuid id(E entry) {
        return Uuid.ZERO_UUID;
    }

    /** Rewrites a copy of an entry to the route's terms; may throw {@link EntryRefusal}. */
    abstract void toReal(E entry, Located.Owner owner, PlanContext ctx);

    abstract List<T> results(R response);

    abstract String resultName(T result);

    /** Rewrites a copy of a route's result to the client's terms. */
    abstract void toVirtual(T result, int route, String virtualName, Uuid virtualId, PlanContext ctx);

    /** The client's response from the merged results and the routes' answers (throttle, top-level fields). */
    abstract R merged(List<T> results, List<R> answers, short version);

    /** A route's top-level error (given to its entries when it answered without them). */
    Errors topLevelError(R answer) {
        return Errors.NONE;
    }

    /**
     * True when a route leaves out entries it has nothing to say about (ListPartitionReassignments: topics
     * without an ongoing reassignment): a missing result is then no error.
     */
    boolean omitsQuietEntries() {
        return false;
    }

    /**
     * False when the API's results carry no error (ListPartitionReassignments: only a top-level error):
     * an entry error then fails the whole request, except unknown topics, which are left out.
     */
    boolean hasEntryErrors() {
        return true;
    }

    /**
     * Puts {@code message} on an error result, for APIs whose {@code getErrorResponse} writes the error's
     * default text instead of the message it was given (DescribeConfigs).
     */
    void setErrorMessage(T result, String message) {
    }

    /** What matches an entry sent to a route with its result (real terms). */
    Object key(E realEntry) {
        String name = name(realEntry);
        return name != null ? name : id(realEntry);
    }

    /** Every key a route's result can be matched by (see {@link #key}). */
    List<Object> resultKeys(T result) {
        return List.of(resultName(result));
    }

    /** Where an entry goes: by default, the route owning the topic it names. */
    Located locate(E entry, PlanContext ctx) {
        String name = name(entry);
        VisibleTopic topic;
        if (name != null) {
            topic = ctx.topics().resolve(name);
            if (topic == null) {
                return Located.unknownTopic();
            }
        } else {
            topic = ctx.topics().byVirtualId(id(entry));
            if (topic == null) {
                return new Located.Refused(Errors.UNKNOWN_TOPIC_ID, null, false);
            }
        }
        return topic.woven() ? locateWoven(entry, topic, ctx) : owner(topic, ctx);
    }

    /** {@code topic}'s owner, addressed by this API's {@link Addressing}. */
    final Located owner(VisibleTopic topic, PlanContext ctx) {
        return owner(topic.route(), topic.realName(), topic.realId(), topic, ctx);
    }

    /** The owner of real topic {@code realName} behind {@code route} (all or part of {@code topic}), addressed by this API's {@link Addressing}. */
    final Located owner(int route, String realName, Uuid realId, VisibleTopic topic, PlanContext ctx) {
        Destination to = Destination.ANY;
        if (addressing == Addressing.LEADER && ctx.ownRoute() >= 0) {
            if (ctx.ownRoute() != route) {
                return new Located.Refused(Errors.NOT_LEADER_OR_FOLLOWER, "topic '" + topic.virtualName()
                        + "' is led by a broker of route '" + ctx.routeName(route) + "'", false);
            }
            to = Destination.OWN;
        }
        return new Located.Owner(route, to, realName, realId, topic.virtualName(), topic.virtualId());
    }

    /**
     * Entries naming partition-woven topics split into one per piece (route and real topic), each keeping
     * the client's (virtual) partitions of that piece; partitions the topic does not have go into an entry
     * of their own, mapped to null (answered UNKNOWN_TOPIC_OR_PARTITION). Other entries stay as they are.
     */
    private List<E> bySegment(List<E> entries, PlanContext ctx, Map<E, WovenPieces.Piece> pieceOf, Map<E, E> originOf) {
        PartitionLists<E, T> lists = partitionLists();
        List<E> out = new ArrayList<>(entries.size());
        for (E entry : entries) {
            String name = name(entry);
            VisibleTopic topic = name != null ? ctx.topics().resolve(name) : ctx.topics().byVirtualId(id(entry));
            WovenPieces pieces = topic == null || !topic.woven() ? null : wovenPieces(entry, topic);
            if (pieces == null) {
                out.add(entry);
                continue;
            }
            for (WovenPieces.Piece piece : pieces.pieces()) {
                E part = copy(entry);
                if (lists != null) {
                    lists.renumberRequest().accept(part, piece.keep());
                }
                pieceOf.put(part, piece);
                originOf.put(part, entry);
                out.add(part);
            }
            if (!pieces.unknown().isEmpty()) {
                E part = copy(entry);
                lists.renumberRequest().accept(part, pieces.keepUnknown());
                pieceOf.put(part, null);
                originOf.put(part, entry);
                out.add(part);
            }
        }
        return out;
    }

    static <R> int maxThrottle(List<R> answers, ToIntFunction<R> throttle) {
        int max = 0;
        for (R a : answers) {
            max = Math.max(max, throttle.applyAsInt(a));
        }
        return max;
    }

    // ---- planning ----

    @Override
    public final Step plan(ApiMessage request, short version, PlanContext ctx) {
        @SuppressWarnings("unchecked")
        Q q = (Q) request;
        List<E> entries = entries(q, version);
        if (entries == null) {
            return allTopics(q, version, ctx);
        }
        Map<E, WovenPieces.Piece> pieceOf = new java.util.IdentityHashMap<>();
        Map<E, E> originOf = new java.util.IdentityHashMap<>();
        entries = bySegment(entries, ctx, pieceOf, originOf);
        Map<E, Integer> leaderOfEntry = null;
        if (addressing == Addressing.LEADER && ctx.collapsedNodes() != null) {
            leaderOfEntry = new java.util.IdentityHashMap<>();
            entries = byLeader(entries, ctx, leaderOfEntry, pieceOf, originOf);
        }
        Q template = copy(q);
        setEntries(template, List.of(), version);
        List<Slot<E>> slots = new ArrayList<>(entries.size());
        Map<RouteDestination, List<E>> byTarget = new LinkedHashMap<>();
        for (E entry : entries) {
            WovenPieces.Piece piece = pieceOf.get(entry);
            Located where = !pieceOf.containsKey(entry) ? locate(entry, ctx)
                    : piece == null ? Located.unknownTopic() : pieceOwner(entry, piece, ctx);
            if (leaderOfEntry != null && where instanceof Located.Owner o) {
                // collapsed: no connection is the leader's; each part goes to the real leader the proxy knows
                Integer leader = leaderOfEntry.get(entry);
                where = leader == null || leader < 0
                        ? new Located.Refused(Errors.NOT_LEADER_OR_FOLLOWER, "topic '" + o.virtualName()
                                + "' has partitions whose leader the proxy does not know yet", false)
                        : new Located.Owner(o.route(), new Destination.Broker(leader), o.realName(), o.realId(),
                                o.virtualName(), o.virtualId());
            }
            E real = null;
            if (where instanceof Located.Owner owner) {
                real = copy(entry);
                try {
                    toReal(real, owner, ctx);
                    if (piece != null && partitionLists() != null) {
                        partitionLists().renumberRequest().accept(real, piece.toReal());
                    }
                } catch (EntryRefusal refusal) {
                    where = new Located.Refused(refusal.error, refusal.getMessage(), true);
                }
            }
            if (where instanceof Located.Refused r && r.log()) {
                ctx.logRefusal(r.message());
            }
            RouteDestination target = where instanceof Located.Owner o ? new RouteDestination(o.route(), o.to()) : null;
            if (target != null) {
                byTarget.computeIfAbsent(target, t -> new ArrayList<>()).add(real);
            }
            slots.add(new Slot<>(entry, where, real, target, piece, originOf.get(entry)));
        }
        List<RouteDestination> targets = List.copyOf(byTarget.keySet());
        List<Part> parts = new ArrayList<>(targets.size());
        for (RouteDestination t : targets) {
            Q body = copy(template);
            setEntries(body, byTarget.get(t), version);
            parts.add(new Part(t.route(), t.to(), version, body));
        }
        if (parts.isEmpty()) {
            return Step.respond(mergeSlots(q, slots, targets, List.of(), template, version, ctx));
        }
        return new Step.Send(parts, answers -> Step.respond(mergeSlots(q, slots, targets, answers, template, version, ctx)));
    }

    private record RouteDestination(int route, Destination to) {
    }

    /**
     * Collapsed topology: each entry split into one per real leader of its partitions (a partition whose
     * leader is unknown gets an entry of its own, refused NOT_LEADER_OR_FOLLOWER so the client refreshes).
     * The client then sees a topic once per leader in the answer, as a broker answers a topic listed twice.
     */
    private List<E> byLeader(List<E> entries, PlanContext ctx, Map<E, Integer> leaderOfEntry,
            Map<E, WovenPieces.Piece> pieceOf, Map<E, E> originOf) {
        List<E> out = new ArrayList<>(entries.size());
        for (E entry : entries) {
            List<Integer> partitions = partitionsOf(entry);
            String name = name(entry);
            VisibleTopic topic = name != null ? ctx.topics().resolve(name) : ctx.topics().byVirtualId(id(entry));
            WovenPieces.Piece piece = pieceOf.get(entry);
            if (partitions == null || topic == null || topic.woven() && piece == null) {
                out.add(entry);
                continue;
            }
            int route = piece != null ? piece.route() : topic.route();
            String realName = piece != null ? piece.realName() : topic.realName();
            java.util.function.IntUnaryOperator toReal = piece != null ? piece.toReal() : p -> p;
            Map<Integer, java.util.Set<Integer>> byLeader = new LinkedHashMap<>();
            for (int p : partitions) {
                int leader = Math.max(-1, ctx.leaderOf(route, realName, toReal.applyAsInt(p)));
                byLeader.computeIfAbsent(leader, l -> new java.util.HashSet<>()).add(p);
            }
            if (byLeader.size() == 1) {
                leaderOfEntry.put(entry, byLeader.keySet().iterator().next());
                out.add(entry);
                continue;
            }
            for (Map.Entry<Integer, java.util.Set<Integer>> group : byLeader.entrySet()) {
                E part = copy(entry);
                keepPartitions(part, group.getValue());
                leaderOfEntry.put(part, group.getKey());
                if (pieceOf.containsKey(entry)) {
                    pieceOf.put(part, piece);
                    originOf.put(part, originOf.get(entry));
                }
                out.add(part);
            }
        }
        return out;
    }

    /** One client entry: where it went ({@code target}, null when answered here) and its rewritten copy. */
    /** @param origin the client's entry a woven topic's piece was cut from (its results are put back into one), else null */
    private record Slot<E>(E clientEntry, Located where, E realEntry, RouteDestination target, WovenPieces.Piece piece,
            E origin) {
    }

    /** The owner of one piece of a woven topic's entry. */
    private Located pieceOwner(E entry, WovenPieces.Piece piece, PlanContext ctx) {
        String name = name(entry);
        VisibleTopic topic = name != null ? ctx.topics().resolve(name) : ctx.topics().byVirtualId(id(entry));
        return owner(piece.route(), piece.realName(), piece.realId(), topic, ctx);
    }

    /**
     * The client's response. An API without per-entry errors (ListPartitionReassignments) leaves unknown
     * topics out, like a broker, and answers any other entry error for the whole request.
     */
    private ApiMessage mergeSlots(Q request, List<Slot<E>> slots, List<RouteDestination> targets, List<Answer> answers, Q template,
            short version, PlanContext ctx) {
        List<Map<Object, ArrayDeque<T>>> resultsByTarget = new ArrayList<>(targets.size());
        List<R> answered = new ArrayList<>();
        for (Answer a : answers) {
            Map<Object, ArrayDeque<T>> index = new HashMap<>();
            if (!a.failed()) {
                @SuppressWarnings("unchecked")
                R body = (R) a.body();
                answered.add(body);
                for (T result : results(body)) {
                    for (Object key : resultKeys(result)) {
                        if (key != null) {
                            index.computeIfAbsent(key, k -> new ArrayDeque<>()).add(result);
                        }
                    }
                }
            }
            resultsByTarget.add(index);
        }
        List<T> out = new ArrayList<>(slots.size());
        Map<E, T> resultOfOrigin = new java.util.IdentityHashMap<>();
        for (Slot<E> slot : slots) {
            EntryAnswer<T> a = switch (slot.where()) {
                case Located.Refused r -> errorEntry(template, slot.clientEntry(), r.error(), r.message(), version);
                case Located.Owner o -> answerFor(slot, o, targets, answers, resultsByTarget, template, version, ctx);
            };
            T earlier = slot.origin() == null || a.result() == null ? null : resultOfOrigin.get(slot.origin());
            if (earlier != null) {
                putTogether(earlier, a.result()); // one entry per client entry, as a broker answers
            } else if (a.result() != null) {
                if (slot.origin() != null) {
                    resultOfOrigin.put(slot.origin(), a.result());
                }
                out.add(a.result());
            } else if (a.error() != null && a.error() != Errors.UNKNOWN_TOPIC_OR_PARTITION) {
                return Refusals.errorResponse(request, version, a.error(), a.message());
            }
        }
        return merged(out, answered, version);
    }

    /** One entry's result, or the error it could not be given in (no per-entry errors), or neither (omitted). */
    private record EntryAnswer<T>(T result, Errors error, String message) {
    }

    private EntryAnswer<T> answerFor(Slot<E> slot, Located.Owner owner, List<RouteDestination> targets, List<Answer> answers,
            List<Map<Object, ArrayDeque<T>>> resultsByTarget, Q template, short version, PlanContext ctx) {
        int i = targets.indexOf(slot.target());
        Answer answer = answers.get(i);
        if (answer.failed()) {
            return errorEntry(template, slot.clientEntry(), answer.failure(),
                    "route '" + ctx.routeName(owner.route()) + "' failed: " + answer.reason(), version);
        }
        ArrayDeque<T> matching = resultsByTarget.get(i).get(key(slot.realEntry()));
        T result = matching == null ? null : matching.poll();
        if (result == null && omitsQuietEntries()) {
            return new EntryAnswer<>(null, null, null);
        }
        if (result == null) {
            @SuppressWarnings("unchecked")
            Errors topLevel = topLevelError((R) answer.body());
            Errors error = topLevel != Errors.NONE ? topLevel : Errors.UNKNOWN_SERVER_ERROR;
            return errorEntry(template, slot.clientEntry(), error,
                    "route '" + ctx.routeName(owner.route()) + "' answered without this entry", version);
        }
        T copy = copy(result);
        toVirtual(copy, owner.route(), owner.virtualName(), owner.virtualId(), ctx);
        if (slot.piece() != null && partitionLists() != null) {
            partitionLists().renumberResult().accept(copy, slot.piece().toVirtual());
        }
        return new EntryAnswer<>(copy, null, null);
    }

    /** The result kafka-clients' getErrorResponse gives this one entry (under the client's names). */
    private EntryAnswer<T> errorEntry(Q template, E clientEntry, Errors error, String message, short version) {
        if (!hasEntryErrors()) {
            return new EntryAnswer<>(null, error, message);
        }
        Q one = copy(template);
        setEntries(one, List.of(copy(clientEntry)), version);
        @SuppressWarnings("unchecked")
        R response = (R) Refusals.errorResponse(one, version, error, message);
        T result = copy(results(response).getFirst());
        if (message != null) {
            setErrorMessage(result, message);
        }
        return new EntryAnswer<>(result, null, null);
    }

    /**
     * A request for all topics goes to every route; a failed route fails the whole request (retriably),
     * since the client cannot be told which of its topics are missing.
     */
    private Step allTopics(Q request, short version, PlanContext ctx) {
        List<Part> parts = new ArrayList<>(ctx.routeCount());
        for (int route = 0; route < ctx.routeCount(); route++) {
            if (ctx.topics().routeServes(route)) {
                parts.add(new Part(route, Destination.ANY, version, copy(request)));
            }
        }
        return new Step.Send(parts, answers -> {
            List<T> out = new ArrayList<>();
            List<R> answered = new ArrayList<>(answers.size());
            for (int i = 0; i < answers.size(); i++) {
                int route = parts.get(i).route();
                Answer a = answers.get(i);
                if (a.failed()) {
                    return Step.respond(Refusals.errorResponse(request, version, a.failure(),
                            "route '" + ctx.routeName(route) + "' failed: " + a.reason()));
                }
                @SuppressWarnings("unchecked")
                R body = (R) a.body();
                answered.add(body);
                for (T result : results(body)) {
                    String virtualName = ctx.topics().virtualNameOf(route, resultName(result));
                    if (virtualName != null) {
                        T copy = copy(result);
                        toVirtual(copy, route, virtualName, ctx.topics().resolve(virtualName).virtualId(), ctx);
                        out.add(copy);
                    }
                }
            }
            return Step.respond(merged(out, answered, version));
        });
    }

    /** A detached deep copy: collection-typed lists refuse elements that belong to another collection. */
    @SuppressWarnings("unchecked")
    static <M extends Message> M copy(M message) {
        return (M) message.duplicate();
    }
}
