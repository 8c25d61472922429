package dev.weft.proxy.resilience;

import dev.weft.protocol.ApiKeyTable;
import dev.weft.protocol.cold.ColdCodec;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/** Raw Kafka frames for tests that talk to the proxy over plain sockets. */
final class KafkaWire {

    static final short API_VERSIONS_VERSION = 3;

    private KafkaWire() {
    }

    /** A complete request frame (size prefix included) built with kafka-clients' message classes. */
    static byte[] request(ApiKeys api, short version, int correlationId, String clientId, ApiMessage body) {
        RequestHeaderData header = new RequestHeaderData()
                .setRequestApiKey(api.id)
                .setRequestApiVersion(version)
                .setCorrelationId(correlationId)
                .setClientId(clientId);
        ByteBuf frame = ColdCodec.writeRequest(UnpooledByteBufAllocator.DEFAULT, header, body);
        try {
            byte[] out = new byte[frame.readableBytes()];
            frame.readBytes(out);
            return out;
        } finally {
            frame.release();
        }
    }

    /** ApiVersions v3, as kafka-clients sends it first on every connection. */
    static byte[] apiVersionsRequest(int correlationId) {
        return request(ApiKeys.API_VERSIONS, API_VERSIONS_VERSION, correlationId, "weft-resilience",
                new ApiVersionsRequestData().setClientSoftwareName("weft-resilience").setClientSoftwareVersion("1.0"));
    }

    /** Reads one response frame body (size prefix removed); throws {@link EOFException} at end of stream. */
    static byte[] readFrame(InputStream in) throws IOException {
        DataInputStream data = new DataInputStream(in);
        int size = data.readInt();
        if (size < 0 || size > 64 << 20) {
            throw new IOException("implausible response size " + size);
        }
        byte[] body = new byte[size];
        data.readFully(body);
        return body;
    }

    static int correlationId(byte[] responseBody) {
        return ByteBuffer.wrap(responseBody).getInt(0);
    }

    /**
     * Checks an ApiVersions v3 response frame body (header v0: correlation id only): the expected
     * correlation id, no error, and the APIs every client needs. Returns the parsed message.
     *
     * @throws AssertionError naming what is wrong
     */
    static ApiVersionsResponseData checkApiVersionsResponse(byte[] body, int expectedCorrelationId) {
        int correlationId = correlationId(body);
        if (correlationId != expectedCorrelationId) {
            throw new AssertionError("ApiVersions answered with correlation id " + correlationId + ", expected "
                    + expectedCorrelationId);
        }
        ByteBuf buf = Unpooled.wrappedBuffer(body, 4, body.length - 4);
        try {
            ApiVersionsResponseData data = (ApiVersionsResponseData) ColdCodec.readResponseBody(
                    ApiKeys.API_VERSIONS.id, API_VERSIONS_VERSION, buf);
            if (data.errorCode() != Errors.NONE.code()) {
                throw new AssertionError("ApiVersions error " + Errors.forCode(data.errorCode()));
            }
            for (ApiKeys needed : new ApiKeys[] {ApiKeys.PRODUCE, ApiKeys.FETCH, ApiKeys.METADATA, ApiKeys.API_VERSIONS}) {
                if (data.apiKeys().find(needed.id) == null) {
                    throw new AssertionError("ApiVersions response lacks " + needed + ": " + data);
                }
            }
            return data;
        } finally {
            buf.release();
        }
    }

    /**
     * Parses a response frame body (size prefix removed) to {@code api} at {@code version}; assumes a
     * response header without tagged fields, as brokers send.
     */
    static ApiMessage parseResponse(ApiKeys api, short version, byte[] body) {
        int headerLength = 4 + (ApiKeyTable.responseHeaderVersion(api.id, version) >= 1 ? 1 : 0);
        ByteBuf buf = Unpooled.wrappedBuffer(body, headerLength, body.length - headerLength);
        try {
            return ColdCodec.readResponseBody(api.id, version, buf);
        } finally {
            buf.release();
        }
    }

    static InetSocketAddress address(String hostPort) {
        int colon = hostPort.lastIndexOf(':');
        return new InetSocketAddress(hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1)));
    }
}
