package dev.weft.routing.topicweave;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.routing.Placement;
import dev.weft.routing.RealTopic;
import dev.weft.routing.TopicCollision;
import dev.weft.routing.TopicRouting;
import dev.weft.routing.VisibleTopic;
import dev.weft.routing.dag.InvalidRoutingException;
import dev.weft.routing.dag.RoutingProblem;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

class TopicCatalogTest {

    private static final List<String> ROUTES = List.of("us", "eu");

    private static List<RealTopic> topics(String... names) {
        List<RealTopic> out = new ArrayList<>();
        for (String n : names) {
            out.add(new RealTopic(n, Uuid.randomUuid()));
        }
        return out;
    }

    private static TopicWeaveSettings settings(CollisionPolicy policy, RouteRules us, RouteRules eu) {
        return new TopicWeaveSettings(policy, List.of(us, eu), null, null, null);
    }

    private static List<String> names(TopicRouting c) {
        return c.visibleTopics().stream().map(VisibleTopic::virtualName).toList();
    }

    @Test
    void identityPrefixAndRenamesBothWays() {
        TopicWeaveSettings s = settings(CollisionPolicy.REJECT,
                new RouteRules(TopicFilter.ALL, TopicNaming.prefix("us."), null),
                new RouteRules(TopicFilter.ALL, TopicNaming.renames(Map.of("orders", "orders-eu")), null));
        TopicCatalog c = TopicCatalog.build(s, ROUTES, List.of(topics("orders", "clicks"), topics("orders", "audit")));
        assertEquals(List.of("audit", "orders-eu", "us.clicks", "us.orders"), names(c));
        VisibleTopic t = c.resolve("orders-eu");
        assertEquals(1, t.route());
        assertEquals("orders", t.realName());
        assertEquals("orders-eu", c.virtualNameOf(1, "orders"));
        assertEquals("us.orders", c.virtualNameOf(0, "orders"));
        assertEquals("audit", c.virtualNameOf(1, "audit"));
        assertNull(c.resolve("orders"), "the real name of a renamed topic is not a virtual name");
        assertNull(c.virtualNameOf(0, "nope"));
        assertTrue(c.collisions().isEmpty());
    }

    @Test
    void includeExcludeByNameAndRegex() {
        TopicFilter f = new TopicFilter(List.of("orders", "re:payments-.*", "__consumer_offsets"), List.of("re:.*-internal"));
        TopicWeaveSettings s = settings(CollisionPolicy.REJECT, new RouteRules(f, null, null),
                new RouteRules(new TopicFilter(List.of(), List.of("secret")), null, null));
        TopicCatalog c = TopicCatalog.build(s, ROUTES, List.of(
                topics("orders", "orders2", "payments-eu", "payments-internal", "xpayments-1", "__consumer_offsets", "__transaction_state"),
                topics("secret", "public", "__consumer_offsets")));
        assertEquals(List.of("__consumer_offsets", "orders", "payments-eu", "public"), names(c));
        assertEquals(0, c.resolve("__consumer_offsets").route(), "internal topics only when named exactly");
        assertNull(c.virtualNameOf(1, "secret"));
        assertNull(c.virtualNameOf(0, "payments-internal"), "exclude wins over include");
        assertNull(c.virtualNameOf(0, "xpayments-1"), "patterns match the whole name");
    }

    @Test
    void rejectHidesBothAndIsAStartupProblem() {
        TopicCatalog c = TopicCatalog.build(TopicWeaveSettings.defaults(), ROUTES,
                List.of(topics("orders", "a"), topics("orders", "b")));
        assertEquals(List.of("a", "b"), names(c));
        assertNull(c.resolve("orders"));
        assertNull(c.virtualNameOf(0, "orders"));
        TopicCollision col = c.collisions().getFirst();
        assertEquals(TopicCollision.Outcome.REJECTED, col.outcome());
        assertEquals(List.of("us", "eu"), col.claims().stream().map(TopicCollision.Claim::routeName).toList());
        List<RoutingProblem> p = c.startupProblems("virtualClusters.main");
        assertEquals(List.of("virtualClusters.main: topic 'orders' is claimed by routes us (real topic 'orders'), "
                + "eu (real topic 'orders'): collision policy 'reject' hides all of them"), p.stream().map(RoutingProblem::toString).toList());
    }

    @Test
    void rejectDiscoveredLaterIsReportedOnceAsNew() {
        TopicCatalog before = TopicCatalog.build(TopicWeaveSettings.defaults(), ROUTES, List.of(topics("orders"), topics("audit")));
        assertTrue(before.collisions().isEmpty());
        assertEquals("orders", before.resolve("orders").virtualName());
        TopicCatalog after = TopicCatalog.build(TopicWeaveSettings.defaults(), ROUTES,
                List.of(topics("orders"), topics("audit", "orders")));
        assertNull(after.resolve("orders"), "both hidden once the second appears");
        assertEquals(1, after.newCollisionsSince(before).size());
        assertTrue(after.newCollisionsSince(after).isEmpty());
        assertTrue(after.collisions().getFirst().outcome().isError());
    }

