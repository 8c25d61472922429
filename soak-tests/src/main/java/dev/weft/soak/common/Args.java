package dev.weft.soak.common;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * {@code --name value} / {@code --name=value} / {@code --flag} command-line options. An option given more
 * than once keeps every value ({@link #all}); {@link #get} and the other readers take the last.
 */
public final class Args {

    private final Map<String, String> values = new LinkedHashMap<>();
    private final Map<String, List<String>> repeated = new LinkedHashMap<>();

    public Args(String[] args, Set<String> flags) {
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (!a.startsWith("--")) {
                throw new IllegalArgumentException("unexpected argument '" + a + "'");
            }
            String name = a.substring(2);
            int eq = name.indexOf('=');
            if (eq >= 0) {
                put(name.substring(0, eq), name.substring(eq + 1));
            } else if (flags.contains(name)) {
                put(name, "true");
            } else if (i + 1 < args.length) {
                put(name, args[++i]);
            } else {
                throw new IllegalArgumentException("--" + name + " needs a value");
            }
        }
    }

    private void put(String name, String value) {
        values.put(name, value);
        repeated.computeIfAbsent(name, k -> new ArrayList<>()).add(value);
    }

    /** Every value of a repeatable option, in command-line order (empty when not given). */
    public List<String> all(String name) {
        return List.copyOf(repeated.getOrDefault(name, List.of()));
    }

    public String get(String name, String def) {
        return values.getOrDefault(name, def);
    }

    public boolean flag(String name) {
        return Boolean.parseBoolean(values.getOrDefault(name, "false"));
    }

    public int integer(String name, int def) {
        return values.containsKey(name) ? Integer.parseInt(values.get(name)) : def;
    }

    public Duration duration(String name, Duration def) {
        return values.containsKey(name) ? parseDuration(values.get(name)) : def;
    }

    public void requireOnly(Set<String> known) {
        for (String k : values.keySet()) {
            if (!known.contains(k)) {
                throw new IllegalArgumentException("unknown option --" + k + " (known: --" + String.join(", --", known) + ")");
            }
        }
    }

    /** {@code 500ms}, {@code 30s}, {@code 10m}, {@code 2h}, or plain seconds. */
    public static Duration parseDuration(String s) {
        s = s.trim();
        if (s.endsWith("ms")) {
            return Duration.ofMillis(Long.parseLong(s.substring(0, s.length() - 2)));
        }
        char unit = s.charAt(s.length() - 1);
        if (Character.isDigit(unit)) {
            return Duration.ofSeconds(Long.parseLong(s));
        }
        long n = Long.parseLong(s.substring(0, s.length() - 1));
        return switch (unit) {
            case 's' -> Duration.ofSeconds(n);
            case 'm' -> Duration.ofMinutes(n);
            case 'h' -> Duration.ofHours(n);
            default -> throw new IllegalArgumentException("bad duration '" + s + "' (use 500ms, 30s, 10m, 2h)");
        };
    }
}
