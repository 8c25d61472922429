package dev.weft.routing.branch.transform;

import dev.weft.routing.dag.RawSettings;
import dev.weft.routing.dag.RoutingProblem;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Reads a {@code sample} step's settings: {@code fraction} (required) and {@code by} (default key). */
final class SampleReader {

    private static final Set<String> KEYS = Set.of("fraction", "by");

    private SampleReader() {
    }

    /** The step, or null when its settings had problems (added to {@code problems}). */
    static SampleStep read(String at, Object raw, TransformCounters counters, List<RoutingProblem> problems) {
        if (!(raw instanceof Map<?, ?> settings)) {
            problems.add(new RoutingProblem(at, "sample takes a mapping such as {fraction: 0.1, by: key}, got " + RawSettings.describe(raw)));
            return null;
        }
        int problemsBefore = problems.size();
        new RawSettings(problems).unknownKeys(at, settings, KEYS);
        double fraction = fraction(at + ".fraction", settings.get("fraction"), problems);
        SampleStep.Mode mode = mode(at + ".by", settings.get("by"), problems);
        return problems.size() > problemsBefore ? null : new SampleStep(fraction, mode, counters);
    }

    private static double fraction(String at, Object raw, List<RoutingProblem> problems) {
        if (raw == null) {
            problems.add(new RoutingProblem(at, "missing: the fraction of records to keep, 0 < fraction <= 1, e.g. 0.1"));
            return 0;
        }
        if (!(raw instanceof Number number)) {
            problems.add(new RoutingProblem(at, "expected a number 0 < fraction <= 1 (e.g. 0.1), got " + RawSettings.describe(raw)));
            return 0;
        }
        double fraction = number.doubleValue();
        if (!(fraction > 0 && fraction <= 1)) {
            problems.add(new RoutingProblem(at, "fraction " + raw + " is out of range; use 0 < fraction <= 1 (1 keeps every record)"));
        }
        return fraction;
    }

    private static SampleStep.Mode mode(String at, Object raw, List<RoutingProblem> problems) {
        if (raw == null) {
            return SampleStep.Mode.KEY;
        }
        return switch (String.valueOf(raw)) {
            case "key" -> SampleStep.Mode.KEY;
            case "random" -> SampleStep.Mode.RANDOM;
            default -> {
                problems.add(new RoutingProblem(at, RawSettings.describe(raw) + " is not a sampling mode; use key (the same keys"
                        + " always kept) | random"));
                yield SampleStep.Mode.KEY;
            }
        };
    }
}
