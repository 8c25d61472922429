package dev.weft.proxy.exchange;

import dev.weft.protocol.ApiKeyTable;
import dev.weft.protocol.cold.ColdCodec;
import dev.weft.protocol.frame.KafkaFrameDecoder;
import dev.weft.protocol.header.ResponseHeaderView;
import dev.weft.proxy.upstream.UpstreamLink;
import dev.weft.routing.plan.Answer;
import dev.weft.routing.plan.Part;
import io.netty.buffer.ByteBuf;
import java.util.function.Consumer;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;

/** One cold-path request to one broker and its decoded answer (kafka-clients' message classes). */
public final class ColdExchange {

    private static final int PREFIX = KafkaFrameDecoder.SIZE_PREFIX_BYTES;

    private ColdExchange() {
    }

    /**
     * Writes one part to a link and decodes its answer for {@code done}; an answer of NOT_COORDINATOR or
     * COORDINATOR_NOT_AVAILABLE to a part sent to {@code coordinatedGroup}'s coordinator (null: none)
     * forgets the cached coordinator. Does not flush the link.
     */
    public static void send(ExchangeHost host, UpstreamLink link, Part part, String clientId, Consumer<Answer> done,
            String coordinatedGroup) {
        RequestHeaderData h = new RequestHeaderData()
                .setRequestApiKey(part.apiKey())
                .setRequestApiVersion(part.version())
                .setClientId(clientId)
                .setCorrelationId(0);
        ByteBuf out = ColdCodec.writeRequest(host.alloc(), h, part.body());
        // counted per broker (weft_upstream_requests_total); weft_requests_total counts client requests
        link.send(out, new UpstreamLink.Exchange() {
            @Override
            public void onResponse(ByteBuf response, int tag) {
                Answer answer;
                try {
                    AbstractResponse parsed = parse(response, part);
                    if (coordinatedGroup != null && (parsed.errorCounts().containsKey(Errors.NOT_COORDINATOR)
                            || parsed.errorCounts().containsKey(Errors.COORDINATOR_NOT_AVAILABLE))) {
                        host.cacheCoordinator(part.route(), coordinatedGroup, null);
                    }
                    answer = Answer.of(parsed.data());
                } catch (RuntimeException e) {
                    answer = Answer.failed(Errors.UNKNOWN_SERVER_ERROR, link.name() + " sent a " + ApiKeyTable.name(part.apiKey())
                            + " v" + part.version() + " response that does not parse: " + e.getMessage());
                } finally {
                    response.release();
                }
                done.accept(answer);
            }

            @Override
            public void onFailure(Errors error, String reason, int tag) {
                if (coordinatedGroup != null) {
                    host.cacheCoordinator(part.route(), coordinatedGroup, null);
                }
                done.accept(Answer.failed(error, reason));
            }
        });
    }

    static AbstractResponse parse(ByteBuf response, Part part) {
        return parse(response, part.apiKey(), part.version());
    }

    /** A response frame (size prefix included; borrowed) to a request of {@code apiKey} v{@code version}. */
    static AbstractResponse parse(ByteBuf response, short apiKey, short version) {
        int headerStart = response.readerIndex() + PREFIX;
        int bodyStart = headerStart + new ResponseHeaderView().wrap(response, headerStart).headerLength(apiKey, version);
        // Copied out of the frame: cold-path responses hold no records, and the frame is released at once.
        byte[] body = new byte[response.writerIndex() - bodyStart];
        response.getBytes(bodyStart, body);
        return AbstractResponse.parseResponse(ApiKeys.forId(apiKey),
                new ByteBufferAccessor(java.nio.ByteBuffer.wrap(body)), version);
    }

}
