package dev.weft.routing.rack;

import static dev.weft.routing.api.HotFrames.fetch;
import static dev.weft.routing.api.HotFrames.produce;
import static dev.weft.routing.api.HotFrames.topic;
import static dev.weft.routing.topology.ReplicaSnapshots.leadership;
import static dev.weft.routing.topology.ReplicaSnapshots.partition;
import static dev.weft.routing.topology.ReplicaSnapshots.racked;
import static dev.weft.routing.topology.ReplicaSnapshots.rackless;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.protocol.fetch.FetchRequestSkim;
import dev.weft.protocol.produce.ProduceRequestSkim;
import dev.weft.protocol.skim.PartitionSkim;
import dev.weft.routing.ClusterRouters;
import dev.weft.routing.RealTopic;
import dev.weft.routing.Router;
import dev.weft.routing.RouterRegistry;
import dev.weft.routing.api.HotCatalog;
import dev.weft.routing.api.HotContext;
import dev.weft.routing.api.HotFrames;
import dev.weft.routing.api.FollowerEndChecks;
import dev.weft.routing.api.RoutePlan;
import dev.weft.routing.api.TopicNameCache;
import dev.weft.routing.dag.RouteSpec;
import dev.weft.routing.dag.RouteTarget;
import dev.weft.routing.dag.RouterSpec;
import dev.weft.routing.dag.RoutingProblem;
import dev.weft.routing.passthrough.PassThroughRouter;
import dev.weft.routing.topology.ClusterTopology;
import dev.weft.routing.topology.PartitionLeadership;
import dev.weft.routing.topology.ReplicaSnapshots;
import io.netty.buffer.ByteBuf;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Rack-aware fetch for a proxy in zone {@code b}, over the two routers a one-cluster virtual cluster
 * uses: the pass-through router (mirrored: every partition to the connection's own broker) and the
 * collapsed one-route weave (every partition to its leader). Brokers 0, 1, 2 live in racks a, b, c.
 *
 * <p>{@code orders}:
 * <ul>
 *   <li>p0: leader 0, ISR {0, 1, 2} — an in-sync follower in zone b;</li>
 *   <li>p1: leader 1, ISR {1, 0, 2} — led in zone b;</li>
 *   <li>p2: leader 0, replicas and ISR {0, 2} — no replica in zone b;</li>
 *   <li>p3: leader 2, replicas {2, 1, 0}, ISR {2, 0} — the zone-b replica is out of sync;</li>
 *   <li>p4: leader 0, ISR {0, 1} — broker 2 is neither leader nor in sync.</li>
 * </ul>
 * {@code clicks} p0: leader 2, ISR {2, 1, 0} — an in-sync follower in zone b. {@code ghost} is known to
 * nobody; {@code fresh} is in the weave's catalog but the topology cache knows none of its leaders.
 */
class InZoneReplicaPlannerTest {

    private static final String ZONE = "b";
    private static final Uuid ORDERS = new Uuid(0x0A, 1);
    private static final Uuid CLICKS = new Uuid(0x0B, 2);
    private static final Uuid FRESH = new Uuid(0x0C, 3);
    private static final Uuid GHOST = new Uuid(0x0D, 4);
    private static final short NAMES = 12;
    private static final short IDS = HotFrames.FETCH_TOPIC_IDS;

    private static final PartitionLeadership LEADERS = leadership(
            ReplicaSnapshots.topic("orders", ORDERS,
                    partition(0, 0, 0, 1, 2),
                    partition(1, 1, 1, 0, 2),
                    partition(2, 0, List.of(0, 2), 0, 2),
                    partition(3, 2, List.of(2, 1, 0), 2, 0),
                    partition(4, 0, 0, 1)),
            ReplicaSnapshots.topic("clicks", CLICKS, partition(0, 2, 2, 1, 0)));

    /** The router under rack-aware fetch, and how a connection to it looks. */
    enum Under {
        PASS_THROUGH {
            @Override
            Router router() {
                return new PassThroughRouter(ReplicaSnapshots.CLUSTER);
            }

            @Override
            HotContext connection(Router router, int clientOn, PartitionLeadership leaders, ClusterTopology brokers,
                                  FollowerEndChecks once) {
                return new Connection(null, true, clientOn, leaders, brokers, once);
            }
        },
        COLLAPSED_WEAVE {
            @Override
            Router router() {
                return ClusterRouters.over(ReplicaSnapshots.CLUSTER, false);
            }

            @Override
            HotContext connection(Router router, int clientOn, PartitionLeadership leaders, ClusterTopology brokers,
                                  FollowerEndChecks once) {
                HotCatalog catalog = HotCatalog.of(router.catalog(List.of(List.of(new RealTopic("orders", ORDERS),
                        new RealTopic("clicks", CLICKS), new RealTopic("fresh", FRESH)))));
                return new Connection(catalog, false, -1, leaders, brokers, once);
            }
        };

        abstract Router router();

        /**
         * {@code clientOn}: the broker a mirrored connection is bound to (collapsed connections are bound to none);
         * {@code once}: what the connection's followers said was the end (partitions to read from their leader once).
         */
        abstract HotContext connection(Router router, int clientOn, PartitionLeadership leaders, ClusterTopology brokers,
                                       FollowerEndChecks once);

        /** A connection with nothing to read from a leader once. */
        HotContext connection(Router router, int clientOn, PartitionLeadership leaders, ClusterTopology brokers) {
            return connection(router, clientOn, leaders, brokers, NO_END_CHECKS);
        }
    }

    /** A connection's fixed snapshots (one cluster: route 0) and its follower end checks. */
    private record Connection(HotCatalog catalog, boolean boundToBroker, int ownBroker, PartitionLeadership leadership,
                              ClusterTopology topology, FollowerEndChecks checks) implements HotContext {
        Connection(HotCatalog catalog, boolean boundToBroker, int ownBroker, PartitionLeadership leadership,
                   ClusterTopology topology) {
            this(catalog, boundToBroker, ownBroker, leadership, topology, NO_END_CHECKS);
        }

        @Override
        public int ownRoute() {
            return boundToBroker ? 0 : -1;
        }

        @Override
        public PartitionLeadership leaders(int route) {
            return route == 0 ? leadership : PartitionLeadership.empty();
        }

        @Override
        public ClusterTopology brokers(int route) {
            return route == 0 ? topology : ClusterTopology.empty();
        }

        @Override
        public FollowerEndChecks endChecks() {
            return checks;
        }
    }

    /** No partition is to be read from its leader once: no follower answered one empty at its high watermark. */
    private static final FollowerEndChecks NO_END_CHECKS = new FollowerEndChecks();

    /**
     * What a plan says, per partition in wire order: the real broker it is read from ({@link RoutePlan#REFUSED}
     * when refused; the connection's own broker resolved), whether that broker is a follower the proxy chose, and
     * whether the partition is read from its leader to check a follower's "nothing more".
     */
    private record Planned(List<Integer> brokers, List<Boolean> replicaReads, List<Boolean> leaderChecks, int targets,
                           RoutePlan.Kind kind) {
        int broker(int i) {
            return brokers.get(i);
        }

        boolean nothingReadFromReplicas() {
            return !replicaReads.contains(true);
        }
    }

    private static Planned rackAware(Under under, int clientOn, ByteBuf frame) {
        return plan(RackAwareRouter.over(under.router(), ZONE), under, clientOn, LEADERS, racked(), frame);
    }

    /** What the router alone plans for the same request: where partitions that do not move stay. */
    private static Planned routerAlone(Under under, int clientOn, ByteBuf frame) {
        return plan(under.router(), under, clientOn, LEADERS, racked(), frame);
    }

    private static Planned plan(Router router, Under under, int clientOn, PartitionLeadership leaders, ClusterTopology brokers,
                                ByteBuf frame) {
        return plan(router, under.connection(router, clientOn, leaders, brokers), new RoutePlan(new TopicNameCache()), frame);
    }

    /** Plans {@code frame} (released) and checks what every plan must hold: each target serves a partition. */
    private static Planned plan(Router router, HotContext ctx, RoutePlan out, ByteBuf frame) {
        try {
            PartitionSkim skim = skim(frame);
            router.hotPlanner().plan(skim, ctx, out.reset(skim));
            int partitions = skim.partitionCount();
            List<Integer> brokers = new ArrayList<>();
            List<Boolean> replicaReads = new ArrayList<>();
            List<Boolean> leaderChecks = new ArrayList<>();
            int[] perTarget = new int[out.targetCount()];
            for (int i = 0; i < partitions; i++) {
                int t = out.targetOf()[i];
                if (t >= 0) {
                    perTarget[t]++;
                    int broker = out.targetBroker(t);
                    brokers.add(broker == RoutePlan.OWN_BROKER ? ctx.ownBroker() : broker);
                } else {
                    brokers.add(t);
                }
                replicaReads.add(out.isReplicaRead(i));
                leaderChecks.add(out.isLeaderCheck(i));
                assertFalse(out.isReplicaRead(i) && out.isLeaderCheck(i), "partition " + i + ": a leader check reads no follower");
            }
            for (int t = 0; t < perTarget.length; t++) {
                assertTrue(perTarget[t] > 0, "target " + t + " (broker " + out.targetBroker(t) + ") serves no partition: "
                        + "an empty sub-request would be sent");
            }
            assertEquals(replicaReads.stream().filter(r -> r).count(), out.replicaReads(), "replicaReads() counts the flags");
            assertEquals(leaderChecks.stream().filter(c -> c).count(), out.leaderChecks(), "leaderChecks() counts the flags");
            return new Planned(brokers, replicaReads, leaderChecks, out.targetCount(), out.kind(partitions));
        } finally {
            frame.release();
        }
    }

    private static PartitionSkim skim(ByteBuf frame) {
        return frame.getShort(0) == ApiKeys.FETCH.id ? new FetchRequestSkim().wrap(frame) : new ProduceRequestSkim().wrap(frame);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Under.class)
    void aPartitionLedInZoneAWithBroker1InSyncIsReadFromBroker1(Under under) {
        Planned p = rackAware(under, 0, fetch(NAMES, topic("orders", ORDERS, 0)));
        assertEquals(List.of(1), p.brokers());
        assertEquals(List.of(true), p.replicaReads(), "broker 1 is a follower the proxy chose");
        assertEquals(1, p.targets(), "the leader's target, left empty, is dropped");
        assertEquals(RoutePlan.Kind.SPLIT, p.kind(), "another broker than the connection's: the request is rebuilt");
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Under.class)
    void aPartitionLedByBroker1StaysAtItsLeader(Under under) {
        Planned p = rackAware(under, 1, fetch(NAMES, topic("orders", ORDERS, 1)));
        assertEquals(List.of(1), p.brokers());
        assertTrue(p.nothingReadFromReplicas());
        assertEquals(routerAlone(under, 1, fetch(NAMES, topic("orders", ORDERS, 1))), p, "the router's plan, untouched");
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Under.class)
    void aPartitionWithNoInSyncReplicaInZoneBStaysAtItsLeader(Under under) {
        Planned p = rackAware(under, 0, fetch(NAMES, topic("orders", ORDERS, 2)));
        assertEquals(List.of(0), p.brokers());
        assertTrue(p.nothingReadFromReplicas());
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Under.class)
    void aZoneBFollowerOutOfTheIsrIsNotChosen(Under under) {
        Planned p = rackAware(under, 2, fetch(NAMES, topic("orders", ORDERS, 3)));
        assertEquals(List.of(2), p.brokers(), "broker 1 replicates p3 but is not in sync: the leader serves it");
        assertTrue(p.nothingReadFromReplicas());
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Under.class)
    void aMixedRequestIsSplitIntoTheRightTargets(Under under) {
        ByteBuf request = fetch(NAMES, topic("orders", ORDERS, 0, 1, 2, 3), topic("clicks", CLICKS, 0));
        Planned alone = routerAlone(under, 0, request.retainedDuplicate());
        Planned p = rackAware(under, 0, request);
        assertEquals(List.of(1, 1, 0, alone.broker(3), 1), p.brokers(),
                "orders p0 and clicks p0 from follower 1, orders p1 from its leader 1, p2 and p3 where the router sent them");
        assertEquals(List.of(true, false, false, false, true), p.replicaReads());
        assertEquals(new TreeSet<>(p.brokers()).size(), p.targets(), "one target per broker read from");
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Under.class)
    void targetsEveryPartitionLeftAreDropped(Under under) {
        Planned p = rackAware(under, 0, fetch(NAMES, topic("orders", ORDERS, 0, 1), topic("clicks", CLICKS, 0)));
        assertEquals(List.of(1, 1, 1), p.brokers());
        assertEquals(1, p.targets(), "every partition is read from broker 1: the other targets are gone");
    }

    @Test
    void aClientOnAZoneCFollowerIsMovedToItsLeaderInZoneB() {
        Planned p = rackAware(Under.PASS_THROUGH, 2, fetch(NAMES, topic("orders", ORDERS, 1)));
        assertEquals(List.of(1), p.brokers());
        assertEquals(List.of(false), p.replicaReads(), "the leader: its answers are the client's, not a replica read");
    }

    @Test
    void aClientOnABrokerNeitherLeaderNorInSyncIsLeftAlone() {
        Planned p = rackAware(Under.PASS_THROUGH, 2, fetch(NAMES, topic("orders", ORDERS, 4)));
        assertEquals(List.of(2), p.brokers(), "the client follows a hint the cache has not seen: broker 2 answers");
        assertTrue(p.nothingReadFromReplicas());
        assertEquals(RoutePlan.Kind.FORWARD, p.kind());
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Under.class)
    void fetchBeforeV11IsNeverMovedFromV11ItIs(Under under) {
        Planned v10 = rackAware(under, 0, fetch((short) 10, topic("orders", ORDERS, 0)));
        assertEquals(List.of(0), v10.brokers(), "Fetch v10 carries no rack id: a follower cannot serve it");
        assertTrue(v10.nothingReadFromReplicas());
        Planned v11 = rackAware(under, 0, fetch((short) 11, topic("orders", ORDERS, 0)));
        assertEquals(List.of(1), v11.brokers());
        assertEquals(List.of(true), v11.replicaReads());
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Under.class)
    void produceIsNeverMoved(Under under) {
        for (short version : new short[] {9, HotFrames.PRODUCE_TOPIC_IDS}) {
            ByteBuf request = produce(version, topic("orders", ORDERS, 0), topic("clicks", CLICKS, 0));
            Planned alone = routerAlone(under, 0, request.retainedDuplicate());
            Planned p = rackAware(under, 0, request);
            assertEquals(List.of(0, alone.broker(1)), p.brokers(), "Produce v" + version + ": orders p0 is written to its leader");
            assertEquals(alone, p, "Produce v" + version + " goes where the router sends it");
            assertTrue(p.nothingReadFromReplicas(), "Produce v" + version);
        }
    }

    static Stream<Arguments> everyFollowerFetchVersion() {
        List<Arguments> out = new ArrayList<>();
        for (Under under : Under.values()) {
            for (short v = InZoneReplicaPlanner.FIRST_FOLLOWER_FETCH_VERSION; v <= FetchRequestSkim.LATEST_VERSION; v++) {
                out.add(Arguments.of(under, v));
            }
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0} Fetch v{1}")
    @MethodSource("everyFollowerFetchVersion")
    void topicsResolveByNameAndById(Under under, short version) {
        Planned p = rackAware(under, 0, fetch(version, topic("orders", ORDERS, 0, 2), topic("clicks", CLICKS, 0)));
        assertEquals(List.of(1, 0, 1), p.brokers(), (version < IDS ? "by name" : "by id") + ", v" + version);
        assertEquals(List.of(true, false, true), p.replicaReads());
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Under.class)
    void anUnknownTopicStaysWhereTheRouterSentIt(Under under) {
        for (short version : new short[] {NAMES, IDS}) {
            ByteBuf request = fetch(version, topic("ghost", GHOST, 0), topic("fresh", FRESH, 0), topic("orders", ORDERS, 0));
            Planned alone = routerAlone(under, 0, request.retainedDuplicate());
            Planned p = rackAware(under, 0, request);
            assertEquals(List.of(alone.broker(0), alone.broker(1), 1), p.brokers(), "v" + version);
            assertEquals(List.of(false, false, true), p.replicaReads(), "v" + version);
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Under.class)
    void nothingMovesWhenBrokersHaveNoRacks(Under under) {
        Router rackAware = RackAwareRouter.over(under.router(), ZONE);
        for (ClusterTopology brokers : List.of(rackless(), ClusterTopology.empty())) {
            ByteBuf request = fetch(NAMES, topic("orders", ORDERS, 0, 1, 2, 3, 4), topic("clicks", CLICKS, 0));
            Planned alone = routerAlone(under, 0, request.retainedDuplicate());
            assertEquals(alone, plan(rackAware, under, 0, LEADERS, brokers, request), brokers.toString());
        }
    }

    @Test
    void noZoneMeansTheRouterItself() {
        for (Under under : Under.values()) {
            Router router = under.router();
            assertSame(router, RackAwareRouter.over(router, null));
            assertSame(router, RackAwareRouter.over(router, ""));
            assertSame(router, RackAwareRouter.over(router, "  "));
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Under.class)
    void aRackAwareRouterReadsReplicasAndIsTheRouterOtherwise(Under under) {
        Router router = under.router();
        Router rackAware = RackAwareRouter.over(router, ZONE);
        assertTrue(rackAware.readsReplicas(), "its planner reads ISRs even on bound connections");
        assertFalse(router.readsReplicas());
        assertEquals(ZONE, ((RackAwareRouter) rackAware).zone());
        assertSame(router, ((RackAwareRouter) rackAware).router());
        assertEquals(router.type(), rackAware.type());
        assertEquals(router.routes(), rackAware.routes());
        assertEquals(router.usesTopicCatalog(), rackAware.usesTopicCatalog());
        assertEquals(router.apiRoute(ApiKeys.FETCH.id), rackAware.apiRoute(ApiKeys.FETCH.id));
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Under.class)
    void theNextFetchAfterADemotionIsReadFromTheLeader(Under under) {
        Router rackAware = RackAwareRouter.over(under.router(), ZONE);
        for (short version : new short[] {NAMES, IDS}) {
            RoutePlan out = new RoutePlan(new TopicNameCache()); // one connection: its name cache sees every snapshot
            PartitionLeadership demoted = version < IDS ? LEADERS.outOfSync("orders", 0, 1)
                    : LEADERS.outOfSync(ORDERS.getMostSignificantBits(), ORDERS.getLeastSignificantBits(), 0, 1);
            PartitionLeadership unreachable = demoted.replicaUnreachable(1);
            List<List<Integer>> brokersPerSnapshot = new ArrayList<>();
            for (PartitionLeadership leaders : List.of(LEADERS, demoted, unreachable, LEADERS)) {
                HotContext ctx = under.connection(rackAware, 0, leaders, racked());
                brokersPerSnapshot.add(plan(rackAware, ctx, out,
                        fetch(version, topic("orders", ORDERS, 0), topic("clicks", CLICKS, 0))).brokers());
            }
            int clicksAlone = routerAlone(under, 0, fetch(version, topic("clicks", CLICKS, 0))).broker(0);
            assertEquals(List.of(List.of(1, 1), List.of(0, 1), List.of(0, clicksAlone), List.of(1, 1)), brokersPerSnapshot,
                    "v" + version + ": orders p0 demoted, then broker 1 unreachable, then the first snapshot again");
        }
    }

    /** One connection's plans of {@code frame}, one after the other (each frame released). */
    private static List<Planned> plansInARow(Router router, HotContext ctx, int plans, java.util.function.Supplier<ByteBuf> frame) {
        RoutePlan out = new RoutePlan(new TopicNameCache());
        List<Planned> planned = new ArrayList<>();
        for (int k = 0; k < plans; k++) {
            planned.add(plan(router, ctx, out, frame.get()));
        }
        return planned;
    }

    /** The offset {@link HotFrames#fetch} fetches every partition from. */
    private static final long FETCH_OFFSET = 100;

    @ParameterizedTest(name = "{0} Fetch v{1}")
    @MethodSource("nameAndIdKeyedFetch")
    void aPartitionToReadFromItsLeaderOnceStaysThereForExactlyOnePlan(Under under, short version) {
        Router rackAware = RackAwareRouter.over(under.router(), ZONE);
        FollowerEndChecks checks = new FollowerEndChecks();
        HotContext ctx = under.connection(rackAware, 0, LEADERS, racked(), checks);
        RoutePlan out = new RoutePlan(new TopicNameCache());
        String v = "v" + version + ": ";
        Planned before = plan(rackAware, ctx, out, fetch(version, topic("orders", ORDERS, 0)));
        assertEquals(List.of(1), before.brokers(), v + "orders p0 is read from follower 1");
        assertEquals(List.of(false), before.leaderChecks(), v);

        checks.followerAtEnd(0, "orders", 0, FETCH_OFFSET); // follower 1 answered orders p0 empty at its high watermark
        Planned atLeader = plan(rackAware, ctx, out, fetch(version, topic("orders", ORDERS, 0)));
        assertEquals(List.of(0), atLeader.brokers(), v + "the next plan reads orders p0 from its leader 0");
        assertEquals(List.of(false), atLeader.replicaReads(), v + "the leader: its end offsets are the client's");
        assertEquals(List.of(true), atLeader.leaderChecks(), v + "the leader's answer says whether the follower was right");
        assertEquals(routerAlone(under, 0, fetch(version, topic("orders", ORDERS, 0))).brokers(), atLeader.brokers(),
                v + "where the router sent it");
        assertEquals(RoutePlan.Kind.SPLIT, atLeader.kind(), v + "a leader check is never forwarded as the client's frame");
        assertFalse(checks.takePending(0, "orders", 0), v + "the plan took the check");

        List<Planned> after = plansInARow(rackAware, ctx, 3, () -> fetch(version, topic("orders", ORDERS, 0)));
        for (Planned p : after) {
            assertEquals(List.of(1), p.brokers(), v + "once only: back to follower 1 on the plans after");
            assertEquals(List.of(true), p.replicaReads(), v);
            assertEquals(List.of(false), p.leaderChecks(), v);
        }
    }

    @ParameterizedTest(name = "{0} Fetch v{1}")
    @MethodSource("nameAndIdKeyedFetch")
    void aCheckTheLeaderConfirmedSendsNoMorePlansToTheLeaderAtThatOffset(Under under, short version) {
        Router rackAware = RackAwareRouter.over(under.router(), ZONE);
        FollowerEndChecks checks = new FollowerEndChecks();
        HotContext ctx = under.connection(rackAware, 0, LEADERS, racked(), checks);
        RoutePlan out = new RoutePlan(new TopicNameCache());
        String v = "v" + version + ": ";
        checks.followerAtEnd(0, "orders", 0, FETCH_OFFSET);
        assertEquals(List.of(0), plan(rackAware, ctx, out, fetch(version, topic("orders", ORDERS, 0))).brokers(), v);
        checks.leaderAnswered(0, "orders", 0, FETCH_OFFSET, true); // the leader: the end too
        for (int poll = 0; poll < 3; poll++) {
            checks.followerAtEnd(0, "orders", 0, FETCH_OFFSET); // the follower, read again: "nothing more"
            Planned p = plan(rackAware, ctx, out, fetch(version, topic("orders", ORDERS, 0)));
            assertEquals(List.of(1), p.brokers(), v + "believed at " + FETCH_OFFSET + ": follower 1, poll " + poll);
            assertEquals(List.of(false), p.leaderChecks(), v);
        }
        checks.followerAtEnd(0, "orders", 0, FETCH_OFFSET + 10); // the client moved on: checked again
        assertEquals(List.of(0), plan(rackAware, ctx, out, fetch(version, topic("orders", ORDERS, 0))).brokers(), v);
        checks.leaderAnswered(0, "orders", 0, FETCH_OFFSET + 10, false); // the leader had more: the follower was behind
        assertEquals(List.of(1), plan(rackAware, ctx, out, fetch(version, topic("orders", ORDERS, 0))).brokers(), v);
        checks.followerAtEnd(0, "orders", 0, FETCH_OFFSET + 10);
        assertEquals(List.of(0), plan(rackAware, ctx, out, fetch(version, topic("orders", ORDERS, 0))).brokers(),
                v + "the entry was dropped: a new \"nothing more\" is checked again");
    }

    @ParameterizedTest(name = "{0} Fetch v{1}")
    @MethodSource("nameAndIdKeyedFetch")
    void onlyThePartitionToReadFromItsLeaderOnceStaysInAMixedRequest(Under under, short version) {
        Router rackAware = RackAwareRouter.over(under.router(), ZONE);
        FollowerEndChecks checks = new FollowerEndChecks();
        HotContext ctx = under.connection(rackAware, 0, LEADERS, racked(), checks);
        RoutePlan out = new RoutePlan(new TopicNameCache());
        java.util.function.Supplier<ByteBuf> request = () -> fetch(version, topic("orders", ORDERS, 0, 1, 2, 4),
                topic("clicks", CLICKS, 0));
        String v = "v" + version + ": ";
        int p4Alone = routerAlone(under, 0, fetch(version, topic("orders", ORDERS, 4))).broker(0);
        assertEquals(0, p4Alone, "orders p4's leader is broker 0, where both routers send it");

        checks.followerAtEnd(0, "orders", 4, FETCH_OFFSET);
        Planned p = plan(rackAware, ctx, out, request.get());
        assertEquals(List.of(1, 1, 0, 0, 1), p.brokers(), v + "orders p4 at its leader 0 once; p0 and clicks p0 from"
                + " follower 1, p1 from its leader 1, p2 (no replica in zone b) at its leader 0");
        assertEquals(List.of(true, false, false, false, true), p.replicaReads(), v);
        assertEquals(List.of(false, false, false, true, false), p.leaderChecks(), v + "orders p4 alone is a leader check");
        assertEquals(2, p.targets(), v + "brokers 1 and 0");

        Planned next = plan(rackAware, ctx, out, request.get());
        assertEquals(List.of(1, 1, 0, 1, 1), next.brokers(), v + "orders p4 from follower 1 again");
        assertEquals(List.of(true, false, false, true, true), next.replicaReads(), v);
        assertTrue(next.leaderChecks().stream().noneMatch(c -> c), v);
    }

    @ParameterizedTest(name = "{0} Fetch v{1}")
    @MethodSource("nameAndIdKeyedFetch")
    void entriesForOtherPartitionsTopicsOrLeavesDoNotKeepAPartitionAtItsLeader(Under under, short version) {
        Router rackAware = RackAwareRouter.over(under.router(), ZONE);
        FollowerEndChecks checks = new FollowerEndChecks();
        checks.followerAtEnd(0, "orders", 4, FETCH_OFFSET); // another partition of the topic
        checks.followerAtEnd(0, "clicks", 0, FETCH_OFFSET); // the same partition number of another topic
        checks.followerAtEnd(1, "orders", 0, FETCH_OFFSET); // the same partition behind another leaf
        checks.followerAtEnd(0, "Orders", 0, FETCH_OFFSET); // names are case-sensitive
        checks.followerAtEnd(0, "orders ", 0, FETCH_OFFSET);
        HotContext ctx = under.connection(rackAware, 0, LEADERS, racked(), checks);
        String v = "v" + version + ": ";
        for (Planned p : plansInARow(rackAware, ctx, 3, () -> fetch(version, topic("orders", ORDERS, 0)))) {
            assertEquals(List.of(1), p.brokers(), v + "orders p0 is read from follower 1: no entry is orders p0 behind leaf 0");
            assertEquals(List.of(true), p.replicaReads(), v);
            assertEquals(List.of(false), p.leaderChecks(), v);
        }
        assertTrue(checks.takePending(0, "orders", 4), v + "the other entries are left pending");
        assertTrue(checks.takePending(0, "clicks", 0), v);
        assertTrue(checks.takePending(1, "orders", 0), v);
        assertTrue(checks.takePending(0, "Orders", 0), v);
        assertTrue(checks.takePending(0, "orders ", 0), v);
    }

    @ParameterizedTest(name = "{0} Fetch v{1}")
    @MethodSource("nameAndIdKeyedFetch")
    void anEntryForAnotherTopicsPartitionLeavesItAtItsLeaderWhileThisOneMoves(Under under, short version) {
        Router rackAware = RackAwareRouter.over(under.router(), ZONE);
        FollowerEndChecks checks = new FollowerEndChecks();
        checks.followerAtEnd(0, "clicks", 0, FETCH_OFFSET);
        HotContext ctx = under.connection(rackAware, 0, LEADERS, racked(), checks);
        RoutePlan out = new RoutePlan(new TopicNameCache());
        Planned p = plan(rackAware, ctx, out, fetch(version, topic("orders", ORDERS, 0), topic("clicks", CLICKS, 0)));
        assertEquals(List.of(1, 2), p.brokers(), "v" + version + ": clicks p0 at its leader 2 once; orders p0, its partition"
                + " number, from follower 1");
        assertEquals(List.of(true, false), p.replicaReads());
        assertEquals(List.of(false, true), p.leaderChecks());
        Planned next = plan(rackAware, ctx, out, fetch(version, topic("orders", ORDERS, 0), topic("clicks", CLICKS, 0)));
        assertEquals(List.of(1, 1), next.brokers(), "v" + version);
    }

    @Test
    void aClientOnAnOutOfZoneFollowerIsMovedToTheLeaderForTheCheck() {
        // orders p0: leader 0 (zone a), ISR {0, 1, 2}; the client reads it from broker 2 (zone c), an in-sync follower
        FollowerEndChecks checks = new FollowerEndChecks();
        Router rackAware = RackAwareRouter.over(Under.PASS_THROUGH.router(), ZONE);
        HotContext ctx = Under.PASS_THROUGH.connection(rackAware, 2, LEADERS, racked(), checks);
        RoutePlan out = new RoutePlan(new TopicNameCache());
        assertEquals(List.of(1), plan(rackAware, ctx, out, fetch(NAMES, topic("orders", ORDERS, 0))).brokers(),
                "without a check: the in-zone follower 1");
        checks.followerAtEnd(0, "orders", 0, FETCH_OFFSET);
        Planned p = plan(rackAware, ctx, out, fetch(NAMES, topic("orders", ORDERS, 0)));
        assertEquals(List.of(0), p.brokers(), "the check goes to the leader, not to the client's follower 2");
        assertEquals(List.of(false), p.replicaReads());
        assertEquals(List.of(true), p.leaderChecks());
        assertEquals(1, p.targets(), "broker 2's target, left empty, is dropped");
    }

    @ParameterizedTest(name = "Fetch v{0}")
    @MethodSource("nameAndIdKeyedVersions")
    void aRenamedTopicIsReadFromItsLeaderOnceUnderItsRealName(short version) {
        Router rackAware = RackAwareRouter.over(prefixedWeave(), ZONE);
        HotCatalog catalog = HotCatalog.of(rackAware.catalog(List.of(List.of(new RealTopic("orders", ORDERS)))));
        FollowerEndChecks checks = new FollowerEndChecks();
        HotContext ctx = new Connection(catalog, false, -1, LEADERS, racked(), checks);
        RoutePlan out = new RoutePlan(new TopicNameCache());
        String v = "v" + version + ": ";

        checks.followerAtEnd(0, "us.orders", 0, FETCH_OFFSET); // the client's name: not what the upstream partition is known by
        Planned p = plan(rackAware, ctx, out, fetch(version, topic("us.orders", ORDERS, 0)));
        assertEquals(List.of(1), p.brokers(), v + "an entry under the client's name does not keep orders p0 at its leader");
        assertTrue(checks.takePending(0, "us.orders", 0), v + "and is left alone");

        checks.followerAtEnd(0, "orders", 0, FETCH_OFFSET); // the upstream (real) name
        p = plan(rackAware, ctx, out, fetch(version, topic("us.orders", ORDERS, 0)));
        assertEquals(List.of(0), p.brokers(), v + "us.orders p0 is orders p0 upstream: read from its leader once");
        assertEquals(List.of(true), p.leaderChecks(), v);
        p = plan(rackAware, ctx, out, fetch(version, topic("us.orders", ORDERS, 0)));
        assertEquals(List.of(1), p.brokers(), v + "then from follower 1 again");
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Under.class)
    void fetchBeforeV11LeavesAPendingCheckForTheFirstPlanThatWouldReadAFollower(Under under) {
        Router rackAware = RackAwareRouter.over(under.router(), ZONE);
        FollowerEndChecks checks = new FollowerEndChecks();
        checks.followerAtEnd(0, "orders", 0, FETCH_OFFSET);
        HotContext ctx = under.connection(rackAware, 0, LEADERS, racked(), checks);
        RoutePlan out = new RoutePlan(new TopicNameCache());
        Planned v10 = plan(rackAware, ctx, out, fetch((short) 10, topic("orders", ORDERS, 0)));
        assertEquals(List.of(0), v10.brokers());
        assertEquals(List.of(false), v10.leaderChecks(), "Fetch v10 is never moved nor checked");
        Planned v12 = plan(rackAware, ctx, out, fetch(NAMES, topic("orders", ORDERS, 0)));
        assertEquals(List.of(0), v12.brokers(), "the first plan that would read orders p0 from a follower checks with the leader");
        assertEquals(List.of(true), v12.leaderChecks());
        assertEquals(List.of(1), plan(rackAware, ctx, out, fetch(NAMES, topic("orders", ORDERS, 0))).brokers());
    }

    @ParameterizedTest(name = "{0} Fetch v{1}")
    @MethodSource("nameAndIdKeyedFetch")
    void planningAllocatesNothingOnceWarm(Under under, short version) {
        // Not a benchmark: a guard that planning reuses the plan's arrays and the connection's caches.
        Router rackAware = RackAwareRouter.over(under.router(), ZONE);
        Warm warm = planWarm(rackAware, under.connection(rackAware, 0, LEADERS, racked()),
                fetch(version, topic("orders", ORDERS, 0, 1, 2, 3, 4), topic("clicks", CLICKS, 0)));
        assertEquals(3, warm.replicaReadsPerPlan(), "every plan reads orders p0, p4 and clicks p0 from follower 1");
        assertTrue(warm.allocated() < 4096, warm.plans() + " plans allocated " + warm.allocated() + " bytes");
    }

    @Test
    void aConnectionFetchingMoreTopicsByNameThanItsNameCacheHoldsAllocatesNothingOnceWarm() {
        int topics = 40; // a consumer of 40 topics on Fetch v12 (older clients name topics up to v12)
        MetadataResponseTopic[] known = new MetadataResponseTopic[topics];
        HotFrames.Topic[] asked = new HotFrames.Topic[topics];
        for (int k = 0; k < topics; k++) {
            Uuid id = new Uuid(0x70, k + 1);
            known[k] = ReplicaSnapshots.topic("t" + k, id, partition(0, 0, 0, 1, 2));
            asked[k] = topic("t" + k, id, 0);
        }
        Router rackAware = RackAwareRouter.over(new PassThroughRouter(ReplicaSnapshots.CLUSTER), ZONE);
        Warm warm = planWarm(rackAware, new Connection(null, true, 0, leadership(known), racked()), fetch(NAMES, asked));
        assertEquals(topics, warm.replicaReadsPerPlan(), "every p0 is read from follower 1");
        assertTrue(warm.allocated() < 4096, "a connection naming more topics than the catalog name cache's 32 slots"
                + " finds each topic's leaders without building a String, a byte[] or a ByteBuf per topic per request: "
                + warm.plans() + " plans of " + topics + " topics allocated " + warm.allocated() + " bytes ("
                + warm.allocated() / warm.plans() + " per plan)");
    }

    /** {@code topics} topics {@code prefix}0, {@code prefix}1, ..., each with p0 led by broker 0 and broker 1 in sync. */
    private record ManyTopics(MetadataResponseTopic[] known, HotFrames.Topic[] asked, List<RealTopic> real) {
        static ManyTopics named(String prefix, int topics) {
            MetadataResponseTopic[] known = new MetadataResponseTopic[topics];
            HotFrames.Topic[] asked = new HotFrames.Topic[topics];
            List<RealTopic> real = new ArrayList<>();
            for (int k = 0; k < topics; k++) {
                Uuid id = new Uuid(0x71, k + 1);
                known[k] = ReplicaSnapshots.topic(prefix + k, id, partition(0, 0, 0, 1, 2));
                asked[k] = topic(prefix + k, id, 0);
                real.add(new RealTopic(prefix + k, id));
            }
            return new ManyTopics(known, asked, real);
        }

        /** A connection of {@code under} (a mirrored one on broker 0) that sees these topics in {@code leaders}. */
        HotContext connection(Under under, Router router, PartitionLeadership leaders) {
            return under == Under.PASS_THROUGH ? new Connection(null, true, 0, leaders, racked())
                    : new Connection(HotCatalog.of(router.catalog(List.of(real))), false, -1, leaders, racked());
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Under.class)
    void nameLookupsThatMissOnEveryPlanKeepPlanning(Under under) {
        // The name caches once counted their misses in an int that only grew (slot = counter++ % 32): past
        // 2^31 misses the slot went negative and every Fetch failed. A unit test cannot miss 2^31 times, so
        // this one makes every lookup a miss for many plans on one connection and checks each plan: 40 names
        // (more than the catalog name cache's 32 slots) against two leadership snapshots taken in turn
        // (equal, not the same: each replaces the other's cached leaders).
        int topics = 40;
        ManyTopics many = ManyTopics.named("t", topics);
        Router rackAware = RackAwareRouter.over(under.router(), ZONE);
        PartitionLeadership first = leadership(many.known());
        PartitionLeadership second = leadership(many.known());
        HotContext[] connection = {many.connection(under, rackAware, first), many.connection(under, rackAware, second)};
        ByteBuf frame = fetch(NAMES, many.asked());
        int plans = 25_000;
        try {
            FetchRequestSkim skim = new FetchRequestSkim().wrap(frame);
            RoutePlan out = new RoutePlan(new TopicNameCache()); // one connection: one name cache
            for (int r = 0; r < plans; r++) {
                HotContext ctx = connection[r % 2];
                rackAware.hotPlanner().plan(skim, ctx, out.reset(skim));
                if (out.replicaReads() != topics || out.targetCount() != 1 || out.targetBroker(0) != 1) {
                    throw new AssertionError("plan " + r + ": " + out.replicaReads() + " of " + topics + " partitions read from"
                            + " follower 1, " + out.targetCount() + " targets");
                }
            }
        } finally {
            frame.release();
        }
        Planned last = plan(rackAware, connection[0], new RoutePlan(new TopicNameCache()), fetch(NAMES, many.asked()));
        assertEquals(java.util.Collections.nCopies(topics, 1), last.brokers(), plans + " plans of " + topics
                + " names, every lookup a miss: every p0 is still read from follower 1");
    }

    @Test
    void aConnectionFetchingTopicsNamedAlikeAllocatesNothingOnceWarm() {
        // 40 topics named as people name them (orders-0 .. orders-39) on Fetch v12: with 256 slots the cache
        // holds them all, and each should be found by one lookup once warm
        int topics = 40;
        ManyTopics many = ManyTopics.named("orders-", topics);
        Router rackAware = RackAwareRouter.over(new PassThroughRouter(ReplicaSnapshots.CLUSTER), ZONE);
        Warm warm = planWarm(rackAware, many.connection(Under.PASS_THROUGH, rackAware, leadership(many.known())),
                fetch(NAMES, many.asked()));
        assertEquals(topics, warm.replicaReadsPerPlan(), "every p0 is read from follower 1");
        assertTrue(warm.allocated() < 4096, "two names a connection fetches whose hashes share a bucket (here e.g."
                + " orders-4 and orders-30) both stay cached (2-way buckets), so no String, byte[] or ByteBuf is built per"
                + " request: " + warm.plans() + " plans of " + topics + " topics allocated "
                + warm.allocated() + " bytes (" + warm.allocated() / warm.plans() + " per plan)");
    }

    /** What planning {@code frame} many times over on one connection allocated, once warm. */
    private record Warm(int plans, long allocated, long replicaReadsPerPlan) {
    }

    private static Warm planWarm(Router router, HotContext ctx, ByteBuf frame) {
        int plans = 20_000;
        try {
            FetchRequestSkim skim = new FetchRequestSkim().wrap(frame);
            RoutePlan out = new RoutePlan(new TopicNameCache());
            com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
            plans(router, skim, ctx, out, 10_000); // warm up
            long before = threads.getCurrentThreadAllocatedBytes();
            long replicaReads = plans(router, skim, ctx, out, plans);
            long allocated = threads.getCurrentThreadAllocatedBytes() - before;
            return new Warm(plans, allocated, replicaReads / plans);
        } finally {
            frame.release();
        }
    }

    @Test
    void aRenamedTopicIsLookedUpByItsRealName() {
        Router rackAware = RackAwareRouter.over(prefixedWeave(), ZONE);
        HotCatalog catalog = HotCatalog.of(rackAware.catalog(List.of(List.of(new RealTopic("orders", ORDERS)))));
        Planned p = plan(rackAware, new Connection(catalog, false, -1, LEADERS, racked()), new RoutePlan(new TopicNameCache()),
                fetch(NAMES, topic("us.orders", ORDERS, 0, 1, 2)));
        assertEquals(List.of(1, 1, 0), p.brokers(), "us.orders is orders upstream: its p0 is read from follower 1");
        assertEquals(List.of(true, false, false), p.replicaReads());
    }

    /** A collapsed weave showing cluster c0's topics under the prefix "us.": the plan sends "orders" upstream. */
    private static Router prefixedWeave() {
        List<RoutingProblem> problems = new ArrayList<>();
        Router weave = RouterRegistry.standard().create(new RouterSpec("prefixed", "topic-weave",
                List.of(new RouteSpec(ReplicaSnapshots.CLUSTER, RouteTarget.cluster(ReplicaSnapshots.CLUSTER))),
                Map.of("routes", List.of(Map.of("name", ReplicaSnapshots.CLUSTER, "naming", Map.of("prefix", "us."))))), problems);
        assertEquals(List.of(), problems);
        return weave;
    }

    static short[] nameAndIdKeyedVersions() {
        return new short[] {NAMES, IDS};
    }

    static Stream<Arguments> nameAndIdKeyedFetch() {
        return Stream.of(Under.values()).flatMap(u -> Stream.of(Arguments.of(u, NAMES), Arguments.of(u, IDS)));
    }

    private static long plans(Router router, FetchRequestSkim skim, HotContext ctx, RoutePlan out, int rounds) {
        long replicaReads = 0;
        for (int r = 0; r < rounds; r++) {
            router.hotPlanner().plan(skim, ctx, out.reset(skim));
            replicaReads += out.replicaReads();
        }
        return replicaReads;
    }
}
