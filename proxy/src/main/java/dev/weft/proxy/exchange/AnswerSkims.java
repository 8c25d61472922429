package dev.weft.proxy.exchange;

import dev.weft.protocol.frame.KafkaFrameDecoder;
import dev.weft.protocol.skim.ResponseSkim;
import dev.weft.routing.topology.TopologyHolder;
import dev.weft.routing.api.RoutePlan;
import io.netty.buffer.ByteBuf;
import java.util.Arrays;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import org.apache.kafka.common.protocol.Errors;

/**
 * The targets' answers to a split Produce or Fetch, skimmed for the merger: one reused skim per target
 * (grown to the most targets seen), and the array the merger takes, null where a target has no answer.
 * While skimming, leaders that moved are forgotten ({@link #forgetMovedLeaders}). One per session
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

    private final ExchangeHost host;
    private final Supplier<R> newSkim;
    private final IntFunction<R[]> newArray;
    private final Wrap<R> wrap;
    private final ErrorOf<R> errorOf;
    private R[] skims;
    private R[] in;

    AnswerSkims(ExchangeHost host, Supplier<R> newSkim, IntFunction<R[]> newArray, Wrap<R> wrap, ErrorOf<R> errorOf) {
        this.host = host;
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
            if (answer != null && host.plansByCachedLeaders()) {
                forgetMovedLeaders(plan.targetLeaf(t), plan.targetBroker(t), answer);
            }
        }
        return in;
    }

    /**
     * A part's answer said some partitions' leader moved (NOT_LEADER_OR_FOLLOWER, FENCED_LEADER_EPOCH):
     * in the collapsed topology, which plans by the cached leaders, the cache forgets them, so they are
     * answered retriably until the client's next Metadata (through the proxy) teaches the new leader.
     * Error path only: topic names are read as Strings here. An answer from a broker the cache does not
     * hold as the leader (an in-zone follower, rack-aware fetch) says nothing about the leader.
     */
    private void forgetMovedLeaders(int leaf, int broker, R answer) {
        for (int i = 0; i < answer.partitionCount(); i++) {
            int error = errorOf.error(answer, i);
            if (error == Errors.NOT_LEADER_OR_FOLLOWER.code() || error == Errors.FENCED_LEADER_EPOCH.code()) {
                int t = answer.partitionTopic(i);
                TopologyHolder topology = host.cluster(leaf).topology();
                var id = answer.usesTopicIds() ? answer.topicId(t) : null;
                var known = id != null ? topology.partitions().topic(id) : topology.partitions().topic(answer.topicName(t));
                if (known != null && known.leader(answer.partitionIndex(i)) != broker) {
                    continue;
                }
                if (id != null) {
                    topology.invalidate(id.getMostSignificantBits(), id.getLeastSignificantBits(), answer.partitionIndex(i));
                } else {
                    topology.invalidate(answer.topicName(t), answer.partitionIndex(i));
                }
            }
        }
    }

    void clear() {
        Arrays.fill(in, null);
    }
}
