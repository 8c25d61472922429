package dev.weft.routing.branch.transform;

import static dev.weft.routing.branch.transform.Fixtures.batch;
import static dev.weft.routing.branch.transform.Fixtures.chain;
import static dev.weft.routing.branch.transform.Fixtures.map;
import static dev.weft.routing.branch.transform.Fixtures.record;
import static dev.weft.routing.branch.transform.Fixtures.run;
import static dev.weft.routing.branch.transform.Fixtures.step;
import static dev.weft.routing.branch.transform.Fixtures.text;
import static dev.weft.routing.branch.transform.Fixtures.tick;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class DeriveStepTest {

    private static final long T = 1_700_000_000_000L;

    private static TransformChain counting(String interval) {
        return chain(step("derive", map("count", map("interval", interval))));
    }

    private static String count(String topic, String clientId, long records, long bytes, long start, long end) {
        return "{\"replica\":\"weft-0\",\"topic\":\"" + topic + "\",\"client_id\":" + (clientId == null ? "null" : "\"" + clientId + "\"")
                + ",\"records\":" + records + ",\"bytes\":" + bytes + ",\"window_start\":" + start + ",\"window_end\":" + end + "}";
    }

    private static List<String> values(List<BranchRecord> records) {
        return records.stream().map(r -> text(r.value())).toList();
    }

    @Test
    void auditIsOneRecordPerBatchExactlyAsSpecified() {
        TransformChain chain = chain(step("derive", "audit"));
        BatchContext batch = new BatchContext("vc1", "orders", 3, 1000L, 5, "client-a", "User:alice", T);
        List<BranchRecord> out = run(chain, batch, List.of(record("a", "1"), record("b", "2"), record("c", "3"), record("d", "4"),
                record("e", "5")));
        assertEquals(1, out.size());
        BranchRecord audit = out.getFirst();
        assertEquals("orders-3", text(audit.key()));
        assertEquals("{\"virtual_cluster\":\"vc1\",\"topic\":\"orders\",\"partition\":3,\"base_offset\":1000,\"record_count\":5,"
                + "\"client_id\":\"client-a\",\"principal\":\"User:alice\",\"time\":" + T + "}", text(audit.value()));
        assertEquals(T, audit.timestampMs());
        assertEquals(List.of(), audit.headers());
        assertEquals(5, chain.counters().recordsIn());
        assertEquals(1, chain.counters().recordsOut());
    }

    @Test
    void auditStillComesWhenNothingReachesIt() {
        TransformChain chain = chain(step("redact", map("value-fields", List.of("$.a"), "with", "mask", "non-json", "drop")),
                step("derive", "audit"));
        BatchContext batch = new BatchContext("vc1", "orders", 0, 77L, 2, null, null, T);
        List<BranchRecord> out = run(chain, batch, List.of(record("a", "not json"), record("b", "nor this")));
        assertEquals(List.of("{\"virtual_cluster\":\"vc1\",\"topic\":\"orders\",\"partition\":0,\"base_offset\":77,\"record_count\":2,"
                + "\"client_id\":null,\"principal\":null,\"time\":" + T + "}"), values(out));
        assertEquals(2, chain.counters().droppedNotJson());
    }

    @Test
    void countEmitsAWindowOnceATickReachesItsEnd() {
        TransformChain chain = counting("10s");
        assertEquals(List.of(), run(chain, batch("orders", 0, "client-a", 1_000, 2), List.of(record("k1", "v1"), record("k2", "value2"))));
        assertEquals(List.of(), run(chain, batch("orders", 1, "client-a", 9_999, 1), List.of(record(null, "v"))));
        assertEquals(List.of(), tick(chain, 9_999));
        List<BranchRecord> out = tick(chain, 10_000);
        assertEquals(List.of(count("orders", "client-a", 3, 2 + 2 + 2 + 6 + 1, 0, 10_000)), values(out));
        assertEquals("orders|client-a", text(out.getFirst().key()));
        assertEquals(10_000, out.getFirst().timestampMs());
        assertEquals(List.of(), tick(chain, 10_001), "each window is emitted once");
        assertEquals(List.of(), tick(chain, 60_000), "empty windows emit nothing");
    }

    @Test
    void countIsPerTopicAndClientIdInFirstSeenOrder() {
        TransformChain chain = counting("1m");
        run(chain, batch("orders", 0, "client-b", 61_000, 1), List.of(record("k", "v")));
        run(chain, batch("payments", 0, "client-a", 62_000, 1), List.of(record("k", "v")));
        run(chain, batch("orders", 2, "client-a", 63_000, 1), List.of(record("k", "v")));
        run(chain, batch("orders", 1, "client-b", 64_000, 2), List.of(record("k", "v"), record("k", "v")));
        run(chain, batch("orders", 1, null, 65_000, 1), List.of(record("kk", "vv")));
        List<BranchRecord> out = tick(chain, 120_000);
        assertEquals(List.of(count("orders", "client-b", 3, 6, 60_000, 120_000), count("payments", "client-a", 1, 2, 60_000, 120_000),
                count("orders", "client-a", 1, 2, 60_000, 120_000), count("orders", null, 1, 4, 60_000, 120_000)), values(out));
        assertEquals(List.of("orders|client-b", "payments|client-a", "orders|client-a", "orders|"),
                out.stream().map(r -> text(r.key())).toList());
    }

    @Test
    void aBatchOfALaterWindowFlushesTheEndedOneFirst() {
        TransformChain chain = counting("500ms");
        run(chain, batch(1_200), List.of(record("k", "v")));
        List<BranchRecord> out = run(chain, batch(2_750), List.of(record("k", "v"), record("k", "v")));
        assertEquals(List.of(count("orders", "client-a", 1, 2, 1_000, 1_500)), values(out));
        assertEquals(List.of(count("orders", "client-a", 2, 4, 2_500, 3_000)), values(tick(chain, 3_000)));
    }

    @Test
    void aLateBatchCountsInTheNextWindowRatherThanReEmittingItsOwn() {
        TransformChain chain = counting("10s");
        run(chain, batch(5_000), List.of(record("k", "v")));
        assertEquals(List.of(count("orders", "client-a", 1, 2, 0, 10_000)), values(tick(chain, 10_000)));
        run(chain, batch(9_500), List.of(record("k", "v")));
        assertEquals(List.of(count("orders", "client-a", 1, 2, 10_000, 20_000)), values(tick(chain, 20_000)));
    }

    @Test
    void anOlderBatchCountsInTheOpenWindow() {
        TransformChain chain = counting("10s");
        run(chain, batch(15_000), List.of(record("k", "v")));
        run(chain, batch(3_000), List.of(record("k", "v")));
        assertEquals(List.of(count("orders", "client-a", 2, 4, 10_000, 20_000)), values(tick(chain, 20_000)));
    }

    @Test
    void countsOnlyWhatReachesIt() {
        TransformChain chain = chain(step("redact", map("value-fields", List.of("$.a"), "with", "mask", "non-json", "drop")),
                step("derive", map("count", map("interval", "10s"))));
        run(chain, batch(1_000), List.of(record("k", "{\"a\":1}"), record("k", "not json")));
        assertEquals(List.of(count("orders", "client-a", 1, 1 + "{\"a\":\"****\"}".length(), 0, 10_000)), values(tick(chain, 10_000)));
        assertEquals(2, chain.counters().recordsIn());
        assertEquals(1, chain.counters().recordsOut());
    }
}
