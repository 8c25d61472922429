package dev.weft.routing.plan;

import dev.weft.routing.TopicRouting;
import dev.weft.routing.VisibleTopic;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.function.BiFunction;
import java.util.function.IntFunction;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.Message;

/**
 * A request's topic list split by the route owning each topic: the entries each route gets, renamed
 * from virtual to real names (or ids, for API versions that name topics by id), and the way back —
 * the routes' answers merged into one list in the client's order, under the client's names or ids.
 * A topic the catalog does not show, a route whose answer failed, or a topic a route's answer left
 * out gets an error entry for every partition the client named: nothing is dropped.
 *
 * @param <T> the request's topic entry class
 */
final class TopicsByRoute<T extends Message> {

    private final List<T> topics;
    private final TopicKey<T> key;
    private final boolean byId;
    private final VisibleTopic[] resolved;
    private final PartitionLists<T, ?> lists;
    /** Per entry naming a partition-woven topic, its pieces (one per route and real topic); else null. */
    private final WovenPieces[] woven;

    /**
     * @param topics the client's topic entries
     * @param byId true when this API version names topics by id (resolved with
     *     {@link TopicRouting#byVirtualId}), else by name
     * @param lists how the API's entries carry partitions: a partition-woven topic's entries are split by
     *     the route and real topic of each partition, renumbered there and back
     */
    TopicsByRoute(List<T> topics, TopicKey<T> key, boolean byId, TopicRouting catalog, PartitionLists<T, ?> lists) {
        this.topics = topics;
        this.key = key;
        this.byId = byId;
        this.lists = lists;
        this.resolved = new VisibleTopic[topics.size()];
        this.woven = new WovenPieces[topics.size()];
        for (int i = 0; i < resolved.length; i++) {
            T t = topics.get(i);
            resolved[i] = byId ? catalog.byVirtualId(key.id().apply(t)) : catalog.resolve(key.name().apply(t));
            if (resolved[i] != null && resolved[i].woven()) {
                woven[i] = WovenPieces.of(resolved[i], lists.requested().apply(t));
            }
        }
    }

    /** The routes entry {@code i} goes to: its topic's route, or the routes of a woven topic's named partitions. */
    java.util.Set<Integer> routesOf(int i) {
        if (resolved[i] == null) {
            return java.util.Set.of();
        }
        if (woven[i] == null) {
            return java.util.Set.of(resolved[i].route());
        }
        java.util.Set<Integer> out = new TreeSet<>();
        woven[i].pieces().forEach(p -> out.add(p.route()));
        return out;
    }

    boolean byId() {
        return byId;
    }

    int size() {
        return topics.size();
    }

    T clientTopic(int i) {
        return topics.get(i);
    }

    /** The topic behind client entry {@code i}, or null when the client cannot see such a topic. */
    VisibleTopic resolved(int i) {
        return resolved[i];
    }

    /** The routes owning at least one of the topics, ascending. */
    SortedSet<Integer> routes() {
        SortedSet<Integer> out = new TreeSet<>();
        for (int i = 0; i < resolved.length; i++) {
            out.addAll(routesOf(i));
        }
        return out;
    }

    /** True when some entry names a topic the client cannot see. */
    boolean hasUnknown() {
        for (VisibleTopic v : resolved) {
            if (v == null) {
                return true;
            }
        }
        return false;
    }

