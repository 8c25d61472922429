package dev.weft.proxy.weave;

import dev.weft.protocol.ApiKeyTable;
import dev.weft.proxy.weave.ResponseSlots.Slot;
import io.netty.buffer.ByteBuf;
import org.apache.kafka.common.protocol.Errors;

/**
 * The broker's answer to a Produce or Fetch that was rebuilt (renamed topics, refused partitions):
 * merged back under the client's names by {@link #merge}, with the client's frame, the upstream
 * frame and the placement released whatever happens. A failed link leaves the slot empty: the own
 * link is gone and the session is closing.
 */
abstract class MergedAnswer implements UpstreamLink.Exchange {

    private final WovenSession session;
    private final PlacementPool placements;
    private final Slot slot;
    private final ByteBuf request;
    final TopicPlacement placement;
    final short refusal;

    MergedAnswer(WovenSession session, PlacementPool placements, Slot slot, ByteBuf request, TopicPlacement placement,
            short refusal) {
        this.session = session;
        this.placements = placements;
        this.slot = slot;
        this.request = request;
        this.placement = placement;
        this.refusal = refusal;
    }

    /** The client's answer from its request frame and the upstream answer (both borrowed). */
    abstract ByteBuf merge(ByteBuf request, ByteBuf response);

    @Override
    public final void onResponse(ByteBuf response) {
        ByteBuf out = null;
        try {
            out = merge(request, response);
        } catch (RuntimeException e) {
            session.failed("cannot merge a " + ApiKeyTable.name(slot.apiKey) + " response", e);
        } finally {
            response.release();
            request.release();
            placements.release(placement);
        }
        if (out != null) {
            session.complete(slot, out);
        }
    }

    @Override
    public final void onFailure(Errors error, String reason) {
        request.release();
        placements.release(placement);
        session.complete(slot, null);
    }
}
