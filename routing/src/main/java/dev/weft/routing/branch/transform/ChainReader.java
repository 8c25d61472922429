package dev.weft.routing.branch.transform;

import dev.weft.routing.dag.RawSettings;
import dev.weft.routing.dag.RoutingProblem;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Reads the {@code transforms} list: one single-key mapping per step, dispatched by step name. */
final class ChainReader {

    private static final String STEP_NAMES = "redact, sample or derive";

    private ChainReader() {
    }

    static TransformChain read(String path, Object raw, String replicaId, List<RoutingProblem> problems) {
        TransformCounters counters = new TransformCounters();
        if (raw == null) {
            return new TransformChain(List.of(), null, List.of(), counters);
        }
        if (!(raw instanceof List<?> steps)) {
            problems.add(new RoutingProblem(path, "transforms must be a list of steps (- redact: ..., - sample: ...,"
                    + " - derive: ...), got " + RawSettings.describe(raw)));
            return null;
        }
        List<RoutingProblem> found = new ArrayList<>();
        List<RecordStep> beforeDerive = new ArrayList<>();
        List<RecordStep> afterDerive = new ArrayList<>();
        DeriveStep derive = null;
        int deriveIndex = -1;
        for (int k = 0; k < steps.size(); k++) {
            String at = path + "[" + k + "]";
            Map.Entry<?, ?> step = singleKey(at, steps.get(k), found);
            if (step == null) {
                continue;
            }
            String name = String.valueOf(step.getKey());
            String stepAt = at + "." + name;
            List<RecordStep> recordSteps = deriveIndex < 0 ? beforeDerive : afterDerive;
            switch (name) {
                case "redact" -> addIfRead(recordSteps, RedactReader.read(stepAt, step.getValue(), counters, found));
                case "sample" -> addIfRead(recordSteps, SampleReader.read(stepAt, step.getValue(), counters, found));
                case "derive" -> {
                    if (deriveIndex >= 0) {
                        found.add(new RoutingProblem(stepAt, "a chain derives once and transforms[" + deriveIndex
                                + "] already does; put a second derived stream on its own branch route"));
                    } else {
                        deriveIndex = k;
                        derive = DeriveReader.read(stepAt, step.getValue(), replicaId, found);
                    }
                }
                default -> found.add(new RoutingProblem(stepAt, "unknown step '" + name + "'; a step is " + STEP_NAMES));
            }
        }
        if (!found.isEmpty()) {
            problems.addAll(found);
            return null;
        }
        return new TransformChain(beforeDerive, derive, afterDerive, counters);
    }

    /** The step's one name-to-settings entry, or null (with a problem) when the item is not shaped so. */
    private static Map.Entry<?, ?> singleKey(String at, Object item, List<RoutingProblem> found) {
        if (!(item instanceof Map<?, ?> m)) {
            found.add(new RoutingProblem(at, "a step is a mapping with one key, " + STEP_NAMES + "; got " + RawSettings.describe(item)));
            return null;
        }
        if (m.size() != 1) {
            found.add(new RoutingProblem(at, "a step has exactly one key (" + STEP_NAMES + "), this one has " + m.keySet()
                    + "; put each step in its own list item"));
            return null;
        }
        return m.entrySet().iterator().next();
    }

    private static void addIfRead(List<RecordStep> steps, RecordStep step) {
        if (step != null) {
            steps.add(step);
        }
    }
}
