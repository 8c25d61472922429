package dev.weft.proxy.session;

import dev.weft.protocol.ApiKeyTable;
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
 */
abstract class SplitAnswer implements UpstreamLink.Exchange {

    private final Session session;
    private final int slot;
    private final ByteBuf request;
    final RoutePlan plan;
    final short refusal;
    /** Per target, its answer (null: failed or not yet). */
    final ByteBuf[] responses;
    private int remaining;
    private boolean anyFailed;

    SplitAnswer(Session session, int slot, ByteBuf request, RoutePlan plan, short refusal) {
        this.session = session;
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

    @Override
    public final void onResponse(ByteBuf response, int target) {
        responses[target] = response;
        if (--remaining == 0) {
            finish();
        }
    }

    @Override
    public final void onFailure(Errors error, String reason, int target) {
        anyFailed = true;
        if (--remaining == 0) {
            finish();
        }
    }

    private void finish() {
        ByteBuf out = null;
        try {
            if (!session.isClosed()) {
                out = merge(request, responses);
            }
        } catch (RuntimeException e) {
            session.failed("cannot merge a " + ApiKeyTable.name(session.slotApiKey(slot)) + " response", e);
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
            session.metrics.connectionError(SessionMetrics.SessionError.UPSTREAM_FAILED, session.slotApiKey(slot));
        }
        session.complete(slot, out);
    }
}