    boolean onRoute(int route) {
        for (int i = 0; i < resolved.length; i++) {
            if (routesOf(i).contains(route)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Copies of the entries owned by {@code route}, renamed to the route's real name or id (a woven
     * topic's: one per piece there, renumbered).
     */
    List<T> toReal(int route) {
        List<T> out = new ArrayList<>();
        for (int i = 0; i < resolved.length; i++) {
            VisibleTopic v = resolved[i];
            if (woven[i] != null) {
                for (WovenPieces.Piece piece : woven[i].pieces()) {
                    if (piece.route() == route) {
                        T copy = realCopy(i, piece.realName(), piece.realId());
                        lists.renumberRequest().accept(copy, piece.toReal());
                        out.add(copy);
                    }
                }
            } else if (v != null && v.route() == route) {
                out.add(realCopy(i, v.realName(), v.realId()));
            }
        }
        return out;
    }

    /** A copy of client entry {@code i} under the real topic's name, or id when this version names topics by id. */
    @SuppressWarnings("unchecked")
    private T realCopy(int i, String realName, org.apache.kafka.common.Uuid realId) {
        T copy = (T) topics.get(i).duplicate();
        if (byId) {
            key.setId().accept(copy, realId);
        } else {
            key.setName().accept(copy, realName);
        }
        return copy;
    }

    /**
     * The answers merged in the client's order.
     *
     * @param responseKey reads and writes the response entries' names and ids
     * @param answered the response entries of a route (real names or ids), or null when the route was
     *     not asked
     * @param routeError the error for every partition of a route whose answer failed (or that answered
     *     with a group-level error), else null
     * @param errorEntry a response entry for the client's entry with {@code error} on each of its
     *     partitions; its name or id is set here
     * @param <R> the response's topic entry class
     */
    @SuppressWarnings("unchecked")
    <R extends Message> List<R> merge(TopicKey<R> responseKey, IntFunction<List<R>> answered,
            IntFunction<Errors> routeError, BiFunction<T, Errors, R> errorEntry) {
        Map<Integer, Map<Object, R>> byRoute = new HashMap<>();
        List<R> out = new ArrayList<>(topics.size());
        for (int i = 0; i < resolved.length; i++) {
            T clientTopic = topics.get(i);
            VisibleTopic v = resolved[i];
            if (woven[i] != null) {
                R entry = mergeWoven(woven[i], clientTopic, responseKey, answered, routeError, errorEntry);
                key.copyKey(clientTopic, responseKey, entry, byId);
                out.add(entry);
                continue;
            }
            Errors error = v == null ? Errors.UNKNOWN_TOPIC_OR_PARTITION : routeError.apply(v.route());
            R found = null;
            if (error == null) {
                Map<Object, R> index = byRoute.computeIfAbsent(v.route(), r -> index(responseKey, answered.apply(r)));
                found = index.get(byId ? v.realId() : v.realName());
                error = found == null ? Errors.UNKNOWN_TOPIC_OR_PARTITION : null;
            }
            R entry;
            if (found != null) {
                entry = (R) found.duplicate();
            } else {
                entry = errorEntry.apply(clientTopic, error);
            }
            key.copyKey(clientTopic, responseKey, entry, byId);
            out.add(entry);
        }
        return out;
    }

    /**
     * One response entry for a client entry naming a woven topic: each piece's result from its route,
     * renumbered to virtual partitions, appended in piece order; a piece whose route failed or left its
     * topic out, and partitions the topic does not have, get error partitions.
     */
    @SuppressWarnings("unchecked")
    private <R extends Message> R mergeWoven(WovenPieces pieces, T clientTopic, TopicKey<R> responseKey,
            IntFunction<List<R>> answered, IntFunction<Errors> routeError, BiFunction<T, Errors, R> errorEntry) {
        PartitionLists<T, R> parts = (PartitionLists<T, R>) lists;
        R out = null;
        for (WovenPieces.Piece piece : pieces.pieces()) {
            Errors error = routeError.apply(piece.route());
            List<R> found = new ArrayList<>();
            if (error == null) {
                List<R> entries = answered.apply(piece.route());
                for (R r : entries == null ? List.<R>of() : entries) {
                    Object k = responseKey.keyOf(r, byId);
                    if (byId ? piece.realId().equals(k) : piece.realName().equals(k)) {
                        R copy = (R) r.duplicate();
                        parts.renumberResult().accept(copy, piece.toVirtual());
                        found.add(copy);
                    }
                }
                if (found.isEmpty()) {
                    error = Errors.UNKNOWN_TOPIC_OR_PARTITION;
                }
            }
            if (error != null) {
                T mine = (T) clientTopic.duplicate();
                parts.renumberRequest().accept(mine, piece.keep());
                found.add(errorEntry.apply(mine, error));
            }
            for (R r : found) {
                if (out == null) {
                    out = r;
                } else {
                    parts.appendResult().accept(out, r);
                }
            }
        }
        if (!pieces.unknown().isEmpty() || out == null) {
            T mine = (T) clientTopic.duplicate();
            parts.renumberRequest().accept(mine, pieces.keepUnknown());
            R unknown = errorEntry.apply(mine, Errors.UNKNOWN_TOPIC_OR_PARTITION);
            if (out == null) {
                out = unknown;
            } else {
                parts.appendResult().accept(out, unknown);
            }
        }
        return out;
    }

    /**
     * The woven topics in the routes' answers for "every topic", each put together from its segments'
     * real topics on their routes (renumbered; partitions outside the segments left out), under the
     * virtual name or id; appended to {@code out} in catalog order.
     *
     * @param byRoute each asked route's answer entries (null where the route failed: its pieces are left out)
     */
    @SuppressWarnings("unchecked")
    static <R extends Message> void wovenOnly(Map<Integer, List<R>> byRoute, TopicKey<R> key, boolean byId,
            TopicRouting catalog, PartitionLists<?, R> lists, List<R> out) {
        for (VisibleTopic v : catalog.visibleTopics()) {
            if (!v.woven()) {
                continue;
            }
            R merged = null;
            for (Map.Entry<Integer, List<R>> e : byRoute.entrySet()) {
                if (e.getValue() == null) {
                    continue;
                }
                for (R r : e.getValue()) {
                    int route = e.getKey();
                    // by id (OffsetFetch v10+): the answer names its topics by real id only
                    String name = byId ? segmentName(v, route, key.id().apply(r)) : key.name().apply(r);
                    if (name == null || catalog.wovenOf(route, name) != v) {
                        continue;
                    }
                    R copy = (R) r.duplicate();
                    lists.renumberResult().accept(copy, rp -> v.segments().toVirtual(route, name, rp));
                    if (merged == null) {
                        merged = copy;
                    } else {
                        lists.appendResult().accept(merged, copy);
                    }
                }
            }
            if (merged != null) {
                if (byId) {
                    key.setId().accept(merged, v.virtualId());
                } else {
                    key.setName().accept(merged, v.virtualName());
                }
                out.add(merged);
            }
        }
    }

    /** The real name of {@code v}'s segment topic with real id {@code realId} behind {@code route}, or null. */
    private static String segmentName(VisibleTopic v, int route, org.apache.kafka.common.Uuid realId) {
        if (realId == null || org.apache.kafka.common.Uuid.ZERO_UUID.equals(realId)) {
            return null;
        }
        for (dev.weft.routing.TopicSegment s : v.segments().list()) {
            if (s.route() == route && realId.equals(s.realId())) {
                return s.realName();
            }
        }
        return null;
    }

    private <R> Map<Object, R> index(TopicKey<R> responseKey, List<R> entries) {
        Map<Object, R> index = new HashMap<>();
        if (entries != null) {
            for (R r : entries) {
                index.putIfAbsent(responseKey.keyOf(r, byId), r);
            }
        }
        return index;
    }

    /**
     * A route's answer for "every topic" (a request naming no topics), restricted to the topics the
     * client can see and renamed to their virtual names or ids; hidden topics are left out.
     */
    static <R> List<R> visibleOnly(int route, List<R> entries, TopicKey<R> key, boolean byId, TopicRouting catalog) {
        List<R> out = new ArrayList<>();
        for (R r : entries) {
            if (byId) {
                VisibleTopic v = catalog.byRealId(route, key.id().apply(r));
                if (v != null) {
                    key.setId().accept(r, v.virtualId());
                    out.add(r);
                }
            } else {
                String virtualName = catalog.virtualNameOf(route, key.name().apply(r));
                if (virtualName != null) {
                    key.setName().accept(r, virtualName);
                    out.add(r);
                }
            }
        }
        return out;
    }
}
