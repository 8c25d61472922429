package dev.weft.routing.dag;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads the shapes of a router's settings as the config reader hands them over (maps, lists, strings,
 * numbers), adding a problem with its path for each value of the wrong shape and each unknown key: the
 * part every router type's settings reader shares. Never throws; a wrong value reads as null.
 */
public final class RawSettings {

    private final List<RoutingProblem> problems;

    public RawSettings(List<RoutingProblem> problems) {
        this.problems = problems;
    }

    /** Adds a problem for every key of {@code m} not in {@code known}. */
    public void unknownKeys(String path, Map<?, ?> m, Set<String> known) {
        for (Object key : m.keySet()) {
            if (!known.contains(String.valueOf(key))) {
                problems.add(new RoutingProblem(path + "." + key, "unknown key '" + key + "'; known keys: "
                        + known.stream().sorted().toList()));
            }
        }
    }

    /** The string, or null when missing or (with a problem) not a string. */
    public String string(String path, Object value) {
        if (value == null || value instanceof String) {
            return (String) value;
        }
        problems.add(new RoutingProblem(path, "expected a string, got " + describe(value)));
        return null;
    }

    /** The list, or null when missing or (with a problem) not a list. */
    public List<?> list(String path, Object value) {
        if (value == null || value instanceof List<?>) {
            return (List<?>) value;
        }
        problems.add(new RoutingProblem(path, "expected a list, got " + describe(value)));
        return null;
    }

    /** The mapping, or null when missing or (with a problem) not a mapping. */
    public Map<?, ?> map(String path, Object value) {
        if (value == null || value instanceof Map<?, ?>) {
            return (Map<?, ?>) value;
        }
        problems.add(new RoutingProblem(path, "expected a mapping, got " + describe(value)));
        return null;
    }

    /** A value as an operator wrote it: "a list", "a mapping", or the scalar in quotes. */
    public static String describe(Object value) {
        return value instanceof List<?> ? "a list" : value instanceof Map<?, ?> ? "a mapping" : "'" + value + "'";
    }
}
