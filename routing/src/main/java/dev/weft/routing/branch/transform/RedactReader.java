package dev.weft.routing.branch.transform;

import dev.weft.routing.dag.RawSettings;
import dev.weft.routing.dag.RoutingProblem;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Reads a {@code redact} step's settings. */
final class RedactReader {

    private static final Set<String> KEYS = Set.of("value-fields", "with", "key", "headers", "salt", "non-json");

    private final String at;
    private final List<RoutingProblem> problems;
    private final RawSettings shapes;

    private RedactReader(String at, List<RoutingProblem> problems) {
        this.at = at;
        this.problems = problems;
        this.shapes = new RawSettings(problems);
    }

    /** The step, or null when its settings had problems (added to {@code problems}). */
    static RedactStep read(String at, Object raw, TransformCounters counters, List<RoutingProblem> problems) {
        return new RedactReader(at, problems).read(raw, counters);
    }

    private RedactStep read(Object raw, TransformCounters counters) {
        if (!(raw instanceof Map<?, ?> settings)) {
            problems.add(new RoutingProblem(at, "redact takes a mapping of " + KEYS.stream().sorted().toList()
                    + ", got " + RawSettings.describe(raw)));
            return null;
        }
        int problemsBefore = problems.size();
        shapes.unknownKeys(at, settings, KEYS);
        List<JsonPath> fields = valueFields(settings.get("value-fields"));
        RedactAction fieldAction = onlyWithFields(settings, "with", fields) ? action(at + ".with", settings.get("with"), RedactAction.HASH) : null;
        NonJsonPolicy nonJson = onlyWithFields(settings, "non-json", fields) ? nonJson(settings.get("non-json")) : null;
        RedactAction keyAction = action(at + ".key", settings.get("key"), null);
        Map<String, RedactAction> headerActions = headers(settings.get("headers"));
        String salt = shapes.string(at + ".salt", settings.get("salt"));
        if (salt != null && salt.isEmpty()) {
            problems.add(new RoutingProblem(at + ".salt", "salt is empty; give a secret string, the same on every replica"));
        }
        if (problems.size() > problemsBefore) {
            return null;
        }
        if (fields.isEmpty() && keyAction == null && headerActions.isEmpty()) {
            problems.add(new RoutingProblem(at, "redact has nothing to do; give value-fields, key or headers"));
            return null;
        }
        List<String> hashUsers = hashUsers(fields.isEmpty() ? null : fieldAction, keyAction, headerActions);
        if (!hashUsers.isEmpty() && salt == null) {
            problems.add(new RoutingProblem(at + ".salt", "missing: hash (used by " + String.join(", ", hashUsers)
                    + ") needs a salt; add salt: \"<secret>\", the same on every replica, or use mask | remove"));
            return null;
        }
        return new RedactStep(fields, fieldAction == null ? RedactAction.HASH : fieldAction, nonJson == null ? NonJsonPolicy.PASS : nonJson,
                keyAction, headerActions, hashUsers.isEmpty() ? null : new SaltedHash(salt), counters);
    }

    private List<JsonPath> valueFields(Object raw) {
        List<?> texts = shapes.list(at + ".value-fields", raw);
        List<JsonPath> paths = new ArrayList<>();
        for (int i = 0; texts != null && i < texts.size(); i++) {
            String fieldAt = at + ".value-fields[" + i + "]";
            if (!(texts.get(i) instanceof String text)) {
                problems.add(new RoutingProblem(fieldAt, "expected a JSON path such as $.customer.email, got " + RawSettings.describe(texts.get(i))));
                continue;
            }
            try {
                paths.add(JsonPath.parse(text));
            } catch (IllegalArgumentException e) {
                problems.add(new RoutingProblem(fieldAt, e.getMessage()));
            }
        }
        return paths;
    }

    /** False (with a problem) when {@code key}, which only says how to treat value-fields, is set without them. */
    private boolean onlyWithFields(Map<?, ?> settings, String key, List<JsonPath> fields) {
        if (settings.get(key) != null && fields.isEmpty() && settings.get("value-fields") == null) {
            problems.add(new RoutingProblem(at + "." + key, key + " applies to value-fields, and this redact has none;"
                    + " add value-fields or drop " + key));
            return false;
        }
        return true;
    }

    /** The action {@code raw} names, {@code absent} when it is missing, or null with a problem. */
    private RedactAction action(String path, Object raw, RedactAction absent) {
        if (raw == null) {
            return absent;
        }
        RedactAction action = RedactAction.fromConfig(raw);
        if (action == null) {
            problems.add(new RoutingProblem(path, RawSettings.describe(raw) + " is not a redact action; use " + RedactAction.CHOICES));
        }
        return action;
    }

    private NonJsonPolicy nonJson(Object raw) {
        if (raw == null) {
            return NonJsonPolicy.PASS;
        }
        NonJsonPolicy policy = NonJsonPolicy.fromConfig(raw);
        if (policy == null) {
            problems.add(new RoutingProblem(at + ".non-json", RawSettings.describe(raw)
                    + " is not a non-json policy; use pass (send the value on unchanged) | drop (leave the record out)"));
        }
        return policy;
    }

    private Map<String, RedactAction> headers(Object raw) {
        Map<?, ?> byName = shapes.map(at + ".headers", raw);
        Map<String, RedactAction> actions = new LinkedHashMap<>();
        if (byName != null) {
            for (Map.Entry<?, ?> e : byName.entrySet()) {
                String name = String.valueOf(e.getKey());
                RedactAction action = action(at + ".headers." + name, e.getValue(), null);
                if (e.getValue() == null) {
                    problems.add(new RoutingProblem(at + ".headers." + name, "missing action for header '" + name + "'; use " + RedactAction.CHOICES));
                } else if (action != null) {
                    actions.put(name, action);
                }
            }
        }
        return actions;
    }

    private static List<String> hashUsers(RedactAction fieldAction, RedactAction keyAction, Map<String, RedactAction> headerActions) {
        List<String> users = new ArrayList<>();
        if (fieldAction == RedactAction.HASH) {
            users.add("value-fields");
        }
        if (keyAction == RedactAction.HASH) {
            users.add("key");
        }
        headerActions.forEach((name, action) -> {
            if (action == RedactAction.HASH) {
                users.add("headers." + name);
            }
        });
        return users;
    }
}
