package dev.weft.testkit;

import java.io.DataInputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.List;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * Asks ONE broker, over a plaintext socket, whether it knows a topic with a leader for every
 * partition. An Admin client asks whichever broker it likes, so a topic it reports as created may still
 * be unknown to another broker for a moment; tests that go straight on to use the topic through any
 * broker need every broker to know it.
 */
final class BrokerMetadataProbe {

    private static final short VERSION = 12;

    private BrokerMetadataProbe() {
    }

    /** True when the broker at {@code hostPort} reports {@code topic} with {@code partitions} led partitions. */
    static boolean knows(String hostPort, String topic, int partitions) {
        int colon = hostPort.lastIndexOf(':');
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1))), 5_000);
            socket.setSoTimeout(5_000);
            RequestHeader header = new RequestHeader(ApiKeys.METADATA, VERSION, "weft-testkit-probe", 1);
            MetadataRequest request = new MetadataRequest(new MetadataRequestData().setTopics(List.of(
                    new MetadataRequestData.MetadataRequestTopic().setName(topic))).setAllowAutoTopicCreation(false), VERSION);
            ByteBuffer body = request.serializeWithHeader(header);
            ByteBuffer frame = ByteBuffer.allocate(4 + body.remaining()).putInt(body.remaining()).put(body).flip();
            socket.getOutputStream().write(frame.array(), 0, frame.limit());
            DataInputStream in = new DataInputStream(socket.getInputStream());
            byte[] response = new byte[in.readInt()];
            in.readFully(response);
            ByteBuffer buf = ByteBuffer.wrap(response);
            buf.getInt(); // correlation id
            buf.get(); // empty tagged fields of response header v1
            MetadataResponseData data = MetadataResponse.parse(new org.apache.kafka.common.protocol.ByteBufferAccessor(buf), VERSION).data();
            MetadataResponseData.MetadataResponseTopic t = data.topics().find(topic);
            return t != null && t.errorCode() == Errors.NONE.code() && t.partitions().size() == partitions
                    && t.partitions().stream().allMatch(p -> p.leaderId() >= 0);
        } catch (IOException | RuntimeException e) {
            return false; // not reachable or not ready: ask again
        }
    }
}
