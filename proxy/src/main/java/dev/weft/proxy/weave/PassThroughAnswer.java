package dev.weft.proxy.weave;

import dev.weft.protocol.ApiKeyTable;
import dev.weft.proxy.weave.ResponseSlots.Slot;
import io.netty.buffer.ByteBuf;
import org.apache.kafka.common.protocol.Errors;

/**
 * The broker's answer to a Produce or Fetch forwarded as the client sent it: the client's correlation
 * id back, node ids and endpoints mapped to the gateway's (on the hot path, records untouched), and
 * no merge. Used whenever a request needs no rename.
 */
final class PassThroughAnswer implements UpstreamLink.Exchange {

    private final WovenSession session;
    private final Slot slot;
    private final short apiKey;
    private final short version;
    private final int clientCorrelationId;

    PassThroughAnswer(WovenSession session, Slot slot, short apiKey, short version, int clientCorrelationId) {
        this.session = session;
        this.slot = slot;
        this.apiKey = apiKey;
        this.version = version;
        this.clientCorrelationId = clientCorrelationId;
    }

    @Override
    public void onResponse(ByteBuf response) {
        ByteBuf out;
        try {
            out = session.runtime.forwarder(session.addresses, session.ownRoute)
                    .rewrite(response, apiKey, version, clientCorrelationId, session.client.alloc());
        } catch (RuntimeException e) {
            session.failed("cannot map the node ids of a " + ApiKeyTable.name(apiKey) + " response", e);
            return;
        }
        session.complete(slot, out);
    }

    @Override
    public void onFailure(Errors error, String reason) {
        session.complete(slot, null); // the own link is gone: the session is closing
    }
}
