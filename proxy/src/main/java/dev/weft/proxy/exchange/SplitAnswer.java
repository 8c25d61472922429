package dev.weft.proxy.exchange;

import dev.weft.protocol.ApiKeyTable;
import dev.weft.proxy.upstream.UpstreamLink;
import dev.weft.routing.api.RoutePlan;
import io.netty.buffer.ByteBuf;
import org.apache.kafka.common.protocol.Errors;

/**
 * The answers to a Produce or Fetch that was rebuilt from the client's frame — renamed topics, refused
 * partitions, or split into one sub-request per target of its {@link RoutePlan} — collected (the link's
 * tag is the target) and merged into the client's one answer once every target has answered or failed.
 * A target whose link fails answers its partitions with the plan's refusal code (retriable
 * NOT_LEADER_OR_FOLLOWER unless a topic was unknown): the client refreshes metadata and retries,
 * nothing is dropped silently. The client's frame, every upstream frame and the plan are released
 * whatever happens.
 *
 * <p>A Fetch need not wait for its slowest part ({@link #enough}): once the answers so far carry what the
 * client asked for, it is answered, the parts still out are answered empty, and their late answers are
 * released and counted as discarded (every part is a sessionless fetch, so the client simply fetches
 * those partitions again from the same offsets: nothing is lost or reordered).
 */
abstract class SplitAnswer implements UpstreamLink.Exchange {

    /** How long an answer that is already enough waits for parts still out (see {@link #enough}). */
    static final long EARLY_ANSWER_GRACE_MICROS = 2_000;

    private final ExchangeHost host;
    private final int slot;
    private final ByteBuf request;
    final RoutePlan plan;
    final short refusal;
    /** Per target, its answer (null: failed or not yet). */
    final ByteBuf[] responses;
    private int remaining;
    private boolean anyFailed;
    private boolean finished;
    private boolean finishQueued;

    SplitAnswer(ExchangeHost host, int slot, ByteBuf request, RoutePlan plan, short refusal) {
        this.host = host;
        this.slot = slot;
        this.request = request;
        this.plan = plan;
        this.refusal = refusal;
        this.responses = new ByteBuf[plan.targetCount()];
        this.remaining = plan.targetCount();
    }

    /** The client's answer from its request frame and the targets' answers (all borrowed; null entries failed). */
    abstract ByteBuf merge(ByteBuf request, ByteBuf[] responses);

    /** Gives the plan back to its pool. */
    abstract void releasePlan(RoutePlan plan);

    /** Whether the answers so far (the latest: {@code response}, borrowed) are enough to answer now. */
    boolean enough(int target, ByteBuf response) {
        return false;
    }

    /** Every part's end, in time or late: its answer (borrowed; null when its link failed). */
    void partDone(int target, ByteBuf response) {
    }

    /** A part's answer arrived after the client was answered: released here; what it held is counted. */
    void discarded(ByteBuf response) {
    }

    /** Whether some part failed (its partitions are answered with the refusal code). */
    final boolean anyFailed() {
        return anyFailed;
    }

    /** Whether parts are still out (the answer is early). */
    final boolean early() {
        return remaining > 0;
    }

    @Override
    public final void onResponse(ByteBuf response, int target) {
        partDone(target, response);
        if (finished) {
            try {
                discarded(response);
            } finally {
                response.release();
            }
            return;
        }
        responses[target] = response;
        --remaining;
        if (remaining == 0) {
            finish();
            return;
        }
        boolean enough;
        try {
            enough = enough(target, response);
        } catch (RuntimeException e) {
            enough = false; // the merge will say what is wrong with it
        }
        if (enough && !finishQueued) {
            // Not at once: parts that answer within a moment (no long poll: they had data too) still
            // make it in, instead of being fetched again; a part that long-polls waits no more than this.
            finishQueued = true;
            host.eventLoop().schedule(() -> {
                if (!finished) {
                    finish();
                    host.flushClient(); // outside a link's read: nothing else flushes this answer
                }
            }, EARLY_ANSWER_GRACE_MICROS, java.util.concurrent.TimeUnit.MICROSECONDS);
        }
    }

    @Override
    public final void onFailure(Errors error, String reason, int target) {
        partDone(target, null);
        if (finished) {
            return;
        }
        anyFailed = true;
        if (--remaining == 0) {
            finish();
            // A failure comes from a link closing or not connecting, not from a read of it: nothing else
            // flushes this answer (the client would wait for its request timeout).
            host.flushClient();
        }
    }

    private void finish() {
        finished = true;
        ByteBuf out = null;
        try {
            if (!host.isClosed()) {
                out = merge(request, responses);
            }
        } catch (RuntimeException e) {
            host.failed("cannot merge a " + ApiKeyTable.name(host.slotApiKey(slot)) + " response", e);
        } finally {
            for (int i = 0; i < responses.length; i++) {
                if (responses[i] != null) {
                    responses[i].release();
                    responses[i] = null;
                }
            }
            request.release();
            releasePlan(plan);
        }
        if (anyFailed) {
            host.countUpstreamFailure(host.slotApiKey(slot));
        }
        host.complete(slot, out);
    }
}
