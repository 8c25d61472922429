package dev.weft.routing.branch.transform;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * The one Jackson mapper of the package, set up so that a value read and written back changes only
 * where a step changed it: decimals stay {@link java.math.BigDecimal} with their trailing zeros
 * ({@code 1.10} stays {@code 1.10}, no rounding through double), and trailing garbage is not JSON.
 * Whitespace is not kept: a changed value is written compactly.
 */
final class Json {

    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .disable(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES)
            .build();

    private Json() {
    }

    /** The value as a JSON object or array tree, or null when it is anything else (a scalar, not JSON at all, too deep). */
    static JsonNode readContainer(byte[] value) {
        try {
            JsonNode tree = MAPPER.readTree(value);
            return tree != null && tree.isContainerNode() ? tree : null;
        } catch (IOException notJson) {
            // Not an error of ours: the caller counts the record as not-JSON and applies its non-json policy.
            return null;
        }
    }

    static ObjectNode object() {
        return MAPPER.createObjectNode();
    }

    /** Compact JSON text of {@code tree}. */
    static byte[] write(JsonNode tree) {
        try {
            return MAPPER.writeValueAsBytes(tree);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }
}
