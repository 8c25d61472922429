package dev.weft.proxy.config;

import dev.weft.routing.access.AccessPolicy;
import dev.weft.routing.access.AccessRules;
import dev.weft.routing.access.ClusterOperation;
import dev.weft.routing.access.HiddenTopics;
import dev.weft.routing.access.NameMatcher;
import dev.weft.routing.access.TopicGrant;
import dev.weft.routing.access.TopicOperation;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Reads a virtual cluster's {@code authorization:} map into an {@link AccessPolicy}, regular expressions
 * compiled here (a bad one is a config error, never a failure at the first request):
 * <pre>
 * authorization:
 *   hiddenTopics: authorization-failed    # or unknown: how a topic the principal may not describe is answered
 *   principals:
 *     alice:                              # the user of User:alice (SASL user name, or the mapped mTLS name)
 *       tenant: "acme."                   # optional: sees only topics named acme.*, without the prefix
 *       topics:
 *         - { prefix: "", operations: [all] }
 *         - { name: audit, operations: [read] }
 *         - { regex: "metrics-.*", operations: [read, write] }
 *       groups: [ { prefix: "acme-" } ]
 *       transactionalIds: [ { name: "acme-payments" } ]
 *       cluster: [describe]               # cluster-level admin APIs: describe, alter
 *     "*": { ... }                        # every other principal (without it: allowed nothing)
 * </pre>
 */
final class AuthorizationReader {

    private AuthorizationReader() {
    }

    static AccessPolicy read(ConfigNode n) {
        if (n.isMissing() || !n.requireObject()) {
            return null;
        }
        n.allowOnly(Set.of("hiddenTopics", "principals"));
        HiddenTopics hidden = n.get("hiddenTopics").choice(HiddenTopics.class, HiddenTopics.AUTHORIZATION_FAILED);
        ConfigNode principals = n.get("principals");
        if (principals.isMissing()) {
            principals.problem("is required: the principals (by user name, or \"*\" for every other one) and what each may do");
            return null;
        }
        if (!principals.requireObject()) {
            return null;
        }
        Map<String, AccessRules> byUser = new LinkedHashMap<>();
        AccessRules others = null;
        for (Map.Entry<String, ConfigNode> e : principals.entries().entrySet()) {
            String user = e.getKey().startsWith("User:") ? e.getKey().substring("User:".length()) : e.getKey();
            AccessRules rules = rules(user, e.getValue());
            if (rules == null) {
                continue;
            }
            if (user.equals("*")) {
                others = rules;
            } else if (byUser.put(user, rules) != null) {
                e.getValue().problem("principal '" + user + "' is listed twice");
            }
        }
        return new AccessPolicy(byUser, others, hidden);
    }

    private static AccessRules rules(String user, ConfigNode p) {
        if (!p.requireObject()) {
            return null;
        }
        p.allowOnly(Set.of("tenant", "topics", "groups", "transactionalIds", "cluster", "routes", "home"));
        String tenant = p.get("tenant").text(null);
        if (tenant != null && tenant.isEmpty()) {
            p.get("tenant").problem("is empty: leave it out for a principal that sees topics under their own names");
        }
        List<TopicGrant> topics = new ArrayList<>();
        for (ConfigNode g : p.get("topics").elements()) {
            if (!g.requireObject()) {
                continue;
            }
            g.allowOnly(Set.of("name", "prefix", "regex", "operations"));
            NameMatcher names = matcher(g);
            int ops = 0;
            List<ConfigNode> listed = g.get("operations").elements();
            if (listed.isEmpty()) {
                g.get("operations").problem("is required: a list of read, write, create, delete, alter, describe (or all)");
            }
            for (ConfigNode o : listed) {
                String name = o.requiredText();
                if (name == null) {
                    continue;
                }
                if (name.equalsIgnoreCase("all")) {
                    ops |= TopicOperation.ALL;
                    continue;
                }
                TopicOperation op = TopicOperation.named(name);
                if (op == null) {
                    o.problem("\"" + name + "\" is not one of read, write, create, delete, alter, describe, all");
                } else {
                    ops |= op.bit();
                }
            }
            if (names != null) {
                topics.add(new TopicGrant(names, ops));
            }
        }
        NameMatcher groups = matchers(p.get("groups"));
        NameMatcher transactionalIds = matchers(p.get("transactionalIds"));
        int cluster = 0;
        for (ConfigNode c : p.get("cluster").elements()) {
            String name = c.requiredText();
            if (name == null) {
                continue;
            }
            ClusterOperation op = name.equalsIgnoreCase("describe") ? ClusterOperation.DESCRIBE
                    : name.equalsIgnoreCase("alter") ? ClusterOperation.ALTER : null;
            if (op == null) {
                c.problem("\"" + name + "\" is not one of describe, alter");
            } else {
                cluster |= op.bit();
            }
        }
        List<String> routes = new ArrayList<>();
        for (ConfigNode r : p.get("routes").elements()) {
            String route = r.requiredText();
            if (route != null) {
                routes.add(route);
            }
        }
        String home = p.get("home").text(null);
        // the route names are checked against the router when the virtual cluster starts (VirtualClusters)
        return new AccessRules(user, tenant, topics, groups, transactionalIds, cluster, routes, home);
    }

    private static NameMatcher matchers(ConfigNode list) {
        NameMatcher out = NameMatcher.NONE;
        for (ConfigNode g : list.elements()) {
            if (!g.requireObject()) {
                continue;
            }
            g.allowOnly(Set.of("name", "prefix", "regex"));
            NameMatcher m = matcher(g);
            if (m != null) {
                out = out.or(m);
            }
        }
        return out;
    }

    /** One entry's {@code name} (exact; "*" for every name), {@code prefix} or {@code regex} (whole name): exactly one. */
    private static NameMatcher matcher(ConfigNode g) {
        int given = (g.get("name").isMissing() ? 0 : 1) + (g.get("prefix").isMissing() ? 0 : 1) + (g.get("regex").isMissing() ? 0 : 1);
        if (given != 1) {
            g.problem("needs exactly one of 'name' (exact, \"*\" for every name), 'prefix' or 'regex'");
            return null;
        }
        if (!g.get("name").isMissing()) {
            String name = g.get("name").requiredText();
            return name == null ? null : new NameMatcher(new HashSet<>(List.of(name)), List.of(), List.of());
        }
        if (!g.get("prefix").isMissing()) {
            String prefix = g.get("prefix").text(null);
            return prefix == null ? null : new NameMatcher(Set.of(), List.of(prefix), List.of());
        }
        String regex = g.get("regex").requiredText();
        if (regex == null) {
            return null;
        }
        try {
            return new NameMatcher(Set.of(), List.of(), List.of(Pattern.compile(regex)));
        } catch (PatternSyntaxException e) {
            g.get("regex").problem("\"" + regex + "\" is not a regular expression: " + e.getDescription());
            return null;
        }
    }
}
