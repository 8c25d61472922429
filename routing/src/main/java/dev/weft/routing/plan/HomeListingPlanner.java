package dev.weft.routing.plan;

import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.message.ListTransactionsResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * ListGroups and ListTransactions: clients ask every broker and union the answers, so a connection
 * bound to a route answers with what its own broker coordinates, restricted to the ids homed on that
 * route. Cross-cluster offset commits create offsets-only ("simple") groups on other clusters; without
 * the restriction one group would show up once per cluster. A bootstrap connection has no own broker:
 * it asks any broker of every route and merges each route's home ids.
 */
final class HomeListingPlanner<A extends ApiMessage, E> implements ColdPlanner {

    /** What differs between the two APIs. */
    interface Shape<A, E> {
        List<E> entries(A response);

        void setEntries(A response, List<E> entries);

        String idOf(E entry);

        short errorCode(A response);

        void setErrorCode(A response, short code);

        int throttleTimeMs(A response);

        void setThrottleTimeMs(A response, int ms);

        int homeRoute(PlanContext ctx, String id);
    }

    private final Shape<A, E> shape;

    HomeListingPlanner(Shape<A, E> shape) {
        this.shape = shape;
    }

    static ColdPlanner listGroups() {
        return new HomeListingPlanner<>(new Shape<ListGroupsResponseData, ListGroupsResponseData.ListedGroup>() {
            public List<ListGroupsResponseData.ListedGroup> entries(ListGroupsResponseData a) {
                return a.groups();
            }

            public void setEntries(ListGroupsResponseData a, List<ListGroupsResponseData.ListedGroup> es) {
                a.setGroups(es);
            }

            public String idOf(ListGroupsResponseData.ListedGroup e) {
                return e.groupId();
            }

            public short errorCode(ListGroupsResponseData a) {
                return a.errorCode();
            }

            public void setErrorCode(ListGroupsResponseData a, short code) {
                a.setErrorCode(code);
            }

            public int throttleTimeMs(ListGroupsResponseData a) {
                return a.throttleTimeMs();
            }

            public void setThrottleTimeMs(ListGroupsResponseData a, int ms) {
                a.setThrottleTimeMs(ms);
            }

            public int homeRoute(PlanContext ctx, String id) {
                return ctx.groups().homeRoute(id);
            }
        });
    }

    static ColdPlanner listTransactions() {
        return new HomeListingPlanner<>(new Shape<ListTransactionsResponseData,
                ListTransactionsResponseData.TransactionState>() {
            public List<ListTransactionsResponseData.TransactionState> entries(ListTransactionsResponseData a) {
                return a.transactionStates();
            }

            public void setEntries(ListTransactionsResponseData a, List<ListTransactionsResponseData.TransactionState> es) {
                a.setTransactionStates(es);
            }

            public String idOf(ListTransactionsResponseData.TransactionState e) {
                return e.transactionalId();
            }

            public short errorCode(ListTransactionsResponseData a) {
                return a.errorCode();
            }

            public void setErrorCode(ListTransactionsResponseData a, short code) {
                a.setErrorCode(code);
            }

            public int throttleTimeMs(ListTransactionsResponseData a) {
                return a.throttleTimeMs();
            }

            public void setThrottleTimeMs(ListTransactionsResponseData a, int ms) {
                a.setThrottleTimeMs(ms);
            }

            public int homeRoute(PlanContext ctx, String id) {
                return ctx.transactions().homeRoute(id);
            }
        });
    }

    @Override
    @SuppressWarnings("unchecked")
    public Step plan(ApiMessage request, short version, PlanContext ctx) {
        int own = ctx.ownRoute();
        List<Integer> routes = new ArrayList<>();
        List<Part> parts = new ArrayList<>();
        if (own >= 0) {
            routes.add(own);
            parts.add(new Part(own, Destination.OWN, version, request));
        } else {
            for (int r = 0; r < ctx.routeCount(); r++) {
                if (ctx.topics().routeServes(r)) {
                    routes.add(r);
                    parts.add(new Part(r, Destination.ANY, version, request));
                }
            }
        }
        return new Step.Send(parts, answers -> {
            A merged = null;
            List<E> entries = new ArrayList<>();
            short error = Errors.NONE.code();
            int throttle = 0;
            for (int i = 0; i < routes.size(); i++) {
                Answer answer = answers.get(i);
                if (answer.failed()) {
                    // a route that did not answer: the list would be incomplete; clients retry this error
                    error = error == Errors.NONE.code() ? Errors.COORDINATOR_NOT_AVAILABLE.code() : error;
                    continue;
                }
                A body = (A) answer.body();
                merged = merged == null ? body : merged;
                throttle = Math.max(throttle, shape.throttleTimeMs(body));
                error = error == Errors.NONE.code() ? shape.errorCode(body) : error;
                int route = routes.get(i);
                entries.addAll(homedOn(route, shape.entries(body), ctx));
            }
            if (merged == null) {
                return Step.respond(Refusals.errorResponse(request, version, Errors.COORDINATOR_NOT_AVAILABLE,
                        answers.getFirst().reason()));
            }
            shape.setEntries(merged, entries);
            shape.setErrorCode(merged, error);
            shape.setThrottleTimeMs(merged, throttle);
            return Step.respond(merged);
        });
    }

    private List<E> homedOn(int route, List<E> entries, PlanContext ctx) {
        return entries.stream().filter(e -> shape.homeRoute(ctx, shape.idOf(e)) == route).toList();
    }
}
