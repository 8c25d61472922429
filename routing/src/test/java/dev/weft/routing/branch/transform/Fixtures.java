package dev.weft.routing.branch.transform;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import dev.weft.routing.dag.RoutingProblem;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/** Builders shared by the transform tests: config as a YAML reader hands it over, batches, records. */
final class Fixtures {

    static final String PATH = "routers.shadow.routes[1].transforms";
    static final String REPLICA = "weft-0";

    private Fixtures() {
    }

    /** A mapping in the given key order that may hold nulls, as a YAML reader produces. */
    static Map<String, Object> map(Object... keysAndValues) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            m.put((String) keysAndValues[i], keysAndValues[i + 1]);
        }
        return m;
    }

    /** One list item of {@code transforms}. */
    static Map<String, Object> step(String name, Object settings) {
        return map(name, settings);
    }

    static TransformChain chain(Object... steps) {
        List<RoutingProblem> problems = new ArrayList<>();
        TransformChain chain = TransformChain.parse(PATH, List.of(steps), REPLICA, problems);
        assertEquals(List.of(), problems);
        assertNotNull(chain);
        return chain;
    }

    static BatchContext batch(String topic, int partition, String clientId, long timeMs, int recordCount) {
        return new BatchContext("vc1", topic, partition, 1000L, recordCount, clientId, "User:alice", timeMs);
    }

    static BatchContext batch(long timeMs) {
        return batch("orders", 0, "client-a", timeMs, 1);
    }

    static BranchRecord record(String key, String value) {
        return BranchRecord.of(bytes(key), bytes(value), 42L);
    }

    static List<BranchRecord> run(TransformChain chain, BatchContext batch, List<BranchRecord> records) {
        List<BranchRecord> out = new ArrayList<>();
        chain.apply(batch, records, out::add);
        return out;
    }

    static List<BranchRecord> run(TransformChain chain, BranchRecord... records) {
        return run(chain, batch(1_000L), List.of(records));
    }

    static List<BranchRecord> tick(TransformChain chain, long nowMs) {
        List<BranchRecord> out = new ArrayList<>();
        chain.tick(nowMs, out::add);
        return out;
    }

    static byte[] bytes(String text) {
        return text == null ? null : text.getBytes(StandardCharsets.UTF_8);
    }

    static String text(byte[] bytes) {
        return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
    }

    /** HMAC-SHA256 hex computed here, independently of the code under test. */
    static String hmacHex(String salt, String input) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(salt.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            return HexFormat.of().formatHex(mac.doFinal(input.getBytes(StandardCharsets.UTF_8)));
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
