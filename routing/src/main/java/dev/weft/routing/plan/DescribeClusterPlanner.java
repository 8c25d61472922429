package dev.weft.routing.plan;

import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.message.DescribeClusterResponseData.DescribeClusterBroker;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * DescribeCluster: every route's brokers, under virtual node ids and the gateway's addresses, in one
 * virtual cluster. A route that fails fails the request with its retriable error rather than leaving
 * its brokers out silently. The controller and the cluster authorized operations are the first
 * route's.
 */
final class DescribeClusterPlanner implements ColdPlanner {

    private static final byte CONTROLLER_ENDPOINTS = 2;

    @Override
    public Step plan(ApiMessage request, short version, PlanContext ctx) {
        DescribeClusterRequestData req = (DescribeClusterRequestData) request;
        if (req.endpointType() == CONTROLLER_ENDPOINTS) {
            return Refusals.refuse(request, version, ctx, Errors.INVALID_REQUEST,
                    "controller endpoints are not exposed through a proxy");
        }
        List<Part> parts = new ArrayList<>(ctx.routeCount());
        for (int route = 0; route < ctx.routeCount(); route++) {
            if (ctx.topics().routeServes(route)) {
                parts.add(new Part(route, Destination.ANY, version, req.duplicate()));
            }
        }
        return new Step.Send(parts, answers -> merge(request, version, parts, answers, ctx));
    }

    private static Step merge(ApiMessage request, short version, List<Part> parts, List<Answer> answers, PlanContext ctx) {
        DescribeClusterResponseData out = new DescribeClusterResponseData()
                .setEndpointType(((DescribeClusterRequestData) request).endpointType())
                .setClusterId(ctx.virtualClusterId());
        for (int i = 0; i < answers.size(); i++) {
            int route = parts.get(i).route();
            Answer a = answers.get(i);
            if (a.failed()) {
                return Step.respond(Refusals.errorResponse(request, version, a.failure(),
                        "route '" + ctx.routeName(route) + "' failed: " + a.reason()));
            }
            DescribeClusterResponseData body = (DescribeClusterResponseData) a.body();
            if (body.errorCode() != Errors.NONE.code()) {
                return Step.respond(body.setClusterId(ctx.virtualClusterId()).setBrokers(
                        new DescribeClusterResponseData.DescribeClusterBrokerCollection()).setControllerId(-1));
            }
            out.setThrottleTimeMs(Math.max(out.throttleTimeMs(), body.throttleTimeMs()));
            if (i == 0) {
                out.setControllerId(body.controllerId() < 0 ? -1 : ctx.toVirtualNodeId(route, body.controllerId()))
                        .setClusterAuthorizedOperations(body.clusterAuthorizedOperations());
            }
            for (DescribeClusterBroker b : ctx.collapsedNodes() != null ? List.<DescribeClusterBroker>of() : body.brokers()) {
                int virtualId = ctx.toVirtualNodeId(route, b.brokerId());
                out.brokers().add(new DescribeClusterBroker().setBrokerId(virtualId)
                        .setHost(ctx.brokerHost(virtualId)).setPort(ctx.brokerPort(virtualId))
                        .setRack(b.rack()).setIsFenced(b.isFenced()));
            }
        }
        if (ctx.collapsedNodes() != null) {
            out = dev.weft.routing.merge.CollapsedMetadata.rewrite(out, ctx.collapsedNodes(), ctx.virtualClusterId());
        }
        return Step.respond(out);
    }
}
