package dev.weft.routing.topicweave;

import dev.weft.routing.GroupRouting;
import dev.weft.routing.TransactionRouting;
import java.util.Comparator;
import java.util.List;

/**
 * Compiled {@link PrefixHomes}: prefixes longest first, so the first {@code startsWith} hit is the
 * longest matching prefix. A handful of rules: a loop, no allocation.
 */
final class PrefixMatcher implements GroupRouting, TransactionRouting {

    private final String[] prefixes;
    private final int[] routes;
    private final int defaultRoute;

    PrefixMatcher(PrefixHomes homes, List<String> routeNames) {
        List<PrefixRule> sorted = homes.rules().stream()
                .sorted(Comparator.comparingInt((PrefixRule r) -> r.prefix().length()).reversed()).toList();
        prefixes = new String[sorted.size()];
        routes = new int[sorted.size()];
        for (int i = 0; i < sorted.size(); i++) {
            prefixes[i] = sorted.get(i).prefix();
            routes[i] = indexOf(routeNames, sorted.get(i).route());
        }
        defaultRoute = homes.defaultRoute() == null ? 0 : indexOf(routeNames, homes.defaultRoute());
    }

    private static int indexOf(List<String> routeNames, String route) {
        int k = routeNames.indexOf(route);
        if (k < 0) {
            throw new IllegalArgumentException("route '" + route + "' does not exist; routes: " + routeNames);
        }
        return k;
    }

    @Override
    public int homeRoute(String id) {
        for (int i = 0; i < prefixes.length; i++) {
            if (id.startsWith(prefixes[i])) {
                return routes[i];
            }
        }
        return defaultRoute;
    }
}
