package dev.weft.routing.branch.transform;

import static dev.weft.routing.branch.transform.Fixtures.bytes;
import static dev.weft.routing.branch.transform.Fixtures.chain;
import static dev.weft.routing.branch.transform.Fixtures.hmacHex;
import static dev.weft.routing.branch.transform.Fixtures.map;
import static dev.weft.routing.branch.transform.Fixtures.record;
import static dev.weft.routing.branch.transform.Fixtures.run;
import static dev.weft.routing.branch.transform.Fixtures.step;
import static dev.weft.routing.branch.transform.Fixtures.text;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.weft.routing.branch.transform.BranchRecord.Header;
import java.util.List;
import org.junit.jupiter.api.Test;

class RedactStepTest {

    private static final String SALT = "s3cr3t";

    private static TransformChain fields(String with, String... paths) {
        return chain(step("redact", map("value-fields", List.of(paths), "with", with, "salt", SALT)));
    }

    /** The value after {@code chain}, as text. */
    private static String redacted(TransformChain chain, String json) {
        List<BranchRecord> out = run(chain, record("k", json));
        assertEquals(1, out.size());
        return text(out.getFirst().value());
    }

    @Test
    void hashesNestedFieldsInPlaceKeepingFieldOrder() {
        String json = "{\"a\":1,\"customer\":{\"email\":\"x@y.com\",\"name\":\"N\"},\"z\":true}";
        assertEquals("{\"a\":1,\"customer\":{\"email\":\"" + hmacHex(SALT, "x@y.com") + "\",\"name\":\"N\"},\"z\":true}",
                redacted(fields("hash", "$.customer.email"), json));
    }

    @Test
    void hashIsTheDefaultAction() {
        TransformChain chain = chain(step("redact", map("value-fields", List.of("$.ssn"), "salt", SALT)));
        assertEquals("{\"ssn\":\"" + hmacHex(SALT, "123-45-6789") + "\"}", redacted(chain, "{\"ssn\":\"123-45-6789\"}"));
    }

    @Test
    void hashesScalarsByTheirJsonTextAndContainersByTheirCompactJson() {
        String json = "{\"n\":42,\"b\":true,\"o\":{\"x\": [1, 2]},\"nothing\":null}";
        assertEquals("{\"n\":\"" + hmacHex(SALT, "42") + "\",\"b\":\"" + hmacHex(SALT, "true") + "\",\"o\":\""
                + hmacHex(SALT, "{\"x\":[1,2]}") + "\",\"nothing\":null}", redacted(fields("hash", "$.n", "$.b", "$.o", "$.nothing"), json));
    }

    @Test
    void hashIsStableAcrossChainsAndDependsOnTheSalt() {
        String json = "{\"email\":\"x@y.com\"}";
        String first = redacted(fields("hash", "$.email"), json);
        String again = redacted(fields("hash", "$.email"), json);
        String otherSalt = redacted(chain(step("redact", map("value-fields", List.of("$.email"), "salt", "pepper"))), json);
        assertEquals(first, again);
        assertNotEquals(first, otherSalt);
        assertEquals("{\"email\":\"" + hmacHex("pepper", "x@y.com") + "\"}", otherSalt);
    }

    @Test
    void everyElementAndOneElementOfArrays() {
        String json = "{\"items\":[{\"card\":\"4111\",\"sku\":\"A\"},{\"sku\":\"B\"},{\"card\":\"5500\",\"sku\":\"C\"}],\"tags\":[\"t0\",\"t1\"]}";
        assertEquals("{\"items\":[{\"card\":\"****\",\"sku\":\"A\"},{\"sku\":\"B\"},{\"card\":\"****\",\"sku\":\"C\"}],\"tags\":[\"****\",\"t1\"]}",
                redacted(fields("mask", "$.items[*].card", "$.tags[0]"), json));
        assertEquals("{\"items\":[{\"card\":\"4111\",\"sku\":\"A\"},{\"sku\":\"B\"},{\"card\":\"****\",\"sku\":\"C\"}],\"tags\":[\"****\",\"****\"]}",
                redacted(fields("mask", "$.items[2].card", "$.tags[*]"), json));
    }

    @Test
    void removeTakesFieldsOutAndNullsArrayElements() {
        String json = "{\"a\":1,\"ssn\":\"123\",\"b\":{\"card\":\"4111\",\"c\":2},\"list\":[\"x\",\"y\",\"z\"]}";
        assertEquals("{\"a\":1,\"b\":{\"c\":2},\"list\":[\"x\",null,\"z\"]}", redacted(fields("remove", "$.ssn", "$.b.card", "$.list[1]"), json));
        assertEquals("{\"list\":[null,null]}", redacted(fields("remove", "$.list[*]"), "{\"list\":[1,2]}"));
    }

    @Test
    void quotedFieldNames() {
        assertEquals("{\"a.b\":{\"c\":\"****\"},\"a\":{\"b\":{\"c\":1}}}",
                redacted(fields("mask", "$['a.b'].c"), "{\"a.b\":{\"c\":1},\"a\":{\"b\":{\"c\":1}}}"));
    }

