package dev.weft.routing.branch.transform;

import static dev.weft.routing.branch.transform.Fixtures.bytes;
import static dev.weft.routing.branch.transform.Fixtures.chain;
import static dev.weft.routing.branch.transform.Fixtures.map;
import static dev.weft.routing.branch.transform.Fixtures.run;
import static dev.weft.routing.branch.transform.Fixtures.step;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class SampleStepTest {

    private static List<BranchRecord> keyed(int count, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        List<BranchRecord> records = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            byte[] key = new byte[16];
            random.nextBytes(key);
            records.add(BranchRecord.of(key, bytes("v"), i));
        }
        return records;
    }

    private static void assertWithinFiveSigma(int kept, int trials, double fraction) {
        double mean = trials * fraction;
        double sigma = Math.sqrt(trials * fraction * (1 - fraction));
        assertTrue(Math.abs(kept - mean) <= 5 * sigma, () -> kept + " of " + trials + " kept; expected " + mean + " +- " + 5 * sigma);
    }

    private static int kept(SampleStep step, List<BranchRecord> records) {
        int kept = 0;
        for (BranchRecord r : records) {
            kept += step.apply(r) == null ? 0 : 1;
        }
        return kept;
    }

    @Test
    void byKeyKeepsTheSameKeysInSeparatelyBuiltChains() {
        List<BranchRecord> records = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
            records.add(Fixtures.record("key-" + i, "v" + i));
        }
        TransformChain first = chain(step("sample", map("fraction", 0.3, "by", "key")));
        TransformChain second = chain(step("sample", map("fraction", 0.3)));
        List<BranchRecord> keptByFirst = run(first, Fixtures.batch(1L), records);
        assertEquals(keptByFirst, run(second, Fixtures.batch(2L), records));
        assertEquals(keptByFirst, run(first, Fixtures.batch(3L), records), "the same chain decides the same way again");
        assertWithinFiveSigma(keptByFirst.size(), records.size(), 0.3);
        assertEquals(records.size() - keptByFirst.size(), first.counters().droppedSampledOut() / 2);
    }

    @Test
    void byKeyKeepsTheFractionOfRandomKeys() {
        List<BranchRecord> records = keyed(20_000, 7);
        TransformChain chain = chain(step("sample", map("fraction", 0.1, "by", "key")));
        int kept = run(chain, Fixtures.batch(1L), records).size();
        assertWithinFiveSigma(kept, records.size(), 0.1);
        assertEquals(records.size() - kept, chain.counters().droppedSampledOut());
    }

    @Test
    void keyPositionIsTheFirst8BytesOfSha256() {
        // SHA-256("abc") = ba7816bf8f01cfea 414140de5dae2223...: the FIPS 180-2 test vector.
        SampleStep step = new SampleStep(0.5, SampleStep.Mode.KEY, new TransformCounters());
        assertEquals((0xba7816bf8f01cfeaL >>> 11) * 0x1.0p-53, step.keyPosition(bytes("abc")));
    }

    @Test
    void randomModeKeepsTheFractionRepeatablyWithASeed() {
        List<BranchRecord> sameKey = new ArrayList<>();
        for (int i = 0; i < 20_000; i++) {
            sameKey.add(Fixtures.record("one-key", "v"));
        }
        int kept = kept(new SampleStep(0.1, SampleStep.Mode.RANDOM, new TransformCounters(), 42), sameKey);
        assertWithinFiveSigma(kept, sameKey.size(), 0.1);
        assertEquals(kept, kept(new SampleStep(0.1, SampleStep.Mode.RANDOM, new TransformCounters(), 42), sameKey));
    }

    @Test
    void nullKeysFallBackToRandom() {
        List<BranchRecord> unkeyed = new ArrayList<>();
        for (int i = 0; i < 20_000; i++) {
            unkeyed.add(BranchRecord.of(null, bytes("v"), i));
        }
        TransformCounters counters = new TransformCounters();
        int kept = kept(new SampleStep(0.1, SampleStep.Mode.KEY, counters, 9), unkeyed);
        assertWithinFiveSigma(kept, unkeyed.size(), 0.1);
        assertEquals(unkeyed.size() - kept, counters.droppedSampledOut());
    }

    @Test
    void fractionOneKeepsEverything() {
        List<BranchRecord> records = keyed(1_000, 3);
        assertEquals(records, run(chain(step("sample", map("fraction", 1))), Fixtures.batch(1L), records));
        assertEquals(records, run(chain(step("sample", map("fraction", 1.0, "by", "random"))), Fixtures.batch(1L), records));
    }
}
