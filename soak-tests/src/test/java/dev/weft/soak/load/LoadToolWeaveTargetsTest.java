package dev.weft.soak.load;

import dev.weft.perfreports.model.Report;
import dev.weft.perfreports.model.ReportJson;
import dev.weft.perfreports.model.Result;
import dev.weft.soak.common.HaproxyProcess;
import dev.weft.soak.common.PerfSyscalls;
import dev.weft.soak.common.Reports;
import dev.weft.soak.common.WeftProcess;
import dev.weft.testkit.KafkaCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
/**
 * {@link LoadToolTest}'s woven, branch and partition-woven targets, in a class of their own so CI's two
 * test forks run them beside the side-by-side case instead of after it.
 */
class LoadToolWeaveTargetsTest {

    /**
     * The woven targets: a second cluster, one Weft process over both, renamed topics; figures for each. In the
     * same run (the branch targets' branch cluster is that second cluster: one cluster start less for CI) a
     * pure-copy branch target and a redacting one whose slice SIGSTOPs the branch cluster: figures, branch
     * counters, records on the branch topics, the fault and the catch-up in the report, no primary error.
     */
    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    @SuppressWarnings("unchecked")
    void wovenAndBranchTargets(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("load-woven.json");
        LoadTool.run(LoadTool.Options.parse(new String[] {
            "--targets", "direct,woven,woven-b,branch-copy,branch-redact!stop", "--duration", "2s", "--rounds", "1", "--warmup", "0s",
            "--mode", "fixed", "--rate", "3000", "--branch-fault-at", "200ms", "--branch-fault-for", "500ms",
            "--out", out.toString(), "--weft-jvm-opts", "-Xmx512m"}));
        Map<String, Object> report = Reports.read(out);
        List<Map<String, Object>> results = (List<Map<String, Object>>) report.get("results");
        for (String target : List.of("woven", "woven-b", "branch-copy", "branch-redact!stop")) {
            for (String scenario : List.of("produce", "e2e", "consume")) {
                Map<String, Object> r = results.stream()
                        .filter(x -> target.equals(x.get("target")) && scenario.equals(x.get("scenario")))
                        .findFirst().orElseThrow(() -> new AssertionError("no " + target + "/" + scenario));
                assertTrue(((Number) r.get("recordsPerSec")).doubleValue() > 0, r.toString());
                assertNotNull(r.get("ratioToDirect"), r.toString());
                Map<String, Object> proxy = (Map<String, Object>) r.get("proxy");
                assertNotNull(proxy, r.toString());
                assertTrue(((Number) proxy.get("peakRssBytes")).longValue() > 0, r.toString());
            }
        }
        assertTrue(((Map<String, Object>) report.get("config")).containsKey("woven"), "config names the woven setup");

        // branch targets: counters from /metrics, records on the branch topics, the fault and what came after it
        Map<String, Object> branch = (Map<String, Object>) report.get("branch");
        assertNotNull(branch, "report.branch");
        Map<String, Object> copy = (Map<String, Object>) branch.get("branch-copy");
        Map<String, Object> redact = (Map<String, Object>) branch.get("branch-redact!stop");
        assertEquals("shadow.load-branch-copy", copy.get("branchTopic"));
        assertEquals("shadow.load-branch-redact-stop", redact.get("branchTopic"));
        for (Map<String, Object> b : List.of(copy, redact)) {
            assertTrue(((Number) b.get("branchRecordsWritten")).longValue() > 0, "the branch topic got records: " + b);
            assertTrue(((Number) b.get("primaryRecordsWritten")).longValue() > 0, b.toString());
        }
        Map<String, Object> copyCounters = (Map<String, Object>) ((Map<String, Object>) copy.get("measuredSlices")).get("branchCounters");
        Map<String, Object> copies = (Map<String, Object>) copyCounters.get("copies");
        assertTrue(copies.values().stream().mapToLong(v -> ((Number) v).longValue()).sum() > 0, "weft_branch_copies_total: " + copyCounters);
        assertTrue(((Number) copies.getOrDefault("acked", 0L)).longValue() > 0, copyCounters.toString());
        Map<String, Object> writer = (Map<String, Object>) ((Map<String, Object>) ((Map<String, Object>) redact.get("measuredSlices"))
                .get("branchCounters")).get("records");
        assertTrue(((Number) writer.get("in")).longValue() > 0, "weft_branch_records_total{stage=in}: " + writer);
        List<Map<String, Object>> faulted = (List<Map<String, Object>>) redact.get("faultedSlices");
        assertEquals(1, faulted.size(), redact.toString());
        Map<String, Object> fault = (Map<String, Object>) faulted.get(0).get("fault");
        assertEquals("stop", fault.get("kind"));
        assertTrue(((Number) fault.get("recoveredAtSec")).doubleValue() > ((Number) fault.get("faultAtSec")).doubleValue(), fault.toString());
        Map<String, Object> catchUp = (Map<String, Object>) faulted.get(0).get("catchUp");
        assertTrue(catchUp.get("branchRecordsProduced") instanceof Map<?, ?>, catchUp.toString());
        assertTrue(catchUp.containsKey("gotNewRecordsAfterRecovery"), catchUp.toString());
        assertTrue(((Map<String, Object>) report.get("config")).containsKey("branch"), "config names the branch setup");
        for (Map<String, Object> slice : (List<Map<String, Object>>) report.get("slices")) {
            assertEquals(0L, ((Number) slice.get("produceErrors")).longValue(), "no primary error: " + slice);
            if (String.valueOf(slice.get("target")).startsWith("branch-")) {
                assertTrue(slice.containsKey("branchCounters") && slice.containsKey("branchRecords"), slice.toString());
                assertNotNull(slice.get("weftCounters"), slice.toString());
            }
        }
    }

