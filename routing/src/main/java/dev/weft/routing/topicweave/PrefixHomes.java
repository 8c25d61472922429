package dev.weft.routing.topicweave;

import java.util.List;

/**
 * Prefix rules and a default route: the home of an id is the route of the longest matching prefix,
 * else {@code defaultRoute}. Used for group homes, transactional id homes and topic placement.
 *
 * @param defaultRoute a route name; null means the router's first route
 */
public record PrefixHomes(List<PrefixRule> rules, String defaultRoute) {

    /** No rules; everything goes to the first route. */
    public static final PrefixHomes FIRST_ROUTE = new PrefixHomes(List.of(), null);

    public PrefixHomes {
        rules = List.copyOf(rules);
    }
}
