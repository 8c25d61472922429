package dev.weft.protocol.cold;

import dev.weft.protocol.ApiKeyTable;
import dev.weft.protocol.frame.KafkaFrameDecoder;
import dev.weft.protocol.header.ResponseHeaderView;
import dev.weft.protocol.wire.MalformedFrameException;
import dev.weft.protocol.wire.TrailingRequestBytes;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.ByteBuffer;
import org.apache.kafka.common.message.ApiMessageType;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Message;
import org.apache.kafka.common.protocol.ObjectSerializationCache;

/**
 * The cold path: decodes and re-encodes any request or response body through kafka-clients'
 * generated {@code *Data} classes, for the APIs that are not skimmed (everything but Produce and
 * Fetch) and that the proxy must read or rewrite: Metadata, FindCoordinator, DescribeCluster, its own
 * Metadata requests to upstream brokers, locally answered ApiVersions.
 *
 * <p>Reading wraps the Netty buffer in a {@link ByteBuffer} view ({@link ByteBuf#nioBuffer(int, int)}
 * is a view, not a copy, for any buffer with one NIO component: pooled, unpooled, slices) and lets the
 * generated reader walk it. Writing sizes the whole frame first (one {@link ObjectSerializationCache}
 * shared by sizing and writing, as kafka-clients does), allocates it once and writes it once.
 *
 * <p>Unknown tagged fields survive a round trip: the generated classes keep them and write them back
 * in place. Bytes are identical to kafka-clients' own serialization (see {@code ColdCodecOracleTest}).
 *
 * <p>Bytes after the message: a request may have them and is read anyway, as the broker reads it
 * (kafka-clients' {@code RequestContext.parseRequest} parses the message and never checks what is left
 * of the buffer); they are dropped, as the broker drops them, and counted in
 * {@link TrailingRequestBytes}. librdkafka 2.x sends 3 such bytes in every all-topics Metadata v9+
 * request. A response must have none: it comes from a broker, which writes exactly the message, and
 * the ApiVersions v0 fallback below relies on an exact read.
 *
 * <p>Errors: a body that does not parse as what its key and version claim (truncated, lying lengths),
 * or a response with bytes left over, is a {@link MalformedFrameException} naming the API, version,
 * direction, size and what failed, with kafka-clients' exception as the cause. A message that cannot
 * be written at the requested version is the caller's mistake: {@link IllegalArgumentException}.
 */
public final class ColdCodec {

    /** A v1 response header's tagged-field section when it is empty: a zero count. */
    private static final byte NO_TAGGED_FIELDS = 0;
    private static final short API_VERSIONS = ApiKeys.API_VERSIONS.id;

    private ColdCodec() {
    }

    /**
     * Reads a request header (v1 or v2, per {@link ApiKeyTable}) at the reader index of a frame body
     * (size prefix already removed). <em>Borrows</em> {@code frame}; its indexes do not move. Unknown
     * header tagged fields are kept in {@link RequestHeaderData#unknownTaggedFields()}.
     *
     * @throws MalformedFrameException when the key/version is unsupported or the header is truncated
     */
    public static RequestHeaderData readRequestHeader(ByteBuf frame) {
        int length = frame.readableBytes();
        if (length < 4) {
            throw new MalformedFrameException("request of " + length + " bytes is too short for api_key and api_version");
        }
        short apiKey = frame.getShort(frame.readerIndex());
        short version = frame.getShort(frame.readerIndex() + 2);
        byte headerVersion = ApiKeyTable.requestHeaderVersion(apiKey, version);
        if (headerVersion == ApiKeyTable.UNSUPPORTED) {
            throw new MalformedFrameException("unsupported " + ApiKeyTable.name(apiKey) + " version " + version
                    + ": request header layout unknown");
        }
        RequestHeaderData header = new RequestHeaderData();
        ByteBufferAccessor accessor = new ByteBufferAccessor(view(frame));
        try {
            header.read(accessor, headerVersion);
        } catch (RuntimeException e) {
            throw new MalformedFrameException(ApiKeyTable.name(apiKey) + " v" + version + " request header (v"
                    + headerVersion + ", frame of " + length + " bytes) does not parse: " + e, e);
        }
        return header;
    }

    /**
     * Reads a request body: the message at the start of the readable bytes of {@code body}, as
     * {@code apiKey} at {@code version}. <em>Borrows</em> {@code body}; its indexes do not move.
     *
     * <p>Bytes after the message are ignored, as the broker ignores them, and counted in
     * {@link TrailingRequestBytes}: re-encoding the message does not carry them on.
     *
     * <p>The returned message may share memory with {@code body}: records fields (Produce) and
     * zero-copy bytes fields are views, not copies. Keep {@code body} retained while such a message is
     * in use; strings, arrays and numbers are copied out.
     *
     * @throws MalformedFrameException when the key/version is unsupported or the body does not parse
     *     (it ends before the message does, or a length or count in it is invalid)
     */
    public static ApiMessage readRequestBody(short apiKey, short version, ByteBuf body) {
        return readBody(Direction.REQUEST, apiKey, version, body);
    }