    /**
     * The pwoven target: a partition-weave virtual cluster over the main cluster, its logical topic the physical
     * one in rotated order (created on the cluster before the proxy, not through it); figures, counters and
     * records all there.
     */
    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    @SuppressWarnings("unchecked")
    void partitionWovenTarget(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("load-pwoven.json");
        LoadTool.run(LoadTool.Options.parse(new String[] {
            "--targets", "direct,pwoven", "--duration", "1s", "--rounds", "1", "--warmup", "0s",
            "--out", out.toString(), "--weft-jvm-opts", "-Xmx512m"}));
        Report model = ReportJson.read(out);
        assertEquals("load", model.kind());
        Map<String, Object> report = Reports.read(out);
        List<Map<String, Object>> results = (List<Map<String, Object>>) report.get("results");
        for (String scenario : List.of("produce", "e2e", "consume")) {
            Map<String, Object> r = results.stream()
                    .filter(x -> "pwoven".equals(x.get("target")) && scenario.equals(x.get("scenario")))
                    .findFirst().orElseThrow(() -> new AssertionError("no pwoven/" + scenario));
            assertTrue(((Number) r.get("recordsPerSec")).doubleValue() > 0, r.toString());
            assertNotNull(r.get("ratioToDirect"), r.toString());
            Map<String, Object> proxy = (Map<String, Object>) r.get("proxy");
            assertNotNull(proxy, r.toString());
            assertTrue(((Number) proxy.get("cpuSecondsPerGB")).doubleValue() > 0, r.toString());
            assertTrue(((Number) proxy.get("peakRssBytes")).longValue() > 0, r.toString());
            LoadToolTest.assertPhase(scenario, (Map<String, Object>) proxy.get("phase"));
        }
        Map<String, Object> config = (Map<String, Object>) report.get("config");
        assertTrue(String.valueOf(config.get("pwoven")).contains("segments [3-5, 0-2]"), String.valueOf(config.get("pwoven")));
        assertTrue(((Map<String, Object>) config.get("weftCdsArchiveMapped")).containsKey("pwoven"), config.toString());
        assertTrue(((Map<String, Object>) report.get("weftLogProblems")).containsKey("pwoven"), "its log lines are counted");
        boolean measured = false;
        for (Map<String, Object> slice : (List<Map<String, Object>>) report.get("slices")) {
            assertEquals(0L, ((Number) slice.get("produceErrors")).longValue(), slice.toString());
            assertEquals(0L, ((Number) slice.get("notConsumed")).longValue(), slice.toString());
            assertEquals(0L, ((Number) slice.get("notReread")).longValue(), slice.toString());
            if ("pwoven".equals(slice.get("target")) && !Boolean.TRUE.equals(slice.get("warmup"))) {
                measured = true;
                assertTrue(((Number) slice.get("acknowledged")).longValue() > 0, slice.toString());
                assertEquals(slice.get("acknowledged"), slice.get("consumed"), slice.toString());
                // the proxy's counters: client Produce/Fetch, sent on to route a's broker 0, no error
                Map<String, Object> w = (Map<String, Object>) slice.get("weftCounters");
                Map<String, Object> upstream = (Map<String, Object>) ((Map<String, Object>) w.get("upstreamRequests")).get("a/0");
                assertNotNull(upstream, w.toString());
                assertTrue(((Number) upstream.get("Produce")).longValue() > 0, w.toString());
                assertTrue(((Number) upstream.get("Fetch")).longValue() > 0, w.toString());
                assertTrue(((Number) ((Map<String, Object>) w.get("clientRequests")).get("Produce")).longValue() > 0, w.toString());
                assertTrue(((Map<String, Object>) w.get("errors")).isEmpty(), w.toString());
                assertTrue(((Number) w.get("fetchRequestBytesPerRequest")).doubleValue() > 0, w.toString());
            }
        }
        assertTrue(measured, "a measured pwoven slice");
        assertTrue(((List<String>) report.get("problems")).isEmpty(), report.get("problems").toString());
    }
}
