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

    /**
     * @param topics the client's topic entries
     * @param byId true when this API version names topics by id (resolved with
     *     {@link TopicRouting#byVirtualId}), else by name
     */
    TopicsByRoute(List<T> topics, TopicKey<T> key, boolean byId, TopicRouting catalog) {
        this.topics = topics;
        this.key = key;
        this.byId = byId;
        this.resolved = new VisibleTopic[topics.size()];
        for (int i = 0; i < resolved.length; i++) {
            T t = topics.get(i);
            resolved[i] = byId ? catalog.byVirtualId(key.id().apply(t)) : catalog.resolve(key.name().apply(t));
        }
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
        for (VisibleTopic v : resolved) {
            if (v != null) {
                out.add(v.route());
            }
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
        for (VisibleTopic v : resolved) {
            if (v != null && v.route() == route) {
                return true;
            }
        }
        return false;
    }

    /** Copies of the entries owned by {@code route}, renamed to the route's real name or id. */
    @SuppressWarnings("unchecked")
    List<T> toReal(int route) {
        List<T> out = new ArrayList<>();
        for (int i = 0; i < resolved.length; i++) {
            VisibleTopic v = resolved[i];
            if (v != null && v.route() == route) {
                T copy = (T) topics.get(i).duplicate();
                if (byId) {
                    key.setId().accept(copy, v.realId());
                } else {
                    key.setName().accept(copy, v.realName());
                }
                out.add(copy);
            }
        }
        return out;
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
