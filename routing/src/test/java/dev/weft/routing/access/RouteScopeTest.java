package dev.weft.routing.access;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A principal's routes and home, compiled against the router's route names. */
class RouteScopeTest {

    private static final List<String> ROUTES = List.of("east", "west", "north");

    private static AccessRules rules(List<String> routes, String home) {
        return new AccessRules("bob", null, List.of(), NameMatcher.NONE, NameMatcher.NONE, 0, routes, home);
    }

    @Test
    void rulesWithoutRoutesOrHomeGoEverywhereWithTheRoutersHomes() {
        assertSame(RouteScope.ANY, RouteScope.of(rules(List.of(), null), ROUTES));
        assertTrue(RouteScope.ANY.allows(2));
        assertEquals(-1, RouteScope.ANY.home());
    }

    @Test
    void routesAreIndexesOfTheRoutersRoutesAndTheHomeIsOneOfThem() {
        RouteScope scope = RouteScope.of(rules(List.of("west", "north"), "north"), ROUTES);
        assertFalse(scope.allows(0));
        assertTrue(scope.allows(1));
        assertTrue(scope.allows(2));
        assertFalse(scope.allows(3), "a route the router does not have");
        assertEquals(2, scope.home());
        assertEquals(1, RouteScope.of(rules(List.of(), "west"), ROUTES).home(), "a home alone keeps every route");
        assertEquals(-1, RouteScope.of(rules(List.of("east", "west"), null), ROUTES).home(), "the router's homes");
        assertEquals(1, RouteScope.of(rules(List.of("west"), null), ROUTES).home(), "a single route is the home too");
    }

    @Test
    void namesTheRouterDoesNotHaveOrAHomeOutsideTheRoutesAreRefusedNamingThePrincipal() {
        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class, () -> new AccessViewCache(
                new AccessPolicy(Map.of("bob", rules(List.of("south"), null)), null, HiddenTopics.AUTHORIZATION_FAILED), ROUTES));
        assertEquals("principals.bob.routes: the router has no route 'south' (routes: east, west, north)", unknown.getMessage());
        IllegalArgumentException outside = assertThrows(IllegalArgumentException.class,
                () -> RouteScope.of(rules(List.of("east"), "west"), ROUTES));
        assertEquals("home: route 'west' is not one of its routes [east]", outside.getMessage());
    }
}
