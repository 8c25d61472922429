package dev.weft.routing.branch.transform;

import dev.weft.routing.dag.RawSettings;
import dev.weft.routing.dag.RoutingProblem;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads a {@code derive} step: {@code audit}, or {@code {count: {interval: 10s}}}. */
final class DeriveReader {

    private static final String CHOICES = "use audit or {count: {interval: 10s}}";
    private static final Pattern INTERVAL = Pattern.compile("(\\d{1,12})(ms|s|m)");
    private static final String INTERVAL_FORM = "a whole number with ms, s or m, e.g. 500ms, 10s, 5m";

    private DeriveReader() {
    }

    /** The step, or null when its settings had problems (added to {@code problems}). */
    static DeriveStep read(String at, Object raw, String replicaId, List<RoutingProblem> problems) {
        if (raw instanceof String kind) {
            return switch (kind) {
                case "audit" -> new AuditStep();
                case "count" -> {
                    problems.add(new RoutingProblem(at, "count needs an interval: derive: {count: {interval: 10s}}"));
                    yield null;
                }
                default -> {
                    problems.add(new RoutingProblem(at, "'" + kind + "' is not a derived stream; " + CHOICES));
                    yield null;
                }
            };
        }
        if (!(raw instanceof Map<?, ?> m) || m.size() != 1) {
            problems.add(new RoutingProblem(at, "derive takes one derived stream, got " + (raw instanceof Map<?, ?> several ? several.keySet()
                    : RawSettings.describe(raw)) + "; " + CHOICES));
            return null;
        }
        Map.Entry<?, ?> only = m.entrySet().iterator().next();
        String kind = String.valueOf(only.getKey());
        return switch (kind) {
            case "audit" -> audit(at + ".audit", only.getValue(), problems);
            case "count" -> count(at + ".count", only.getValue(), replicaId, problems);
            default -> {
                problems.add(new RoutingProblem(at + "." + kind, "'" + kind + "' is not a derived stream; " + CHOICES));
                yield null;
            }
        };
    }

    private static DeriveStep audit(String at, Object settings, List<RoutingProblem> problems) {
        if (settings == null || settings instanceof Map<?, ?> m && m.isEmpty()) {
            return new AuditStep();
        }
        problems.add(new RoutingProblem(at, "audit takes no settings, got " + RawSettings.describe(settings) + "; write derive: audit"));
        return null;
    }

    private static DeriveStep count(String at, Object raw, String replicaId, List<RoutingProblem> problems) {
        if (!(raw instanceof Map<?, ?> settings)) {
            problems.add(new RoutingProblem(at, "count takes a mapping such as {interval: 10s}, got " + RawSettings.describe(raw)));
            return null;
        }
        int problemsBefore = problems.size();
        new RawSettings(problems).unknownKeys(at, settings, Set.of("interval"));
        long intervalMs = intervalMs(at + ".interval", settings.get("interval"), problems);
        return problems.size() > problemsBefore ? null : new CountStep(replicaId, intervalMs);
    }

    /** The interval in milliseconds, or 0 with a problem. */
    static long intervalMs(String at, Object raw, List<RoutingProblem> problems) {
        if (raw == null) {
            problems.add(new RoutingProblem(at, "missing: the window length, " + INTERVAL_FORM));
            return 0;
        }
        Matcher m = raw instanceof String text ? INTERVAL.matcher(text.strip()) : null;
        if (m == null || !m.matches()) {
            problems.add(new RoutingProblem(at, RawSettings.describe(raw) + " is not an interval; use " + INTERVAL_FORM));
            return 0;
        }
        long amount = Long.parseLong(m.group(1));
        long unitMs = switch (m.group(2)) {
            case "ms" -> 1;
            case "s" -> 1_000;
            default -> 60_000;
        };
        if (amount == 0) {
            problems.add(new RoutingProblem(at, "interval " + raw + " is empty; a window must be longer than 0, e.g. 10s"));
            return 0;
        }
        return amount * unitMs;
    }
}
