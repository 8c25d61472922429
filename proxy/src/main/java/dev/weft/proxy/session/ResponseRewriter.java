package dev.weft.proxy.session;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * Rewrites one kind of response on its way back to the client (broker addresses, node ids, versions).
 * Responses without a rewriter are forwarded opaquely with only the correlation id patched.
 */
public interface ResponseRewriter {

    /**
     * @param frame the whole response frame from the broker, starting at its 4-byte size prefix;
     *     <em>takes ownership</em>
     * @param apiKey the API of the request this answers
     * @param apiVersion its version
     * @param clientCorrelationId the correlation id the client used
     * @return the complete frame for the client, size prefix included; <em>returns retained</em>
     *     (the caller writes it and gives up ownership)
     */
    ByteBuf rewrite(ByteBuf frame, short apiKey, short apiVersion, int clientCorrelationId, ByteBufAllocator alloc);
}
