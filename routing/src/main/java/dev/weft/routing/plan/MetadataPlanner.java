package dev.weft.routing.plan;

import dev.weft.routing.merge.CollapsedMetadata;
import dev.weft.routing.merge.MetadataWeave;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * Metadata of a woven virtual cluster: one request per route (its real topic names), one merged
 * answer ({@link MetadataWeave}) with virtual node ids at the gateway's addresses, the virtual cluster
 * id and the catalog's names and ids. The routes' broker lists feed their topology caches; a topic the
 * client names that the catalog does not know makes the catalog refresh (rate-limited), so a topic
 * created behind the proxy's back shows up on the client's next retry. A route that does not answer
 * shows its topics' last known partitions without leaders ({@link KnownPartitions}).
 */
final class MetadataPlanner implements ColdPlanner {

    @Override
    public Step plan(ApiMessage request, short version, PlanContext ctx) {
        MetadataRequestData req = (MetadataRequestData) request;
        var topics = ctx.topics();
        if (req.topics() != null) {
            for (MetadataRequestData.MetadataRequestTopic t : req.topics()) {
                if (!MetadataWeave.askedById(t) && t.name() != null && topics.resolve(t.name()) == null) {
                    ctx.refreshCatalogSoon();
                    break;
                }
            }
        }
        List<Part> parts = new ArrayList<>();
        for (int route = 0; route < ctx.routeCount(); route++) {
            if (topics.routeServes(route)) {
                parts.add(new Part(route, Destination.ANY, version, MetadataWeave.requestFor(req, topics, route)));
            }
        }
        return new Step.Send(parts, answers -> {
            List<MetadataResponseData> byRoute = new ArrayList<>(java.util.Collections.nCopies(ctx.routeCount(), null));
            for (int i = 0; i < answers.size(); i++) {
                int route = parts.get(i).route();
                Answer a = answers.get(i);
                MetadataResponseData data = a.failed() ? null : (MetadataResponseData) a.body();
                MetadataRequestData asked = (MetadataRequestData) parts.get(i).body();
                if (data != null) {
                    ctx.learnTopology(route, data);
                    ctx.knownPartitions().learn(route, asked, data);
                } else {
                    data = ctx.knownPartitions().offline(route, asked, topics); // its partitions stay listed, leaderless
                }
                byRoute.set(route, data);
            }
            MetadataResponseData merged = MetadataWeave.merge(req, byRoute, topics, ctx::toVirtualNodeId, ctx.virtualClusterId());
            if (ctx.collapsedNodes() != null) {
                // the proxy nodes are the brokers; each partition led by its stable virtual leader
                return Step.respond(CollapsedMetadata.rewrite(merged, ctx.collapsedNodes(), null, ctx.virtualClusterId()));
            }
            for (MetadataResponseData.MetadataResponseBroker b : merged.brokers()) {
                b.setHost(ctx.brokerHost(b.nodeId())).setPort(ctx.brokerPort(b.nodeId()));
            }
            return Step.respond(merged);
        });
    }
}
