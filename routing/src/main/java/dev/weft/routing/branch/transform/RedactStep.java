package dev.weft.routing.branch.transform;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Hides personal data before it reaches a branch: fields of a JSON value by path, the key, and headers
 * by name. A value is rewritten only when some path matched it, so other values go on byte for byte.
 * A null value (a tombstone) has nothing to hide and goes on as it is, not counted as not-JSON.
 */
final class RedactStep implements RecordStep {

    static final String MASK_TEXT = "****";
    private static final byte[] MASK_BYTES = MASK_TEXT.getBytes(StandardCharsets.US_ASCII);

    private final List<JsonPath> valueFields;
    private final JsonFieldRedactor fieldRedactor;
    private final NonJsonPolicy nonJson;
    /** Null when the key stays as it is. */
    private final RedactAction keyAction;
    private final Map<String, RedactAction> headerActions;
    /** Null unless some action is hash. */
    private final SaltedHash hash;
    private final TransformCounters counters;

    RedactStep(List<JsonPath> valueFields, RedactAction fieldAction, NonJsonPolicy nonJson, RedactAction keyAction,
            Map<String, RedactAction> headerActions, SaltedHash hash, TransformCounters counters) {
        this.valueFields = List.copyOf(valueFields);
        this.fieldRedactor = new JsonFieldRedactor(fieldAction, hash);
        this.nonJson = nonJson;
        this.keyAction = keyAction;
        this.headerActions = Map.copyOf(headerActions);
        this.hash = hash;
        this.counters = counters;
    }

    @Override
    public BranchRecord apply(BranchRecord record) {
        byte[] value = record.value();
        if (!valueFields.isEmpty() && value != null) {
            JsonNode tree = Json.readContainer(value);
            if (tree == null) {
                counters.countNotJsonSeen();
                if (nonJson == NonJsonPolicy.DROP) {
                    counters.countNotJsonDropped();
                    return null;
                }
            } else {
                value = redactFields(tree, value);
            }
        }
        byte[] key = keyAction == null ? record.key() : redactBytes(keyAction, record.key());
        List<BranchRecord.Header> headers = headerActions.isEmpty() ? record.headers() : redactHeaders(record.headers());
        if (key == record.key() && value == record.value() && headers == record.headers()) {
            return record;
        }
        return new BranchRecord(key, value, headers, record.timestampMs());
    }

    private byte[] redactFields(JsonNode tree, byte[] original) {
        int matches = 0;
        for (int i = 0; i < valueFields.size(); i++) {
            matches += valueFields.get(i).visit(tree, fieldRedactor);
        }
        return matches == 0 ? original : Json.write(tree);
    }

    private List<BranchRecord.Header> redactHeaders(List<BranchRecord.Header> headers) {
        List<BranchRecord.Header> result = null;
        for (int i = 0; i < headers.size(); i++) {
            BranchRecord.Header header = headers.get(i);
            RedactAction action = headerActions.get(header.name());
            if (action != null && result == null) {
                result = new ArrayList<>(headers.subList(0, i));
            }
            if (action == null) {
                if (result != null) {
                    result.add(header);
                }
            } else if (action != RedactAction.REMOVE) {
                result.add(new BranchRecord.Header(header.name(), redactBytes(action, header.value())));
            }
        }
        return result == null ? headers : result;
    }

    /** A key or header value after {@code action}; null stays null (there is nothing to hide). */
    private byte[] redactBytes(RedactAction action, byte[] original) {
        if (original == null || action == RedactAction.REMOVE) {
            return null;
        }
        return action == RedactAction.MASK ? MASK_BYTES : hash.hexBytes(original);
    }
}