    @Test
    void pathsThatDoNotMatchLeaveTheValueByteForByte() {
        String json = "{ \"customer\" : { \"name\" : \"N\" }, \"items\": {\"card\": 1}, \"tags\": [] }";
        BranchRecord in = record("k", json);
        BranchRecord out = run(fields("hash", "$.customer.email", "$.items[*].card", "$.tags[3]", "$.customer.name.first"), in).getFirst();
        assertSame(in, out, "nothing to hide: the record goes on as it came");
    }

    @Test
    void everythingElseOfTheJsonIsKept() {
        String json = "{\"price\":1.10,\"big\":123456789012345678901234567890,\"exact\":0.1000000000000000055511151231257827,"
                + "\"u\":\"caf\\u00e9 \\\"q\\\"\",\"secret\":\"x\",\"arr\":[true,false,null,{}]}";
        assertEquals("{\"price\":1.10,\"big\":123456789012345678901234567890,\"exact\":0.1000000000000000055511151231257827,"
                + "\"u\":\"café \\\"q\\\"\",\"secret\":\"****\",\"arr\":[true,false,null,{}]}",
                redacted(fields("mask", "$.secret"), json));
    }

    @Test
    void topLevelArrays() {
        assertEquals("[{\"id\":\"****\"},{\"id\":\"****\"}]", redacted(fields("mask", "$[*].id"), "[{\"id\":1},{\"id\":2}]"));
    }

    @Test
    void keyHashMaskRemove() {
        BranchRecord in = record("user-42", "v");
        TransformChain hash = chain(step("redact", map("key", "hash", "salt", SALT)));
        assertEquals(hmacHex(SALT, "user-42"), text(run(hash, in).getFirst().key()));
        assertEquals("****", text(run(chain(step("redact", map("key", "mask"))), in).getFirst().key()));
        assertNull(run(chain(step("redact", map("key", "remove"))), in).getFirst().key());
        assertNull(run(hash, record(null, "v")).getFirst().key(), "a null key has nothing to hide");
        assertArrayEquals(bytes("v"), run(hash, in).getFirst().value(), "the value is left alone");
    }

    @Test
    void headersByExactNameInTheirOrder() {
        TransformChain chain = chain(step("redact", map("headers", map("authorization", "remove", "x-user-id", "hash", "trace", "mask"),
                "salt", SALT)));
        BranchRecord in = new BranchRecord(bytes("k"), bytes("v"), List.of(Header.utf8("content-type", "json"),
                Header.utf8("authorization", "Bearer abc"), Header.utf8("x-user-id", "u1"), Header.utf8("Authorization", "kept"),
                Header.utf8("x-user-id", "u2"), Header.utf8("trace", null)), 7L);
        BranchRecord out = run(chain, in).getFirst();
        assertEquals(List.of(Header.utf8("content-type", "json"), Header.utf8("x-user-id", hmacHex(SALT, "u1")),
                Header.utf8("Authorization", "kept"), Header.utf8("x-user-id", hmacHex(SALT, "u2")), Header.utf8("trace", null)),
                out.headers());
        assertEquals(7L, out.timestampMs());
    }

    @Test
    void headersWithoutMatchesAreTheSameList() {
        TransformChain chain = chain(step("redact", map("headers", map("authorization", "remove"))));
        BranchRecord in = new BranchRecord(bytes("k"), bytes("v"), List.of(Header.utf8("trace", "t")), 7L);
        assertSame(in.headers(), run(chain, in).getFirst().headers());
    }

    @Test
    void nonJsonPassesByDefaultAndIsCounted() {
        TransformChain chain = fields("hash", "$.email");
        BranchRecord plain = record("k", "not json");
        BranchRecord scalar = record("k", "\"just a string\"");
        BranchRecord trailing = record("k", "{\"email\":\"x\"} trailing");
        assertEquals(List.of(plain, scalar, trailing), run(chain, plain, scalar, trailing));
        assertEquals(3, chain.counters().notJsonSeen());
        assertEquals(0, chain.counters().droppedNotJson());
        assertEquals(3, chain.counters().recordsOut());
    }

    @Test
    void nonJsonDropIsCounted() {
        TransformChain chain = chain(step("redact", map("value-fields", List.of("$.email"), "with", "mask", "non-json", "drop")));
        List<BranchRecord> out = run(chain, record("k", "not json"), record("k", "{\"email\":\"x\"}"), record("k", "42"));
        assertEquals(List.of(record("k", "{\"email\":\"****\"}")), out);
        assertEquals(2, chain.counters().notJsonSeen());
        assertEquals(2, chain.counters().droppedNotJson());
        assertEquals(3, chain.counters().recordsIn());
        assertEquals(1, chain.counters().recordsOut());
    }

    @Test
    void tombstonesPassUncounted() {
        TransformChain chain = chain(step("redact", map("value-fields", List.of("$.email"), "with", "mask", "non-json", "drop")));
        BranchRecord tombstone = BranchRecord.of(bytes("k"), null, 1L);
        assertEquals(List.of(tombstone), run(chain, tombstone));
        assertEquals(0, chain.counters().notJsonSeen());
    }

    @Test
    void keyAndHeadersAloneDoNotReadTheValue() {
        TransformChain chain = chain(step("redact", map("key", "mask")));
        assertEquals(List.of(record("****", "not json")), run(chain, record("k", "not json")));
        assertEquals(0, chain.counters().notJsonSeen());
    }
}
