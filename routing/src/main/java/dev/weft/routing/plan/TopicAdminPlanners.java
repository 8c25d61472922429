package dev.weft.routing.plan;

import java.util.Map;
import org.apache.kafka.common.protocol.ApiKeys;

/** Admin and per-topic APIs routed by the route owning each topic (DESIGN §5, issue #4). */
final class TopicAdminPlanners {

    private TopicAdminPlanners() {
    }

    static void register(Map<ApiKeys, ColdPlanner> into) {
    }
}
