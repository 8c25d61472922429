package dev.weft.routing.plan;

import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * The cold-path planners of a multi-route virtual cluster, by API key. An API without a planner is
 * not advertised in ApiVersions and is refused if a client sends it anyway (never forwarded to an
 * arbitrary cluster). Produce and Fetch (hot path) and ApiVersions (answered by the proxy) are not here.
 */
public final class Planners {

    private static final ColdPlanner[] BY_KEY = build();

    private Planners() {
    }

    private static ColdPlanner[] build() {
        Map<ApiKeys, ColdPlanner> all = new HashMap<>();
        GroupPlanners.register(all);
        TopicAdminPlanners.register(all);
        int max = 0;
        for (ApiKeys k : all.keySet()) {
            max = Math.max(max, k.id);
        }
        ColdPlanner[] out = new ColdPlanner[max + 1];
        all.forEach((k, p) -> out[k.id] = p);
        return out;
    }

    /**
     * How a router that decides by topic over several routes handles {@code apiKey}: Produce and Fetch on
     * the hot path, ApiVersions answered by the proxy, Metadata and InitProducerId planned by the proxy
     * (they need its state: broker lists, producer ids), every API with a planner here planned, and the
     * rest refused (not advertised).
     */
    public static dev.weft.routing.api.ApiRoute catalogApiRoute(short apiKey) {
        if (apiKey == ApiKeys.PRODUCE.id || apiKey == ApiKeys.FETCH.id) {
            return dev.weft.routing.api.ApiRoute.HOT;
        }
        if (apiKey == ApiKeys.API_VERSIONS.id) {
            return dev.weft.routing.api.ApiRoute.ANSWERED;
        }
        if (forApi(apiKey) != null) {
            return dev.weft.routing.api.ApiRoute.PLANNED;
        }
        return dev.weft.routing.api.ApiRoute.REFUSED;
    }

    /** The planner of {@code apiKey}, or null when a multi-route virtual cluster refuses that API. */
    public static ColdPlanner forApi(short apiKey) {
        return apiKey >= 0 && apiKey < BY_KEY.length ? BY_KEY[apiKey] : null;
    }
}
