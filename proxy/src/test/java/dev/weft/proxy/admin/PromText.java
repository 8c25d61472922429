package dev.weft.proxy.admin;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A tiny parser of the Prometheus text exposition format, for asserting values in tests: every sample
 * line becomes a name, its labels and a value; comments are kept apart.
 */
final class PromText {

    record Sample(String name, Map<String, String> labels, double value) {
        boolean matches(String metric, Map<String, String> filter) {
            if (!name.equals(metric)) {
                return false;
            }
            for (Map.Entry<String, String> e : filter.entrySet()) {
                if (!e.getValue().equals(labels.get(e.getKey()))) {
                    return false;
                }
            }
            return true;
        }
    }

    private final List<Sample> samples = new ArrayList<>();
    private final List<String> comments = new ArrayList<>();
    private final String text;

    private PromText(String text) {
        this.text = text;
    }

    static PromText parse(String text) {
        PromText p = new PromText(text);
        for (String line : text.split("\n")) {
            if (line.isBlank()) {
                continue;
            }
            if (line.startsWith("#")) {
                p.comments.add(line);
                continue;
            }
            p.samples.add(sample(line));
        }
        return p;
    }

    private static Sample sample(String line) {
        int i = 0;
        while (i < line.length() && line.charAt(i) != '{' && line.charAt(i) != ' ') {
            i++;
        }
        String name = line.substring(0, i);
        Map<String, String> labels = new LinkedHashMap<>();
        if (i < line.length() && line.charAt(i) == '{') {
            i++;
            while (line.charAt(i) != '}') {
                int eq = line.indexOf('=', i);
                String label = line.substring(i, eq);
                if (line.charAt(eq + 1) != '"') {
                    throw new IllegalArgumentException("label value not quoted in: " + line);
                }
                StringBuilder value = new StringBuilder();
                int j = eq + 2;
                for (; line.charAt(j) != '"'; j++) {
                    char c = line.charAt(j);
                    if (c == '\\') {
                        char next = line.charAt(++j);
                        value.append(next == 'n' ? '\n' : next);
                    } else {
                        value.append(c);
                    }
                }
                labels.put(label, value.toString());
                i = j + 1;
                if (line.charAt(i) == ',') {
                    i++;
                }
            }
            i++;
        }
        String rest = line.substring(i).trim();
        int space = rest.indexOf(' ');
        String number = space < 0 ? rest : rest.substring(0, space); // a timestamp may follow
        double value = switch (number) {
            case "+Inf" -> Double.POSITIVE_INFINITY;
            case "-Inf" -> Double.NEGATIVE_INFINITY;
            case "NaN" -> Double.NaN;
            default -> Double.parseDouble(number);
        };
        return new Sample(name, Map.copyOf(labels), value);
    }

    List<Sample> samples(String metric, Map<String, String> filter) {
        return samples.stream().filter(s -> s.matches(metric, filter)).toList();
    }

    /** Sum of every sample of {@code metric} whose labels include {@code filter} (0 when none). */
    double sum(String metric, Map<String, String> filter) {
        return samples(metric, filter).stream().mapToDouble(Sample::value).sum();
    }

    /** The one sample of {@code metric} matching {@code filter}. */
    double value(String metric, Map<String, String> filter) {
        List<Sample> found = samples(metric, filter);
        if (found.size() != 1) {
            throw new AssertionError("expected one sample of " + metric + filter + ", found " + found + " in:\n" + text);
        }
        return found.getFirst().value();
    }

    boolean has(String metric, Map<String, String> filter) {
        return !samples(metric, filter).isEmpty();
    }

    List<String> comments() {
        return comments;
    }

    @Override
    public String toString() {
        return text;
    }
}