    /**
     * Reads a response body: exactly the readable bytes of {@code body}, as the response to
     * {@code apiKey} at {@code version} (the request's, matched by correlation id). <em>Borrows</em>
     * {@code body}; its indexes do not move. Same memory sharing as {@link #readRequestBody}: Fetch and
     * FetchSnapshot records are views into {@code body}.
     *
     * <p>One exception to "the request's version", as in kafka-clients' {@code ApiVersionsResponse.parse}:
     * a broker answers an ApiVersions request newer than it knows with a <em>v0</em> body carrying
     * UNSUPPORTED_VERSION and its own version ranges. So an ApiVersions body that does not parse at
     * {@code version} is read again as v0, and returned if that reads exactly.
     *
     * @throws MalformedFrameException when the key/version is unsupported, the body does not parse, or
     *     bytes are left over after the message
     */
    public static ApiMessage readResponseBody(short apiKey, short version, ByteBuf body) {
        try {
            return readBody(Direction.RESPONSE, apiKey, version, body);
        } catch (MalformedFrameException e) {
            if (apiKey != API_VERSIONS || version == 0 || !ApiKeyTable.isSupported(apiKey, version)) {
                throw e;
            }
            try {
                return readBody(Direction.RESPONSE, apiKey, (short) 0, body);
            } catch (MalformedFrameException asV0) {
                e.addSuppressed(asV0);
                throw e;
            }
        }
    }

    /**
     * Encodes a complete request frame: 4-byte size prefix, request header (v1 or v2 as the API version
     * requires, with the header's unknown tagged fields), body. The API key and version are the
     * header's; the body must be a message of that key.
     *
     * @return a new buffer holding exactly the frame, <em>returned retained</em>: the caller owns it
     * @throws IllegalArgumentException when the header and body disagree on the API key, the version is
     *     unsupported, or the message has content that cannot be written at that version
     */
    public static ByteBuf writeRequest(ByteBufAllocator alloc, RequestHeaderData header, ApiMessage body) {
        short apiKey = header.requestApiKey();
        short version = header.requestApiVersion();
        if (body.apiKey() != apiKey) {
            throw new IllegalArgumentException("request header is for " + ApiKeyTable.name(apiKey) + " but the body is a "
                    + ApiKeyTable.name(body.apiKey()) + " message");
        }
        byte headerVersion = ApiKeyTable.requestHeaderVersion(apiKey, version);
        if (headerVersion == ApiKeyTable.UNSUPPORTED) {
            throw new IllegalArgumentException("cannot write " + ApiKeyTable.name(apiKey) + " v" + version
                    + " request: unsupported version");
        }
        ObjectSerializationCache cache = new ObjectSerializationCache();
        int headerSize = sizeOf(header, headerVersion, cache, apiKey, version, "request header");
        int bodySize = sizeOf(body, version, cache, apiKey, version, "request");
        ByteBuf frame = alloc.ioBuffer(KafkaFrameDecoder.SIZE_PREFIX_BYTES + headerSize + bodySize);
        try {
            frame.writeInt(headerSize + bodySize);
            write(frame, header, headerVersion, headerSize, cache, apiKey, version, "request header");
            write(frame, body, version, bodySize, cache, apiKey, version, "request");
            return frame;
        } catch (Throwable t) {
            frame.release();
            throw t;
        }
    }

    /**
     * Encodes a complete response frame: 4-byte size prefix, response header (v0, or v1 with an empty
     * tagged-field section, as the API version requires; ApiVersions is always v0), body.
     *
     * @param version the version of the request this answers, which the body is written at
     * @return a new buffer holding exactly the frame, <em>returned retained</em>: the caller owns it
     * @throws IllegalArgumentException when the version is unsupported or the message has content that
     *     cannot be written at that version
     */
    public static ByteBuf writeResponse(ByteBufAllocator alloc, int correlationId, short version, ApiMessage body) {
        short apiKey = body.apiKey();
        byte headerVersion = ApiKeyTable.responseHeaderVersion(apiKey, version);
        if (headerVersion == ApiKeyTable.UNSUPPORTED) {
            throw new IllegalArgumentException("cannot write " + ApiKeyTable.name(apiKey) + " v" + version
                    + " response: unsupported version");
        }
        int headerSize = ResponseHeaderView.FIXED_LENGTH + (headerVersion >= 1 ? 1 : 0);
        ObjectSerializationCache cache = new ObjectSerializationCache();
        int bodySize = sizeOf(body, version, cache, apiKey, version, "response");
        ByteBuf frame = alloc.ioBuffer(KafkaFrameDecoder.SIZE_PREFIX_BYTES + headerSize + bodySize);
        try {
            frame.writeInt(headerSize + bodySize);
            frame.writeInt(correlationId);
            if (headerVersion >= 1) {
                frame.writeByte(NO_TAGGED_FIELDS);
            }
            write(frame, body, version, bodySize, cache, apiKey, version, "response");
            return frame;
        } catch (Throwable t) {
            frame.release();
            throw t;
        }
    }

