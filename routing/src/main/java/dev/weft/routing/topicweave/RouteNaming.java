package dev.weft.routing.topicweave;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * One route's compiled visibility and naming: patterns compiled once, renames indexed both ways. Public
 * for other router types that select and name topics the same way (a branch's topics and target names).
 */
public final class RouteNaming {

    final String routeName;
    final String qualifyPrefix;
    private final Set<String> includeExact = new HashSet<>();
    private final Pattern[] includePatterns;
    private final Set<String> excludeExact = new HashSet<>();
    private final Pattern[] excludePatterns;
    private final boolean includeAll;
    private final String prefix;
    private final Map<String, String> realToVirtual;
    private final Map<String, String> virtualToReal = new HashMap<>();

    public RouteNaming(String routeName, String qualifyPrefix, RouteRules rules) {
        this.routeName = routeName;
        this.qualifyPrefix = qualifyPrefix;
        includePatterns = split(rules.topics().include(), includeExact);
        excludePatterns = split(rules.topics().exclude(), excludeExact);
        includeAll = rules.topics().include().isEmpty();
        prefix = rules.naming().prefix();
        realToVirtual = rules.naming().renames();
        realToVirtual.forEach((real, virtual) -> virtualToReal.put(virtual, real));
    }

    private static Pattern[] split(List<String> entries, Set<String> exact) {
        return entries.stream().filter(e -> {
            if (e.startsWith(TopicFilter.REGEX_PREFIX)) {
                return true;
            }
            exact.add(e);
            return false;
        }).map(e -> Pattern.compile(e.substring(TopicFilter.REGEX_PREFIX.length()))).toArray(Pattern[]::new);
    }

    /** Whether real topic {@code name} is visible through this route (evaluated at snapshot build). */
    public boolean visible(String name) {
        if (excludeExact.contains(name) || matchesAny(excludePatterns, name)) {
            return false;
        }
        if (includeExact.contains(name)) {
            return true;
        }
        if (name.startsWith("__")) {
            return false;
        }
        return includeAll || matchesAny(includePatterns, name);
    }

    private static boolean matchesAny(Pattern[] patterns, String name) {
        for (Pattern p : patterns) {
            if (p.matcher(name).matches()) {
                return true;
            }
        }
        return false;
    }

    /** The virtual name of visible real topic {@code real}, before collisions are settled. */
    public String virtualName(String real) {
        String renamed = realToVirtual.get(real);
        return renamed != null ? renamed : prefix.isEmpty() ? real : prefix + real;
    }

    /**
     * The real name that this route's naming maps to {@code virtual}; throws {@link IllegalArgumentException}
     * saying why when none does.
     */
    String realName(String virtual) {
        String renamed = virtualToReal.get(virtual);
        if (renamed != null) {
            return renamed;
        }
        if (!virtual.startsWith(prefix)) {
            throw new IllegalArgumentException("'" + virtual + "' does not start with route '" + routeName
                    + "' naming prefix '" + prefix + "'");
        }
        String real = virtual.substring(prefix.length());
        if (real.isEmpty()) {
            throw new IllegalArgumentException("'" + virtual + "' is only route '" + routeName + "' naming prefix");
        }
        String exposed = realToVirtual.get(real);
        if (exposed != null) {
            throw new IllegalArgumentException("real topic '" + real + "' of route '" + routeName
                    + "' is renamed to '" + exposed + "', so '" + virtual + "' cannot name it");
        }
        return real;
    }
}
