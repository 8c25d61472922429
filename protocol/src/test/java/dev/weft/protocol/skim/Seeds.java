package dev.weft.protocol.skim;

import java.util.SplittableRandom;

/**
 * Seeds for the property-style tests: random unless {@code -Dweft.test.seed=N} is given, and always
 * printed on failure so a failing layout can be replayed.
 */
public final class Seeds {

    private Seeds() {
    }

    public static long seed() {
        Long fixed = Long.getLong("weft.test.seed");
        return fixed != null ? fixed : new SplittableRandom().nextLong();
    }

    public interface Body {
        void run() throws Exception;
    }

    /** Runs {@code body}, turning any failure into one that names the seed to replay it with. */
    public static void replayable(long seed, String what, Body body) {
        try {
            body.run();
        } catch (Throwable t) {
            AssertionError e = new AssertionError(what + " failed; replay with -Dweft.test.seed=" + seed, t);
            throw e;
        }
    }
}