    @Test
    void firstWinsKeepsRouteOrder() {
        TopicCatalog c = TopicCatalog.build(settings(CollisionPolicy.FIRST_WINS, RouteRules.DEFAULT, RouteRules.DEFAULT),
                ROUTES, List.of(topics("orders"), topics("orders", "b")));
        assertEquals(0, c.resolve("orders").route());
        assertNull(c.virtualNameOf(1, "orders"));
        assertEquals(TopicCollision.Outcome.FIRST_WINS, c.collisions().getFirst().outcome());
        assertTrue(c.startupProblems("x").isEmpty());
    }

    @Test
    void qualifyExposesBothWithRoutePrefixes() {
        TopicWeaveSettings s = settings(CollisionPolicy.QUALIFY, RouteRules.DEFAULT, new RouteRules(null, null, "europe/"));
        TopicCatalog c = TopicCatalog.build(s, ROUTES, List.of(topics("orders", "a"), topics("orders")));
        assertEquals(List.of("a", "europe/orders", "us.orders"), names(c));
        assertEquals("us.orders", c.virtualNameOf(0, "orders"));
        assertEquals(1, c.resolve("europe/orders").route());
        assertEquals(TopicCollision.Outcome.QUALIFIED, c.collisions().getFirst().outcome());
        assertTrue(c.startupProblems("x").isEmpty());
    }

    @Test
    void qualifiedNameAlreadyTakenHidesThatClaimant() {
        TopicCatalog c = TopicCatalog.build(settings(CollisionPolicy.QUALIFY, RouteRules.DEFAULT, RouteRules.DEFAULT),
                ROUTES, List.of(topics("orders"), topics("orders", "us.orders")));
        // eu's real "us.orders" keeps its natural name; us's "orders" cannot be qualified
        assertEquals(List.of("eu.orders", "us.orders"), names(c));
        assertEquals(1, c.resolve("us.orders").route());
        assertNull(c.virtualNameOf(0, "orders"));
        TopicCollision col = c.collisions().getFirst();
        assertEquals(TopicCollision.Outcome.QUALIFIED_NAME_TAKEN, col.outcome());
        assertEquals(1, c.startupProblems("x").size());
    }

    @Test
    void topicIdsMapBothWaysAndDuplicatesGetStableSyntheticIds() {
        Uuid shared = Uuid.randomUuid();
        Uuid euOnly = Uuid.randomUuid();
        TopicWeaveSettings s = settings(CollisionPolicy.REJECT, new RouteRules(null, TopicNaming.prefix("a."), null),
                new RouteRules(null, TopicNaming.prefix("b."), null));
        List<List<RealTopic>> input = List.of(List.of(new RealTopic("t", shared)),
                List.of(new RealTopic("t", shared), new RealTopic("u", euOnly), RealTopic.of("old")));
        TopicCatalog c = TopicCatalog.build(s, ROUTES, input);
        VisibleTopic a = c.resolve("a.t");
        VisibleTopic b = c.resolve("b.t");
        assertEquals(shared, a.virtualId(), "the first route keeps the real id");
        assertNotEquals(shared, b.virtualId());
        assertEquals(shared, b.realId());
        assertEquals(b, c.byVirtualId(b.virtualId()));
        assertEquals(a, c.byVirtualId(shared));
        assertEquals(b, c.byRealId(1, shared));
        assertEquals(a, c.byRealId(0, shared));
        assertEquals("b.u", c.byVirtualId(euOnly).virtualName());
        assertNull(c.byRealId(0, euOnly));
        assertNull(c.byVirtualId(Uuid.ZERO_UUID), "topics without ids are not indexed");
        assertEquals(Uuid.ZERO_UUID, c.resolve("b.old").virtualId());
        TopicCatalog again = TopicCatalog.build(s, ROUTES, input);
        assertEquals(b.virtualId(), again.resolve("b.t").virtualId(), "synthetic ids are stable across snapshots");
    }

    @Test
    void placementByPrefixInvertsNaming() {
        TopicWeaveSettings s = new TopicWeaveSettings(CollisionPolicy.REJECT, List.of(
                new RouteRules(new TopicFilter(List.of(), List.of("re:.*-internal")), TopicNaming.prefix("us."), null),
                new RouteRules(null, new TopicNaming("", Map.of("orders", "orders-eu")), null)),
                null, null, new PrefixHomes(List.of(new PrefixRule("us.", "us")), "eu"));
        TopicCatalog c = TopicCatalog.build(s, ROUTES, List.of(topics("clicks"), topics("orders")));
        assertEquals(new Placement.Placed(0, "us", "payments"), c.place("us.payments"));
        assertEquals(new Placement.Placed(1, "eu", "audit"), c.place("audit"));
        Placement existing = c.place("us.clicks");
        assertEquals(Placement.Reason.ALREADY_EXISTS, assertInstanceOf(Placement.Refused.class, existing).reason());
        Placement hidden = c.place("us.x-internal");
        assertEquals(Placement.Reason.WOULD_BE_HIDDEN, assertInstanceOf(Placement.Refused.class, hidden).reason());
        Placement renamedReal = c.place("orders");
        Placement.Refused r = assertInstanceOf(Placement.Refused.class, renamedReal);
        assertEquals(Placement.Reason.CANNOT_MAP, r.reason());
        assertTrue(r.message().contains("real topic 'orders' of route 'eu' is renamed to 'orders-eu'"), r.message());
        // a rename target not present yet maps back to its real name
        TopicCatalog empty = TopicCatalog.build(s, ROUTES, List.of(topics(), topics()));
        assertEquals(new Placement.Placed(1, "eu", "orders"), empty.place("orders-eu"));
    }

