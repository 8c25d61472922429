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
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.MessageUtil;

/**
 * Three routes for the group, offset and transaction planner tests:
 * <ul>
 * <li>{@code us} (0): prefix {@code us.}; real {@code orders}, {@code clicks} → {@code us.orders}, {@code us.clicks}
 * <li>{@code eu} (1): renames {@code orders → orders-eu}; real {@code orders}, {@code audit}
 * <li>{@code ap} (2): identity, hides {@code secret}; real {@code logs}, {@code secret}
 * </ul>
 * Groups and transactional ids: {@code eu-} → eu, {@code ap-} → ap, else us.
 */
final class GroupsFixture {

    static final int US = 0;
    static final int EU = 1;
    static final int AP = 2;

    static final Uuid US_ORDERS = new Uuid(11, 1);
    static final Uuid US_CLICKS = new Uuid(11, 2);
    static final Uuid EU_ORDERS = new Uuid(22, 1);
    static final Uuid EU_AUDIT = new Uuid(22, 2);
    /** The same id as eu's audit (two routes onto one cluster): logs gets a synthetic virtual id. */
    static final Uuid AP_LOGS = EU_AUDIT;
    static final Uuid AP_SECRET = new Uuid(33, 2);

    private GroupsFixture() {
    }

    static PlanDriver driver(int ownRoute) {
        PrefixHomes homes = new PrefixHomes(List.of(new PrefixRule("eu-", "eu"), new PrefixRule("ap-", "ap")), "us");
        TopicWeaveSettings settings = new TopicWeaveSettings(CollisionPolicy.REJECT, List.of(
                new RouteRules(TopicFilter.ALL, TopicNaming.prefix("us."), null),
                new RouteRules(TopicFilter.ALL, TopicNaming.renames(Map.of("orders", "orders-eu")), null),
                new RouteRules(new TopicFilter(List.of(), List.of("secret")), null, null)),
                homes, homes, null);
        return new PlanDriver(settings, List.of("us", "eu", "ap"), List.of(
                List.of(new RealTopic("orders", US_ORDERS), new RealTopic("clicks", US_CLICKS)),
                List.of(new RealTopic("orders", EU_ORDERS), new RealTopic("audit", EU_AUDIT)),
                List.of(new RealTopic("logs", AP_LOGS), new RealTopic("secret", AP_SECRET)))).ownRoute(ownRoute);
    }

    @SuppressWarnings("unchecked")
    static <T extends ApiMessage> T body(Part part) {
        return (T) part.body();
    }

    /** Fails when the message cannot be written in {@code version} (a field the version does not have). */
    static <T extends ApiMessage> T writable(T message, short version) {
        MessageUtil.toByteBufferAccessor(message, version);
        return message;
    }

    static void assertError(Errors expected, short actual) {
        assertEquals(expected, Errors.forCode(actual));
    }
}
