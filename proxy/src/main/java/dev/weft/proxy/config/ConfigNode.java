package dev.weft.proxy.config;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A YAML node that knows its path in the document ({@code virtualClusters.main.gateways[0]}) and
 * collects problems instead of throwing at the first one, so one run of {@code weft validate} lists
 * everything wrong with a file.
 */
final class ConfigNode {

    private final JsonNode node;
    private final String path;
    private final Problems problems;

    ConfigNode(JsonNode node, String path, Problems problems) {
        this.node = node;
        this.path = path;
        this.problems = problems;
    }

    String path() {
        return path;
    }

    /** The raw YAML node, for readers that hand a whole subtree to another module. */
    JsonNode json() {
        return node;
    }

    boolean isMissing() {
        return node == null || node.isMissingNode() || node.isNull();
    }

    ConfigNode get(String field) {
        JsonNode child = node == null ? null : node.get(field);
        return new ConfigNode(child, path.isEmpty() ? field : path + "." + field, problems);
    }

    void problem(String message) {
        problems.add(path + ": " + message);
    }

    /** A problem found by another module's validation, with the full path it names. */
    void problemAt(String fullPath, String message) {
        problems.add(fullPath + ": " + message);
    }

    /** Reports keys this object does not know: a typo must not silently become a default. */
    void allowOnly(Set<String> known) {
        if (node == null || !node.isObject()) {
            return;
        }
        Iterator<String> names = node.fieldNames();
        while (names.hasNext()) {
            String name = names.next();
            if (!known.contains(name)) {
                problems.add((path.isEmpty() ? name : path + "." + name) + ": unknown setting (known here: "
                        + String.join(", ", known.stream().sorted().toList()) + ")");
            }
        }
    }

    boolean requireObject() {
        if (isMissing()) {
            problem("is required");
            return false;
        }
        if (!node.isObject()) {
            problem("must be a map of settings, was " + describe());
            return false;
        }
        return true;
    }

    /** The entries of a map, in document order; empty when missing or not a map (a problem is noted). */
    Map<String, ConfigNode> entries() {
        Map<String, ConfigNode> out = new LinkedHashMap<>();
        if (isMissing()) {
            return out;
        }
        if (!node.isObject()) {
            problem("must be a map, was " + describe());
            return out;
        }
        node.fields().forEachRemaining(e ->
                out.put(e.getKey(), new ConfigNode(e.getValue(), path.isEmpty() ? e.getKey() : path + "." + e.getKey(), problems)));
        return out;
    }

    List<ConfigNode> elements() {
        List<ConfigNode> out = new ArrayList<>();
        if (isMissing()) {
            return out;
        }
        if (!node.isArray()) {
            problem("must be a list, was " + describe());
            return out;
        }
        for (int i = 0; i < node.size(); i++) {
            out.add(new ConfigNode(node.get(i), path + "[" + i + "]", problems));
        }
        return out;
    }

    String text(String defaultValue) {
        if (isMissing()) {
            return defaultValue;
        }
        if (!node.isValueNode()) {
            problem("must be a single value, was " + describe());
            return defaultValue;
        }
        return node.asText();
    }

    String requiredText() {
        if (isMissing()) {
            problem("is required");
            return null;
        }
        return text(null);
    }

    int integer(int defaultValue, int min, int max) {
        if (isMissing()) {
            return defaultValue;
        }
        if (!node.canConvertToInt() || !node.isIntegralNumber()) {
            problem("must be a whole number from " + min + " to " + max + ", was " + describe());
            return defaultValue;
        }
        int v = node.asInt();
        if (v < min || v > max) {
            problem(v + " is out of range (" + min + " to " + max + ")");
            return defaultValue;
        }
        return v;
    }

    boolean bool(boolean defaultValue) {
        if (isMissing()) {
            return defaultValue;
        }
        if (!node.isBoolean()) {
            problem("must be true or false, was " + describe());
            return defaultValue;
        }
        return node.asBoolean();
    }

    /** A size like {@code 100MiB}, {@code 64KiB}, {@code 1048576}. */
    long bytes(long defaultValue, long min, long max) {
        if (isMissing()) {
            return defaultValue;
        }
        String raw = node.asText().trim();
        long value;
        try {
            value = ByteSize.parse(raw);
        } catch (IllegalArgumentException e) {
            problem("\"" + raw + "\" is not a size (examples: 1048576, 64KiB, 100MiB)");
            return defaultValue;
        }
        if (value < min || value > max) {
            problem(raw + " is out of range (" + min + " to " + max + " bytes)");
            return defaultValue;
        }
        return value;
    }

    <E extends Enum<E>> E choice(Class<E> type, E defaultValue) {
        if (isMissing()) {
            return defaultValue;
        }
        String raw = node.asText();
        for (E e : type.getEnumConstants()) {
            if (ConfigNames.of(e).equalsIgnoreCase(raw)) {
                return e;
            }
        }
        List<String> names = new ArrayList<>();
        for (E e : type.getEnumConstants()) {
            names.add(ConfigNames.of(e));
        }
        problem("\"" + raw + "\" is not one of " + String.join(", ", names));
        return defaultValue;
    }

    private String describe() {
        if (node == null) {
            return "nothing";
        }
        if (node.isObject()) {
            return "a map";
        }
        if (node.isArray()) {
            return "a list";
        }
        return "\"" + node.asText() + "\"";
    }

    /** Collected problems of one file, each prefixed with the file name when reported. */
    static final class Problems {
        private final String source;
        private final List<String> messages = new ArrayList<>();

        Problems(String source) {
            this.source = source;
        }

        void add(String message) {
            messages.add(source + ": " + message);
        }

        boolean isEmpty() {
            return messages.isEmpty();
        }

        ConfigException toException() {
            return new ConfigException(messages);
        }
    }
}
