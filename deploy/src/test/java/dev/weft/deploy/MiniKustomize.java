package dev.weft.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * The part of kustomize the overlays under deploy/k8s use, and nothing more, so the build can render
 * them without kubectl: {@code resources} (files and directories with a kustomization.yaml),
 * {@code namespace}, {@code configMapGenerator} ({@code files} only), {@code images} and {@code patches}
 * that are either JSON patches (RFC 6902: add, replace, remove) on a {@code target} kind and name, or a
 * strategic-merge {@code $patch: delete} of one object. Any other key fails the rendering, so an overlay
 * cannot quietly use something this renderer would get wrong. Generated ConfigMaps keep their plain name
 * (kustomize appends a content hash and rewrites the references; {@code KubernetesManifestsTest} compares
 * with {@code kubectl kustomize} where it is installed, hash suffixes removed).
 */
final class MiniKustomize {

    static final YAMLMapper YAML = new YAMLMapper();

    private static final Set<String> KEYS = Set.of("apiVersion", "kind", "namespace", "resources", "configMapGenerator",
            "images", "patches");

    private MiniKustomize() {
    }

    /** Renders the kustomization in {@code dir}: the objects kubectl kustomize would print, in order of appearance. */
    static List<ObjectNode> render(Path dir) {
        JsonNode k = readYaml(dir.resolve("kustomization.yaml")).getFirst();
        String where = dir.resolve("kustomization.yaml").toString();
        for (Iterator<String> it = k.fieldNames(); it.hasNext();) {
            String key = it.next();
            if (!KEYS.contains(key)) {
                throw new IllegalArgumentException(where + ": '" + key + "' is not supported by the build's renderer"
                        + " (MiniKustomize supports " + KEYS + ")");
            }
        }
        require(where, "kustomize.config.k8s.io/v1beta1".equals(k.path("apiVersion").asText())
                && "Kustomization".equals(k.path("kind").asText()), "expected apiVersion kustomize.config.k8s.io/v1beta1, kind Kustomization");
        List<ObjectNode> out = new ArrayList<>();
        for (JsonNode r : k.path("resources")) {
            Path p = dir.resolve(r.asText()).normalize();
            if (Files.isDirectory(p)) {
                out.addAll(render(p));
            } else {
                for (JsonNode doc : readYaml(p)) {
                    out.add((ObjectNode) doc);
                }
            }
        }
        for (JsonNode g : k.path("configMapGenerator")) {
            allowOnly(where + ": configMapGenerator", g, Set.of("name", "files"));
            ObjectNode cm = JsonNodeFactory.instance.objectNode();
            cm.put("apiVersion", "v1").put("kind", "ConfigMap");
            cm.putObject("metadata").put("name", g.path("name").asText());
            ObjectNode data = cm.putObject("data");
            for (JsonNode f : g.path("files")) {
                require(where, !f.asText().contains("="), "configMapGenerator files: 'key=path' is not supported");
                data.put(Path.of(f.asText()).getFileName().toString(), readString(dir.resolve(f.asText())));
            }
            out.add(cm);
        }
        for (JsonNode patch : k.path("patches")) {
            allowOnly(where + ": patches", patch, Set.of("target", "patch", "path"));
            String text = patch.has("patch") ? patch.path("patch").asText() : readString(dir.resolve(patch.path("path").asText()));
            JsonNode body = parseYaml(text, where).getFirst();
            if (body.isArray()) {
                JsonNode target = patch.path("target");
                allowOnly(where + ": patches.target", target, Set.of("kind", "name"));
                ObjectNode obj = find(out, target.path("kind").asText(), target.path("name").asText(), where);
                for (JsonNode op : body) {
                    jsonPatch(obj, op, where);
                }
            } else {
                require(where, "delete".equals(body.path("$patch").asText()) && !patch.has("target"),
                        "a patch that is not a JSON patch must be a strategic-merge '$patch: delete' without a target");
                ObjectNode victim = find(out, body.path("kind").asText(), body.path("metadata").path("name").asText(), where);
                out.remove(victim);
            }
        }
        for (JsonNode image : k.path("images")) {
            allowOnly(where + ": images", image, Set.of("name", "newName", "newTag"));
            for (ObjectNode obj : out) {
                JsonNode containers = obj.path("spec").path("template").path("spec").path("containers");
                for (JsonNode c : containers) {
                    String img = c.path("image").asText();
                    int colon = img.lastIndexOf(':');
                    String name = colon > img.lastIndexOf('/') && colon >= 0 ? img.substring(0, colon) : img;
                    String tag = colon > img.lastIndexOf('/') && colon >= 0 ? img.substring(colon + 1) : null;
                    if (name.equals(image.path("name").asText())) {
                        String newName = image.has("newName") ? image.path("newName").asText() : name;
                        String newTag = image.has("newTag") ? image.path("newTag").asText() : tag;
                        ((ObjectNode) c).put("image", newTag == null ? newName : newName + ":" + newTag);
                    }
                }
            }
        }
        if (k.has("namespace")) {
            for (ObjectNode obj : out) {
                ((ObjectNode) obj.path("metadata")).put("namespace", k.path("namespace").asText());
            }
        }
        return out;
    }

