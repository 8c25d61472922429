package dev.weft.protocol.header;

import dev.weft.protocol.ApiKeyTable;
import dev.weft.protocol.wire.MalformedFrameException;
import dev.weft.protocol.wire.WireCursor;
import io.netty.buffer.ByteBuf;

/**
 * Flyweight over a Kafka response header at the start of a frame body.
 *
 * <pre>
 *  0                               4
 *  +-------------------------------+
 *  |        correlation_id         |
 *  +-------------------------------+---------------------------------+
 *  | header v1 only: tagged fields (uvarint count, then tag/size/bytes)
 *  +-----------------------------------------------------------------+
 * </pre>
 *
 * <p>A response does not say which API it answers: the caller passes the key and version of the
 * request it matched by correlation id. ApiVersions responses always use header v0, so a client that
 * sent an ApiVersions version too new for the broker can still read the error.
 *
 * <p>Borrows the buffer; {@link #correlationId(int)} patches in place.
 */
public final class ResponseHeaderView {

    public static final int CORRELATION_ID_OFFSET = 0;
    public static final int FIXED_LENGTH = 4;

    private final WireCursor cursor = new WireCursor();
    private ByteBuf buf;
    private int offset;

    public ResponseHeaderView wrap(ByteBuf buf, int offset) {
        if (buf.writerIndex() - offset < FIXED_LENGTH) {
            throw new MalformedFrameException("response of " + (buf.writerIndex() - offset)
                    + " bytes is shorter than the 4-byte response header");
        }
        this.buf = buf;
        this.offset = offset;
        return this;
    }

    public ResponseHeaderView wrap(ByteBuf frame) {
        return wrap(frame, frame.readerIndex());
    }

    public static int correlationId(ByteBuf buf, int offset) {
        return buf.getInt(offset + CORRELATION_ID_OFFSET);
    }

    public static void correlationId(ByteBuf buf, int offset, int correlationId) {
        buf.setInt(offset + CORRELATION_ID_OFFSET, correlationId);
    }

    public int correlationId() {
        return correlationId(buf, offset);
    }

    public ResponseHeaderView correlationId(int correlationId) {
        correlationId(buf, offset, correlationId);
        return this;
    }

    /** Length of this response's header, given the request it answers. */
    public int headerLength(int apiKey, int apiVersion) {
        byte version = ApiKeyTable.responseHeaderVersion(apiKey, apiVersion);
        if (version == ApiKeyTable.UNSUPPORTED) {
            throw new MalformedFrameException("unsupported " + ApiKeyTable.name(apiKey) + " version "
                    + apiVersion + ": response header layout unknown");
        }
        if (version == 0) {
            return FIXED_LENGTH;
        }
        cursor.wrap(buf, offset + FIXED_LENGTH, buf.writerIndex());
        cursor.skipTaggedFields();
        return cursor.position() - offset;
    }
}
