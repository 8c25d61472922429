package dev.weft.proxy.config;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Each section of a config file as it was written (its YAML subtree as canonical JSON), so a reload can
 * tell what changed by comparing text: the typed config holds compiled objects (rules, secrets, router
 * settings) that have no value equality, and a section written the same way means the same thing.
 *
 * @param server {@code server}, or "" when absent
 * @param admin {@code admin}, or "" when absent
 * @param clusters {@code clusters.NAME}, by name
 * @param routers {@code routers.NAME}, by name
 * @param virtualClusters {@code virtualClusters.NAME} without its gateways, by name
 * @param gateways {@code virtualClusters.NAME.gateways[i]}, by virtual cluster name, in order
 * @param authentication {@code virtualClusters.NAME.authentication}, by virtual cluster name ("" when absent)
 */
public record ConfigFingerprints(String server, String admin, Map<String, String> clusters, Map<String, String> routers,
        Map<String, String> virtualClusters, Map<String, java.util.List<String>> gateways, Map<String, String> authentication) {

    /** The fingerprints of a parsed document (only called on a document that validated). */
    static ConfigFingerprints of(JsonNode root) {
        Map<String, java.util.List<String>> gateways = new LinkedHashMap<>();
        Map<String, String> authentication = new LinkedHashMap<>();
        Map<String, String> virtualClusters = new LinkedHashMap<>();
        root.path("virtualClusters").properties().forEach(e -> {
            JsonNode vc = e.getValue();
            java.util.List<String> inOrder = new java.util.ArrayList<>();
            for (JsonNode g : vc.path("gateways")) {
                inOrder.add(g.toString());
            }
            gateways.put(e.getKey(), java.util.List.copyOf(inOrder));
            authentication.put(e.getKey(), vc.path("authentication").isMissingNode() ? "" : vc.path("authentication").toString());
            com.fasterxml.jackson.databind.node.ObjectNode rest = vc.isObject()
                    ? ((com.fasterxml.jackson.databind.node.ObjectNode) vc).deepCopy()
                    : com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode();
            rest.remove("gateways");
            virtualClusters.put(e.getKey(), rest.toString());
        });
        return new ConfigFingerprints(text(root.path("server")), text(root.path("admin")), sections(root.path("clusters")),
                sections(root.path("routers")), Map.copyOf(virtualClusters), Map.copyOf(gateways), Map.copyOf(authentication));
    }

    private static Map<String, String> sections(JsonNode parent) {
        Map<String, String> out = new LinkedHashMap<>();
        parent.properties().forEach(e -> out.put(e.getKey(), e.getValue().toString()));
        return Map.copyOf(out);
    }

    /**
     * Not the sections: they are the file as written, inline passwords and keys included, and a config
     * is printed in logs and test failures.
     */
    @Override
    public String toString() {
        return "ConfigFingerprints[" + (clusters.size() + routers.size() + virtualClusters.size()) + " sections, text withheld]";
    }

    private static String text(JsonNode n) {
        return n.isMissingNode() || n.isNull() ? "" : n.toString();
    }
}
