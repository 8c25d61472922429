package dev.weft.routing.plan;

import dev.weft.routing.GroupRouting;
import dev.weft.routing.RealTopic;
import dev.weft.routing.TopicRouting;
import dev.weft.routing.TransactionRouting;
import dev.weft.routing.node.NodeIdBijection;
import dev.weft.routing.topicweave.TopicCatalog;
import dev.weft.routing.topicweave.TopicWeaveSettings;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * Runs a {@link ColdPlanner} to its end for tests: every {@link Step.Send} part is answered by a
 * responder (a function playing the routes' brokers with real-shaped response bodies), and the parts
 * sent are recorded (each must be writable in its version). The context is a real {@link TopicCatalog}
 * over the given routes and topics (or any router's catalog),
 * node ids through a {@link NodeIdBijection}, gateway host {@code weft} and port {@code 9000 + id}.
 */
public final class PlanDriver implements PlanContext {

    /** What a plan ended with: the response (null when forwarded), whether forwarded, the parts sent. */
    public record Outcome(ApiMessage response, boolean forwarded, List<Part> sent, List<String> refusals) {
    }

    private final List<String> routeNames;
    private TopicRouting topics;
    private GroupRouting groups;
    private TransactionRouting transactions;
    private final NodeIdBijection bijection;
    private int ownRoute = -1;
    private final List<String> refusals = new ArrayList<>();
    private final KnownPartitions knownPartitions = new KnownPartitions();
    private dev.weft.routing.node.CollapsedNodes collapsed;
    private java.util.function.IntBinaryOperator leaders = (route, partition) -> -1;

    public PlanDriver(TopicWeaveSettings settings, List<String> routeNames, List<List<RealTopic>> topicsByRoute) {
        this.routeNames = List.copyOf(routeNames);
        this.topics = TopicCatalog.build(settings, routeNames, topicsByRoute);
        this.bijection = new NodeIdBijection(routeNames.size());
        // homes the way the router computes them
        dev.weft.routing.Router router = new dev.weft.routing.topicweave.TopicWeaveFactory().create("routers.w",
                new dev.weft.routing.dag.RouterSpec("w", "topic-weave", routeNames.stream()
                        .map(n -> new dev.weft.routing.dag.RouteSpec(n, new dev.weft.routing.dag.ClusterTarget(n)))
                        .toList(), settings), new ArrayList<>());
        this.groups = router.groups();
        this.transactions = router.transactions();
    }

    /** The same over any router of these routes: its catalog of {@code topicsByRoute}, its homes. */
    public PlanDriver(dev.weft.routing.Router router, List<String> routeNames, List<List<RealTopic>> topicsByRoute) {
        this.routeNames = List.copyOf(routeNames);
        this.topics = router.catalog(topicsByRoute);
        this.bijection = new NodeIdBijection(routeNames.size());
        this.groups = router.groups();
        this.transactions = router.transactions();
    }

    /** Plans as a collapsed virtual cluster over these proxy nodes; real leaders by (route, partition). */
    public PlanDriver collapsed(dev.weft.routing.node.CollapsedNodes nodes, java.util.function.IntBinaryOperator leaderOf) {
        this.collapsed = nodes;
        this.leaders = leaderOf;
        return this;
    }

    @Override
    public KnownPartitions knownPartitions() {
        return knownPartitions;
    }

    @Override
    public dev.weft.routing.node.CollapsedNodes collapsedNodes() {
        return collapsed;
    }

    @Override
    public int leaderOf(int route, String realTopic, int partition) {
        return leaders.applyAsInt(route, partition);
    }

    /** The connection is bound to a broker of {@code route} (-1: a bootstrap connection). */
    public PlanDriver ownRoute(int route) {
        this.ownRoute = route;
        return this;
    }

    public Outcome run(ColdPlanner planner, ApiMessage request, short version, Function<Part, Answer> responder) {
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
                        org.apache.kafka.common.protocol.MessageUtil.toByteBufferAccessor(p.body(), p.version());
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
        return routeNames.size();
    }

    @Override
    public String routeName(int route) {
        return routeNames.get(route);
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
    public void logRefusal(String message) {
        refusals.add(message);
    }
}
