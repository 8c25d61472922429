package dev.weft.routing.plan;

import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.protocol.Errors;

/** Broker ids inside request and response bodies (replica assignments), virtual ↔ real for one route. */
final class BrokerIds {

    private BrokerIds() {
    }

    /**
     * The real ids of {@code virtualIds} on {@code route}; refuses the entry when one of them is a broker of
     * another route (a partition's replicas all live in the cluster that owns the topic).
     */
    static List<Integer> toReal(List<Integer> virtualIds, int route, PlanContext ctx) {
        if (virtualIds == null) {
            return null;
        }
        List<Integer> out = new ArrayList<>(virtualIds.size());
        for (int v : virtualIds) {
            if (v >= 0 && ctx.routeOfVirtualNodeId(v) != route) {
                throw new EntryRefusal(Errors.INVALID_REPLICA_ASSIGNMENT, "broker " + v + " belongs to route '"
                        + ctx.routeName(ctx.routeOfVirtualNodeId(v)) + "', but the topic lives on route '"
                        + ctx.routeName(route) + "': replicas must be brokers of the topic's cluster");
            }
            out.add(ctx.realNodeId(v));
        }
        return out;
    }

    static List<Integer> toVirtual(List<Integer> realIds, int route, PlanContext ctx) {
        if (realIds == null) {
            return null;
        }
        List<Integer> out = new ArrayList<>(realIds.size());
        for (int r : realIds) {
            out.add(ctx.toVirtualNodeId(route, r));
        }
        return out;
    }
}
