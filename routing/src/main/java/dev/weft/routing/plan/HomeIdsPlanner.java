package dev.weft.routing.plan;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * Requests naming several groups (or transactional ids) that only their coordinators can answer
 * (DescribeGroups, DeleteGroups, DescribeTransactions, ConsumerGroupDescribe). Each id lives on its
 * home route; the client sent the request to the coordinator it found there, so the ids homed on the
 * connection's own route go to its own broker and the others are answered NOT_COORDINATOR, which makes
 * the client look their coordinator up again. The answer keeps the client's order.
 *
 * @param <Q> the request class
 * @param <A> the response class
 * @param <E> the response's per-id entry class
 */
final class HomeIdsPlanner<Q extends ApiMessage, A extends ApiMessage, E> implements ColdPlanner {

    /** What differs between the APIs. */
    interface Shape<Q, A, E> {
        List<String> ids(Q request);

        /** A copy of the request naming only {@code ids}. */
        Q withIds(Q request, List<String> ids);

        List<E> entries(A response);

        String idOf(E entry);

        void setEntries(A response, List<E> entries);

        int homeRoute(PlanContext ctx, String id);

        /** Rewrites real topic names or ids inside an entry from {@code route}; false: nothing to rewrite. */
        default boolean translates() {
            return false;
        }

        default void toVirtual(E entry, int route, PlanContext ctx) {
        }
    }

    private final Shape<Q, A, E> shape;

    HomeIdsPlanner(Shape<Q, A, E> shape) {
        this.shape = shape;
    }

    @Override
    @SuppressWarnings("unchecked")
    public Step plan(ApiMessage request, short version, PlanContext ctx) {
        Q req = (Q) request;
        int own = ctx.ownRoute();
        List<String> ids = shape.ids(req);
        List<String> home = new ArrayList<>();
        List<String> elsewhere = new ArrayList<>();
        for (String id : ids) {
            (own >= 0 && shape.homeRoute(ctx, id) == own ? home : elsewhere).add(id);
        }
        if (home.isEmpty()) {
            return Step.respond(Refusals.errorResponse(req, version, Errors.NOT_COORDINATOR, null));
        }
        if (elsewhere.isEmpty() && !shape.translates()) {
            return Step.FORWARD;
        }
        Part part = new Part(own, Destination.OWN, version, shape.withIds(req, home));
        return Step.send(part, answer -> {
            A homeAnswer = answer.failed()
                    ? errors(req, home, version, Errors.COORDINATOR_NOT_AVAILABLE, answer.reason())
                    : (A) answer.body();
            Map<String, E> byId = new HashMap<>();
            for (E e : shape.entries(homeAnswer)) {
                if (!answer.failed()) {
                    shape.toVirtual(e, own, ctx);
                }
                byId.putIfAbsent(shape.idOf(e), e);
            }
            if (!elsewhere.isEmpty()) {
                for (E e : shape.entries(errors(req, elsewhere, version, Errors.NOT_COORDINATOR, null))) {
                    byId.putIfAbsent(shape.idOf(e), e);
                }
            }
            List<E> merged = new ArrayList<>();
            List<String> missing = new ArrayList<>();
            for (String id : ids) {
                E e = byId.get(id);
                if (e == null) {
                    missing.add(id);
                }
            }
            if (!missing.isEmpty()) {
                // a broker that left out an id it was asked about: retriable, never dropped
                for (E e : shape.entries(errors(req, missing, version, Errors.COORDINATOR_NOT_AVAILABLE, null))) {
                    byId.putIfAbsent(shape.idOf(e), e);
                }
            }
            for (String id : ids) {
                merged.add(byId.get(id));
            }
            shape.setEntries(homeAnswer, merged);
            return Step.respond(homeAnswer);
        });
    }

    @SuppressWarnings("unchecked")
    private A errors(Q req, List<String> ids, short version, Errors error, String message) {
        return (A) Refusals.errorResponse(shape.withIds(req, ids), version, error, message);
    }
}