    private enum Direction {
        /** Bytes after the message are ignored and counted, as the broker ignores them. */
        REQUEST("request", true),
        /** Bytes after the message are malformed: a broker writes exactly the message. */
        RESPONSE("response", false);

        final String label;
        final boolean trailingBytesAllowed;

        Direction(String label, boolean trailingBytesAllowed) {
            this.label = label;
            this.trailingBytesAllowed = trailingBytesAllowed;
        }
    }

    private static ApiMessage readBody(Direction direction, short apiKey, short version, ByteBuf body) {
        if (!ApiKeyTable.isSupported(apiKey, version)) {
            throw new MalformedFrameException("unsupported " + ApiKeyTable.name(apiKey) + " version " + version
                    + ": cannot read " + direction.label + " body");
        }
        ApiMessageType type = ApiMessageType.fromApiKey(apiKey);
        ApiMessage message = direction == Direction.REQUEST ? type.newRequest() : type.newResponse();
        int length = body.readableBytes();
        ByteBufferAccessor accessor = new ByteBufferAccessor(view(body));
        try {
            message.read(accessor, version);
        } catch (RuntimeException e) {
            throw new MalformedFrameException(describe(direction, apiKey, version, length) + " does not parse: " + e, e);
        }
        int left = accessor.remaining();
        if (left != 0) {
            if (direction.trailingBytesAllowed) {
                // What the broker does too (RequestContext.parseRequest): the message is what the
                // version's layout reads; what follows it is not part of the request.
                TrailingRequestBytes.record(apiKey, left);
            } else {
                throw new MalformedFrameException(describe(direction, apiKey, version, length) + " has " + left
                        + " bytes left over after the message (" + (length - left) + " read)");
            }
        }
        return message;
    }

    private static String describe(Direction direction, short apiKey, short version, int length) {
        return ApiKeyTable.name(apiKey) + " v" + version + " " + direction.label + " body of " + length + " bytes";
    }

    /** The readable bytes as a ByteBuffer positioned at 0: a view when the buffer has one NIO component. */
    private static ByteBuffer view(ByteBuf buf) {
        return buf.nioBuffer(buf.readerIndex(), buf.readableBytes());
    }

    private static int sizeOf(Message message, short messageVersion, ObjectSerializationCache cache,
                              short apiKey, short apiVersion, String what) {
        try {
            return message.size(cache, messageVersion);
        } catch (RuntimeException e) {
            throw cannotWrite(apiKey, apiVersion, what, e);
        }
    }

    private static IllegalArgumentException cannotWrite(short apiKey, short apiVersion, String what, RuntimeException cause) {
        return new IllegalArgumentException("cannot write " + ApiKeyTable.name(apiKey) + " v" + apiVersion + " " + what
                + ": " + cause.getMessage(), cause);
    }

    /**
     * Writes {@code message} at the writer index through a ByteBuffer view of exactly {@code size}
     * bytes, then moves the writer index past it. The frame was allocated with room for it.
     * Generated writers refuse some content only here, not while sizing ("Attempted to write a
     * non-default X at version N"): that is the caller's message, hence IllegalArgumentException.
     */
    private static void write(ByteBuf frame, Message message, short version, int size, ObjectSerializationCache cache,
                              short apiKey, short apiVersion, String what) {
        if (frame.nioBufferCount() != 1) {
            // nioBuffer() of a multi-component buffer is a copy: what we wrote would be lost.
            throw new IllegalStateException("allocator returned a " + frame.getClass().getSimpleName()
                    + " with " + frame.nioBufferCount() + " NIO components; need exactly one");
        }
        ByteBuffer target = frame.nioBuffer(frame.writerIndex(), size);
        try {
            message.write(new ByteBufferAccessor(target), cache, version);
        } catch (RuntimeException e) {
            throw cannotWrite(apiKey, apiVersion, what, e);
        }
        if (target.position() != size) {
            throw new IllegalStateException(message.getClass().getSimpleName() + " v" + version + " sized itself at "
                    + size + " bytes but wrote " + target.position());
        }
        frame.writerIndex(frame.writerIndex() + size);
    }
}
