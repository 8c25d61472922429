package dev.weft.proxy.security;

import dev.weft.protocol.ApiKeyTable;
import dev.weft.protocol.cold.ColdCodec;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * What the SASL handler tests share: an {@link EmbeddedChannel} with the handler and a peer address
 * (the failure limit counts per address), request frames as a client writes them, answers read back.
 */
final class SaslWire {

    private int correlationId;

    /** A channel with {@code settings}' handler, its peer at {@code peerHost}. */
    static EmbeddedChannel channel(SaslTerminationSettings settings, String peerHost) {
        return new EmbeddedChannel(new SaslTermination(settings, "bootstrap of 'main'")) {
            @Override
            protected SocketAddress remoteAddress0() {
                return new InetSocketAddress(peerHost, 40000);
            }
        };
    }

    /** A request frame (size prefix included), with the next correlation id. */
    ByteBuf request(ApiMessage body, short version) {
        RequestHeaderData header = new RequestHeaderData().setRequestApiKey(body.apiKey()).setRequestApiVersion(version)
                .setCorrelationId(++correlationId).setClientId("test");
        return ColdCodec.writeRequest(ByteBufAllocator.DEFAULT, header, body);
    }

    /** The next answer the handler wrote, decoded (and released). */
    static ApiMessage answer(EmbeddedChannel ch, short apiKey, short version) {
        ByteBuf frame = ch.readOutbound();
        try {
            // size prefix (4), correlation id (4), then a tagged-field byte for flexible versions
            int headerBytes = 4 + 4 + (ApiKeyTable.responseHeaderVersion(apiKey, version) >= 1 ? 1 : 0);
            ByteBuf body = frame.slice(frame.readerIndex() + headerBytes, frame.readableBytes() - headerBytes);
            return ColdCodec.readResponseBody(apiKey, version, body);
        } finally {
            frame.release();
        }
    }
}
