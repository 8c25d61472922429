package dev.weft.routing.branch.transform;

import static dev.weft.routing.branch.transform.Fixtures.PATH;
import static dev.weft.routing.branch.transform.Fixtures.REPLICA;
import static dev.weft.routing.branch.transform.Fixtures.chain;
import static dev.weft.routing.branch.transform.Fixtures.map;
import static dev.weft.routing.branch.transform.Fixtures.step;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.routing.dag.RoutingProblem;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class TransformChainParseTest {

    private static final String AT = PATH + "[0]";

    /** Parses {@code raw}, expecting it to be rejected with exactly one problem; returns that problem. */
    private static RoutingProblem onlyProblem(Object raw) {
        List<RoutingProblem> problems = new ArrayList<>();
        TransformChain chain = TransformChain.parse(PATH, raw, REPLICA, problems);
        assertNull(chain, "a chain with a config error");
        assertEquals(1, problems.size(), () -> "exactly one problem, got " + problems);
        return problems.getFirst();
    }

    private static RoutingProblem onlyProblem(Map<String, Object> oneStep) {
        return onlyProblem(List.of(oneStep));
    }

    private static void assertProblem(RoutingProblem problem, String path, String... messageParts) {
        assertEquals(path, problem.path(), problem::toString);
        for (String part : messageParts) {
            assertTrue(problem.message().contains(part), () -> "'" + problem.message() + "' should mention '" + part + "'");
        }
        assertFalse(problem.message().contains("\n"), "one line");
    }

    private static Map<String, Object> redact(Object... settings) {
        return step("redact", map(settings));
    }

    private static Map<String, Object> sample(Object... settings) {
        return step("sample", map(settings));
    }

    @Test
    void noTransformsIsTheIdentity() {
        List<RoutingProblem> problems = new ArrayList<>();
        TransformChain none = TransformChain.parse(PATH, null, REPLICA, problems);
        TransformChain empty = TransformChain.parse(PATH, List.of(), REPLICA, problems);
        assertEquals(List.of(), problems);
        assertTrue(none.isIdentity());
        assertTrue(empty.isIdentity());
    }

    @Test
    void acceptsTheWholeGrammar() {
        TransformChain chain = chain(
                redact("value-fields", List.of("$.customer.email", "$.items[*].card", "$.ssn", "$.tags[0]", "$['a.b'].c"),
                        "with", "hash", "key", "mask", "headers", map("authorization", "remove", "x-user-id", "hash"),
                        "salt", "s3cr3t", "non-json", "drop"),
                redact("value-fields", List.of("$.x"), "with", "remove", "non-json", "pass"),
                redact("key", "remove"),
                sample("fraction", 0.1, "by", "key"),
                sample("fraction", 1, "by", "random"),
                sample("fraction", 0.5),
                step("derive", "audit"),
                redact("value-fields", List.of("$.principal"), "with", "mask"));
        assertFalse(chain.isIdentity());
        chain(step("derive", map("count", map("interval", "10s"))));
        chain(step("derive", map("count", map("interval", "500ms"))));
        chain(step("derive", map("count", map("interval", "5m"))));
        chain(step("derive", map("audit", map())));
        chain(step("derive", map("audit", null)));
    }

    @Test
    void transformsMustBeAList() {
        assertProblem(onlyProblem((Object) map("redact", map("key", "mask"))), PATH, "transforms must be a list", "a mapping");
        assertProblem(onlyProblem("redact"), PATH, "transforms must be a list", "'redact'");
    }

    @Test
    void aStepIsAMappingWithOneKey() {
        assertProblem(onlyProblem(List.of("audit")), AT, "a step is a mapping with one key", "'audit'");
        assertProblem(onlyProblem(List.of(map("redact", map("key", "mask"), "sample", map("fraction", 0.1)))), AT,
                "exactly one key", "[redact, sample]", "own list item");
    }

    @Test
    void unknownStep() {
        assertProblem(onlyProblem(step("encrypt", map())), AT + ".encrypt", "unknown step 'encrypt'", "redact, sample or derive");
    }

    @Test
    void unknownKeysInEachStep() {
        assertProblem(onlyProblem(redact("key", "mask", "colour", "red")), AT + ".redact.colour", "unknown key 'colour'", "value-fields");
        assertProblem(onlyProblem(sample("fraction", 0.1, "seed", 7)), AT + ".sample.seed", "unknown key 'seed'", "fraction");
        assertProblem(onlyProblem(step("derive", map("count", map("interval", "10s", "grace", "1s")))), AT + ".derive.count.grace",
                "unknown key 'grace'", "interval");
    }

    @Test
    void laterStepsHaveTheirIndexInThePath() {
        RoutingProblem problem = onlyProblem(List.of(redact("key", "mask"), sample("fraction", 2)));
        assertProblem(problem, PATH + "[1].sample.fraction", "out of range");
    }

    @ParameterizedTest
    @CsvSource({"with, scramble", "key, shred"})
    void badRedactAction(String key, String action) {
        Map<String, Object> settings = map("value-fields", List.of("$.a"), "salt", "s", key, action);
        assertProblem(onlyProblem(step("redact", settings)), AT + ".redact." + key, "'" + action + "' is not a redact action",
                "hash | mask | remove");
    }

    @Test
    void badHeaderAction() {
        assertProblem(onlyProblem(redact("headers", map("authorization", "burn"))), AT + ".redact.headers.authorization",
                "'burn' is not a redact action", "hash | mask | remove");
        assertProblem(onlyProblem(redact("headers", map("authorization", null))), AT + ".redact.headers.authorization",
                "missing action", "hash | mask | remove");
        assertProblem(onlyProblem(redact("headers", List.of("authorization"))), AT + ".redact.headers", "expected a mapping");
    }

    @Test
    void hashNeedsASalt() {
        assertProblem(onlyProblem(redact("value-fields", List.of("$.ssn"))), AT + ".redact.salt", "missing", "value-fields",
                "salt", "mask | remove");
        assertProblem(onlyProblem(redact("key", "hash")), AT + ".redact.salt", "missing", "used by key");
        assertProblem(onlyProblem(redact("headers", map("x-user-id", "hash"))), AT + ".redact.salt", "headers.x-user-id");
        assertProblem(onlyProblem(redact("key", "hash", "salt", "")), AT + ".redact.salt", "salt is empty");
        assertProblem(onlyProblem(redact("key", "hash", "salt", 12345)), AT + ".redact.salt", "expected a string", "'12345'");
    }

    @Test
    void noSaltNeededWithoutHash() {
        chain(redact("value-fields", List.of("$.ssn"), "with", "mask", "key", "remove", "headers", map("authorization", "remove")));
    }

    @Test
    void redactMustHaveSomethingToDo() {
        assertProblem(onlyProblem(redact("salt", "s")), AT + ".redact", "nothing to do", "value-fields, key or headers");
        assertProblem(onlyProblem(step("redact", "everything")), AT + ".redact", "redact takes a mapping", "'everything'");
    }

    @Test
    void fieldOptionsNeedValueFields() {
        assertProblem(onlyProblem(redact("key", "mask", "with", "mask")), AT + ".redact.with", "with applies to value-fields");
        assertProblem(onlyProblem(redact("key", "mask", "non-json", "drop")), AT + ".redact.non-json", "non-json applies to value-fields");
    }

    @Test
    void badNonJsonPolicy() {
        assertProblem(onlyProblem(redact("value-fields", List.of("$.a"), "with", "mask", "non-json", "skip")),
                AT + ".redact.non-json", "'skip' is not a non-json policy", "pass", "drop");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
        "$.items[x]      | at character 9, expected * or an index",
        "customer.email  | at character 1, a path starts with $",
        "$..email        | at character 3, expected a field name",
        "$.items[        | at character 8, '[' is not closed",
        "$               | $ alone names the whole value",
        "$.a]            | at character 4",
        "$x              | at character 2, expected '.' or '['",
        "$['a.b          | a quoted name is closed",
        "$.items[-1]     | expected * or an index"})
    void badJsonPathNamesThePosition(String path, String expected) {
        Map<String, Object> settings = map("value-fields", List.of("$.customer.email", "$.ssn", path), "with", "mask");
        assertProblem(onlyProblem(step("redact", settings)), AT + ".redact.value-fields[2]", "'" + path + "' is not a JSON path",
                expected, "paths look like");
    }

    @Test
    void valueFieldsMustBeAListOfStrings() {
        assertProblem(onlyProblem(redact("value-fields", "$.ssn", "with", "mask")), AT + ".redact.value-fields", "expected a list");
        assertProblem(onlyProblem(redact("value-fields", List.of("$.ssn", 7), "with", "mask")), AT + ".redact.value-fields[1]",
                "expected a JSON path", "'7'");
    }

    @ParameterizedTest
    @ValueSource(doubles = {0, -0.1, 1.5, Double.NaN})
    void fractionOutOfRange(double fraction) {
        assertProblem(onlyProblem(sample("fraction", fraction)), AT + ".sample.fraction", "out of range", "0 < fraction <= 1");
    }

    @Test
    void fractionMustBeANumberAndIsRequired() {
        assertProblem(onlyProblem(sample("fraction", "10%")), AT + ".sample.fraction", "expected a number", "'10%'");
        assertProblem(onlyProblem(sample("by", "key")), AT + ".sample.fraction", "missing", "0 < fraction <= 1");
        assertProblem(onlyProblem(step("sample", 0.1)), AT + ".sample", "sample takes a mapping");
    }

    @Test
    void badSamplingMode() {
        assertProblem(onlyProblem(sample("fraction", 0.1, "by", "value")), AT + ".sample.by", "'value' is not a sampling mode",
                "key", "random");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
        "10     | '10' is not an interval",
        "10h    | '10h' is not an interval",
        "ten s  | is not an interval",
        "0s     | must be longer than 0",
        "-5s    | is not an interval"})
    void badInterval(String interval, String expected) {
        assertProblem(onlyProblem(step("derive", map("count", map("interval", interval)))), AT + ".derive.count.interval",
                expected);
    }

    @Test
    void intervalMustBeTextWithAUnitAndIsRequired() {
        assertProblem(onlyProblem(step("derive", map("count", map("interval", 10)))), AT + ".derive.count.interval",
                "'10' is not an interval", "ms, s or m");
        assertProblem(onlyProblem(step("derive", map("count", map()))), AT + ".derive.count.interval", "missing");
        assertProblem(onlyProblem(step("derive", "count")), AT + ".derive", "count needs an interval");
    }

    @Test
    void badDerive() {
        assertProblem(onlyProblem(step("derive", "histogram")), AT + ".derive", "'histogram' is not a derived stream", "audit");
        assertProblem(onlyProblem(step("derive", map("histogram", map()))), AT + ".derive.histogram", "not a derived stream");
        assertProblem(onlyProblem(step("derive", map("audit", map(), "count", map("interval", "1s")))), AT + ".derive",
                "one derived stream", "[audit, count]");
        assertProblem(onlyProblem(step("derive", map("audit", map("topic", "x")))), AT + ".derive.audit", "audit takes no settings");
    }

    @Test
    void aChainDerivesOnce() {
        RoutingProblem problem = onlyProblem(List.of(step("derive", "audit"), sample("fraction", 0.5), step("derive", "audit")));
        assertProblem(problem, PATH + "[2].derive", "derives once", "transforms[0]");
    }

    @Test
    void everyProblemIsReportedAndNothingIsBuilt() {
        List<RoutingProblem> problems = new ArrayList<>();
        TransformChain chain = TransformChain.parse(PATH, List.of(sample("fraction", 3), step("derive", "histogram")), REPLICA, problems);
        assertNull(chain);
        assertEquals(List.of(PATH + "[0].sample.fraction", PATH + "[1].derive"), problems.stream().map(RoutingProblem::path).toList());
    }

    @Test
    void problemsGoToTheCallersListWithoutDroppingWhatWasThere() {
        List<RoutingProblem> problems = new ArrayList<>(List.of(new RoutingProblem("elsewhere", "earlier")));
        assertNotNull(TransformChain.parse(PATH, List.of(sample("fraction", 0.5)), REPLICA, problems));
        assertEquals(1, problems.size());
    }
}
