package dev.weft.routing.branch.transform;

import static dev.weft.routing.branch.transform.Fixtures.batch;
import static dev.weft.routing.branch.transform.Fixtures.bytes;
import static dev.weft.routing.branch.transform.Fixtures.chain;
import static dev.weft.routing.branch.transform.Fixtures.hmacHex;
import static dev.weft.routing.branch.transform.Fixtures.map;
import static dev.weft.routing.branch.transform.Fixtures.record;
import static dev.weft.routing.branch.transform.Fixtures.run;
import static dev.weft.routing.branch.transform.Fixtures.step;
import static dev.weft.routing.branch.transform.Fixtures.text;
import static dev.weft.routing.branch.transform.Fixtures.tick;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.routing.dag.RoutingProblem;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class TransformChainTest {

    private static final String SALT = "s3cr3t";

    /** Throws on a record whose value is "boom", as a step with a bug would. */
    private static final RecordStep BOMB = r -> {
        if ("boom".equals(text(r.value()))) {
            throw new IllegalStateException("bad record");
        }
        return r;
    };

    @Test
    void identityPassesTheSameRecords() {
        TransformChain chain = TransformChain.parse(Fixtures.PATH, null, Fixtures.REPLICA, new ArrayList<>());
        BranchRecord a = record("a", "1");
        BranchRecord b = record(null, null);
        List<BranchRecord> out = run(chain, a, b);
        assertSame(a, out.get(0));
        assertSame(b, out.get(1));
        assertEquals(List.of(), tick(chain, Long.MAX_VALUE));
        assertEquals(2, chain.counters().recordsIn());
        assertEquals(2, chain.counters().recordsOut());
    }

    @Test
    void redactThenSampleThenCount() {
        TransformChain chain = chain(step("redact", map("key", "hash", "salt", SALT)), step("sample", map("fraction", 0.5, "by", "key")),
                step("derive", map("count", map("interval", "10s"))));
        SampleStep reference = new SampleStep(0.5, SampleStep.Mode.KEY, new TransformCounters());
        List<BranchRecord> records = new ArrayList<>();
        int expectedKept = 0;
        for (int i = 0; i < 1_000; i++) {
            records.add(record("user-" + i, "v"));
            // The sample sees the hashed key, so it decides on that, not on the original.
            expectedKept += reference.keyPosition(bytes(hmacHex(SALT, "user-" + i))) < 0.5 ? 1 : 0;
        }
        assertEquals(List.of(), run(chain, batch(1_000), records));
        List<BranchRecord> out = tick(chain, 10_000);
        assertEquals(1, out.size());
        String value = text(out.getFirst().value());
        assertTrue(value.contains("\"records\":" + expectedKept + ","), value);
        assertTrue(value.contains("\"bytes\":" + expectedKept * (64 + 1) + ","), value);
        assertEquals(1_000 - expectedKept, chain.counters().droppedSampledOut());
        assertEquals(1, chain.counters().recordsOut());
    }

    @Test
    void stepsAfterDeriveWorkOnTheDerivedRecords() {
        TransformChain chain = chain(step("derive", "audit"), step("redact", map("value-fields", List.of("$.principal"), "salt", SALT)),
                step("sample", map("fraction", 0.5)));
        SampleStep reference = new SampleStep(0.5, SampleStep.Mode.KEY, new TransformCounters());
        List<BranchRecord> out = new ArrayList<>();
        int expected = 0;
        for (int p = 0; p < 100; p++) {
            out.addAll(run(chain, batch("orders", p, "client-a", 5_000, 1), List.of(record("k", "v"))));
            expected += reference.keyPosition(bytes("orders-" + p)) < 0.5 ? 1 : 0;
        }
        assertEquals(expected, out.size());
        for (BranchRecord audit : out) {
            assertTrue(text(audit.value()).contains("\"principal\":\"" + hmacHex(SALT, "User:alice") + "\""), text(audit.value()));
        }
    }

    @Test
    void aStepThatThrowsCostsOneRecordAndTheChainGoesOn() {
        TransformCounters counters = new TransformCounters();
        RecordStep mask = new RedactStep(List.of(), RedactAction.HASH, NonJsonPolicy.PASS, RedactAction.MASK, java.util.Map.of(), null, counters);
        TransformChain chain = new TransformChain(List.of(BOMB, mask), null, List.of(), counters);
        List<BranchRecord> out = run(chain, record("a", "fine"), record("b", "boom"), record("c", "also fine"));
        assertEquals(List.of(record("****", "fine"), record("****", "also fine")), out);
        assertEquals(1, counters.transformErrors());
        assertEquals("bad record", counters.lastError().getMessage());
        assertEquals(3, counters.recordsIn());
        assertEquals(2, counters.recordsOut());
    }

    @Test
    void aDeriveStepThatThrowsDoesNotEscapeApplyOrTick() {
        TransformCounters counters = new TransformCounters();
        DeriveStep broken = new DeriveStep() {
            @Override
            public void onBatch(BatchContext batch, List<BranchRecord> reached, List<BranchRecord> derived) {
                derived.add(record("flushed", "before the failure"));
                throw new IllegalStateException("derive bug");
            }

            @Override
            public void tick(long nowMs, List<BranchRecord> derived) {
                throw new IllegalStateException("tick bug");
            }
        };
        TransformChain chain = new TransformChain(List.of(), broken, List.of(BOMB), counters);
        assertEquals(List.of(record("flushed", "before the failure")), run(chain, record("k", "v")));
        assertEquals(List.of(), tick(chain, 1));
        assertEquals(2, counters.transformErrors());
        assertEquals("tick bug", counters.lastError().getMessage());
    }

    @Test
    void aRecordThatThrowsAfterDeriveIsCounted() {
        TransformCounters counters = new TransformCounters();
        DeriveStep boom = new DeriveStep() {
            @Override
            public void onBatch(BatchContext batch, List<BranchRecord> reached, List<BranchRecord> derived) {
                derived.add(record("x", "boom"));
                derived.add(record("y", "ok"));
            }

            @Override
            public void tick(long nowMs, List<BranchRecord> derived) {
            }
        };
        TransformChain chain = new TransformChain(List.of(), boom, List.of(BOMB), counters);
        assertEquals(List.of(record("y", "ok")), run(chain, record("k", "v")));
        assertEquals(1, counters.transformErrors());
    }

    @Test
    void deeplyNestedJsonIsNotJsonRatherThanAnError() {
        String deep = "[".repeat(5_000) + "]".repeat(5_000);
        TransformChain chain = chain(step("redact", map("value-fields", List.of("$[0]"), "with", "mask", "non-json", "drop")));
        assertEquals(List.of(), run(chain, record("k", deep)));
        assertEquals(1, chain.counters().droppedNotJson());
        assertEquals(0, chain.counters().transformErrors());
    }

    @Test
    void parseReportsToTheGivenList() {
        List<RoutingProblem> problems = new ArrayList<>();
        TransformChain.parse(Fixtures.PATH, List.of(step("sample", map("fraction", 0))), Fixtures.REPLICA, problems);
        assertEquals(Fixtures.PATH + "[0].sample.fraction", problems.getFirst().path());
    }
}
