package dev.weft.routing.branch.transform;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.SplittableRandom;

/**
 * Keeps a fraction of the records. By key, the decision is a function of the key bytes alone: the
 * first 8 bytes of their SHA-256, big-endian, top 53 bits as a number in [0, 1), kept when below the
 * fraction. So every replica and every restart keeps the same keys, and a kept key keeps its whole
 * history (which a shadow consumer needs to make sense of it). Records without a key, and every
 * record in random mode, are kept by a {@link SplittableRandom} draw.
 */
final class SampleStep implements RecordStep {

    /** How a sample decides. */
    enum Mode {
        KEY, RANDOM
    }

    private static final double TWO_TO_MINUS_53 = 0x1.0p-53;

    private final double fraction;
    private final Mode mode;
    private final SplittableRandom random;
    private final MessageDigest sha256;
    private final TransformCounters counters;

    SampleStep(double fraction, Mode mode, TransformCounters counters) {
        this(fraction, mode, counters, new SplittableRandom());
    }

    /** With a fixed seed, for tests that need the random draws to repeat. */
    SampleStep(double fraction, Mode mode, TransformCounters counters, long seed) {
        this(fraction, mode, counters, new SplittableRandom(seed));
    }

    private SampleStep(double fraction, Mode mode, TransformCounters counters, SplittableRandom random) {
        this.fraction = fraction;
        this.mode = mode;
        this.counters = counters;
        this.random = random;
        try {
            this.sha256 = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    @Override
    public BranchRecord apply(BranchRecord record) {
        if (keeps(record.key())) {
            return record;
        }
        counters.countSampledOut();
        return null;
    }

    private boolean keeps(byte[] key) {
        double draw = mode == Mode.KEY && key != null ? keyPosition(key) : random.nextDouble();
        return draw < fraction;
    }

    /** Where {@code key} falls in [0, 1): the same on every run, replica and JDK. */
    double keyPosition(byte[] key) {
        byte[] digest = sha256.digest(key);
        long first8 = 0;
        for (int i = 0; i < Long.BYTES; i++) {
            first8 = (first8 << 8) | (digest[i] & 0xFF);
        }
        return (first8 >>> 11) * TWO_TO_MINUS_53;
    }
}
