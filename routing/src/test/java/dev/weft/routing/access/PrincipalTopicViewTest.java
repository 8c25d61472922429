package dev.weft.routing.access;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.weft.routing.ClusterRouters;
import dev.weft.routing.Placement;
import dev.weft.routing.RealTopic;
import dev.weft.routing.TopicRouting;
import dev.weft.routing.VisibleTopic;
import dev.weft.routing.api.HotCatalog;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

/** A principal's view over a one-cluster topic weave's catalog: tenant prefixes, grants per operation, placement. */
class PrincipalTopicViewTest {

    private static final Uuid ACME_ORDERS = Uuid.randomUuid();
    private static final TopicRouting CATALOG = ClusterRouters.over("east", false).catalog(List.of(List.of(
            new RealTopic("acme.orders", ACME_ORDERS), new RealTopic("acme.audit", Uuid.randomUuid()),
            new RealTopic("globex.orders", Uuid.randomUuid()), new RealTopic("shared", Uuid.randomUuid()))));

    private static NameMatcher prefix(String p) {
        return new NameMatcher(Set.of(), List.of(p), List.of());
    }

    private static final AccessRules ACME = new AccessRules("alice", "acme.", List.of(
            new TopicGrant(prefix(""), TopicOperation.READ.bit()),
            new TopicGrant(new NameMatcher(Set.of("orders"), List.of(), List.of()), TopicOperation.WRITE.bit())),
            NameMatcher.NONE, NameMatcher.NONE, 0);

    @Test
    void aTenantSeesOnlyItsTopicsNamedWithoutThePrefixUnderTheirRealNamesAndIds() {
        PrincipalTopicView view = new PrincipalTopicView(CATALOG, ACME, null);
        assertEquals(List.of("audit", "orders"), view.visibleTopics().stream().map(VisibleTopic::virtualName).toList());
        VisibleTopic orders = view.resolve("orders");
        assertEquals("acme.orders", orders.realName());
        assertNull(view.resolve("acme.orders"), "not under the catalog's name");
        assertNull(view.resolve("shared"));
        assertEquals("orders", view.virtualNameOf(0, "acme.orders"));
        assertNull(view.virtualNameOf(0, "globex.orders"));
        assertSame(orders, view.byVirtualId(ACME_ORDERS));
        // the hot path sends the real name: the renamed topic has its upstream key precomputed
        assertEquals("acme.orders", new String(HotCatalog.of(view).upstreamKey(orders, false), StandardCharsets.UTF_8));
    }

    @Test
    void anOperationsViewHoldsOnlyTheTopicsItsGrantsAllowThat() {
        PrincipalViews views = new AccessViewCache(new AccessPolicy(java.util.Map.of("alice", ACME), null, HiddenTopics.AUTHORIZATION_FAILED))
                .views(ACME, HotCatalog.of(CATALOG));
        assertEquals(List.of("orders"), views.allowing(TopicOperation.WRITE).visibleTopics().stream().map(VisibleTopic::virtualName).toList());
        assertEquals(2, views.allowing(TopicOperation.READ).visibleTopics().size());
        assertEquals(0, views.allowing(TopicOperation.DELETE).visibleTopics().size());
        assertSame(views.hotCatalog(TopicOperation.WRITE), views.hotCatalog(TopicOperation.WRITE), "made once per snapshot");
    }

    @Test
    void creatingNeedsTheCreateGrantAndPlacesTheTenantsName() {
        AccessRules creator = new AccessRules("alice", "acme.", List.of(new TopicGrant(
                new NameMatcher(Set.of(), List.of(), List.of(Pattern.compile("new-.*"))), TopicOperation.CREATE.bit())),
                NameMatcher.NONE, NameMatcher.NONE, 0);
        PrincipalTopicView view = new PrincipalTopicView(CATALOG, creator, TopicOperation.CREATE);
        assertEquals("acme.new-events", assertInstanceOf(Placement.Placed.class, view.place("new-events")).realName());
        assertEquals(Placement.Reason.NOT_AUTHORIZED, assertInstanceOf(Placement.Refused.class, view.place("events")).reason());
    }
}
