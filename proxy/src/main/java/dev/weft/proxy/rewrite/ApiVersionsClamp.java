package dev.weft.proxy.rewrite;

import dev.weft.protocol.ApiKeyTable;
import dev.weft.protocol.cold.ColdCodec;
import dev.weft.protocol.header.ResponseHeaderView;
import dev.weft.protocol.versions.ApiVersionsIntersection;
import dev.weft.proxy.session.ResponseRewriter;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.List;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersionCollection;

/**
 * Narrows the broker's ApiVersions answer to what Weft implements: the intersection of the broker's
 * version range and Weft's for every key, and no key Weft does not know or that is not for clients
 * (broker-to-broker APIs). Clients then never send a request Weft cannot parse or would refuse.
 *
 * <p>An error answer (UNSUPPORTED_VERSION to a version probe) is always encoded as v0 whatever the
 * request version, so it goes back untouched apart from the correlation id.
 */
public final class ApiVersionsClamp implements ResponseRewriter {

    @Override
    public ByteBuf rewrite(ByteBuf frame, short apiKey, short apiVersion, int clientCorrelationId, ByteBufAllocator alloc) {
        int headerStart = frame.readerIndex() + 4;
        // ApiVersions responses always use header v0: the body starts right after the correlation id.
        int bodyStart = headerStart + ResponseHeaderView.FIXED_LENGTH;
        boolean hasErrorCode = frame.writerIndex() - bodyStart >= 2;
        if (!ApiKeyTable.isSupported(apiKey, apiVersion) || !hasErrorCode || frame.getShort(bodyStart) != 0) {
            ResponseHeaderView.correlationId(frame, headerStart, clientCorrelationId);
            return frame;
        }
        try {
            ApiVersionsResponseData data = (ApiVersionsResponseData) ColdCodec.readResponseBody(
                    apiKey, apiVersion, frame.slice(bodyStart, frame.writerIndex() - bodyStart));
            ApiVersionCollection clamped = ApiVersionsIntersection.of(List.of(data.apiKeys()));
            data.setApiKeys(clamped);
            return ColdCodec.writeResponse(alloc, clientCorrelationId, apiVersion, data);
        } finally {
            frame.release();
        }
    }
}
