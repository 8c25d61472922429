package dev.weft.routing.plan;

import dev.weft.routing.VisibleTopic;
import java.util.List;
import org.apache.kafka.common.message.DescribeLogDirsRequestData;
import org.apache.kafka.common.message.DescribeLogDirsRequestData.DescribableLogDirTopic;
import org.apache.kafka.common.message.DescribeLogDirsResponseData;
import org.apache.kafka.common.message.DescribeLogDirsResponseData.DescribeLogDirsResult;
import org.apache.kafka.common.message.DescribeLogDirsResponseData.DescribeLogDirsTopic;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * DescribeLogDirs describes the disks of the broker the client connected to (Admin sends it to each
 * broker it asks about), so it goes to the connection's own broker; a bootstrap connection has none.
 * Asked-for topics are renamed to real names (a topic that broker's cluster does not hold is left out:
 * it has no log dirs there); answered topics are renamed back and hidden ones dropped.
 */
final class DescribeLogDirsPlanner implements ColdPlanner {

    @Override
    public Step plan(ApiMessage request, short version, PlanContext ctx) {
        int route = ctx.ownRoute();
        if (route < 0) {
            return Refusals.refuse(request, version, ctx, Errors.INVALID_REQUEST,
                    "DescribeLogDirs describes one broker's disks: send it to a broker, not to the bootstrap address");
        }
        DescribeLogDirsRequestData req = (DescribeLogDirsRequestData) request.duplicate();
        if (req.topics() != null) {
            DescribeLogDirsRequestData.DescribableLogDirTopicCollection real = new DescribeLogDirsRequestData.DescribableLogDirTopicCollection();
            for (DescribableLogDirTopic t : List.copyOf(req.topics())) {
                VisibleTopic topic = ctx.topics().resolve(t.topic());
                if (topic != null && topic.route() == route) {
                    real.add(t.duplicate().setTopic(topic.realName()));
                }
            }
            req.setTopics(real);
        }
        return Step.send(new Part(route, Destination.OWN, version, req), answer -> {
            if (answer.failed()) {
                return Step.respond(Refusals.errorResponse(request, version, answer.failure(),
                        "route '" + ctx.routeName(route) + "' failed: " + answer.reason()));
            }
            DescribeLogDirsResponseData body = (DescribeLogDirsResponseData) answer.body();
            for (DescribeLogDirsResult dir : body.results()) {
                dir.setTopics(renamedVisible(dir.topics(), route, ctx));
            }
            return Step.respond(body);
        });
    }

    private static List<DescribeLogDirsTopic> renamedVisible(List<DescribeLogDirsTopic> topics, int route,
            PlanContext ctx) {
        return topics.stream().filter(t -> ctx.topics().virtualNameOf(route, t.name()) != null)
                .map(t -> t.setName(ctx.topics().virtualNameOf(route, t.name()))).toList();
    }
}
