package dev.weft.protocol.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import org.apache.kafka.common.network.Send;
import org.apache.kafka.common.network.TransferableChannel;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Message;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.protocol.SendBuilder;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.ResponseHeader;

/**
 * The oracle's side of the wire: the exact bytes kafka-clients puts on a socket for a request or a
 * response, size prefix included, produced by the same {@link SendBuilder} its network client and the
 * broker use (records go out zero-copy as separate buffers there; here they land in one array).
 */
public final class KafkaWire {

    private KafkaWire() {
    }

    /** A whole request frame as a Kafka client sends it. */
    public static byte[] requestFrame(RequestHeader header, ApiMessage body) {
        return drain(SendBuilder.buildRequestSend(header, body));
    }

    /** A whole response frame as a Kafka broker sends it. */
    public static byte[] responseFrame(ResponseHeader header, ApiMessage body, short apiVersion) {
        return drain(SendBuilder.buildResponseSend(header, body, apiVersion));
    }

    /** One message (a header or a body) serialized alone by its generated class. */
    public static byte[] bytes(Message message, short version) {
        ByteBuffer buffer = MessageUtil.toByteBufferAccessor(message, version).buffer();
        byte[] bytes = new byte[buffer.remaining()];
        buffer.get(bytes);
        return bytes;
    }

    private static byte[] drain(Send send) {
        ArrayChannel channel = new ArrayChannel(Math.toIntExact(send.size()));
        try {
            while (!send.completed()) {
                send.writeTo(channel);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (channel.position != channel.bytes.length) {
            throw new AssertionError("Send of " + send.size() + " bytes wrote " + channel.position);
        }
        return channel.bytes;
    }

    /** A gathering channel into a fixed array: what a socket would have received. */
    private static final class ArrayChannel implements TransferableChannel {
        final byte[] bytes;
        int position;

        ArrayChannel(int size) {
            this.bytes = new byte[size];
        }

        @Override
        public int write(ByteBuffer src) {
            int n = src.remaining();
            src.get(bytes, position, n);
            position += n;
            return n;
        }

        @Override
        public long write(ByteBuffer[] srcs, int offset, int length) {
            long n = 0;
            for (int i = offset; i < offset + length; i++) {
                n += write(srcs[i]);
            }
            return n;
        }

        @Override
        public long write(ByteBuffer[] srcs) {
            return write(srcs, 0, srcs.length);
        }

        @Override
        public boolean hasPendingWrites() {
            return false;
        }

        @Override
        public long transferFrom(FileChannel fileChannel, long position, long count) {
            throw new UnsupportedOperationException("no file-backed records in these tests");
        }

        @Override
        public boolean isOpen() {
            return true;
        }

        @Override
        public void close() {
        }
    }
}
