package dev.weft.routing.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.weft.routing.RealTopic;
import dev.weft.routing.topicweave.CollisionPolicy;
import dev.weft.routing.topicweave.PrefixHomes;
import dev.weft.routing.topicweave.PrefixRule;
import dev.weft.routing.topicweave.RouteRules;
import dev.weft.routing.topicweave.TopicFilter;
import dev.weft.routing.topicweave.TopicNaming;
import dev.weft.routing.topicweave.TopicWeaveSettings;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * Three routes for the admin planner tests:
 * <ul>
 * <li>{@code us} (0): prefix {@code us.}; real {@code orders}, {@code clicks} → {@code us.orders}, {@code us.clicks}
 * <li>{@code eu} (1): renames {@code orders → orders-eu}; real {@code orders}, {@code audit}, {@code shared}
 * <li>{@code ap} (2): identity, excludes {@code secret}; real {@code shared}, {@code payments}, {@code secret}
 * </ul>
 * {@code shared} collides between eu and ap; policy qualify exposes {@code eu.shared} and {@code ap.shared}.
 * Placement: {@code us.} → us, {@code eu-} → eu, else ap. Groups: {@code eu-} → eu, else us.
 */
final class WeaveFixture {

    static final int US = 0;
    static final int EU = 1;
    static final int AP = 2;

    static final Uuid US_ORDERS = new Uuid(1, 1);
    static final Uuid US_CLICKS = new Uuid(1, 2);
    static final Uuid EU_ORDERS = new Uuid(2, 1);
    static final Uuid EU_AUDIT = new Uuid(2, 2);
    static final Uuid EU_SHARED = new Uuid(2, 3);
    static final Uuid AP_SHARED = new Uuid(3, 1);
    static final Uuid AP_PAYMENTS = new Uuid(3, 2);
    static final Uuid AP_SECRET = new Uuid(3, 3);

    private WeaveFixture() {
    }

    static PlanDriver driver() {
        TopicWeaveSettings settings = new TopicWeaveSettings(CollisionPolicy.QUALIFY, List.of(
                new RouteRules(TopicFilter.ALL, TopicNaming.prefix("us."), null),
                new RouteRules(TopicFilter.ALL, TopicNaming.renames(Map.of("orders", "orders-eu")), null),
                new RouteRules(new TopicFilter(List.of(), List.of("secret")), null, null)),
                new PrefixHomes(List.of(new PrefixRule("eu-", "eu")), "us"),
                null,
                new PrefixHomes(List.of(new PrefixRule("us.", "us"), new PrefixRule("eu-", "eu")), "ap"));
        return new PlanDriver(settings, List.of("us", "eu", "ap"), List.of(
                List.of(new RealTopic("orders", US_ORDERS), new RealTopic("clicks", US_CLICKS)),
                List.of(new RealTopic("orders", EU_ORDERS), new RealTopic("audit", EU_AUDIT),
                        new RealTopic("shared", EU_SHARED)),
                List.of(new RealTopic("shared", AP_SHARED), new RealTopic("payments", AP_PAYMENTS),
                        new RealTopic("secret", AP_SECRET))));
    }

    /** A responder answering every part with {@code respond(part)}, or failing the parts of {@code failedRoute}. */
    static Function<Part, Answer> failing(int failedRoute, Function<Part, ApiMessage> respond) {
        return part -> part.route() == failedRoute
                ? Answer.failed(Errors.NETWORK_EXCEPTION, "connection refused")
                : Answer.of(respond.apply(part));
    }

    static Function<Part, Answer> answering(Function<Part, ApiMessage> respond) {
        return failing(-1, respond);
    }

    @SuppressWarnings("unchecked")
    static <T extends ApiMessage> T body(Part part) {
        return (T) part.body();
    }

    static void assertError(Errors expected, short actualCode) {
        assertEquals(expected, Errors.forCode(actualCode));
    }
}
