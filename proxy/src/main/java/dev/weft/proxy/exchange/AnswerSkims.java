package dev.weft.proxy.session;

import dev.weft.protocol.frame.KafkaFrameDecoder;
import dev.weft.protocol.skim.ResponseSkim;
import dev.weft.routing.api.RoutePlan;
import io.netty.buffer.ByteBuf;
import java.util.Arrays;
import java.util.function.IntFunction;
import java.util.function.Supplier;

/**
 * The targets' answers to a split Produce or Fetch, skimmed for the merger: one reused skim per target
 * (grown to the most targets seen), and the array the merger takes, null where a target has no answer.
 * While skimming, leaders that moved are forgotten ({@link Session#forgetMovedLeaders}). One per session
 * and API; a merge runs to its end before the next, so the skims are never shared by two merges.
 *
 * @param <R> the response skim type
 */
final class AnswerSkims<R extends ResponseSkim> {

    /** Reads one answer into a reused skim. */
    @FunctionalInterface
    interface Wrap<R> {
        R wrap(R skim, ByteBuf frame, int bodyOffset, int limit, short version);
    }

    /** The error code of partition {@code i} of a skimmed answer. */
    @FunctionalInterface
    interface ErrorOf<R> {
        int error(R skim, int i);
    }

    private static final int PREFIX = KafkaFrameDecoder.SIZE_PREFIX_BYTES;

    private final Session session;
    private final Supplier<R> newSkim;
    private final IntFunction<R[]> newArray;
    private final Wrap<R> wrap;
    private final ErrorOf<R> errorOf;
    private R[] skims;
    private R[] in;

    AnswerSkims(Session session, Supplier<R> newSkim, IntFunction<R[]> newArray, Wrap<R> wrap, ErrorOf<R> errorOf) {
        this.session = session;
        this.newSkim = newSkim;
        this.newArray = newArray;
        this.wrap = wrap;
        this.errorOf = errorOf;
        this.skims = newArray.apply(1);
        this.skims[0] = newSkim.get();
        this.in = newArray.apply(1);
    }

    /**
     * Skims every target's answer (borrowed frames; null: none) in the request's {@code version}; returns
     * the merger's array, valid until {@link #clear()}.
     */
    R[] skim(RoutePlan plan, ByteBuf[] responses, short version) {
        int n = Math.max(1, plan.targetCount());
        if (skims.length < n) {
            R[] grown = Arrays.copyOf(skims, n);
            for (int i = skims.length; i < n; i++) {
                grown[i] = newSkim.get();
            }
            skims = grown;
            in = newArray.apply(n);
        }
        for (int t = 0; t < n; t++) {
            ByteBuf r = responses == null ? null : responses[t];
            R answer = r == null ? null : wrap.wrap(skims[t], r, r.readerIndex() + PREFIX, r.writerIndex(), version);
            in[t] = answer;
            if (answer != null && session.runtime.collapsed() != null) { // only the collapsed topology plans by cached leaders
                session.forgetMovedLeaders(plan.targetLeaf(t), answer, i -> errorOf.error(answer, i));
            }
        }
        return in;
    }

    void clear() {
        Arrays.fill(in, null);
    }
}