    @Test
    void placementOnPrefixedRouteWithoutThePrefixIsRefused() {
        TopicWeaveSettings s = new TopicWeaveSettings(CollisionPolicy.REJECT, List.of(
                new RouteRules(null, TopicNaming.prefix("us."), null), RouteRules.DEFAULT), null, null, null);
        TopicCatalog c = TopicCatalog.build(s, ROUTES, List.of(topics(), topics()));
        Placement.Refused r = assertInstanceOf(Placement.Refused.class, c.place("payments"));
        assertEquals("cannot create 'payments' on route 'us' (chosen by placement): 'payments' does not start with "
                + "route 'us' naming prefix 'us.'", r.message());
    }

    @Test
    void invalidSettingsAreRefusedWithPaths() {
        TopicWeaveSettings s = new TopicWeaveSettings(CollisionPolicy.QUALIFY, List.of(
                new RouteRules(new TopicFilter(List.of("re:(unclosed"), List.of()), TopicNaming.renames(Map.of("a", "x", "b", "x")), "q."),
                new RouteRules(null, null, "q.")),
                new PrefixHomes(List.of(new PrefixRule("g", "mars")), null), null, new PrefixHomes(List.of(), "venus"));
        InvalidRoutingException e = assertThrows(InvalidRoutingException.class, () -> TopicCatalog.build(s, ROUTES, List.of(topics(), topics())));
        List<String> p = e.problems().stream().map(RoutingProblem::path).toList();
        assertEquals(List.of("routers.topic-weave.routes[0].topics.include[0]", "routers.topic-weave.routes[0].naming.renames",
                "routers.topic-weave.routes[1].qualify", "routers.topic-weave.groups.homes[0].route",
                "routers.topic-weave.placement.default"), p);
    }

    @Test
    void randomTopicSetsRoundTrip() {
        Random random = new Random(7);
        String[] alphabet = {"a", "b", "us.a", "eu.b", "x", "x-eu", "orders", "us.orders"};
        for (CollisionPolicy policy : CollisionPolicy.values()) {
            for (int round = 0; round < 300; round++) {
                List<List<RealTopic>> input = new ArrayList<>();
                for (int k = 0; k < 3; k++) {
                    List<RealTopic> ts = new ArrayList<>();
                    List<Uuid> sharedIds = new ArrayList<>(List.of(new Uuid(7, 1), new Uuid(7, 2), new Uuid(7, 3)));
                    for (String n : alphabet) {
                        if (random.nextBoolean()) {
                            // ids are unique within a cluster, but the same id may appear behind several routes
                            Uuid id = random.nextInt(3) == 0 && !sharedIds.isEmpty()
                                    ? sharedIds.remove(random.nextInt(sharedIds.size())) : Uuid.randomUuid();
                            ts.add(new RealTopic(n, id));
                        }
                    }
                    input.add(ts);
                }
                TopicWeaveSettings s = new TopicWeaveSettings(policy, List.of(
                        new RouteRules(null, TopicNaming.prefix(random.nextBoolean() ? "us." : ""), null),
                        new RouteRules(new TopicFilter(List.of(), List.of("re:x.*")), TopicNaming.renames(Map.of("a", "x-eu")), null),
                        RouteRules.DEFAULT), null, null, null);
                TopicCatalog c = TopicCatalog.build(s, List.of("us", "eu", "ap"), input);
                Set<String> seenReal = new HashSet<>();
                Set<Uuid> seenIds = new HashSet<>();
                for (VisibleTopic t : c.visibleTopics()) {
                    assertEquals(t, c.resolve(t.virtualName()));
                    assertEquals(t.virtualName(), c.virtualNameOf(t.route(), t.realName()), "round trip " + t);
                    assertTrue(seenReal.add(t.route() + "/" + t.realName()), "one virtual name per real topic");
                    assertTrue(seenIds.add(t.virtualId()), "virtual ids are distinct: " + t);
                    assertEquals(t, c.byVirtualId(t.virtualId()));
                    assertEquals(t, c.byRealId(t.route(), t.realId()));
                }
                for (int k = 0; k < 3; k++) {
                    for (RealTopic real : input.get(k)) {
                        String v = c.virtualNameOf(k, real.name());
                        if (v != null) {
                            assertEquals(real.name(), c.resolve(v).realName());
                            assertEquals(k, c.resolve(v).route());
                        }
                    }
                }
            }
        }
    }
}
