package dev.weft.deploy;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.type.LogicalType;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Reads a manifest into fabric8's typed Kubernetes model as strictly as the API server would: the
 * (apiVersion, kind) must be one this project uses, every field must exist in the model (fabric8 keeps
 * unknown fields in {@code additionalProperties} instead of failing: they are looked for everywhere),
 * every value must have its field's type (no string-to-number or number-to-string coercion: the API
 * server refuses {@code port: "9092"} and an annotation value {@code 9190}), every quantity must parse,
 * and names must be valid DNS labels and port names IANA service names.
 */
final class StrictModel {

    static final Map<String, Class<? extends HasMetadata>> KINDS = Map.of(
            "v1/ConfigMap", ConfigMap.class,
            "v1/Secret", Secret.class,
            "v1/Service", Service.class,
            "v1/ServiceAccount", ServiceAccount.class,
            "apps/v1/Deployment", Deployment.class,
            "apps/v1/StatefulSet", StatefulSet.class,
            "policy/v1/PodDisruptionBudget", PodDisruptionBudget.class,
            "autoscaling/v2/HorizontalPodAutoscaler", HorizontalPodAutoscaler.class);

    static final ObjectMapper JSON = strictMapper();

    private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
    private static final Pattern DNS_SUBDOMAIN = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
    private static final Pattern IANA_SVC_NAME = Pattern.compile("[a-z0-9]([a-z0-9-]{0,13}[a-z0-9])?");

    private StrictModel() {
    }

    private static ObjectMapper strictMapper() {
        JsonMapper m = JsonMapper.builder()
                .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
                .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY)
                .build();
        for (LogicalType t : List.of(LogicalType.Integer, LogicalType.Float, LogicalType.Boolean)) {
            m.coercionConfigFor(t).setCoercion(CoercionInputShape.String, CoercionAction.Fail);
        }
        m.coercionConfigFor(LogicalType.Textual)
                .setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Float, CoercionAction.Fail);
        m.coercionConfigFor(LogicalType.Boolean).setCoercion(CoercionInputShape.Integer, CoercionAction.Fail);
        return m;
    }

    /** The typed object, or an exception naming {@code where} and the first problem. */
    static HasMetadata read(JsonNode manifest, String where) {
        String key = manifest.path("apiVersion").asText() + "/" + manifest.path("kind").asText();
        Class<? extends HasMetadata> type = KINDS.get(key);
        if (type == null) {
            throw new IllegalArgumentException(where + ": apiVersion/kind '" + key + "' is not one of " + KINDS.keySet());
        }
        HasMetadata typed;
        try {
            typed = JSON.treeToValue(manifest, type);
        } catch (Exception e) {
            throw new IllegalArgumentException(where + " (" + key + "): " + e.getMessage(), e);
        }
        String name = typed.getMetadata() == null ? null : typed.getMetadata().getName();
        if (name == null || !DNS_SUBDOMAIN.matcher(name).matches() || name.length() > 253) {
            throw new IllegalArgumentException(where + ": metadata.name '" + name + "' is not a DNS-1123 subdomain");
        }
        String problem = walk(typed, key + " " + name);
        if (problem == null) {
            problem = stringsStayStrings(manifest, "", key + " " + name);
        }
        if (problem != null) {
            throw new IllegalArgumentException(where + ": " + problem);
        }
        return typed;
    }

    /**
     * Scalars the input wrote as strings or numbers must stay what they were: Jackson reads a YAML number
     * into a {@code Map<String, String>} (labels, annotations, ConfigMap data) without complaint, the API
     * server does not.
     */
    private static String stringsStayStrings(JsonNode node, String path, String where) {
        if (node.isObject()) {
            for (Map.Entry<String, JsonNode> e : node.properties()) {
                String p = path + "." + e.getKey();
                boolean stringMap = path.endsWith(".labels") || path.endsWith(".annotations") || path.endsWith(".matchLabels")
                        || path.equals(".data") || path.equals(".stringData") || path.endsWith(".selector") && !e.getValue().isContainerNode();
                if (stringMap && !e.getValue().isTextual()) {
                    return where + ": " + p.substring(1) + " must be a string (quote it): " + e.getValue();
                }
                String problem = stringsStayStrings(e.getValue(), p, where);
                if (problem != null) {
                    return problem;
                }
            }
        } else if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                String problem = stringsStayStrings(node.get(i), path + "[" + i + "]", where);
                if (problem != null) {
                    return problem;
                }
            }
        }
        return null;
    }

    /** The first unknown field, bad quantity or bad name found under {@code o}, or null. */
    private static String walk(Object o, String path) {
        if (o == null) {
            return null;
        }
        if (o instanceof Collection<?> c) {
            int i = 0;
            for (Object e : c) {
                String p = walk(e, path + "[" + i++ + "]");
                if (p != null) {
                    return p;
                }
            }
            return null;
        }
        if (o instanceof Map<?, ?> m) {
            for (Map.Entry<?, ?> e : m.entrySet()) {
                String p = walk(e.getValue(), path + "." + e.getKey());
                if (p != null) {
                    return p;
                }
            }
            return null;
        }
        if (o instanceof Quantity q) {
            try {
                Quantity.getAmountInBytes(q);
                return null;
            } catch (RuntimeException e) {
                return path + ": '" + q + "' is not a Kubernetes quantity";
            }
        }
        if (o instanceof IntOrString || !o.getClass().getName().startsWith("io.fabric8.kubernetes.api.model")) {
            return null;
        }
        for (Method m : o.getClass().getMethods()) {
            if (m.getParameterCount() != 0 || !m.getName().startsWith("get") || m.getName().equals("getClass")
                    || Modifier.isStatic(m.getModifiers()) || m.getReturnType().isPrimitive()) {
                continue;
            }
            Object value;
            try {
                value = m.invoke(o);
            } catch (IllegalAccessException | InvocationTargetException e) {
                return path + ": " + m.getName() + " failed: " + e.getCause();
            }
            String field = Character.toLowerCase(m.getName().charAt(3)) + m.getName().substring(4);
            if (field.equals("additionalProperties")) {
                if (value instanceof Map<?, ?> extra && !extra.isEmpty()) {
                    return path + ": unknown field(s) " + extra.keySet() + " (not in the Kubernetes API: misspelt or misplaced?)";
                }
                continue;
            }
            if ((field.equals("name") && (path.endsWith("ports") || path.matches(".*ports\\[\\d+]")))
                    && value instanceof String s && !IANA_SVC_NAME.matcher(s).matches()) {
                return path + ".name: '" + s + "' is not a valid port name (at most 15 of a-z, 0-9 and '-')";
            }
            if (field.equals("name") && path.matches(".*containers\\[\\d+]") && value instanceof String s
                    && !DNS_LABEL.matcher(s).matches()) {
                return path + ".name: '" + s + "' is not a DNS-1123 label";
            }
            String p = walk(value, path + "." + field);
            if (p != null) {
                return p;
            }
        }
        return null;
    }
}
