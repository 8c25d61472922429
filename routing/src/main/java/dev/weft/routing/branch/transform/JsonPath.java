package dev.weft.routing.branch.transform;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;

/**
 * The small JSON path language of {@code value-fields}: {@code $} the whole value, {@code .name} a field,
 * {@code ['name']} a field whose name has dots or brackets, {@code [*]} every array element, {@code [N]}
 * one element. A path that does not fit a value (a missing field, an index past the end, an object
 * where an array was expected) simply matches nothing there.
 */
final class JsonPath {

    static final String EXAMPLES = "paths look like $.customer.email, $.items[*].card, $.items[0], $['a.b']";

    /** What a path names at its last segment: visited once per match, in document order. */
    interface Match {
        void field(ObjectNode parent, String name);

        void element(ArrayNode parent, int index);
    }

    private sealed interface Segment permits Field, Index, EveryElement {
    }

    private record Field(String name) implements Segment {
    }

    private record Index(int index) implements Segment {
    }

    private record EveryElement() implements Segment {
    }

    private final String text;
    private final List<Segment> segments;

    private JsonPath(String text, List<Segment> segments) {
        this.text = text;
        this.segments = List.copyOf(segments);
    }

    /**
     * Parses {@code text}.
     *
     * @throws IllegalArgumentException naming the character where the path goes wrong, for the config problem
     */
    static JsonPath parse(String text) {
        if (!text.startsWith("$")) {
            throw error(text, 0, "a path starts with $");
        }
        List<Segment> segments = new ArrayList<>();
        int i = 1;
        while (i < text.length()) {
            char c = text.charAt(i);
            if (c == '.') {
                int start = i + 1;
                int end = start;
                while (end < text.length() && text.charAt(end) != '.' && text.charAt(end) != '[') {
                    if (text.charAt(end) == ']' || Character.isWhitespace(text.charAt(end))) {
                        throw error(text, end, "a field name after '.' cannot hold '" + text.charAt(end) + "' (quote it: ['name'])");
                    }
                    end++;
                }
                if (end == start) {
                    throw error(text, start, "expected a field name after '.'");
                }
                segments.add(new Field(text.substring(start, end)));
                i = end;
            } else if (c == '[') {
                i = bracket(text, i, segments);
            } else {
                throw error(text, i, "expected '.' or '[', got '" + c + "'");
            }
        }
        if (segments.isEmpty()) {
            throw error(text, 1, "$ alone names the whole value; name a field or element below it");
        }
        return new JsonPath(text, segments);
    }

    /** Reads the bracket segment opening at {@code open}; returns the index after its {@code ]}. */
    private static int bracket(String text, int open, List<Segment> segments) {
        int inside = open + 1;
        if (text.startsWith("'", inside)) {
            int quote = text.indexOf('\'', inside + 1);
            if (quote < 0 || !text.startsWith("]", quote + 1)) {
                throw error(text, inside, "a quoted name is closed by a quote and ]");
            }
            if (quote == inside + 1) {
                throw error(text, inside, "a quoted field name cannot be empty");
            }
            segments.add(new Field(text.substring(inside + 1, quote)));
            return quote + 2;
        }
        int close = text.indexOf(']', inside);
        if (close < 0) {
            throw error(text, open, "'[' is not closed by ']'");
        }
        String selector = text.substring(inside, close);
        if (selector.equals("*")) {
            segments.add(new EveryElement());
        } else if (!selector.isEmpty() && selector.length() <= 9 && selector.chars().allMatch(ch -> ch >= '0' && ch <= '9')) {
            segments.add(new Index(Integer.parseInt(selector)));
        } else {
            throw error(text, inside, "expected * or an index 0, 1, ... between [ ], got '" + selector + "'");
        }
        return close + 1;
    }

    private static IllegalArgumentException error(String text, int index, String what) {
        return new IllegalArgumentException("'" + text + "' is not a JSON path: at character " + (index + 1) + ", " + what + "; " + EXAMPLES);
    }

    /** Calls {@code match} for every place in {@code root} this path names; returns how many there were. */
    int visit(JsonNode root, Match match) {
        return visit(root, 0, match);
    }

    private int visit(JsonNode node, int depth, Match match) {
        boolean last = depth == segments.size() - 1;
        switch (segments.get(depth)) {
            case Field f -> {
                if (node instanceof ObjectNode object && object.has(f.name())) {
                    if (last) {
                        match.field(object, f.name());
                        return 1;
                    }
                    return visit(object.get(f.name()), depth + 1, match);
                }
                return 0;
            }
            case Index ix -> {
                if (node instanceof ArrayNode array && ix.index() < array.size()) {
                    if (last) {
                        match.element(array, ix.index());
                        return 1;
                    }
                    return visit(array.get(ix.index()), depth + 1, match);
                }
                return 0;
            }
            case EveryElement every -> {
                if (!(node instanceof ArrayNode array)) {
                    return 0;
                }
                int matches = 0;
                for (int i = 0; i < array.size(); i++) {
                    if (last) {
                        match.element(array, i);
                        matches++;
                    } else {
                        matches += visit(array.get(i), depth + 1, match);
                    }
                }
                return matches;
            }
        }
    }

    @Override
    public String toString() {
        return text;
    }
}
