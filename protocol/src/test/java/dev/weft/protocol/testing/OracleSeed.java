package dev.weft.protocol.testing;

import java.util.SplittableRandom;

/**
 * Seeds for the property-style tests. The base seed comes from {@code -Dweft.oracle.seed=N} when set
 * (to replay a failure), else from the clock; every case derives its own generator from the base seed
 * and its coordinates, so a failure names one seed and one case and replays alone.
 */
public final class OracleSeed {

    public static final String PROPERTY = "weft.oracle.seed";

    private OracleSeed() {
    }

    public static long base() {
        String configured = System.getProperty(PROPERTY);
        if (configured != null && !configured.isBlank()) {
            return Long.decode(configured.trim());
        }
        return new SplittableRandom().nextLong() ^ System.nanoTime();
    }

    /** A generator for one case, identified by the base seed and small integers (key, version, index...). */
    public static SplittableRandom forCase(long base, int... coordinates) {
        long seed = base;
        for (int c : coordinates) {
            seed = mix(seed * 31 + c);
        }
        return new SplittableRandom(seed);
    }

    /** How to replay, for assertion messages. */
    public static String replay(long base) {
        return "seed " + base + " (replay with -D" + PROPERTY + "=" + base + ")";
    }

    /** SplitMix64's finaliser: nearby inputs give unrelated seeds. */
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }
}
