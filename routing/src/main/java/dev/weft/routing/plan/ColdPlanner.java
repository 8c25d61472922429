package dev.weft.routing.plan;

import org.apache.kafka.common.protocol.ApiMessage;

/**
 * Plans one API's requests for a virtual cluster over several routes. Implementations are stateless
 * and shared by every core; everything per request is in the arguments.
 */
@FunctionalInterface
public interface ColdPlanner {

    /**
     * @param request the client's request body, decoded (the planner may modify or reuse it)
     * @param version the client's API version; the answer is encoded in it
     * @param ctx the virtual cluster's view for this connection
     * @return the first step
     */
    Step plan(ApiMessage request, short version, PlanContext ctx);
}
