package dev.weft.protocol.skim;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import java.nio.ByteBuffer;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * kafka-clients as the oracle for the skim tests: serializes {@code *Data} messages with their header
 * into pooled direct buffers exactly as they arrive from {@code KafkaFrameDecoder} (size prefix
 * removed), and parses the frames the builders produce (size prefix included) back into {@code *Data}.
 */
public final class SkimFrames {

    public static final ByteBufAllocator ALLOC = PooledByteBufAllocator.DEFAULT;

    private SkimFrames() {
    }

    /** A request frame body (header + message, no size prefix) in a pooled direct buffer; caller releases. */
    public static ByteBuf request(ApiKeys key, short version, int correlationId, String clientId, ApiMessage body) {
        RequestHeaderData header = new RequestHeaderData()
                .setRequestApiKey(key.id).setRequestApiVersion(version)
                .setCorrelationId(correlationId).setClientId(clientId);
        return write(header, key.requestHeaderVersion(version), body, version);
    }

    /** A response frame body (header + message, no size prefix) in a pooled direct buffer; caller releases. */
    public static ByteBuf response(ApiKeys key, short version, int correlationId, ApiMessage body) {
        ResponseHeaderData header = new ResponseHeaderData().setCorrelationId(correlationId);
        return write(header, key.responseHeaderVersion(version), body, version);
    }

    private static ByteBuf write(ApiMessage header, short headerVersion, ApiMessage body, short version) {
        ObjectSerializationCache cache = new ObjectSerializationCache();
        int size = header.size(cache, headerVersion) + body.size(cache, version);
        ByteBuffer bytes = ByteBuffer.allocate(size);
        ByteBufferAccessor accessor = new ByteBufferAccessor(bytes);
        header.write(accessor, cache, headerVersion);
        body.write(accessor, cache, version);
        bytes.flip();
        ByteBuf frame = ALLOC.directBuffer(size);
        frame.writeBytes(bytes);
        return frame;
    }

    /** Copies a built frame's bytes out (test-side only), checking and removing its size prefix. Borrows. */
    public static ByteBuffer body(ByteBuf frame) {
        byte[] bytes = new byte[frame.readableBytes()];
        frame.getBytes(frame.readerIndex(), bytes);
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        int size = buffer.getInt();
        assertEquals(bytes.length - 4, size, "size prefix");
        return buffer.slice();
    }

    public record Request(RequestHeaderData header, ByteBufferAccessor body) {
    }

    /** Reads the header of a built request frame (size prefix included); the body accessor follows it. */
    public static Request parseRequest(ByteBuf frame, ApiKeys key, short version) {
        ByteBufferAccessor accessor = new ByteBufferAccessor(body(frame));
        RequestHeaderData header = new RequestHeaderData(accessor, key.requestHeaderVersion(version));
        return new Request(header, accessor);
    }

    public record Response(ResponseHeaderData header, ByteBufferAccessor body) {
    }

    /** Reads the header of a built response frame (size prefix included); the body accessor follows it. */
    public static Response parseResponse(ByteBuf frame, ApiKeys key, short version) {
        ByteBufferAccessor accessor = new ByteBufferAccessor(body(frame));
        ResponseHeaderData header = new ResponseHeaderData(accessor, key.responseHeaderVersion(version));
        return new Response(header, accessor);
    }

    /** Asserts the accessor was read to its end: the built frame has no stray bytes. */
    public static void assertConsumed(ByteBufferAccessor accessor) {
        assertEquals(0, accessor.remaining(), "bytes left after the message");
    }
}
