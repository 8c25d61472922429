package dev.weft.protocol.header;

import dev.weft.protocol.ApiKeyTable;
import dev.weft.protocol.wire.MalformedFrameException;
import dev.weft.protocol.wire.WireCursor;
import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;

/**
 * Flyweight over a Kafka request header at the start of a frame body (size prefix already removed).
 *
 * <pre>
 *  0               2               4                               8
 *  +---------------+---------------+-------------------------------+
 *  |   api_key     |  api_version  |        correlation_id         |
 *  +---------------+---------------+-------------------------------+
 *  | client_id length (int16, -1 = null) | client_id bytes ...      |
 *  +---------------------------------------------------------------+
 *  | header v2 only: tagged fields (uvarint count, then tag/size/bytes)
 *  +---------------------------------------------------------------+
 * </pre>
 *
 * <p>Header v1 is used by non-flexible API versions, v2 by flexible ones; {@link ApiKeyTable} knows
 * which. Note that {@code client_id} stays a classic int16-length string even in v2.
 *
 * <p>The view <em>borrows</em> the buffer; {@link #correlationId(int)} patches it in place.
 * One instance per connection, re-wrapped per frame: no allocation.
 */
public final class RequestHeaderView {

    public static final int API_KEY_OFFSET = 0;
    public static final int API_VERSION_OFFSET = API_KEY_OFFSET + 2;
    public static final int CORRELATION_ID_OFFSET = API_VERSION_OFFSET + 2;
    public static final int CLIENT_ID_LENGTH_OFFSET = CORRELATION_ID_OFFSET + 4;
    /** Bytes that every request header has, whatever its version. */
    public static final int FIXED_LENGTH = CLIENT_ID_LENGTH_OFFSET + 2;

    private final WireCursor cursor = new WireCursor();
    private ByteBuf buf;
    private int offset;
    private int length = -1;

    /**
     * Wraps the header starting at {@code offset}; borrows {@code buf}. Only the fixed fields are read
     * here; {@link #headerLength()} walks the rest on demand.
     *
     * @throws MalformedFrameException when the frame is shorter than the fixed header
     */
    public RequestHeaderView wrap(ByteBuf buf, int offset) {
        if (buf.writerIndex() - offset < FIXED_LENGTH) {
            throw new MalformedFrameException("request of " + (buf.writerIndex() - offset)
                    + " bytes is shorter than the " + FIXED_LENGTH + "-byte request header");
        }
        this.buf = buf;
        this.offset = offset;
        this.length = -1;
        return this;
    }

    /** Wraps the readable bytes of a frame body. Borrows. */
    public RequestHeaderView wrap(ByteBuf frame) {
        return wrap(frame, frame.readerIndex());
    }

    public static short apiKey(ByteBuf buf, int offset) {
        return buf.getShort(offset + API_KEY_OFFSET);
    }

    public static short apiVersion(ByteBuf buf, int offset) {
        return buf.getShort(offset + API_VERSION_OFFSET);
    }

    public static int correlationId(ByteBuf buf, int offset) {
        return buf.getInt(offset + CORRELATION_ID_OFFSET);
    }

    public short apiKey() {
        return apiKey(buf, offset);
    }

    public short apiVersion() {
        return apiVersion(buf, offset);
    }

    public int correlationId() {
        return correlationId(buf, offset);
    }

    /** Patches the correlation id in place (outside any CRC: safe to rewrite). */
    public RequestHeaderView correlationId(int correlationId) {
        buf.setInt(offset + CORRELATION_ID_OFFSET, correlationId);
        return this;
    }

    /** Header version (1 or 2) for this key/version, or {@link ApiKeyTable#UNSUPPORTED}. */
    public byte headerVersion() {
        return ApiKeyTable.requestHeaderVersion(apiKey(), apiVersion());
    }

    public boolean isSupported() {
        return headerVersion() != ApiKeyTable.UNSUPPORTED;
    }

    /** Length of the client id, or -1 when it is null. */
    public int clientIdLength() {
        return buf.getShort(offset + CLIENT_ID_LENGTH_OFFSET);
    }

    /** The client id as a String (allocates: for logs and the cold path), or null. */
    public String clientId() {
        int len = clientIdLength();
        if (len == -1) {
            return null;
        }
        if (len < -1) { // headerLength() refuses it too: keep both readings of the header in agreement
            throw new MalformedFrameException("invalid client_id length " + len);
        }
        if (buf.writerIndex() - offset - FIXED_LENGTH < len) {
            throw new MalformedFrameException("client_id of " + len + " bytes runs past the end of the request");
        }
        return buf.toString(offset + FIXED_LENGTH, len, StandardCharsets.UTF_8);
    }

    /**
     * Bytes from the start of the header to the start of the request body.
     *
     * @throws MalformedFrameException when the API version is unsupported (the header layout is then
     *     unknown) or the header is truncated
     */
    public int headerLength() {
        if (length >= 0) {
            return length;
        }
        byte version = headerVersion();
        if (version == ApiKeyTable.UNSUPPORTED) {
            throw new MalformedFrameException("unsupported " + ApiKeyTable.name(apiKey()) + " version "
                    + apiVersion() + ": header layout unknown");
        }
        cursor.wrap(buf, offset + CLIENT_ID_LENGTH_OFFSET, buf.writerIndex());
        cursor.skipString("client_id");
        if (version >= 2) {
            cursor.skipTaggedFields();
        }
        length = cursor.position() - offset;
        return length;
    }

    /** Absolute index in the buffer where the request body starts. */
    public int bodyOffset() {
        return offset + headerLength();
    }

    public int offset() {
        return offset;
    }

    public ByteBuf buffer() {
        return buf;
    }
}