    static List<JsonNode> readYaml(Path file) {
        return parseYaml(readString(file), file.toString());
    }

    static List<JsonNode> parseYaml(String text, String where) {
        try (var parser = YAML.createParser(text)) {
            List<JsonNode> docs = new ArrayList<>();
            for (Iterator<JsonNode> it = YAML.readValues(parser, JsonNode.class); it.hasNext();) {
                JsonNode doc = it.next();
                if (doc != null && !doc.isNull() && !doc.isMissingNode()) {
                    docs.add(doc);
                }
            }
            return docs;
        } catch (IOException e) {
            throw new IllegalArgumentException(where + ": not valid YAML: " + e.getMessage(), e);
        }
    }

    static String readString(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static ObjectNode find(List<ObjectNode> objects, String kind, String name, String where) {
        return objects.stream()
                .filter(o -> kind.equals(o.path("kind").asText()) && name.equals(o.path("metadata").path("name").asText()))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException(where + ": a patch targets " + kind + " '" + name
                        + "', which no resource defines"));
    }

    private static void jsonPatch(ObjectNode root, JsonNode op, String where) {
        allowOnly(where + ": JSON patch", op, Set.of("op", "path", "value"));
        String path = op.path("path").asText();
        require(where, path.startsWith("/"), "JSON patch path '" + path + "' must start with /");
        String[] parts = path.substring(1).split("/", -1);
        JsonNode parent = root;
        for (int i = 0; i < parts.length - 1; i++) {
            String part = unescape(parts[i]);
            parent = parent.isArray() ? parent.path(Integer.parseInt(part)) : parent.path(part);
            require(where, parent.isContainerNode(), "JSON patch path '" + path + "': no " + part);
        }
        String last = unescape(parts[parts.length - 1]);
        String kind = op.path("op").asText();
        switch (kind) {
            case "add", "replace" -> {
                JsonNode value = op.path("value");
                require(where, !value.isMissingNode(), "JSON patch " + kind + " at '" + path + "' has no value");
                if (parent instanceof ArrayNode array) {
                    if (last.equals("-")) {
                        require(where, kind.equals("add"), "'-' only with add");
                        array.add(value.deepCopy());
                    } else {
                        int index = Integer.parseInt(last);
                        require(where, index >= 0 && index <= array.size() - (kind.equals("add") ? 0 : 1),
                                "JSON patch path '" + path + "': index out of range");
                        if (kind.equals("add")) {
                            array.insert(index, value.deepCopy());
                        } else {
                            array.set(index, value.deepCopy());
                        }
                    }
                } else {
                    require(where, kind.equals("add") || parent.has(last), "JSON patch replace at '" + path + "': nothing there");
                    ((ObjectNode) parent).set(last, value.deepCopy());
                }
            }
            case "remove" -> {
                if (parent instanceof ArrayNode array) {
                    int index = Integer.parseInt(last);
                    require(where, index >= 0 && index < array.size(), "JSON patch path '" + path + "': index out of range");
                    array.remove(index);
                } else {
                    require(where, parent.has(last), "JSON patch remove at '" + path + "': nothing there");
                    ((ObjectNode) parent).remove(last);
                }
            }
            default -> throw new IllegalArgumentException(where + ": JSON patch op '" + kind
                    + "' is not supported by the build's renderer (add, replace, remove)");
        }
    }

    private static String unescape(String pointerPart) {
        return pointerPart.replace("~1", "/").replace("~0", "~");
    }

    private static void allowOnly(String where, JsonNode node, Set<String> keys) {
        for (Iterator<String> it = node.fieldNames(); it.hasNext();) {
            String key = it.next();
            if (!keys.contains(key)) {
                throw new IllegalArgumentException(where + ": '" + key + "' is not supported by the build's renderer (only " + keys + ")");
            }
        }
    }

    private static void require(String where, boolean ok, String message) {
        if (!ok) {
            throw new IllegalArgumentException(where + ": " + message);
        }
    }
}
