package dev.weft.routing.partitionweave;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import dev.weft.routing.GroupRouting;
import dev.weft.routing.RealTopic;
import dev.weft.routing.Router;
import dev.weft.routing.TopicRouting;
import dev.weft.routing.TransactionRouting;
import dev.weft.routing.dag.ClusterTarget;
import dev.weft.routing.dag.RouteSpec;
import dev.weft.routing.dag.RouterSpec;
import dev.weft.routing.dag.RoutingProblem;
import dev.weft.routing.node.CollapsedNodes;
import dev.weft.routing.node.NodeIdBijection;
import dev.weft.routing.plan.Answer;
import dev.weft.routing.plan.ColdPlanner;
import dev.weft.routing.plan.Destination;
import dev.weft.routing.plan.KnownPartitions;
import dev.weft.routing.plan.Part;
import dev.weft.routing.plan.PlanContext;
import dev.weft.routing.plan.Step;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.IntBinaryOperator;
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

    static Driver driver() {
        return new Driver(ordersRouter(), realTopics());
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

    /**
     * Runs a planner against the partition-weave router's catalog, groups and transactions (node ids
     * through a {@link NodeIdBijection}), answering every part with a responder and recording the parts.
     */
    static final class Driver implements PlanContext {

        record Outcome(ApiMessage response, boolean forwarded, List<Part> sent, List<String> refusals) {
        }

        private final TopicRouting topics;
        private final GroupRouting groups;
        private final TransactionRouting transactions;
        private final NodeIdBijection bijection = new NodeIdBijection(ROUTES.size());
        private final KnownPartitions knownPartitions = new KnownPartitions();
        private final List<String> refusals = new ArrayList<>();
        private int ownRoute = -1;
        private CollapsedNodes collapsed;
        private IntBinaryOperator leaders = (route, partition) -> -1;

        Driver(Router router, List<List<RealTopic>> topicsByRoute) {
            this.topics = router.catalog(topicsByRoute);
            this.groups = router.groups();
            this.transactions = router.transactions();
        }

        Driver ownRoute(int route) {
            this.ownRoute = route;
            return this;
        }

        /** Collapsed topology: real leaders by (route, real partition). */
        Driver collapsed(CollapsedNodes nodes, IntBinaryOperator leaderOf) {
            this.collapsed = nodes;
            this.leaders = leaderOf;
            return this;
        }

        Outcome run(ColdPlanner planner, ApiMessage request, short version, Function<Part, Answer> responder) {
            List<Part> sent = new ArrayList<>();
            refusals.clear();
            Step step = planner.plan(request, version, this);
            for (int guard = 0; guard < 100; guard++) {
                switch (step) {
                    case Step.Respond r -> {
                        return new Outcome(r.body(), false, sent, List.copyOf(refusals));
                    }
                    case Step.Forward f -> {
                        return new Outcome(null, true, sent, List.copyOf(refusals));
                    }
                    case Step.Send s -> {
                        List<Answer> answers = new ArrayList<>();
                        for (Part p : s.parts()) {
                            if (p.to() instanceof Destination.OwnBroker && p.route() != ownRoute) {
                                throw new AssertionError("part to OWN broker of route " + p.route()
                                        + " but the connection is bound to route " + ownRoute);
                            }
                            // every part must be writable in its version, as the proxy will write it
                            MessageUtil.toByteBufferAccessor(p.body(), p.version());
                            sent.add(p);
                            answers.add(responder.apply(p));
                        }
                        step = s.then().apply(answers);
                    }
                }
            }
            throw new AssertionError("plan did not finish in 100 steps");
        }

        @Override
        public TopicRouting topics() {
            return topics;
        }

        @Override
        public GroupRouting groups() {
            return groups;
        }

        @Override
        public TransactionRouting transactions() {
            return transactions;
        }

        @Override
        public int routeCount() {
            return ROUTES.size();
        }

        @Override
        public String routeName(int route) {
            return ROUTES.get(route);
        }

        @Override
        public int ownRoute() {
            return ownRoute;
        }

        @Override
        public int toVirtualNodeId(int route, int realNodeId) {
            return bijection.toVirtual(route, realNodeId);
        }

        @Override
        public int routeOfVirtualNodeId(int virtualNodeId) {
            return bijection.routeOf(virtualNodeId);
        }

        @Override
        public int realNodeId(int virtualNodeId) {
            return bijection.realNodeId(virtualNodeId);
        }

        @Override
        public String brokerHost(int virtualNodeId) {
            return "weft";
        }

        @Override
        public int brokerPort(int virtualNodeId) {
            return 9000 + virtualNodeId;
        }

        @Override
        public String virtualClusterId() {
            return "virtual-cluster-id";
        }

        @Override
        public String virtualClusterName() {
            return "main";
        }

        @Override
        public short maxVersion(short apiKey) {
            return org.apache.kafka.common.protocol.ApiKeys.forId(apiKey).latestVersion();
        }

        @Override
        public CollapsedNodes collapsedNodes() {
            return collapsed;
        }

        @Override
        public int leaderOf(int route, String realTopic, int partition) {
            return leaders.applyAsInt(route, partition);
        }

        @Override
        public KnownPartitions knownPartitions() {
            return knownPartitions;
        }

        @Override
        public void logRefusal(String message) {
            refusals.add(message);
        }
    }
}
