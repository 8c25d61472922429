package dev.weft.proxy.testing;

import dev.weft.protocol.cold.ColdCodec;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.io.DataInputStream;
import java.io.IOException;
import java.net.Socket;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * A bare Kafka connection for tests that need to control exactly which requests go out and when:
 * requests are built by kafka-clients' message classes and framed by Weft's cold codec.
 */
public final class RawKafkaClient implements AutoCloseable {

    private final Socket socket;
    private final DataInputStream in;

    public RawKafkaClient(String host, int port) throws IOException {
        this(host, port, null);
    }

    /** Connects from {@code sourceAddress} (a loopback address such as 127.0.0.2: one client IP of many), or any when null. */
    public RawKafkaClient(String host, int port, String sourceAddress) throws IOException {
        socket = new Socket();
        if (sourceAddress != null) {
            socket.bind(new java.net.InetSocketAddress(sourceAddress, 0));
        }
        socket.connect(new java.net.InetSocketAddress(host, port), 10_000);
        socket.setSoTimeout(30_000);
        in = new DataInputStream(socket.getInputStream());
    }

    /** Reads with this timeout from now on (a read past it throws {@link java.net.SocketTimeoutException}). */
    public void readTimeout(java.time.Duration timeout) throws IOException {
        socket.setSoTimeout((int) timeout.toMillis());
    }

    /** Connects to a {@code host:port} address such as a proxy's bootstrap address. */
    public static RawKafkaClient connect(String hostPort) throws IOException {
        int colon = hostPort.lastIndexOf(':');
        return new RawKafkaClient(hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1)));
    }

    /** Sends one request (header v1/v2 as the version requires). */
    public void send(short apiKey, short version, int correlationId, ApiMessage body) throws IOException {
        RequestHeaderData header = new RequestHeaderData().setRequestApiKey(apiKey).setRequestApiVersion(version)
                .setCorrelationId(correlationId).setClientId("raw-test-client");
        ByteBuf frame = ColdCodec.writeRequest(UnpooledByteBufAllocator.DEFAULT, header, body);
        try {
            byte[] bytes = new byte[frame.readableBytes()];
            frame.readBytes(bytes);
            socket.getOutputStream().write(bytes);
            socket.getOutputStream().flush();
        } finally {
            frame.release();
        }
    }

    /** Reads the next response frame's body (size prefix removed, header included). */
    public byte[] readFrame() throws IOException {
        byte[] frame = new byte[in.readInt()];
        in.readFully(frame);
        return frame;
    }

    /** Reads the next response: checks its correlation id and decodes the body at {@code version}. */
    public ApiMessage readResponse(short apiKey, short version, int expectedCorrelationId) throws IOException {
        ByteBuf buf = Unpooled.wrappedBuffer(readFrame());
        int correlationId = buf.readInt();
        if (correlationId != expectedCorrelationId) {
            throw new AssertionError("correlation id " + correlationId + ", expected " + expectedCorrelationId);
        }
        if (ApiKeys.forId(apiKey).responseHeaderVersion(version) >= 1) {
            buf.readByte(); // no tagged fields in the response header
        }
        return ColdCodec.readResponseBody(apiKey, version, buf);
    }

    /** -1 once the peer has closed the connection. */
    public int read() throws IOException {
        return in.read();
    }

    /** A Fetch v12 for partition 0 of {@code topic} at offset 0 that waits up to {@code maxWaitMs} for one byte. */
    public static FetchRequestData longPoll(String topic, int maxWaitMs) {
        return new FetchRequestData()
                .setReplicaId(-1).setMaxWaitMs(maxWaitMs).setMinBytes(1).setMaxBytes(1 << 20)
                .setIsolationLevel((byte) 0).setSessionId(0).setSessionEpoch(-1)
                .setTopics(java.util.List.of(new FetchRequestData.FetchTopic().setTopic(topic).setPartitions(java.util.List.of(
                        new FetchRequestData.FetchPartition().setPartition(0).setFetchOffset(0)
                                .setPartitionMaxBytes(1 << 20).setCurrentLeaderEpoch(-1).setLogStartOffset(-1)))));
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
