package dev.weft.protocol.skim;

import dev.weft.protocol.header.RequestHeaderView;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;

/**
 * Writes the header of a request built from a client's request: the client's header bytes (API key,
 * version, client id, header tagged fields) with a new correlation id, or with another client id.
 */
public final class RequestHeaderCopy {

    private RequestHeaderCopy() {
    }

    /** Bytes {@link #write} will take (at most). */
    public static int size(RequestHeaderView header, CharSequence clientId) {
        int original = header.bodyOffset() - header.offset();
        return clientId == null ? original : original + ByteBufUtil.utf8Bytes(clientId);
    }

    /**
     * Writes the header into the frame being assembled. Borrows the header's buffer.
     *
     * @param clientId the client id to write, or null to copy the client's
     */
    public static void write(FrameAssembler out, RequestHeaderView header, int correlationId, CharSequence clientId) {
        ByteBuf src = header.buffer();
        int start = header.offset();
        int body = header.bodyOffset();
        if (clientId == null) {
            ByteBuf meta = out.meta(body - start);
            int at = meta.writerIndex();
            meta.writeBytes(src, start, body - start);
            meta.setInt(at + RequestHeaderView.CORRELATION_ID_OFFSET, correlationId);
            return;
        }
        int headerTags = start + RequestHeaderView.FIXED_LENGTH + Math.max(0, header.clientIdLength());
        ByteBuf meta = out.meta(RequestHeaderView.FIXED_LENGTH + ByteBufUtil.utf8Bytes(clientId) + (body - headerTags));
        meta.writeShort(header.apiKey());
        meta.writeShort(header.apiVersion());
        meta.writeInt(correlationId);
        WireWrite.writeString(meta, false, clientId); // client_id stays an int16 string in header v2
        meta.writeBytes(src, headerTags, body - headerTags);
    }
}
