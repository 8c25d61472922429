package dev.weft.routing.access;

import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A compiled set of names: exact names, prefixes and regular expressions (whole-name matches), as an
 * allow-list entry gives them. {@code *} as an exact name matches every name (Kafka's wildcard). Built
 * once at load; matching reads only immutable fields.
 */
public final class NameMatcher {

    public static final NameMatcher NONE = new NameMatcher(Set.of(), List.of(), List.of());

    private final Set<String> exact;
    private final boolean any;
    private final String[] prefixes;
    private final Pattern[] patterns;

    public NameMatcher(Set<String> exact, List<String> prefixes, List<Pattern> patterns) {
        this.exact = Set.copyOf(exact);
        this.any = exact.contains("*");
        this.prefixes = prefixes.toArray(String[]::new);
        this.patterns = patterns.toArray(Pattern[]::new);
    }

    public boolean matches(String name) {
        if (any || exact.contains(name)) {
            return true;
        }
        for (String p : prefixes) {
            if (name.startsWith(p)) {
                return true;
            }
        }
        for (Pattern p : patterns) {
            if (p.matcher(name).matches()) {
                return true;
            }
        }
        return false;
    }

    /** One matcher matching what either matches. */
    public NameMatcher or(NameMatcher other) {
        java.util.HashSet<String> e = new java.util.HashSet<>(exact);
        e.addAll(other.exact);
        java.util.ArrayList<String> pre = new java.util.ArrayList<>(List.of(prefixes));
        pre.addAll(List.of(other.prefixes));
        java.util.ArrayList<Pattern> pat = new java.util.ArrayList<>(List.of(patterns));
        pat.addAll(List.of(other.patterns));
        return new NameMatcher(e, pre, pat);
    }
}
