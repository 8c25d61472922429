package dev.weft.routing.plan;

import java.util.Map;
import org.apache.kafka.common.protocol.ApiKeys;

/** Consumer groups, offsets and transactions across routes (DESIGN §5). */
final class GroupPlanners {

    private GroupPlanners() {
    }

    static void register(Map<ApiKeys, ColdPlanner> into) {
    }
}
