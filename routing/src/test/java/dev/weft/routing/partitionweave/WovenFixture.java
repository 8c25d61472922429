package dev.weft.routing.partitionweave;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import dev.weft.routing.RealTopic;
import dev.weft.routing.Router;
import dev.weft.routing.TopicRouting;
import dev.weft.routing.dag.ClusterTarget;
import dev.weft.routing.dag.RouteSpec;
import dev.weft.routing.dag.RouterSpec;
import dev.weft.routing.dag.RoutingProblem;
import dev.weft.routing.plan.Answer;
import dev.weft.routing.plan.Part;
import dev.weft.routing.plan.PlanDriver;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.MessageUtil;

/**
 * A partition-weave router {@code routers.pw} over routes {@code east} (0) and {@code west} (1), built
 * through {@link PartitionWeaveFactory} from its config map. The standard logical topic {@code orders}:
 * east {@code orders} partitions 0-2 (virtual 0-2) + west {@code orders-eu} partitions 0-1 (virtual 3-4).
 * Groups and transactions are homed on east.
 */
final class WovenFixture {

    static final int EAST = 0;
    static final int WEST = 1;
    static final String NAME = "pw";
    static final String PATH = "routers." + NAME;
    static final List<String> ROUTES = List.of("east", "west");
    static final Uuid EAST_ORDERS = new Uuid(10, 1);
    static final Uuid WEST_ORDERS = new Uuid(20, 1);

    private WovenFixture() {
    }

    static Map<String, Object> seg(String route, String topic, String partitions) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("route", route);
        m.put("topic", topic);
        m.put("partitions", partitions);
        return m;
    }

    /** The router's config map with these logical topics (name, segment list, name, segment list, ...). */
    static Map<String, Object> config(Object... topicsAndSegments) {
        Map<String, Object> topics = new LinkedHashMap<>();
        for (int i = 0; i < topicsAndSegments.length; i += 2) {
            topics.put((String) topicsAndSegments[i], topicsAndSegments[i + 1]);
        }
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("type", "partition-weave");
        r.put("routes", ROUTES.stream().map(n -> Map.of("name", n, "target", Map.of("cluster", n))).toList());
        r.put("topics", topics);
        return r;
    }

    static Router router(Map<String, Object> config) {
        List<RoutingProblem> problems = new ArrayList<>();
        Router router = new PartitionWeaveFactory().create(PATH, new RouterSpec(NAME, PartitionWeaveFactory.TYPE,
                ROUTES.stream().map(n -> new RouteSpec(n, new ClusterTarget(n))).toList(), config), problems);
        assertEquals(List.of(), problems);
        assertNotNull(router);
        return router;
    }

    static Map<String, Object> ordersConfig() {
        return config("orders", List.of(seg("east", "orders", "0-2"), seg("west", "orders-eu", "0-1")));
    }

    static Router ordersRouter() {
        return router(ordersConfig());
    }

    /** What the routes show: east {@code orders} (3 partitions), west {@code orders-eu} (2). */
    static List<List<RealTopic>> realTopics() {
        return List.of(List.of(new RealTopic("orders", EAST_ORDERS, 3), new RealTopic("other", new Uuid(10, 2), 1)),
                List.of(new RealTopic("orders-eu", WEST_ORDERS, 2)));
    }

    static TopicRouting ordersCatalog() {
        return ordersRouter().catalog(realTopics());
    }

    /** A planner driver over {@code orders} (groups and transactions homed on east). */
    static PlanDriver driver() {
        return driver(ordersRouter(), realTopics());
    }

    /** A planner driver over {@code router}'s catalog of {@code topicsByRoute}. */
    static PlanDriver driver(Router router, List<List<RealTopic>> topicsByRoute) {
        return new PlanDriver(router, ROUTES, topicsByRoute);
    }

    /** Fails when the message cannot be written in {@code version}. */
    static <T extends ApiMessage> T writable(T message, short version) {
        MessageUtil.toByteBufferAccessor(message, version);
        return message;
    }

    static void assertError(Errors expected, short actual) {
        assertEquals(expected, Errors.forCode(actual));
    }

    @SuppressWarnings("unchecked")
    static <T extends ApiMessage> T body(Part part) {
        return (T) part.body();
    }

    /** A responder answering every part with {@code respond(part)}, or failing the parts of {@code failedRoute}. */
    static Function<Part, Answer> failing(int failedRoute, Function<Part, ApiMessage> respond) {
        return part -> part.route() == failedRoute
                ? Answer.failed(Errors.NETWORK_EXCEPTION, "connection refused")
                : Answer.of(respond.apply(part));
    }
}
