package dev.weft.routing.branch.transform;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.nio.charset.StandardCharsets;

/**
 * Applies the value-fields action where a path matched, in place in the tree. Replacing a field keeps
 * its place among its siblings (Jackson objects keep insertion order). A JSON null is left as it is by
 * hash and mask: it hides nothing, and keeping it keeps "no value" apart from "a value".
 */
final class JsonFieldRedactor implements JsonPath.Match {

    private static final TextNode MASK = TextNode.valueOf(RedactStep.MASK_TEXT);

    private final RedactAction action;
    /** Null unless the action is hash. */
    private final SaltedHash hash;

    JsonFieldRedactor(RedactAction action, SaltedHash hash) {
        this.action = action;
        this.hash = hash;
    }

    @Override
    public void field(ObjectNode parent, String name) {
        if (action == RedactAction.REMOVE) {
            parent.remove(name);
        } else {
            parent.set(name, replacement(parent.get(name)));
        }
    }

    @Override
    public void element(ArrayNode parent, int index) {
        parent.set(index, action == RedactAction.REMOVE ? NullNode.getInstance() : replacement(parent.get(index)));
    }

    private JsonNode replacement(JsonNode original) {
        if (original.isNull()) {
            return original;
        }
        return action == RedactAction.MASK ? MASK : TextNode.valueOf(hash.hex(hashInput(original)));
    }

    /** A string's UTF-8 without quotes, so it hashes as the same text does in a key; anything else its compact JSON text. */
    static byte[] hashInput(JsonNode original) {
        return original.isTextual() ? original.textValue().getBytes(StandardCharsets.UTF_8) : Json.write(original);
    }
}
