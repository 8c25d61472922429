package dev.weft.routing.plan;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.FindCoordinatorResponseData.Coordinator;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.FindCoordinatorRequest.CoordinatorType;

/**
 * FindCoordinator: a group's coordinator is found on its home route, a transactional id's on the
 * transaction's home route (DESIGN §5), and the answer names the virtual broker in front of it. The
 * request goes to any broker of the home route (every broker can answer it); batched keys (v4+) with
 * different homes become one part per route, merged back in the client's key order.
 */
final class FindCoordinatorPlanner implements ColdPlanner {

    /** v4 batches keys; below, one key per request. */
    private static final short FIRST_BATCHED = 4;

    @Override
    public Step plan(ApiMessage request, short version, PlanContext ctx) {
        FindCoordinatorRequestData req = (FindCoordinatorRequestData) request;
        byte keyType = version == 0 ? CoordinatorType.GROUP.id() : req.keyType();
        if (keyType != CoordinatorType.GROUP.id() && keyType != CoordinatorType.TRANSACTION.id()) {
            return refuse(req, version, ctx, "FindCoordinator key type " + keyType
                    + (keyType == CoordinatorType.SHARE.id() ? " (share groups)" : "")
                    + " is not supported by virtual cluster '" + ctx.virtualClusterName()
                    + "' over several clusters: only consumer groups and transactional ids have a home cluster");
        }
        if (ctx.collapsedNodes() != null) {
            // Every proxy node reaches every coordinator: the answer only spreads clients over the nodes.
            return Step.respond(dev.weft.routing.merge.CollapsedMetadata.findCoordinator(req, version,
                    ctx.collapsedNodes(), null));
        }
        List<String> keys = version >= FIRST_BATCHED ? req.coordinatorKeys() : List.of(req.key());
        Map<Integer, List<String>> keysByRoute = new LinkedHashMap<>();
        for (String key : keys) {
            keysByRoute.computeIfAbsent(home(ctx, keyType, key), r -> new ArrayList<>()).add(key);
        }
        List<Integer> routes = List.copyOf(keysByRoute.keySet());
        List<Part> parts = new ArrayList<>();
        for (int route : routes) {
            FindCoordinatorRequestData body = version >= FIRST_BATCHED
                    ? new FindCoordinatorRequestData().setKeyType(keyType).setCoordinatorKeys(keysByRoute.get(route))
                    : req.duplicate();
            parts.add(new Part(route, Destination.ANY, version, body));
        }
        return new Step.Send(parts, answers -> {
            Map<String, Coordinator> byKey = new HashMap<>();
            int throttle = 0;
            for (int i = 0; i < routes.size(); i++) {
                int route = routes.get(i);
                Answer answer = answers.get(i);
                if (!answer.failed()) {
                    throttle = Math.max(throttle, ((FindCoordinatorResponseData) answer.body()).throttleTimeMs());
                }
                for (Coordinator c : coordinators(answer, keysByRoute.get(route), version)) {
                    byKey.putIfAbsent(c.key(), toVirtual(c, route, ctx));
                }
            }
            return Step.respond(respond(keys, byKey, throttle, version));
        });
    }

    private static int home(PlanContext ctx, byte keyType, String key) {
        return keyType == CoordinatorType.GROUP.id() ? ctx.groups().homeRoute(key) : ctx.transactions().homeRoute(key);
    }

    /** One entry per key asked of a route; a failed answer makes every key retriable. */
    private static List<Coordinator> coordinators(Answer answer, List<String> keys, short version) {
        if (answer.failed()) {
            return keys.stream().map(k -> unavailable(k, answer.reason())).toList();
        }
        FindCoordinatorResponseData body = (FindCoordinatorResponseData) answer.body();
        if (version >= FIRST_BATCHED) {
            return body.coordinators();
        }
        return List.of(new Coordinator().setKey(keys.getFirst()).setNodeId(body.nodeId()).setHost(body.host())
                .setPort(body.port()).setErrorCode(body.errorCode()).setErrorMessage(body.errorMessage()));
    }

    private static Coordinator unavailable(String key, String reason) {
        return new Coordinator().setKey(key).setNodeId(-1).setHost("").setPort(-1)
                .setErrorCode(Errors.COORDINATOR_NOT_AVAILABLE.code()).setErrorMessage(reason);
    }

    /** The coordinator as the client must reach it: the virtual broker (and gateway address) in front of it. */
    private static Coordinator toVirtual(Coordinator c, int route, PlanContext ctx) {
        if (c.errorCode() != Errors.NONE.code() || c.nodeId() < 0) {
            return c;
        }
        int virtualId = ctx.toVirtualNodeId(route, c.nodeId());
        return c.setNodeId(virtualId).setHost(ctx.brokerHost(virtualId)).setPort(ctx.brokerPort(virtualId));
    }

    private static FindCoordinatorResponseData respond(List<String> keys, Map<String, Coordinator> byKey, int throttle,
            short version) {
        FindCoordinatorResponseData out = new FindCoordinatorResponseData().setThrottleTimeMs(throttle);
        if (version >= FIRST_BATCHED) {
            List<Coordinator> ordered = new ArrayList<>();
            for (String key : keys) {
                ordered.add(byKey.getOrDefault(key, unavailable(key, "no answer for this key")));
            }
            return out.setCoordinators(ordered);
        }
        Coordinator c = byKey.getOrDefault(keys.getFirst(), unavailable(keys.getFirst(), "no answer"));
        out.setErrorCode(c.errorCode()).setNodeId(c.nodeId()).setHost(c.host()).setPort(c.port());
        if (version >= 1) {
            out.setErrorMessage(c.errorMessage());
        }
        return out;
    }

    /** INVALID_REQUEST carrying the reason (kafka-clients' own error response puts the error's default text). */
    private static Step refuse(FindCoordinatorRequestData req, short version, PlanContext ctx, String message) {
        ctx.logRefusal(message);
        FindCoordinatorResponseData resp = (FindCoordinatorResponseData) Refusals.errorResponse(req, version,
                Errors.INVALID_REQUEST, message);
        if (version >= FIRST_BATCHED) {
            resp.coordinators().forEach(c -> c.setErrorMessage(message));
        } else if (version >= 1) {
            resp.setErrorMessage(message);
        }
        return Step.respond(resp);
    }
}
